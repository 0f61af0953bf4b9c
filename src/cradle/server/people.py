"""People between games: each signed-in page's live connection (``/ws/me``), who is online, and
what an account is told at once: a friend's request or invitation (its inbox changed), and that
its session ended (its password was changed or reset elsewhere, or it signed out).

An account is *online* while one of its pages holds its live connection: each process writes
the time into ``accounts.seen`` for the accounts it has connections of, every
:data:`SEEN_SECONDS`, and friends see an account online while that time is within
:data:`ONLINE_SECONDS`. What an account is told goes to its connections on this process at
once, and to the other processes through the database's notices (``account ID WHAT ORIGIN``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass

from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.errors import DATABASE_ERRORS
from cradle.server.table import Connection

log = logging.getLogger("cradle.server")

SEEN_SECONDS = 30.0  # how often a process writes down the accounts it has connections of
ONLINE_SECONDS = 75.0  # an account is online while it was seen this recently
# What an account is told: its inbox changed (a friend's request, an answer, an invitation),
# or its sessions changed (one ended: each connection checks its own).
TELLINGS = ("inbox", "sessions")


def online(seen: float | None, now: float) -> bool:
    return seen is not None and now - seen <= ONLINE_SECONDS


@dataclass(eq=False)
class AccountSocket:
    """A signed-in page's live connection: its account, its session (the cookie's hash) and
    the connection its frames are queued on."""

    account: str
    session: str
    connection: Connection


class People:
    """The signed-in pages' connections on this process, and what their accounts are told."""

    def __init__(self, store: Store, runtime: Runtime) -> None:
        self.store = store
        self.runtime = runtime
        self.sockets: dict[str, set[AccountSocket]] = {}

    def attach(self, socket: AccountSocket) -> None:
        first = socket.account not in self.sockets
        self.sockets.setdefault(socket.account, set()).add(socket)
        if first:  # online at once, not at the next round
            self.runtime.spawn(self._seen([socket.account]))

    def detach(self, socket: AccountSocket) -> None:
        found = self.sockets.get(socket.account)
        if found is None:
            return
        found.discard(socket)
        if not found:
            del self.sockets[socket.account]

    async def tell(self, account: str, what: str) -> None:
        """Tell ``account``'s pages, here and (through the database) on every process; done
        when its pages here were told."""
        if self.store.shared:
            try:
                await self.runtime.db(
                    self.store.database.announce, f"account {account} {what} {self.store.origin}"
                )
            except DATABASE_ERRORS as exc:
                log.warning("account %s was not told %s elsewhere: %s", account, what, exc)
        await self._told(account, what)

    def heard(self, payload: str) -> None:
        """Another process's ``account`` notice (``LISTEN``)."""
        words = payload.split(" ")
        if len(words) == 4 and words[0] == "account" and words[3] != self.store.origin:
            self.runtime.spawn(self._told(words[1], words[2]))

    async def _told(self, account: str, what: str) -> None:
        sockets = self.sockets.get(account)
        if not sockets or what not in TELLINGS:
            return
        if what == "inbox":
            for socket in list(sockets):
                socket.connection.push(json.dumps({"type": "inbox"}))
        else:
            await self._check_sessions(list(sockets))

    async def _check_sessions(self, sockets: list[AccountSocket]) -> None:
        """Close each connection whose session ended, saying why."""
        now = time.time()
        for socket in sockets:
            try:
                live = await self.runtime.db(
                    self.store.accounts.account_of_session, socket.session, now
                )
                reason = (
                    None
                    if live
                    else await self.runtime.db(self.store.accounts.ended_reason, socket.session)
                )
            except DATABASE_ERRORS as exc:
                log.warning("a session could not be checked: %s", exc)
                continue
            if live is None:
                frame = {"type": "signed_out", "reason": reason or "signed_out"}
                socket.connection.push(json.dumps(frame))
                socket.connection.close("signed out")

    async def _seen(self, accounts: list[str]) -> None:
        try:
            await self.runtime.db(self.store.friends.seen, accounts, time.time())
        except DATABASE_ERRORS as exc:
            log.warning("who is online was not written: %s", exc)

    async def run(self) -> None:
        """Write down the accounts with connections here, every SEEN_SECONDS."""
        while not self.runtime.closing:
            await asyncio.sleep(SEEN_SECONDS)
            if self.sockets and not self.store.read_only:
                with contextlib.suppress(Exception):
                    await self._seen(sorted(self.sockets))
