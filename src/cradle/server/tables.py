"""A game being served (:class:`Table`), its WebSocket clients (:class:`Connection`) and the
replay of a stored record into a table's state (:func:`replay_record`).

A table's ``state`` is never mutated: a move is applied to a clone, stored, and only then
published by swapping the clone in, so readers need no lock.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from cradle.ai.knowledge.belief import HandBelief
from cradle.core.contract import Event, GameModule, GameState
from cradle.core.record import GameRecord
from cradle.games import UnknownGame, get_game
from cradle.server.storage import CorruptGame, Notice
from cradle.server.tokens import hash_token

log = logging.getLogger("cradle.server")

MAX_ACTION_LENGTH = 200
SEND_QUEUE_LIMIT = 64  # frames waiting for one slow client before it is closed
# A client's replies to its own frames take at most half the queue (the rest stays for the
# game's news); a frame not taken by the client within SEND_PATIENCE closes it as not reading.
REPLY_ROOM = SEND_QUEUE_LIMIT // 2
SEND_PATIENCE = 10.0


@dataclass(eq=False)
class Connection:
    """One WebSocket client: a seat, a spectator (``seat is None``) or a hot-seat screen."""

    seat: int | None
    hotseat: bool
    send: Callable[[str], Awaitable[None]]
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    close_reason: str | None = None  # set when the server closes it (the client reconnects)
    sent: asyncio.Event = field(default_factory=asyncio.Event)  # set by every frame sent

    def push(self, text: str) -> bool:
        """Queue a frame; False (and the connection marked to close) if the client lags."""
        if self.close_reason is not None:
            return False
        if self.queue.qsize() >= SEND_QUEUE_LIMIT:
            self.close(f"too slow: {SEND_QUEUE_LIMIT} frames were waiting")
            return False
        self.queue.put_nowait(text)
        return True

    async def reply(self, text: str) -> bool:
        """Queue the answer to the client's own frame, waiting while its replies fill their
        share of the queue: the receiving loop runs without pausing while frames arrive, so a
        burst would otherwise fill the queue before the pump sent anything. False when the
        connection is closing (the pump closes a client that does not read)."""
        while self.close_reason is None and self.queue.qsize() >= REPLY_ROOM:
            self.sent.clear()
            await self.sent.wait()
        return self.push(text)

    def close(self, reason: str) -> None:
        """Close with ``reason`` once the frames queued so far are sent."""
        self.close_reason = reason
        self.queue.put_nowait(None)
        self.sent.set()  # a reply waiting for room learns it will not be sent

    async def pump(self) -> None:
        """Send the queued frames in order until the end of the queue (None) or a frame the
        client does not take within SEND_PATIENCE seconds (its connection is then closing)."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await asyncio.wait_for(self.send(text), SEND_PATIENCE)
            except TimeoutError:
                self.close(f"too slow: a frame waited {SEND_PATIENCE:g} s to be read")
                return
            self.sent.set()


@dataclass(eq=False)
class Table:
    """A game being played (or a finished one loaded for reading)."""

    id: str
    module: GameModule
    record: GameRecord
    state: GameState
    seats: list[str]
    tokens: dict[int, str]  # seat -> sha-256 of its token (every human seat)
    claimed: dict[int, bool]  # False only for a seat opened to the lobby and not yet joined
    invites: dict[int, str]  # seat -> sha-256 of its unused one-time invite code
    action_seats: list[int]
    hotseat: bool
    listed: bool
    table_token: str | None
    created: float
    updated: float
    version: int  # counts every change a client sees; the stored one, never decreasing
    bot_seconds: float | None = None  # the table's thinking budget per bot decision
    invite_expires: dict[int, float] = field(default_factory=dict)  # seat -> when it expires
    events: list[Event] = field(default_factory=list)
    previous: GameState | None = None  # the state before the last action, when known
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    ended: str | None = None  # "expired" or "reclaimed": ended without a result (410)
    bot_busy: bool = False  # a bot of this process decides here now
    # The public belief over the hands (cradle.ai.belief) after the first ``belief_ply``
    # actions: followed move by move, worked out again from the record when behind.
    belief: HandBelief | None = None
    belief_ply: int = -1
    refresh_task: asyncio.Task[None] | None = None
    notices: list[Notice | None] = field(default_factory=list)  # None: read the game again
    undo_cache: tuple[int, dict[int, bool]] = (-1, {})

    @property
    def game(self) -> str:
        return self.record.game

    @property
    def ply(self) -> int:
        return len(self.record.actions)

    @property
    def is_over(self) -> bool:
        return bool(self.state.is_over)

    @property
    def status(self) -> str:
        if self.ended is not None:
            return self.ended
        if self.is_over:
            return "over"
        if self.open_seats():
            return "open"
        return "running"

    def open_seats(self) -> list[int]:
        """Human seats the creator opened to the lobby and nobody has joined yet."""
        if self.hotseat:
            return []
        return [seat for seat in sorted(self.tokens) if not self.claimed.get(seat, True)]

    def follow(self, before: GameState, action: str) -> None:
        """Keep the belief over the hands up with ``action``, about to be played in ``before``
        (it reads only what everybody at the table sees)."""
        if self.belief is not None and self.belief_ply == self.ply:
            self.belief.observe(before, action)
            self.belief_ply += 1

    def bot_turn(self, state: Any = None) -> bool:
        state = self.state if state is None else state
        return not state.is_over and self.seats[int(state.to_move)].startswith("bot:")

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token is ``token``; None if it matches none."""
        if not token:
            return None
        digest = hash_token(token)
        found = None
        for seat, stored in self.tokens.items():
            if hmac.compare_digest(stored, digest) and self.claimed.get(seat, True):
                found = seat
        return found

    def is_table_token(self, token: str | None) -> bool:
        return bool(
            token
            and self.table_token is not None
            and hmac.compare_digest(self.table_token, hash_token(token))
        )

    def to_move(self) -> int | None:
        return None if self.is_over else int(self.state.to_move)

    def hotseat_seat(self) -> int | None:
        """The seat a hot-seat screen shows: the human who decides now, else nobody."""
        seat = self.to_move()
        if seat is None or self.seats[seat] != "human":
            return None
        return seat

    def invite_expired(self, seat: int, now: float | None = None) -> bool:
        expires = self.invite_expires.get(seat)
        return expires is not None and expires <= (time.time() if now is None else now)

    def unused_invites(self) -> list[int]:
        """The seats whose invite can still be used."""
        now = time.time()
        return [seat for seat in sorted(self.invites) if not self.invite_expired(seat, now)]

    def summary(self) -> dict[str, Any]:
        """Public facts about the table, for the lobby and every frame."""
        return {
            "id": self.id,
            "game": self.game,
            "players": list(self.record.players),
            "seats": list(self.seats),
            "claimed": [self.claimed.get(s, True) for s in range(len(self.seats))],
            "open": self.open_seats(),
            "invites": self.unused_invites(),
            "hotseat": self.hotseat,
            "status": self.status,
            "moves": self.ply,
            "to_move": self.to_move(),
            "created": self.created,
            "updated": self.updated,
        }


@dataclass
class Rebuilt:
    """A table's state worked out from its record, off the event loop."""

    state: GameState
    previous: GameState | None
    events: list[Event]


def replay_record(record: GameRecord, seats: list[int] | None = None) -> Rebuilt:
    """The state after every action of ``record``, the one before the last and its events;
    ``seats``: the stored seat of each action, which must be the seat deciding there (what a
    seat is shown of an action depends on who made it).

    CorruptGame when the record does not replay: stored data is not trusted, so whatever the
    engine raises on it counts. The reason names the move, never what the engine said about
    it (that could describe a hand); the log has that.
    """
    try:
        get_game(record.game)
    except UnknownGame:
        raise CorruptGame("?", f"unknown game {record.game[:20]!r}") from None
    try:
        state = record.start()
    except Exception as exc:
        log.error("game set-up failed: %s: %s", type(exc).__name__, exc)
        raise CorruptGame("?", "its game cannot be set up from the stored options") from None
    previous = None
    events: list[Event] = []
    last = len(record.actions) - 1
    for number, action in enumerate(record.actions):
        if seats is not None and (state.is_over or seats[number] != int(state.to_move)):
            raise CorruptGame(
                "?", f"its move {number + 1} is stored for a seat that did not decide"
            )
        if number == last:
            previous = state.clone()
        try:
            events = list(state.apply(action) or [])
        except Exception as exc:
            if not isinstance(exc, ValueError):  # an illegal action is a ValueError: expected
                log.error("move %d failed to replay: %s: %s", number + 1, type(exc).__name__, exc)
            raise CorruptGame("?", f"its move {number + 1} does not replay") from None
    return Rebuilt(state, previous, events)
