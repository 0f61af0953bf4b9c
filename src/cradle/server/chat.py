"""The chat of each table: who may read and write it, what a line may hold, mutes, and pushing
each new line to the table's WebSocket clients on every process.

Players read and write their table's chat; spectators only where the table was created with
``spectator_chat``. A line is plain text (at most :data:`MAX_CHAT_CHARS` characters, no control
characters, nothing invisible: :func:`cradle.server.text.chat_refusal`), stored with the game
before anyone is sent it. What a viewer is shown of a line
goes through one function, :func:`line_for` (the chat's counterpart of
:func:`cradle.server.redact.public_action`): nothing for a viewer who may not read the chat or
who muted the speaker. On PostgreSQL the write sends a ``chat`` notice; every other process
reads that one line and pushes it to its own clients, so each client gets it once.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TypedDict, TypeVar

from cradle.core.words import N_
from cradle.server.errors import forbidden
from cradle.server.messages import ChatMessage
from cradle.server.models import BadInput
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.chat import ChatLine
from cradle.server.store.database import client_hash
from cradle.server.table import Connection, Table
from cradle.server.tables import Tables
from cradle.server.text import chat_refusal

log = logging.getLogger("cradle.server")

T = TypeVar("T")

MAX_CHAT_CHARS = 500  # characters of one line
CHAT_PAGE = 200  # lines one GET answers (the latest)


def clean_text(raw: str) -> str:
    """A line as it is stored: trimmed; BadInput saying why when it is empty, too long, or holds
    what no line may (cradle.server.text.chat_refusal: a control character, a line break or
    separator, a direction override, an invisible character, a pile of combining marks)."""
    words = raw.strip()
    if not words:
        raise BadInput(N_("say something: the line is empty"), "text")
    if len(words) > MAX_CHAT_CHARS:
        raise BadInput(
            N_("a line has at most {max} characters (this one has {count})"),
            "text",
            max=MAX_CHAT_CHARS,
            count=len(words),
        )
    refusal = chat_refusal(words)
    if refusal is not None:
        raise BadInput(refusal.message, "text", **refusal.params)
    return words


@dataclass(frozen=True)
class Viewer:
    """Who reads or writes a table's chat: a seat, the hot-seat screen, or a spectator; and
    the account behind it (a seat's holder, a signed-in spectator), whose mutes follow it
    from table to table. A guest spectator is known by its client (``client``: the key's hash,
    as its spectator number ``v:N`` is found), so its mutes hold at this table for it."""

    seat: int | None
    hotseat: bool = False
    account: str | None = None
    name: str | None = None  # a signed-in spectator's name
    client: str | None = None  # a guest spectator's client key, hashed

    @classmethod
    def at(
        cls,
        table: Table,
        seat: int | None,
        hotseat: bool,
        signed: tuple[str, str] | None = None,
        client: str | None = None,
    ) -> Viewer:
        """The viewer holding ``seat`` (its account's, if one holds it), or a spectator signed
        in as ``signed`` (account id, name), or a guest spectator at ``client`` (its key)."""
        if hotseat:
            return cls(None, True)
        if seat is not None:
            return cls(seat, False, table.accounts.get(seat))
        if signed is not None:
            return cls(None, False, signed[0], signed[1])
        return cls(None, client=None if client is None else client_hash(client))

    @classmethod
    def of(cls, table: Table, connection: Connection) -> Viewer:
        """The viewer behind a WebSocket connection (as it said who it is when it opened)."""
        if connection.seat is None and not connection.hotseat:
            if connection.account is not None:
                return cls(None, account=connection.account)
            return cls(None, client=connection.client)  # already hashed
        return cls.at(table, connection.seat, connection.hotseat)

    def speaker(self) -> str | None:
        """How this viewer's lines are signed (None: a guest spectator, numbered when it writes)."""
        if self.account is not None:
            return f"a:{self.account}"
        return None if self.seat is None else f"s:{self.seat}"

    def key(self, table_id: str) -> str | None:
        """The name this viewer's mutes are stored under (None: it keeps none)."""
        if self.hotseat:
            return None  # one screen for every player: nobody's mutes are its own
        speaker = self.speaker()
        if speaker is not None:
            return qualified(table_id, speaker)
        return None if self.client is None else f"g:{table_id}:c:{self.client}"


def qualified(table_id: str, speaker: str) -> str:
    """A speaker as mutes name it: a seat's or spectator's handle is only unique in its game."""
    return speaker if speaker.startswith("a:") else f"g:{table_id}:{speaker}"


def may_read(table: Table, viewer: Viewer) -> bool:
    return viewer.seat is not None or viewer.hotseat or table.spectator_chat


class ShownLine(TypedDict):
    """A chat line as a client is shown it (``models.ChatLine``)."""

    id: int
    seat: int | None
    speaker: str
    name: str
    text: str
    at: float


class ShownPage(TypedDict):
    """``GET /chat``: the lines a viewer may read and whom it muted (``models.ChatPage``)."""

    lines: list[ShownLine]
    muted: list[str]
    can_write: bool
    spectators: bool
    you: str | None
    names: dict[str, str]


def public_line(line: ChatLine) -> ShownLine:
    return {
        "id": line.id,
        "seat": line.seat,
        "speaker": line.speaker,
        "name": line.name,
        "text": line.text,
        "at": line.created,
    }


def line_for(
    table: Table, line: ChatLine, viewer: Viewer, muted: set[str] | frozenset[str]
) -> ShownLine | None:
    """What ``viewer`` (who muted ``muted``) is shown of ``line``: the one place that decides
    it. None: nothing (it may not read this chat, or it muted the speaker)."""
    if not may_read(table, viewer):
        return None
    if qualified(table.id, line.speaker) in muted:
        return None
    return public_line(line)


MUTED = N_("an operator muted this account: it writes no chat lines")


@dataclass(eq=False)
class Chat:
    """The tables' chat on this process: reading, writing, muting and pushing lines."""

    store: Store
    runtime: Runtime
    tables: Tables
    # Lines go out one after the other, in the order they came (a connection's mutes are read
    # once, which waits on the database: a later line must not overtake meanwhile).
    pushing: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def muted_by(self, table: Table, viewer: Viewer) -> set[str]:
        """Whom ``viewer`` does not hear: its mutes, and the accounts its account blocks."""
        key = viewer.key(table.id)
        muted = set() if key is None else await self.runtime.db(self.store.chat.mutes_of, key)
        return muted | await self.blocked_of(viewer)

    async def blocked_of(self, viewer: Viewer) -> set[str]:
        """The speakers ``viewer``'s account blocks (``a:ID``)."""
        if viewer.account is None:
            return set()
        blocked = await self.runtime.db(self.store.friends.blocked_by, viewer.account)
        return {f"a:{account}" for account in blocked}

    async def lines(self, table: Table, viewer: Viewer, after: int = 0) -> ShownPage:
        """``GET /chat``: the latest lines the viewer may see, and whom it muted."""
        if not may_read(table, viewer):
            raise forbidden(
                N_("this table's chat is for its players (spectators were not invited)")
            )
        muted = await self.muted_by(table, viewer)
        found = await self.runtime.db(self.store.chat.lines, table.id, CHAT_PAGE, after)
        shown = [line_for(table, line, viewer, muted) for line in found]
        prefix = f"g:{table.id}:"
        blocked = await self.blocked_of(viewer)  # not mutes: the friends page lifts them
        handles = sorted(
            key.removeprefix(prefix)
            for key in muted - blocked
            if key.startswith(prefix) or key.startswith("a:")
        )
        # Whom the viewer muted, by name: their lines, which would say it, are not shown.
        names = (
            await self.runtime.db(self.store.chat.speaker_names, table.id, handles)
            if handles
            else {}
        )
        for handle in handles:  # a seat that never wrote here: the name at the seat
            kind, _, number = handle.partition(":")
            if kind == "s" and handle not in names and int(number) < len(table.seats):
                seat = int(number)
                names[handle] = table.names.get(seat) or table.record.players[seat]
        return {
            "lines": [line for line in shown if line is not None],
            "muted": handles,
            "names": names,
            "can_write": self.may_write(table, viewer) is None,
            "spectators": table.spectator_chat,
            "you": await self.own(table, viewer),
        }

    async def own(self, table: Table, viewer: Viewer) -> str | None:
        """The speaker ``viewer``'s own lines are under (None: none yet, or a hot seat)."""
        if viewer.hotseat:
            return None
        speaker = viewer.speaker()
        if speaker is None and viewer.client is not None:  # a guest spectator's number
            speaker = await self.runtime.db(self.store.chat.spectator_of, table.id, viewer.client)
        return speaker

    @staticmethod
    def may_write(table: Table, viewer: Viewer) -> str | None:
        """Why ``viewer`` may not write in the table's chat (None: it may)."""
        if viewer.hotseat:
            return "the players of a hot-seat table share one screen: say it aloud"
        if viewer.seat is None and not table.spectator_chat:
            return "this table's chat is for its players (spectators were not invited)"
        return None

    async def say(self, table: Table, viewer: Viewer, client: str, raw: str) -> ShownLine:
        """``POST /chat``: store the line, then push it to the table's clients here (the other
        processes hear of it from the database)."""
        words = clean_text(raw)
        refusal = self.may_write(table, viewer)
        if refusal is not None:
            raise forbidden(refusal)
        if viewer.account is not None:
            standing = await self.runtime.db(self.store.moderation.standing, viewer.account)
            if standing.muted:
                raise forbidden(MUTED)
            players = sorted(set(table.accounts.values()) - {viewer.account})
            if await self.runtime.db(self.store.friends.blockers_of, viewer.account, players):
                raise forbidden(
                    N_("a player at this table blocks you: your lines are not sent here")
                )
        speaker = viewer.speaker()
        if viewer.seat is not None:
            name: str | None = table.names.get(viewer.seat) or table.record.players[viewer.seat]
        else:
            name = viewer.name  # a signed-in spectator's; a guest is "spectator N"
        line = await self.runtime.db(
            self.store.chat.add_line, table.id, viewer.seat, speaker, name, client, words
        )
        await self.push(table, line)
        return public_line(line)

    async def mute(self, table: Table, viewer: Viewer, speaker: str, on: bool) -> ShownPage:
        """``POST /mute``: the viewer mutes (or hears again) a speaker of this table."""
        key = viewer.key(table.id)
        if key is None or not may_read(table, viewer):
            raise forbidden(
                "only a reader of this table's chat can mute: a player (with the seat's "
                "token), or a spectator where the table invites spectators to chat"
            )
        if not _handle(speaker):
            raise BadInput(
                "'speaker' is a line's speaker: s:SEAT, v:NUMBER or a:ACCOUNT", "speaker"
            )
        if speaker in (f"s:{viewer.seat}", await self.own(table, viewer)):
            raise BadInput(N_("you cannot mute yourself"), "speaker")
        await self.runtime.db(self.store.chat.set_mute, key, qualified(table.id, speaker), on)
        await self.refresh_mutes(key)
        return await self.lines(table, viewer)

    # -- pushing lines ------------------------------------------------------------------------

    async def push(self, table: Table, line: ChatLine) -> None:
        """Send ``line`` to each of the table's clients that may see it."""
        async with self.pushing:
            await self._push(table, line)

    async def _push(self, table: Table, line: ChatLine) -> None:
        for connection in list(table.connections):
            viewer = Viewer.of(table, connection)
            muted = connection.muted
            if muted is None:
                muted = connection.muted = await self.muted_by(table, viewer)
            shown = line_for(table, line, viewer, muted)
            if shown is None:
                continue
            text = ChatMessage.model_validate({"type": "chat", "line": shown}).model_dump_json()
            if not connection.push(text):
                table.connections.discard(connection)

    def heard(self, payload: str) -> None:
        """Another process's ``chat`` or ``mute`` notice (``LISTEN``)."""
        kind, *words = payload.split(" ")
        if words and words[-1] == self.store.origin:
            return  # this process's own: pushed (or refreshed) as it was written
        if kind == "chat" and len(words) == 3 and words[1].isdigit():
            table = self.tables.loaded.get(words[0])
            if table is not None and table.connections:
                self.runtime.spawn(self._fetch(table, int(words[1])))
        elif kind == "mute" and len(words) == 2:
            self.runtime.spawn(self.refresh_mutes(words[0]))

    async def _fetch(self, table: Table, line_id: int) -> None:
        async with self.pushing:  # in the order the notices came
            try:
                found = await self.runtime.db(
                    self.store.chat.lines, table.id, 1, line_id - 1, line_id
                )
            except Exception as exc:
                log.warning("game %s: a chat line from elsewhere was lost: %s", table.id, exc)
                return
            for line in found:
                await self._push(table, line)

    async def refresh_mutes(self, key: str) -> None:
        """The connections of viewer ``key`` read their mutes again at the next line."""
        for table in list(self.tables.loaded.values()):
            for connection in table.connections:
                if Viewer.of(table, connection).key(table.id) == key:
                    connection.muted = None


def _handle(speaker: str) -> bool:
    kind, _, rest = speaker.partition(":")
    if kind in ("s", "v"):
        return rest.isdigit() and len(rest) <= 6
    return kind == "a" and 0 < len(rest) <= 64 and all(c.isalnum() or c in "-_" for c in rest)
