"""Where the play server keeps its games: one row per game, seat, invite and action (SQLAlchemy 2).

A game is stored as its record (game, options, seed, players, actions) plus the table's seats,
the hashes of the seat tokens and of the unused invite codes. Every write is a compare-and-set:
it names the ``version`` (and, for moves, the move number) it expects and changes nothing when
another process got there first (:class:`Conflict`); the caller reloads and tries again. An
action row is written, in the same transaction as the game's counters, before the move is
acknowledged to anyone, so a server killed at any moment restarts with every acknowledged move.

Every value read back goes through :class:`Reader`, which turns anything that is not what it
must be (a text where a number belongs, a NULL, bad JSON, a seat the game does not have) into
:class:`CorruptGame`: one damaged game is set aside, never the server stopped. Every failure of
the database itself is a :class:`StorageError` (or SQLAlchemy's own error) whose ``reason`` the
server answers with, as a 503.

SQLite is the default (one server process per file: :meth:`Storage.claim`); a file that cannot
be written is served read-only (:attr:`Storage.read_only`). PostgreSQL (through
psycopg 3, ``postgresql+psycopg://...``) serves one database to many processes: each write
notifies the others (``NOTIFY cradle_games``).

Two kinds of fairness live here, so that every process sees the same:

- a new game must fit the caps on live games and bot seats, per client and for the server,
  counted in :meth:`Storage.create_game`'s own transaction (:class:`Caps`);
- a bot's turn is a row of ``bot_jobs``, written by the write that makes it the bot's turn and
  removed by the one that makes its move; workers on any machine claim the next one, fairly
  across clients by their recent use of the bots (:meth:`Storage.claim_bot_job`), under a
  lease that lapses if they die.

Everything here is synchronous; the server calls it from worker threads, never the event loop.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
import shlex
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NoReturn, NotRequired, SupportsFloat, TypedDict, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    case,
    cast,
    create_engine,
    delete,
    event,
    exists,
    false,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    tuple_,
    type_coerce,
    update,
)
from sqlalchemy.engine import Connection, Engine, RowMapping, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import DeclarativeBase, InstrumentedAttribute, Mapped, mapped_column
from sqlalchemy.sql.elements import ColumnElement, Label
from sqlalchemy.types import NullType

from cradle.ai import LEVELS
from cradle.core.lessons import LESSON_OPTION
from cradle.core.record import GameRecord
from cradle.server import migrations
from cradle.server.limits import FREE_BOTS, take
from cradle.server.ratings import Skill, rate, rates

NOTIFY_CHANNEL = "cradle_games"
SCHEMA_KEY = 0x63726164  # the advisory lock held while the tables are created ("crad")
CAPS_KEY = 0x63617073  # held while a new game is counted against the caps ("caps")
CHAT_KEY = 0x63686174  # with the game's hash: held while a spectator's number is given ("chat")
RATE_KEY = 0x72617465  # held while a game's end updates the ratings ("rate")
CLAIM_KEY = 0x626F7473  # held while a bot's turn is claimed ("bots"): one fair order for all
LIVE = ("open", "running")  # a game in progress
# Ended without a result (nothing changes them any more): nobody played in time, the server
# reclaimed the room, or the creator removed the table before it began.
ENDED = ("expired", "reclaimed", "removed")
LIVE_WINDOW = 86400.0  # a game people played in counts while it changed this recently
# Lesson tables a client keeps live at once (the newest): an older one ends when it starts one more.
LESSON_TABLES = 3
RECLAIMS = 8  # games one new game may take the place of at most
# A client's use of the bots: the seconds its turns were given, decaying with this time
# constant (so a client idle for a few minutes is new again); each turn counts its bot's
# budget per decision, at least LEAST_COST (the work around any move).
USAGE_SECONDS = 120.0
LEAST_COST = 0.02
MAX_PLAYERS_STORED = 8  # a stored game with more seats than this is corrupt, whatever the game
MAX_ACTION_STORED = 200  # the actions column's width
GAME_STATUSES = ("open", "running", "over", "expired", "reclaimed", "removed")
MODES = ("live", "turn")  # a live table, or a turn-based one with a deadline per move
# How a game ended before its rules ended it: a seat conceded, the others ended it without a
# seat whose deadline passed, or nobody moved for three deadlines.
ENDINGS = ("conceded", "timeout", "abandoned")
STANDIN_DEFAULT = "easy"  # the bot level that plays for an overdue seat unless it chose another
ANALYSIS_STATUSES = ("queued", "running", "done", "failed")


class StorageError(RuntimeError):
    """The database refused a write, or cannot be used. ``reason``: what a client may be told
    (never the driver's text, which can quote the statement and its parameters)."""

    def __init__(self, message: str, reason: str = "the database failed") -> None:
        super().__init__(message)
        self.reason = reason


class Conflict(StorageError):
    """Another process changed the game first: reload it and decide again."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "the game keeps changing")


class Refused(StorageError):
    """A write whose condition a client got wrong (a used or lapsed code): ``reason`` says
    which; nothing changed."""


class ReadOnly(StorageError):
    """A write to a database this server may only read (:attr:`Storage.read_only`)."""


class CapReached(StorageError):
    """A new game does not fit the caps; ``reason`` says which, for the client."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CorruptGame(StorageError):
    """A stored game that cannot be read back; ``reason`` says why (it names no secret)."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id}: {reason}", reason)
        self.game_id = game_id


# What a failing database raises, wrapped or not: the server answers all of them with a 503.
DATABASE_ERRORS: tuple[type[Exception], ...] = (StorageError, DBAPIError, PoolTimeout)


def trouble(exc: BaseException) -> str:
    """What went wrong with the database, in words a client may read (no statement, no URL)."""
    if isinstance(exc, StorageError):
        return exc.reason
    said = str(getattr(exc, "orig", None) or exc).lower()
    if isinstance(exc, PoolTimeout) or "database is locked" in said:
        return "the database is busy"
    if "disk is full" in said or "no space left" in said or "disk full" in said:
        return "the database's disk is full"
    if "readonly database" in said or "read-only" in said or "read only" in said:
        return "the database cannot be written"
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return "the connection to the database was lost"
    if "unable to open database file" in said or "disk i/o error" in said:
        return "the database file cannot be used"
    if isinstance(exc, DBAPIError) and isinstance(exc.orig, Exception):
        kind = type(exc.orig).__name__
        if kind in ("OperationalError", "InterfaceError"):
            return "the database cannot be reached"
    return "the database failed"


Column = TypeVar("Column")


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(20))
    players: Mapped[list[str]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, object]] = mapped_column(JSON)
    seats: Mapped[list[str]] = mapped_column(JSON)
    hotseat: Mapped[bool] = mapped_column(Boolean, default=False)
    listed: Mapped[bool] = mapped_column(Boolean, default=True)
    table_token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[str] = mapped_column(String(10), index=True)
    moves: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[list[dict[str, object]] | None] = mapped_column(JSON, nullable=True)
    created: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float, index=True)
    # Added after the first release (migrations' baseline): every change a client sees; whether a bot
    # decides now; how many bot seats; the table's thinking budget per bot decision.
    version: Mapped[int] = mapped_column(Integer, default=0)
    bot_turn: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    bot_seats: Mapped[int] = mapped_column(Integer, default=0)  # bots that cost (not random)
    bot_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    # The creator's client key, hashed (no address is stored); whether a person has moved at
    # a table with no open seat (until then the game expires when left alone for minutes).
    client: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    played: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Turn-based tables: the seconds each person has for a decision, and when the one deciding
    # now runs out (None: live, or no person decides); the seat whose stand-in bot plays for
    # it now (the others chose so after its deadline); how the game ended early, if it did.
    mode: Mapped[str] = mapped_column(String(5), default="live", server_default="live")
    deadline_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    deadline: Mapped[float | None] = mapped_column(Float, nullable=True)
    standin: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ended_by: Mapped[str | None] = mapped_column(String(10), nullable=True)
    # The creator's own seat (the first "human" one), who may remove the table before it
    # begins; None at a hot seat (its table token is the creator's) or without one.
    creator: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Whether spectators read and write the table's chat (players always do).
    spectator_chat: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A rated game: every seat an account's, no undo, no hints; its end updates the ratings.
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The seats whose person is away (a bit per seat): the others let their stand-in bot play
    # each of their turns whose deadline passes, until they move or say they are back.
    away: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class SeatRow(Base):
    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(64))  # sha-256 of the secret token
    claimed: Mapped[bool] = mapped_column(Boolean, default=False)
    # The bot level that may play for this seat when its deadline passes (turn-based tables).
    standin: Mapped[str | None] = mapped_column(String(40), nullable=True)
    # The account that holds the seat (None: a guest, or nobody yet) and the name shown at it
    # (the account's, a guest's own, or "former player" once the account is deleted).
    account_id: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)


class InviteRow(Base):
    """A one-time code that hands a seat to whoever the creator sent it to."""

    __tablename__ = "invites"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(64))  # sha-256 of the code
    expires: Mapped[float | None] = mapped_column(
        Float, nullable=True
    )  # added later (migrations' baseline)


class ActionRow(Base):
    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0 for the first action
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(200))


class AnalysisRow(Base):
    """The analysis of a finished game (cradle.server.assist): queued when the game ends, then
    worked on by one process (``owner``), stored as it goes."""

    __tablename__ = "analyses"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(10), index=True)  # queued running done failed
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    data: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    owner: Mapped[str | None] = mapped_column(String(16), nullable=True)
    updated: Mapped[float] = mapped_column(Float)


class BotJobRow(Base):
    """A bot's turn waiting for a worker (at most one per game): written in the transaction
    that made it the bot's turn, removed by the one that stores the bot's move."""

    __tablename__ = "bot_jobs"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)  # the game's version the turn is at
    client: Mapped[str] = mapped_column(String(32), default="")  # the game's, for the order
    cost: Mapped[float] = mapped_column(Float, default=0.0)  # the bot's budget per decision
    ready: Mapped[float] = mapped_column(Float, index=True)  # not taken before (bot delay)
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the worker on it
    lease: Mapped[float] = mapped_column(Float, default=0.0)  # its claim lapses then


class BotClientRow(Base):
    """A client's recent use of the bots, kept as ``ln(seconds) + time / USAGE_SECONDS``: the
    decaying sum of the costs of the turns it was given, at any later time ``t`` equal to
    ``exp(load - t / USAGE_SECONDS)``, with no update while it waits."""

    __tablename__ = "bot_clients"

    client: Mapped[str] = mapped_column(String(32), primary_key=True)
    load: Mapped[float] = mapped_column(Float)


class RateRow(Base):
    """A client's token bucket of one kind of request, shared by every process on the
    database (PostgreSQL; a SQLite server counts in memory): ``tokens`` left at ``stamp``."""

    __tablename__ = "rates"

    bucket: Mapped[str] = mapped_column(String(16), primary_key=True)
    client: Mapped[str] = mapped_column(String(32), primary_key=True)  # client_hash
    tokens: Mapped[float] = mapped_column(Float)
    stamp: Mapped[float] = mapped_column(Float, index=True)


class BotClockRow(Base):
    """The seconds a bot seat has thought in its current turn (cradle.ai.waiting.TurnClock),
    so that a turn whose decisions different workers make keeps its allowance."""

    __tablename__ = "bot_clocks"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    spent: Mapped[float] = mapped_column(Float)


class TurnNoticeRow(Base):
    """A turn whose e-mail notice a process claimed (and sent): one row per game, seat and
    turn (the move number the turn began at), so no turn is mailed twice, by any process."""

    __tablename__ = "turn_notices"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer, primary_key=True)
    sent: Mapped[float] = mapped_column(Float)


class DueNoticeRow(Base):
    """A turn whose e-mail notice is owed: written with the change that began the turn (same
    transaction), removed by the process that claims it to send it, or once the seat acted
    (or its stand-in plays, or the game ended) before any process sent it."""

    __tablename__ = "due_notices"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer, primary_key=True)
    due: Mapped[float] = mapped_column(Float, index=True)


class MailStopRow(Base):
    """The one-time code of a notice's "no more mails" link (its SHA-256), and the account
    it stops the mails of."""

    __tablename__ = "mail_stops"

    code: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(String(16), index=True)
    created: Mapped[float] = mapped_column(Float, index=True)


class ChatLineRow(Base):
    """A line of a table's chat, kept with the game. ``speaker``: who wrote it, as the mutes
    name them (``s:SEAT`` a seat of this game, ``v:N`` its Nth spectator to write, ``a:ID``
    an account); ``client``: a spectator's client key, hashed (``v:N`` is found by it)."""

    __tablename__ = "chat_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: a spectator
    speaker: Mapped[str] = mapped_column(String(80))
    name: Mapped[str] = mapped_column(String(80))
    client: Mapped[str | None] = mapped_column(String(32), nullable=True)
    text: Mapped[str] = mapped_column(Text)
    created: Mapped[float] = mapped_column(Float)


class RatingRow(Base):
    """An account's rating in one game for one number of players (:mod:`cradle.server.ratings`)."""

    __tablename__ = "ratings"

    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(20), primary_key=True)
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated: Mapped[float] = mapped_column(Float)


class RatingChangeRow(Base):
    """What one rated game did to one player's rating (the profile's chart): at most one row
    per game and account, so a game's end can never be counted twice."""

    __tablename__ = "rating_changes"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    game: Mapped[str] = mapped_column(String(20))
    players: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    at: Mapped[float] = mapped_column(Float, index=True)


class ChatMuteRow(Base):
    """``viewer`` sees no more lines of ``muted`` (both as :class:`ChatLineRow` names speakers,
    a seat's or spectator's qualified by its game: ``g:GAME:s:SEAT``)."""

    __tablename__ = "chat_mutes"

    viewer: Mapped[str] = mapped_column(String(100), primary_key=True)
    muted: Mapped[str] = mapped_column(String(100), primary_key=True)
    created: Mapped[float] = mapped_column(Float)


class AccountRow(Base):
    """A person's account: a name (``name_key``: its case-folded form, unique), the argon2id
    hash of the password, and the e-mail address turn notices go to if they opted in."""

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(128), unique=True, index=True)
    password: Mapped[str] = mapped_column(String(256))
    created: Mapped[float] = mapped_column(Float)
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    turn_mail: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SessionRow(Base):
    """A signed-in browser: the sha-256 of its session cookie, its account, until when."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float, index=True)


class TransferRow(Base):
    """A one-time code that moves a guest's seat to another device (its sha-256)."""

    __tablename__ = "transfers"

    code: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    expires: Mapped[float] = mapped_column(Float)


LOBBY_SCANS = 10  # pages of rows a filtered lobby page reads at most


@dataclass(frozen=True)
class LobbyFilter:
    """What a lobby page shows (None: any): the game, its number of players, live or
    turn-based, options a variant sets (name -> value), and only these game ids."""

    game: str | None = None
    players: int | None = None
    mode: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    ids: tuple[str, ...] | None = None

    def wanted(self, row: ListedGame) -> bool:
        if self.players is not None and len(row["players"]) != self.players:
            return False
        options = row.get("all_options", row["options"])
        return all(options.get(name) == value for name, value in self.options)


@dataclass(frozen=True)
class Caps:
    """What a new game must fit (see :meth:`Storage.create_game`): live games and the bot
    seats at them that cost something, per client and for the whole server."""

    games: int
    games_per_client: int
    bot_seats: int
    bot_seats_per_client: int
    unplayed_seconds: float  # a game nobody played in counts (and lives) this long unchanged
    live_seconds: float = LIVE_WINDOW


@dataclass(frozen=True)
class BotJob:
    """A bot's turn a worker claimed: the game, the version it is at, the creator's client key
    and the seconds each bot seat has spent in its current turn."""

    game_id: str
    version: int
    client: str
    clocks: dict[int, float]


@dataclass(frozen=True)
class TurnBegins:
    """A person's turn at a turn-based table begins with a change: its e-mail notice is owed
    (written with the change). ``turn``: the move number the turn begins at."""

    seat: int
    turn: int


@dataclass(frozen=True)
class DueMail:
    """A turn notice a process claimed to send: where to, and what the mail says."""

    game_id: str
    game: str
    seat: int
    turn: int
    player: str  # the seat's name in the game (Archer, Bull, ...)
    deadline_s: float | None
    address: str
    away: bool = False  # the seat's stand-in plays its turns whose deadline passes


def away_bits(seats: Iterable[int]) -> int:
    """The stored form of a set of seats (a bit per seat)."""
    return sum(1 << seat for seat in set(seats))


def away_seats(bits: int) -> set[int]:
    """The seats of :func:`away_bits`'s number."""
    return {seat for seat in range(bits.bit_length()) if bits >> seat & 1}


@dataclass(frozen=True)
class Notice:
    """What a write tells the other processes (PostgreSQL ``NOTIFY``): the game, its new
    version, the writing process, the stored time and, for a move, ``ply seat action``."""

    game_id: str
    version: int
    origin: str
    updated: float
    move: str = ""

    def payload(self) -> str:
        return f"{self.game_id} {self.version} {self.origin} {self.updated!r} {self.move}".rstrip()

    @classmethod
    def parse(cls, payload: str) -> Notice | None:
        parts = payload.split(" ", 4)
        if len(parts) < 4 or not parts[1].isdigit():
            return None
        try:
            updated = float(parts[3])
        except ValueError:
            return None
        return cls(parts[0], int(parts[1]), parts[2], updated, parts[4] if len(parts) > 4 else "")

    def added_move(self) -> tuple[int, int, str] | None:
        """(ply, seat, action) when the change was a move, else None."""
        ply, _, rest = self.move.partition(" ")
        seat, _, action = rest.partition(" ")
        if not (ply.isdigit() and seat.isdigit() and action):
            return None
        return int(ply), int(seat), action


@dataclass(frozen=True)
class ChatLine:
    """A line of a table's chat as stored (see :class:`ChatLineRow`)."""

    id: int
    game_id: str
    seat: int | None
    speaker: str
    name: str
    text: str
    created: float


class ListedGame(TypedDict):
    """A listed game's public facts as the lobby reads them (never seeds or tokens)."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    hotseat: bool
    status: str
    moves: int
    created: float
    updated: float
    options: dict[str, Any]  # as shown: a long text option only named (shown_options)
    all_options: NotRequired[dict[str, Any]]  # the lobby's filters read these; never shown
    mode: str
    deadline_s: float | None
    deadline: float | None
    ended_by: str | None
    result: list[dict[str, Any]] | None
    rated: bool  # the game rates its players (ratings.rates), or will when its seats fill
    names: list[str | None]  # the people at the seats, where named (as a loaded table says)


class QueuedTurn(TypedDict):
    """A bot's turn in the queue (``bot_jobs``): due at ``ready``, claimed by ``owner`` until
    ``lease``."""

    game_id: str
    version: int
    client: str | None
    ready: float
    owner: str | None
    lease: float


class StoredAnalysis(TypedDict):
    """A game's analysis as stored: its status, progress and the work so far (``data``)."""

    status: str
    done: int
    total: int
    data: dict[str, object] | None
    updated: float


@dataclass
class StoredGame:
    """A game as read back from the database."""

    id: str
    game: str
    players: list[str]
    seed: int
    options: dict[str, object]
    seats: list[str]
    hotseat: bool
    listed: bool
    table_token: str | None
    status: str
    created: float
    updated: float
    version: int = 0
    bot_seconds: float | None = None
    bot_turn: bool = False  # a bot decides now (a bot job is written with the game)
    bot_cost: float = 0.0  # then: that bot's budget per decision (the queue's fair order)
    client: str | None = None  # the creator's client key, hashed
    spectator_chat: bool = False  # spectators read and write the chat
    rated: bool = False  # every seat an account's, no undo, no hints; the end rates them
    tokens: dict[int, str] = field(default_factory=dict)
    claimed: dict[int, bool] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)  # seat -> the name shown there
    accounts: dict[int, str] = field(default_factory=dict)  # seat -> the account holding it
    invites: dict[int, str] = field(default_factory=dict)
    invite_expires: dict[int, float] = field(default_factory=dict)  # seats whose invite expires
    actions: list[str] = field(default_factory=list)
    action_seats: list[int] = field(default_factory=list)
    moves: int = 0  # the stored move count (read back: it must match the actions stored)
    mode: str = "live"
    deadline_s: float | None = None
    deadline: float | None = None
    standin: int | None = None  # the seat a stand-in bot plays for now
    standins: dict[int, str] = field(default_factory=dict)  # seat -> its stand-in bot level
    away: set[int] = field(default_factory=set)  # seats whose stand-in stays until they return
    ended_by: str | None = None
    result: list[dict[str, Any]] | None = None
    creator: int | None = None  # the creator's own seat

    def playing(self) -> list[str]:
        """The seats as they play now: a seat its stand-in plays for is that bot."""
        return playing_seats(self.seats, self.standin, self.standins)

    @property
    def bot_seats(self) -> int:
        """The bot seats that count against the caps (free bots do not)."""
        return bot_cost(self.seats)

    def record(self) -> GameRecord:
        """The game's record (copies: changing it leaves this game as read)."""
        return GameRecord(
            game=self.game,
            players=list(self.players),
            seed=self.seed,
            options=dict(self.options),
            actions=list(self.actions),
        )


def playing_seats(seats: list[str], standin: int | None, standins: dict[int, str]) -> list[str]:
    """``seats`` with the seat ``standin`` (if any) played by its stand-in bot level."""
    if standin is None or not 0 <= standin < len(seats):
        return list(seats)
    playing = list(seats)
    playing[standin] = "bot:" + standins.get(standin, STANDIN_DEFAULT)
    return playing


def turn_begins(
    mode: str,
    playing: list[str],
    claimed: dict[int, bool],
    mover: int | None,
    deciding: int | None,
    turn: int,
) -> TurnBegins | None:
    """The person's turn a change begins, whose e-mail notice is owed: at a turn-based table
    (``mode``), the seat ``deciding`` after it is a taken human seat no bot plays for
    (``playing``: the seats as they play then) and not the one that moved (``mover``; None:
    nobody moved, the last seat was taken). ``turn``: the move number the turn begins at."""
    if mode != "turn" or deciding is None or deciding == mover:
        return None
    if playing[deciding] != "human" or not claimed.get(deciding, True):
        return None
    return TurnBegins(deciding, turn)


SHOWN_OPTION_CHARS = 40  # a longer text option is shown as "custom" (a custom tile set)


def shown_options(options: dict[str, Any]) -> dict[str, Any]:
    """A table's options as the lobby and frames show them: a long text is only named."""
    return {
        name: "custom" if isinstance(value, str) and len(value) > SHOWN_OPTION_CHARS else value
        for name, value in options.items()
    }


def _next_deadline(nobody: bool, now: float) -> ColumnElement[float | None] | None:
    """The deadline column after a change at ``now``: a turn-based table's next person gets
    its ``deadline_s`` from now; none when no person decides (a bot, or the game is over)."""
    return None if nobody else GameRow.deadline_s + literal(now, Float)


def bot_cost(seats: list[str]) -> int:
    """How many of ``seats`` are bots that cost something (FREE_BOTS cost nothing)."""
    return sum(1 for kind in seats if kind.startswith("bot:") and kind[4:] not in FREE_BOTS)


def database_url(db_file: str | Path | None, database: str | None) -> str:
    """The SQLAlchemy URL for ``--database URL`` or ``--db FILE`` (SQLite)."""
    if database:
        if database.startswith("postgresql://") or database.startswith("postgres://"):
            # psycopg 3 is the driver we ship; SQLAlchemy's bare scheme means psycopg2.
            return "postgresql+psycopg://" + database.split("://", 1)[1]
        return database
    if db_file is None:
        raise ValueError("give a database file or URL")
    return f"sqlite:///{Path(db_file)}"


def shown_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("://", 1)[0] + "://…"


def client_hash(client: str) -> str:
    """What is stored of a client key: a hash, so the database holds no addresses."""
    return hashlib.sha256(f"cradle-client:{client}".encode()).hexdigest()[:32]


class Storage:
    """The games' tables and their writes; one instance per server process."""

    def __init__(self, url: str, upgrade: bool = True) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, object] = {}
        self.path: Path | None = None
        # A SQLite file this process cannot write (a read-only file system, an immutable file)
        # is served as it is: reads work, every write raises ReadOnly.
        self.read_only = False
        engine_url = url
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:" and not path.startswith("file:"):
                self.path = Path(path)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.read_only = _cannot_write(self.path)
                if self.read_only:
                    engine_url = _read_only_url(self.path)
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(engine_url, **kwargs)
        if self.is_sqlite:
            pragmas = _sqlite_read_only_pragmas if self.read_only else _sqlite_pragmas
            event.listen(self.engine, "connect", pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        self.origin = secrets.token_hex(8)  # names this process's writes in notices
        self.bot_delay = 0.0  # seconds between a bot's turn coming and a worker taking it
        self._lock_file: IO[str] | None = None
        try:
            self._set_up(upgrade)
        except Exception:
            self.engine.dispose()
            raise

    @property
    def shared(self) -> bool:
        """Whether other server processes may use this database at the same time."""
        return not self.is_sqlite

    def close(self) -> None:
        self.engine.dispose()
        if self._lock_file is not None:
            self._lock_file.close()  # closing the file releases the lock
            self._lock_file = None

    def _set_up(self, upgrade: bool) -> None:
        """Bring the schema to this server's revision (cradle.server.migrations), or refuse
        with the command that does it when this server may not (``upgrade`` False, or a file
        it cannot write)."""
        need = migrations.head()
        with self.engine.connect() as connection:
            found = migrations.current(connection)
        if found == need:
            if not self.read_only:
                with self.engine.begin() as connection:
                    self._queue_lost_bot_turns(connection)
            return
        if found is not None and not migrations.known(found):
            raise StorageError(
                f"{self.shown()} is at revision {found}, which this server does not know: a "
                "newer cradle made it (run that version, or a newer one, on it)"
            )
        if self.read_only or not upgrade:
            why = "cannot be written" if self.read_only else "is not upgraded by this server"
            raise StorageError(
                f"{self.shown()} is at revision {found or 'none'} and this server needs {need}, "
                f"and it {why} here: run `{self.upgrade_command()}`, then start the server"
            )
        with self.engine.begin() as connection:
            if self.shared:  # processes starting together take turns; the first upgrades
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_KEY})
            migrations.upgrade(connection)
            self._queue_lost_bot_turns(connection)

    def shown(self) -> str:
        """The database as messages name it (a file's path; a URL without its password)."""
        return str(self.path) if self.path is not None else shown_url(self.url)

    def upgrade_command(self) -> str:
        """The command that upgrades this database (a URL's password left out)."""
        if self.path is not None:
            return f"cradle db upgrade --db {shlex.quote(str(self.path))}"
        return f"cradle db upgrade --database {shlex.quote(shown_url(self.url))}"

    @staticmethod
    def _queue_lost_bot_turns(connection: Connection) -> None:
        # Bots' turns of games stored before there was a queue (or whose job went missing).
        connection.execute(
            insert(BotJobRow).from_select(
                ["game_id", "version", "client", "ready", "lease"],
                select(
                    GameRow.id,
                    GameRow.version,
                    func.coalesce(GameRow.client, ""),
                    literal(0.0, Float),
                    literal(0.0, Float),
                ).where(
                    GameRow.bot_turn.is_(True),
                    GameRow.status.in_(LIVE),
                    GameRow.version.is_not(None),  # a damaged row: its game is set aside
                    ~exists().where(BotJobRow.game_id == GameRow.id),
                ),
            )
        )

    def claim(self) -> None:
        """Make this process the only server on a SQLite file; StorageError if one runs.

        SQLite serves one process: two servers on one file would each keep their own copy of
        the tables. The lock is an advisory ``flock`` on ``FILE.lock``, released by the
        kernel when the process ends, however it ends.
        """
        if not self.is_sqlite or self.path is None or self._lock_file is not None:
            return
        if self.read_only:
            return  # the lock file cannot be made beside it; and this server changes nothing
        import fcntl

        # The file's real name, whatever links lead to it: a second server given a symbolic
        # link (to the file or a folder above it) meets the same lock.
        real = self.path.resolve()
        lock_path = real.with_name(real.name + ".lock")
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 (held until close)
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            shown = str(self.path) if real == self.path.absolute() else f"{self.path} ({real})"
            raise StorageError(
                f"another cradle server ({holder}) is using {shown}: SQLite serves one "
                "server process; stop it, or use PostgreSQL (--database) for several"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self._lock_file = handle

    # -- writes -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """Every write's transaction: ReadOnly on a database this server may not write, and
        StorageError (with a reason a client may read) when the database fails."""
        if self.read_only:
            raise ReadOnly(
                f"{self.path} cannot be written",
                "this server is read-only (its database cannot be written): games can be "
                "watched and replayed, not changed",
            )
        try:
            with self.engine.begin() as connection:
                yield connection
        except StorageError:
            raise
        except (DBAPIError, PoolTimeout) as exc:
            raise StorageError(f"cannot store the change: {exc}", trouble(exc)) from exc

    def _notify(
        self, connection: Connection, game_id: str, version: int, now: float, move: str
    ) -> None:
        # Delivered when the transaction commits, to every process listening (and only then).
        if self.shared:
            notice = Notice(game_id, version, self.origin, now, move)
            connection.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": NOTIFY_CHANNEL, "payload": notice.payload()},
            )

    def create_game(self, game: StoredGame, caps: Caps | None = None) -> list[str]:
        """Store a new game (and its bot's turn, if a bot begins), if it fits ``caps``.

        The caps are counted in the same transaction (PostgreSQL: under an advisory lock, so
        every process counts the same). When the server is full, the client holding the most
        (games, or bot seats) gives up its least recently played game, but only while it holds
        more than the new game's client would: a flood of clients cannot lock a newcomer out
        unless every live game belongs to a different client. Returns the ids of the games so
        ended (``reclaimed``); CapReached when the game does not fit.
        """
        now = game.created
        with self._transaction() as connection:
            reclaimed: list[str] = []
            if caps is not None:
                if self.shared:
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": CAPS_KEY}
                    )
                reclaimed = self._fit(connection, game, caps, now)
            connection.execute(
                insert(GameRow),
                {
                    "id": game.id,
                    "game": game.game,
                    "players": list(game.players),
                    "seed": game.seed,
                    "options": dict(game.options),
                    "seats": list(game.seats),
                    "hotseat": game.hotseat,
                    "listed": game.listed,
                    "table_token": game.table_token,
                    "status": game.status,
                    "moves": 0,
                    "result": None,
                    "created": game.created,
                    "updated": game.updated,
                    "version": game.version,
                    "bot_turn": game.bot_turn,
                    "bot_seats": game.bot_seats,
                    "bot_seconds": game.bot_seconds,
                    "client": game.client,
                    "played": False,
                    "mode": game.mode,
                    "deadline_s": game.deadline_s,
                    "deadline": game.deadline,
                    "standin": None,
                    "ended_by": None,
                    "creator": game.creator,
                    "spectator_chat": game.spectator_chat,
                    "rated": game.rated,
                },
            )
            for seat, token in sorted(game.tokens.items()):
                connection.execute(
                    insert(SeatRow),
                    {
                        "game_id": game.id,
                        "seat": seat,
                        "token": token,
                        "claimed": game.claimed.get(seat, False),
                        "standin": game.standins.get(seat),
                        "account_id": game.accounts.get(seat),
                        "name": game.names.get(seat),
                    },
                )
            for seat, code in sorted(game.invites.items()):
                connection.execute(
                    insert(InviteRow),
                    {
                        "game_id": game.id,
                        "seat": seat,
                        "code": code,
                        "expires": game.invite_expires.get(seat),
                    },
                )
            self._set_job(connection, game.id, game.version, game.bot_turn, now, game.bot_cost)
        return reclaimed

    @staticmethod
    def _live(now: float, caps: Caps) -> ColumnElement[bool]:
        """The condition of a game that counts against the caps at ``now``."""
        return GameRow.status.in_(LIVE) & (
            (GameRow.played.is_(True) & (GameRow.updated >= now - caps.live_seconds))
            | (GameRow.played.is_(False) & (GameRow.updated >= now - caps.unplayed_seconds))
        )

    def _use(
        self, connection: Connection, live: ColumnElement[bool], client: str | None
    ) -> tuple[int, int]:
        """(live games, bot seats at them) of ``client``, or of everybody."""
        query = select(func.count(), func.coalesce(func.sum(GameRow.bot_seats), 0)).where(live)
        if client is not None:
            query = query.where(GameRow.client == client)
        games, bots = connection.execute(query).one()
        return int(games), int(bots)

    def _fit(self, connection: Connection, game: StoredGame, caps: Caps, now: float) -> list[str]:
        live = self._live(now, caps)
        cost = game.bot_seats
        reclaimed: list[str] = []
        if game.client is not None and LESSON_OPTION in game.options:
            reclaimed += self._retire_lessons(connection, live, game.client, now)
        games, bots = self._use(connection, live, game.client) if game.client else (0, 0)
        if game.client is not None:
            if games + 1 > caps.games_per_client:
                raise CapReached(
                    f"you have {games} games in progress on this server, the most one client "
                    f"may have: finish one first (a game nobody plays in ends after "
                    f"{caps.unplayed_seconds / 60:g} minutes)"
                )
            if cost and bots + cost > caps.bot_seats_per_client:
                raise CapReached(
                    f"your games have {bots} bot seats and this table asks for {cost} more; one "
                    f"client may have {caps.bot_seats_per_client} (the random bot is free)"
                )
        for _round in range(RECLAIMS + 1):
            all_games, all_bots = self._use(connection, live, None)
            by_bots = all_games + 1 <= caps.games
            if by_bots and (not cost or all_bots + cost <= caps.bot_seats):
                return reclaimed
            if by_bots:
                refusal = (
                    f"too many bots are playing on this server ({all_bots} of {caps.bot_seats} "
                    "bot seats taken); try again later, or with fewer bots (the random bot is "
                    "free)"
                )
            else:
                refusal = (
                    f"this server has its maximum of {caps.games} games in progress; "
                    "try again later"
                )
            if _round == RECLAIMS or game.client is None:
                raise CapReached(refusal)
            held = func.sum(GameRow.bot_seats) if by_bots else func.count()
            heaviest = connection.execute(
                select(GameRow.client, held.label("held"))
                .where(live, GameRow.client.is_not(None), GameRow.client != game.client)
                .group_by(GameRow.client)
                .order_by(held.desc(), GameRow.client)
                .limit(1)
            ).first()
            mine = bots + cost if by_bots else games + 1
            # Only from a client that holds more than this one would: no swapping places.
            if heaviest is None or int(heaviest.held) <= mine:
                raise CapReached(refusal)
            query = select(GameRow.id, GameRow.version).where(
                live, GameRow.client == heaviest.client
            )
            if by_bots:
                query = query.where(GameRow.bot_seats > 0)
            victim = connection.execute(
                query.order_by(GameRow.played, GameRow.updated, GameRow.id).limit(1)
            ).first()
            if victim is None:
                raise CapReached(refusal)
            if self._end(connection, str(victim.id), int(victim.version), "reclaimed", now):
                reclaimed.append(str(victim.id))
        raise CapReached("the server is full")  # not reached: the last round refuses

    def _retire_lessons(
        self, connection: Connection, live: ColumnElement[bool], client: str, now: float
    ) -> list[str]:
        """End (``reclaimed``) the client's live lesson tables but the newest
        ``LESSON_TABLES - 1``: a learner who restarts steps again and again keeps its place
        under the per-client cap for real games."""
        rows = connection.execute(
            select(GameRow.id, GameRow.version, GameRow.options)
            .where(live, GameRow.client == client)
            .order_by(GameRow.updated.desc(), GameRow.id)
        ).all()
        lessons = [row for row in rows if LESSON_OPTION in (row.options or {})]
        ended: list[str] = []
        for row in lessons[LESSON_TABLES - 1 :]:
            if self._end(connection, str(row.id), int(row.version), "reclaimed", now):
                ended.append(str(row.id))
        return ended

    def _end(
        self,
        connection: Connection,
        game_id: str,
        version: int,
        status: str,
        now: float,
        unplayed: bool = False,
    ) -> bool:
        """End a live game without a result (``expired``, ``reclaimed``, ``removed``); False
        when it changed meanwhile (``unplayed``: or when a move was made in it)."""
        condition = [GameRow.id == game_id, GameRow.version == version, GameRow.status.in_(LIVE)]
        if unplayed:
            condition.append(GameRow.moves == 0)
        changed = connection.execute(
            update(GameRow)
            .where(*condition)
            .values(status=status, version=version + 1, bot_turn=False, deadline=None)
        ).rowcount
        if changed != 1:
            return False
        connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))
        connection.execute(delete(DueNoticeRow).where(DueNoticeRow.game_id == game_id))
        self._notify(connection, game_id, version + 1, now, "")
        return True

    def expire_unplayed(self, now: float, unplayed_seconds: float, limit: int = 500) -> list[str]:
        """End (``expired``) the live games nobody played in that nobody changed for
        ``unplayed_seconds``; their ids. Also forgets the clients with no bot's turn waiting."""
        with self._transaction() as connection:
            found = connection.execute(
                select(GameRow.id, GameRow.version)
                .where(
                    GameRow.status.in_(LIVE),
                    GameRow.played.is_(False),
                    GameRow.updated < now - unplayed_seconds,
                    # A turn-based table's people come back later: it waits three deadlines.
                    or_(
                        GameRow.deadline_s.is_(None),
                        GameRow.updated + GameRow.deadline_s * 3 < now,
                    ),
                )
                .order_by(GameRow.updated)
                .limit(limit)
            ).all()
            expired = [
                str(row.id)
                for row in found
                if self._end(connection, str(row.id), int(row.version), "expired", now)
            ]
        with self._transaction() as connection:
            if self.shared:
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CLAIM_KEY})
            # Forget the clients with no turn waiting whose use has all but decayed.
            faded = math.log(LEAST_COST / 100) + now / USAGE_SECONDS
            connection.execute(
                delete(BotClientRow).where(
                    BotClientRow.load < faded,
                    ~exists().where(BotJobRow.client == BotClientRow.client),
                )
            )
        return expired

    def live_use(
        self, now: float, unplayed_seconds: float, client: str | None = None
    ) -> tuple[int, int]:
        """(live games, bot seats at them) that count against the caps at ``now``, of the
        client with key ``client`` (hashed) or of everybody."""
        caps = Caps(0, 0, 0, 0, unplayed_seconds)
        with self.engine.connect() as connection:
            return self._use(connection, self._live(now, caps), client)

    # -- bots' turns: a queue in the database ---------------------------------------------------

    def _set_job(
        self,
        connection: Connection,
        game_id: str,
        version: int,
        bot_turn: bool,
        now: float,
        cost: float,
    ) -> None:
        """The game is now at ``version``: its bot's turn (costing ``cost`` seconds a decision)
        waits from ``now`` plus the bot delay if a bot decides, and any earlier one is gone."""
        connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))
        if not bot_turn:
            return
        connection.execute(
            insert(BotJobRow).from_select(
                ["game_id", "version", "client", "cost", "ready", "lease"],
                select(
                    GameRow.id,
                    literal(version, Integer),
                    func.coalesce(GameRow.client, ""),
                    literal(max(0.0, cost), Float),
                    literal(now + self.bot_delay, Float),
                    literal(0.0, Float),
                ).where(GameRow.id == game_id),
            )
        )

    def claim_bot_job(self, owner: str, now: float, lease: float) -> BotJob | None:
        """Take the next bot's turn that is due and that no live worker holds, for ``lease``
        seconds (renew it while thinking), and count its cost against its client.

        The fair order: the turn whose client would have used the bots least, counting this
        turn (recent use decays: :data:`USAGE_SECONDS`), then the oldest. So a client whose
        forty tables keep the bots busy waits while a client with one table gets its move, new
        clients and cheap bots go first, and clients that all want more than there is share
        the bots' time equally. None when no turn is due.

        PostgreSQL: claims take turns under an advisory lock (so the order is the same for
        every worker on every machine), and a row another transaction holds is skipped
        (``FOR UPDATE SKIP LOCKED``). SQLite has one process, whose writes are serialised.
        """
        due = (BotJobRow.ready <= now) & (BotJobRow.owner.is_(None) | (BotJobRow.lease < now))
        scaled = now / USAGE_SECONDS
        exponent = BotClientRow.load - scaled
        use = case(  # bounded: machines whose clocks disagree must not overflow exp()
            (BotClientRow.load.is_(None) | (exponent < -700.0), 0.0),
            (exponent > 700.0, 1e300),
            else_=func.exp(exponent),
        )
        cost = case((BotJobRow.cost < LEAST_COST, LEAST_COST), else_=BotJobRow.cost)
        query = (
            select(
                BotJobRow.game_id,
                BotJobRow.version,
                BotJobRow.client,
                BotJobRow.cost,
                BotClientRow.load,
            )
            .outerjoin(BotClientRow, BotClientRow.client == BotJobRow.client)
            .where(due)
            .order_by(use + cost, BotJobRow.ready, BotJobRow.game_id)
            .limit(1)
            .with_for_update(skip_locked=True, of=BotJobRow)
        )
        with self._transaction() as connection:
            if self.shared:
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CLAIM_KEY})
            for _damaged in range(RECLAIMS):
                row = connection.execute(query).first()
                if row is None:
                    return None
                game_id, client = str(row.game_id), str(row.client)
                version = _number(row.version)
                if version is not None and version == int(version):
                    break
                # A damaged turn (the queue is derived data): forgotten, so that it stops no
                # other; the game's own row still says whether a bot decides (start-up).
                connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))
            else:
                return None
            connection.execute(
                update(BotJobRow)
                .where(BotJobRow.game_id == game_id)
                .values(owner=owner, lease=now + lease)
            )
            known = _number(row.load)
            used = 0.0 if known is None else math.exp(min(700.0, max(-700.0, known - scaled)))
            load = math.log(used + max(LEAST_COST, _number(row.cost) or 0.0)) + scaled
            changed = connection.execute(
                update(BotClientRow).where(BotClientRow.client == client).values(load=load)
            ).rowcount
            if not changed:
                connection.execute(insert(BotClientRow), {"client": client, "load": load})
            clocks: dict[int, float] = {}
            for seat, spent in connection.execute(
                select(BotClockRow.seat, BotClockRow.spent).where(BotClockRow.game_id == game_id)
            ):
                number, seconds = _number(seat), _number(spent)
                if number is not None and seconds is not None and seconds >= 0:
                    clocks[int(number)] = seconds  # a damaged clock: the turn's full allowance
        return BotJob(game_id, int(version), client, clocks)

    def bot_use(self, client: str, now: float) -> float:
        """The recent use of the bots of the client with key ``client`` (hashed), in seconds."""
        with self.engine.connect() as connection:
            load = _number(
                connection.execute(
                    select(BotClientRow.load).where(BotClientRow.client == client)
                ).scalar()
            )
        return (
            0.0 if load is None else math.exp(min(700.0, max(-700.0, load - now / USAGE_SECONDS)))
        )

    def renew_bot_job(self, game_id: str, owner: str, until: float) -> bool:
        """Keep the claim on a bot's turn until ``until``; False when it is no longer ours."""
        with self._transaction() as connection:
            return bool(
                connection.execute(
                    update(BotJobRow)
                    .where(BotJobRow.game_id == game_id, BotJobRow.owner == owner)
                    .values(lease=until)
                ).rowcount
            )

    def release_bot_job(self, game_id: str, owner: str, ready: float | None = None) -> None:
        """Give a claimed turn back (due again at ``ready``, or as it was)."""
        values: dict[str, object] = {"owner": None, "lease": 0.0}
        if ready is not None:
            values["ready"] = ready
        with self._transaction() as connection:
            connection.execute(
                update(BotJobRow)
                .where(BotJobRow.game_id == game_id, BotJobRow.owner == owner)
                .values(**values)
            )

    def release_bot_jobs(self, owner: str | None = None) -> None:
        """Give back every turn ``owner`` holds (None: every worker's; SQLite's start-up, when
        no other process can hold one)."""
        query = update(BotJobRow).values(owner=None, lease=0.0)
        if owner is not None:
            query = query.where(BotJobRow.owner == owner)
        with self._transaction() as connection:
            connection.execute(query)

    def drop_bot_job(self, game_id: str, version: int) -> None:
        """Forget the turn of a game at ``version`` where no bot decides after all."""
        with self._transaction() as connection:
            connection.execute(
                delete(BotJobRow).where(BotJobRow.game_id == game_id, BotJobRow.version == version)
            )

    def next_bot_due(self) -> float | None:
        """When the next bot's turn can be claimed (a claimed one: when its lease lapses);
        None when there is none."""
        due = case(
            (BotJobRow.owner.is_(None), BotJobRow.ready),
            (BotJobRow.lease > BotJobRow.ready, BotJobRow.lease),
            else_=BotJobRow.ready,
        )
        with self.engine.connect() as connection:
            found = connection.execute(select(func.min(due))).scalar()
        return _number(found)

    def bot_jobs(self) -> list[QueuedTurn]:
        """Every bot's turn waiting or claimed (for tests and operators)."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(
                    BotJobRow.game_id,
                    BotJobRow.version,
                    BotJobRow.client,
                    BotJobRow.ready,
                    BotJobRow.owner,
                    BotJobRow.lease,
                ).order_by(BotJobRow.ready, BotJobRow.game_id)
            ).all()
        return [
            QueuedTurn(
                game_id=row.game_id,
                version=row.version,
                client=row.client,
                ready=row.ready,
                owner=row.owner,
                lease=row.lease,
            )
            for row in rows
        ]

    def bot_clocks(self, game_id: str) -> dict[int, float]:
        with self.engine.connect() as connection:
            return {
                int(seat): float(spent)
                for seat, spent in connection.execute(
                    select(BotClockRow.seat, BotClockRow.spent).where(
                        BotClockRow.game_id == game_id
                    )
                )
            }

    def _bump(
        self,
        connection: Connection,
        game_id: str,
        version: int,
        at_moves: int | None = None,
        **values: object,
    ) -> None:
        """Move the game from ``version`` to ``version + 1`` (with ``values``), or Conflict."""
        # An ended game changes no more (its version moved on when it ended, too).
        condition = [
            GameRow.id == game_id,
            GameRow.version == version,
            GameRow.status.not_in(ENDED),
        ]
        if at_moves is not None:
            condition.append(GameRow.moves == at_moves)
        changed = connection.execute(
            update(GameRow).where(*condition).values(version=version + 1, **values)
        ).rowcount
        if changed != 1:
            raise Conflict(f"game {game_id} is no longer at version {version}")

    def _write(
        self,
        game_id: str,
        version: int,
        work: Callable[[Connection, float], None],
        move: str = "",
    ) -> float:
        """Run ``work(connection, now)`` in one transaction; returns ``now``, the time stored
        as the game's ``updated`` (the caller shows the same one). ``move``: the notice's
        description of an added move, so that other processes need not read the game."""
        now = time.time()
        with self._transaction() as connection:
            work(connection, now)
            self._notify(connection, game_id, version + 1, now, move)
        return now

    def append_action(
        self,
        game_id: str,
        ply: int,
        version: int,
        seat: int,
        action: str,
        status: str,
        result: Sequence[Mapping[str, object]] | None,
        bot_turn: bool,
        analyse: bool = False,
        person: bool = False,
        clock: tuple[int, float] | None = None,
        bot_cost: float = 0.0,
        standin: int | None = None,
        turn_based: bool = False,
        begins: TurnBegins | None = None,
        away: set[int] | None = None,
    ) -> float:
        """Store action number ``ply``; Conflict unless the game stands at ``ply``/``version``.

        A move can thus never be stored twice, out of order, or on a game that another process
        changed meanwhile (an undo and a move there give the same move count, not the same
        version). ``analyse``: the move ends the game, whose analysis is queued with it.
        ``person``: a person moved at a table with no open seat (the game is played: it no
        longer expires in minutes). ``clock``: (seat, seconds) a bot seat has now spent in its
        turn. The bot's turn this move ends is removed, and the next one written if a bot
        decides next (``bot_turn``, its bot's budget per decision ``bot_cost``). ``standin``:
        the seat whose stand-in bot still decides after this move (None: no stand-in plays);
        a turn-based table's next person gets a fresh deadline. ``turn_based``: the game is
        one (its turn notices are kept: ``begins``, the turn of a person this move begins,
        whose notice is owed now; the mover's own are moot). ``away``: the seats away after
        the move (None: as before; a person's move brings them back).
        """

        def work(connection: Connection, now: float) -> None:
            played: dict[str, object] = {"played": True} if person else {}
            if away is not None:
                played["away"] = away_bits(away)
            self._bump(
                connection,
                game_id,
                version,
                at_moves=ply,
                moves=ply + 1,
                status=status,
                result=result,
                bot_turn=bot_turn,
                updated=now,
                deadline=_next_deadline(bot_turn or status == "over", now),
                standin=standin,
                **played,
            )
            connection.execute(
                insert(ActionRow),
                {"game_id": game_id, "ply": ply, "seat": seat, "action": action},
            )
            self._set_job(connection, game_id, version + 1, bot_turn, now, bot_cost)
            if clock is not None:
                connection.execute(
                    delete(BotClockRow).where(
                        BotClockRow.game_id == game_id, BotClockRow.seat == clock[0]
                    )
                )
                connection.execute(
                    insert(BotClockRow),
                    {"game_id": game_id, "seat": clock[0], "spent": clock[1]},
                )
            if analyse:
                self._queue_analysis(connection, game_id, now)
            if status == "over" and result is not None:
                self._rate(connection, game_id, result, now)
            if turn_based:
                self._owe_notice(connection, game_id, now, seat, status == "over", begins)

        return self._write(game_id, version, work, f"{ply} {seat} {action}")

    def _rate(
        self,
        connection: Connection,
        game_id: str,
        result: Sequence[Mapping[str, object]],
        now: float,
    ) -> None:
        """A rated game's end: its players' ratings (for its game and number of players) move
        by its places. It runs in the transaction storing the move that ends the game, which
        is stored once; and a game with rating changes already stored is never counted again.
        A game whose seats are not all different accounts' any more is not rated."""
        found = connection.execute(
            select(GameRow.rated, GameRow.game, GameRow.players).where(GameRow.id == game_id)
        ).first()
        if found is None or found.rated is not True or not isinstance(found.players, list):
            return
        count = len(found.players)
        holders = {
            int(seat): account
            for seat, account in connection.execute(
                select(SeatRow.seat, SeatRow.account_id).where(SeatRow.game_id == game_id)
            ).all()
        }
        accounts = [holders.get(seat) for seat in range(count)]
        places: dict[int, int] = {}
        for line in result:
            seat, place = line.get("seat"), line.get("place")
            if isinstance(seat, int) and isinstance(place, int):
                places[seat] = place
        if not rates(True, accounts) or set(places) != set(range(count)):
            return
        if self.shared:  # one game's end at a time: two games of one player both count
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": RATE_KEY})
        counted = connection.scalar(
            select(func.count())
            .select_from(RatingChangeRow)
            .where(RatingChangeRow.game_id == game_id)
        )
        if counted:
            return
        game = str(found.game)
        stored = {
            row.account_id: row
            for row in connection.execute(
                select(RatingRow).where(
                    RatingRow.account_id.in_(accounts),
                    RatingRow.game == game,
                    RatingRow.players == count,
                )
            ).all()
        }
        before = [
            Skill(float(stored[a].mu), float(stored[a].sigma)) if a in stored else Skill()
            for a in accounts
        ]
        after = rate(before, [places[seat] for seat in range(count)])
        for seat, account in enumerate(accounts):
            new = after[seat]
            if account in stored:
                connection.execute(
                    update(RatingRow)
                    .where(
                        RatingRow.account_id == account,
                        RatingRow.game == game,
                        RatingRow.players == count,
                    )
                    .values(
                        mu=new.mu,
                        sigma=new.sigma,
                        games=int(stored[account].games) + 1,
                        updated=now,
                    )
                )
            else:
                connection.execute(
                    insert(RatingRow).values(
                        account_id=account,
                        game=game,
                        players=count,
                        mu=new.mu,
                        sigma=new.sigma,
                        games=1,
                        updated=now,
                    )
                )
            connection.execute(
                insert(RatingChangeRow).values(
                    game_id=game_id,
                    account_id=account,
                    game=game,
                    players=count,
                    seat=seat,
                    place=places[seat],
                    mu_before=before[seat].mu,
                    sigma_before=before[seat].sigma,
                    mu=new.mu,
                    sigma=new.sigma,
                    at=now,
                )
            )

    def undo_action(
        self,
        game_id: str,
        ply: int,
        version: int,
        status: str,
        bot_turn: bool,
        bot_cost: float = 0.0,
    ) -> float:
        """Forget the last action (number ``ply - 1``) of a game at ``ply``/``version``."""

        def work(connection: Connection, now: float) -> None:
            self._bump(
                connection,
                game_id,
                version,
                at_moves=ply,
                moves=ply - 1,
                status=status,
                result=None,
                bot_turn=bot_turn,
                updated=now,
                deadline=_next_deadline(bot_turn, now),
                standin=None,
            )
            connection.execute(
                delete(ActionRow).where(ActionRow.game_id == game_id, ActionRow.ply >= ply - 1)
            )
            self._set_job(connection, game_id, version + 1, bot_turn, now, bot_cost)

        return self._write(game_id, version, work)

    def claim_seat(
        self,
        game_id: str,
        seat: int,
        token: str,
        version: int,
        status: str,
        invite: str | None,
        account: str | None = None,
        name: str | None = None,
        standin: str | None = None,
        begins: TurnBegins | None = None,
    ) -> float:
        """Give ``seat`` a new token: a free seat joined from the lobby (``invite`` None), or
        the seat of a one-time invite code (its hash), which is used up; it is then
        ``account``'s (None: a guest's) and shows ``name``. Conflict when the seat was taken,
        the code used or expired, or the game changed meanwhile. ``standin``: the bot level
        the seat chose to play for it when its deadline passes. A turn-based table whose last
        seat is taken starts its first person's deadline. ``begins``: the turn of the
        person deciding, whose notice is owed now (not sent yet)."""
        holder = {"account_id": account, "name": name, "standin": standin}

        def work(connection: Connection, now: float) -> None:
            if invite is None:
                found = connection.execute(
                    update(SeatRow)
                    .where(
                        SeatRow.game_id == game_id,
                        SeatRow.seat == seat,
                        SeatRow.claimed.is_(False),
                    )
                    .values(claimed=True, token=token, **holder)
                ).rowcount
            else:
                found = connection.execute(
                    delete(InviteRow).where(
                        InviteRow.game_id == game_id,
                        InviteRow.seat == seat,
                        InviteRow.code == invite,
                        or_(InviteRow.expires.is_(None), InviteRow.expires > now),
                    )
                ).rowcount
                if found == 1:
                    connection.execute(
                        update(SeatRow)
                        .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
                        .values(claimed=True, token=token, **holder)
                    )
            if found != 1:
                raise Conflict(f"seat {seat} of game {game_id} was taken meanwhile")
            started: dict[str, Any] = {}
            if status == "running":  # everyone is seated: a person's clock starts now
                started["deadline"] = case(
                    (GameRow.deadline.is_not(None), GameRow.deadline),
                    (GameRow.bot_turn.is_(True), None),
                    else_=GameRow.deadline_s + literal(now, Float),
                )
            self._bump(connection, game_id, version, status=status, updated=now, **started)
            # Whose turn it is does not change: a bot's turn stays as it is, at the new version.
            connection.execute(
                update(BotJobRow).where(BotJobRow.game_id == game_id).values(version=version + 1)
            )
            if begins is not None:
                self._owe_notice(connection, game_id, now, None, False, begins)

        return self._write(game_id, version, work)

    # -- turn-based tables: stand-ins, games ended early, tables removed ----------------------

    def set_standin(
        self, game_id: str, version: int, seat: int, cost: float, away: set[int] | None = None
    ) -> float:
        """Let ``seat``'s stand-in bot play its turn (its deadline passed): the bot's turn is
        queued like any bot's, costing ``cost`` per decision. ``away``: the seats away from
        then on (None: as before), whose stand-in plays each turn whose deadline passes."""

        def work(connection: Connection, now: float) -> None:
            stays = {} if away is None else {"away": away_bits(away)}
            self._bump(
                connection,
                game_id,
                version,
                standin=seat,
                bot_turn=True,
                deadline=None,
                updated=now,
                **stays,
            )
            self._set_job(connection, game_id, version + 1, True, now, cost)
            self._owe_notice(connection, game_id, now, seat, False, None)  # the bot plays it

        return self._write(game_id, version, work)

    def come_back(
        self, game_id: str, version: int, seat: int, away: set[int], deciding: bool
    ) -> float:
        """``seat``'s person is back: the seats away are ``away`` from now on; ``deciding``:
        its stand-in was playing its turn, which is the person's again, with a fresh deadline
        (the bot's turn is dropped)."""

        def work(connection: Connection, now: float) -> None:
            values: dict[str, Any] = {"away": away_bits(away), "updated": now}
            if deciding:
                values.update(standin=None, bot_turn=False, deadline=_next_deadline(False, now))
            self._bump(connection, game_id, version, **values)
            if deciding:
                self._set_job(connection, game_id, version + 1, False, now, 0.0)
            else:  # a bot's turn (another seat's), if any, stays as it is at the new version
                connection.execute(
                    update(BotJobRow)
                    .where(BotJobRow.game_id == game_id)
                    .values(version=version + 1)
                )

        return self._write(game_id, version, work)

    def end_early(
        self, game_id: str, version: int, result: list[dict[str, Any]], ended_by: str
    ) -> float:
        """End a game before its rules do (``ended_by``: one of ENDINGS) with ``result``, in
        one compare-and-set: of two processes ending it, or a move and an ending, one wins and
        the other meets Conflict."""

        def work(connection: Connection, now: float) -> None:
            self._bump(
                connection,
                game_id,
                version,
                status="over",
                result=result,
                ended_by=ended_by,
                bot_turn=False,
                deadline=None,
                standin=None,
                away=0,
                updated=now,
            )
            connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))
            connection.execute(delete(DueNoticeRow).where(DueNoticeRow.game_id == game_id))

        return self._write(game_id, version, work)

    def remove_game(self, game_id: str, version: int) -> float:
        """End an unstarted table its creator removed (``removed``); Conflict when it changed
        meanwhile (a move, a seat taken)."""
        now = time.time()
        with self._transaction() as connection:
            if not self._end(connection, game_id, version, "removed", now, unplayed=True):
                raise Conflict(f"game {game_id} is no longer at version {version}")
        return now

    def idle_turn_games(self, now: float, limit: int = 100) -> list[str]:
        """Turn-based games in progress that nobody changed for three of their deadlines."""
        with self.engine.connect() as connection:
            found = connection.execute(
                select(GameRow.id)
                .where(
                    GameRow.status == "running",
                    GameRow.mode == "turn",
                    GameRow.deadline_s.is_not(None),
                    GameRow.updated + GameRow.deadline_s * 3 < now,
                )
                .order_by(GameRow.updated)
                .limit(limit)
            ).scalars()
            return _ids(found)

    def lapsed_away(self, now: float, limit: int = 100) -> list[str]:
        """Turn-based games in progress whose deciding person's deadline passed before ``now``
        while some seat is away (its stand-in may then play: the caller checks it is that
        seat that decides)."""
        with self.engine.connect() as connection:
            found = connection.execute(
                select(GameRow.id)
                .where(
                    GameRow.status == "running",
                    GameRow.mode == "turn",
                    GameRow.away != 0,
                    GameRow.bot_turn.is_(False),
                    GameRow.deadline.is_not(None),
                    GameRow.deadline < now,
                )
                .order_by(GameRow.deadline)
                .limit(limit)
            ).scalars()
            return _ids(found)

    # -- turn notices by e-mail -----------------------------------------------------------------

    def _upsert(self) -> Any:
        if self.is_sqlite:
            from sqlalchemy.dialects.sqlite import insert as upsert
        else:
            from sqlalchemy.dialects.postgresql import insert as upsert  # type: ignore[assignment]
        return upsert

    def _owe_notice(
        self,
        connection: Connection,
        game_id: str,
        now: float,
        acted: int | None,
        over: bool,
        begins: TurnBegins | None,
    ) -> None:
        """Keep a turn-based game's owed notices with a change: the seat that ``acted`` (moved,
        or its stand-in took over) is owed none, a game ``over`` none at all, and the person
        whose turn ``begins`` one, if their account wants these mails and it was not sent."""
        if over:
            connection.execute(delete(DueNoticeRow).where(DueNoticeRow.game_id == game_id))
            return
        if acted is not None:
            connection.execute(
                delete(DueNoticeRow).where(
                    DueNoticeRow.game_id == game_id, DueNoticeRow.seat == acted
                )
            )
        if begins is None or self._mail_address(connection, game_id, begins.seat) is None:
            return
        sent = connection.execute(
            select(TurnNoticeRow.turn).where(
                TurnNoticeRow.game_id == game_id,
                TurnNoticeRow.seat == begins.seat,
                TurnNoticeRow.turn == begins.turn,
            )
        ).first()
        if sent is None:
            connection.execute(
                self._upsert()(DueNoticeRow)
                .values(game_id=game_id, seat=begins.seat, turn=begins.turn, due=now)
                .on_conflict_do_nothing()
            )

    def due_notices(self) -> list[tuple[str, int, int]]:
        """The turn notices owed now: (game, seat, turn), oldest first."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(DueNoticeRow.game_id, DueNoticeRow.seat, DueNoticeRow.turn).order_by(
                    DueNoticeRow.due
                )
            ).all()
            return [(str(game), int(seat), int(turn)) for game, seat, turn in rows]

    def claim_due_notice(self, code: str, now: float) -> DueMail | None:
        """Claim the oldest turn notice owed whose person still wants it: what to send, with
        ``code`` (a hash) stored as its one-time "no more mails" code; None when none is owed.
        The claim removes the owed row and writes the sent one (``turn_notices``, whose key
        allows one per turn) in one transaction: of two processes, one claims each notice
        (PostgreSQL: the others skip the rows it holds), and no turn is ever mailed twice."""
        with self.engine.connect() as connection:  # a look first: most of the time none is owed
            if connection.execute(select(DueNoticeRow.game_id).limit(1)).first() is None:
                return None
        with self._transaction() as connection:
            while True:
                # The oldest owed row, taken in one statement (on SQLite, a write first: the
                # transaction holds the write lock from its start, never upgrades a read).
                oldest = select(DueNoticeRow.game_id, DueNoticeRow.seat, DueNoticeRow.turn)
                oldest = oldest.order_by(DueNoticeRow.due).limit(1)
                if not self.is_sqlite:
                    oldest = oldest.with_for_update(skip_locked=True)
                taken = connection.execute(
                    delete(DueNoticeRow)
                    .where(
                        tuple_(DueNoticeRow.game_id, DueNoticeRow.seat, DueNoticeRow.turn).in_(
                            oldest
                        )
                    )
                    .returning(DueNoticeRow.game_id, DueNoticeRow.seat, DueNoticeRow.turn)
                ).first()
                if taken is None:
                    return None
                game_id, seat, turn = str(taken[0]), int(taken[1]), int(taken[2])
                mail = self._claim_notice(connection, game_id, seat, turn, code, now)
                if mail is not None:
                    return mail

    def _claim_notice(
        self, connection: Connection, game_id: str, seat: int, turn: int, code: str, now: float
    ) -> DueMail | None:
        game = connection.execute(
            select(GameRow.game, GameRow.players, GameRow.deadline_s, GameRow.away).where(
                GameRow.id == game_id, GameRow.status == "running"
            )
        ).first()
        if game is None:
            return None  # ended meanwhile
        found = self._mail_address(connection, game_id, seat)
        if found is None:
            return None  # no account that wants these mails holds the seat (any more)
        players = game[1]
        if not isinstance(players, list) or not 0 <= seat < len(players):
            return None
        account, address = found
        # The row comes back only when this insert made it (psycopg counts no rows here).
        claimed = connection.execute(
            self._upsert()(TurnNoticeRow)
            .values(game_id=game_id, seat=seat, turn=turn, sent=now)
            .on_conflict_do_nothing()
            .returning(TurnNoticeRow.turn)
        ).first()
        if claimed is None:
            return None
        connection.execute(
            insert(MailStopRow), {"code": code, "account_id": account, "created": now}
        )
        deadline_s = game[2]
        return DueMail(
            game_id=game_id,
            game=str(game[0]),
            seat=seat,
            turn=turn,
            player=str(players[seat]),
            deadline_s=None if deadline_s is None else float(deadline_s),
            address=address,
            away=isinstance(game[3], int) and seat in away_seats(game[3]),
        )

    def _mail_address(
        self, connection: Connection, game_id: str, seat: int
    ) -> tuple[str, str] | None:
        """(account id, e-mail address) of the account holding ``seat`` if it wants turn
        notices by e-mail."""
        row = connection.execute(
            select(AccountRow.id, AccountRow.email)
            .join(SeatRow, SeatRow.account_id == AccountRow.id)
            .where(
                SeatRow.game_id == game_id,
                SeatRow.seat == seat,
                AccountRow.turn_mail.is_(True),
                AccountRow.email.is_not(None),
            )
        ).first()  # a guest's seat has no account, and a guest no mail
        if row is None or not isinstance(row[1], str) or "@" not in row[1]:
            return None
        return str(row[0]), row[1]

    def stop_mail(self, code: str) -> bool:
        """Use the one-time code ``code`` (a hash) of a mail's "no more mails" link: its
        account gets no more turn notices. False for a code unknown or used."""
        with self._transaction() as connection:
            account = connection.execute(
                select(MailStopRow.account_id).where(MailStopRow.code == code)
            ).scalar()
            if account is None:
                return False
            used = connection.execute(delete(MailStopRow).where(MailStopRow.code == code))
            if used.rowcount != 1:  # another request used it first
                return False
            connection.execute(
                update(AccountRow).where(AccountRow.id == account).values(turn_mail=False)
            )
            return True

    def rekey_seat(
        self, game_id: str, seat: int, token: str, version: int, transfer: str | None = None
    ) -> float:
        """Give a taken ``seat`` a new token (the hash ``token``): the old one stops working.
        With ``transfer`` (a code's hash) the code is used up in the same write. Conflict when
        the game changed meanwhile or the code was used or lapsed."""

        def work(connection: Connection, now: float) -> None:
            if transfer is not None:
                used = connection.execute(
                    delete(TransferRow).where(
                        TransferRow.code == transfer,
                        TransferRow.game_id == game_id,
                        TransferRow.seat == seat,
                        TransferRow.expires > now,
                    )
                ).rowcount
                if used != 1:
                    raise Refused(
                        f"the transfer of seat {seat} of {game_id} was used",
                        "this link is not valid (each link works once, within the hour)",
                    )
            connection.execute(
                update(SeatRow)
                .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
                .values(token=token)
            )
            self._bump(connection, game_id, version, updated=now)
            connection.execute(
                update(BotJobRow).where(BotJobRow.game_id == game_id).values(version=version + 1)
            )

        return self._write(game_id, version, work)

    def transaction(self) -> contextlib.AbstractContextManager[Connection]:
        """A write's transaction (ReadOnly, or StorageError when the database fails)."""
        return self._transaction()

    def set_status(self, game_id: str, status: str) -> None:
        with self._transaction() as connection:
            connection.execute(
                update(GameRow).where(GameRow.id == game_id).values(status=status, bot_turn=False)
            )
            connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))

    # -- analyses of finished games -----------------------------------------------------------

    @staticmethod
    def _queue_analysis(connection: Connection, game_id: str, now: float) -> bool:
        found = connection.execute(
            select(AnalysisRow.status).where(AnalysisRow.game_id == game_id)
        ).first()
        if found is not None:
            if found.status != "failed":
                return False
            connection.execute(  # a failed analysis may be asked for again
                update(AnalysisRow)
                .where(AnalysisRow.game_id == game_id)
                .values(status="queued", done=0, total=0, data=None, owner=None, updated=now)
            )
            return True
        connection.execute(
            insert(AnalysisRow),
            {"game_id": game_id, "status": "queued", "done": 0, "total": 0, "updated": now},
        )
        return True

    def queue_analysis(self, game_id: str) -> bool:
        """Queue the analysis of a game that has none (or whose analysis failed); False when it
        has one already."""
        try:
            with self._transaction() as connection:
                return self._queue_analysis(connection, game_id, time.time())
        except ReadOnly:
            raise
        except StorageError:  # two requests at once: the second finds the first's row
            if self.load_analysis(game_id) is not None:
                return False
            raise

    def pending_analyses(self, limit: int, stale_before: float) -> list[str]:
        """Analyses to work on, oldest first: queued ones, and running ones nobody touched since
        ``stale_before`` (their process stopped; with SQLite, any: there is one process)."""
        waiting = AnalysisRow.status.in_(("queued", "running"))
        query = select(AnalysisRow.game_id).where(waiting)
        if self.shared:
            query = query.where(
                (AnalysisRow.status == "queued") | (AnalysisRow.updated < stale_before)
            )
        query = query.order_by(AnalysisRow.updated, AnalysisRow.game_id).limit(limit)
        with self.engine.connect() as connection:
            return _ids(connection.execute(query).scalars())

    def claim_analysis(
        self, game_id: str, origin: str, stale_before: float
    ) -> StoredAnalysis | None:
        """Make ``origin`` the analysis's worker; its row (with the work stored so far), or None
        when it is done or another process works on it."""
        condition = [AnalysisRow.game_id == game_id, AnalysisRow.status.in_(("queued", "running"))]
        if self.shared:
            condition.append(
                AnalysisRow.owner.is_(None)
                | (AnalysisRow.owner == origin)
                | (AnalysisRow.updated < stale_before)
            )
        with self._transaction() as connection:
            changed = connection.execute(
                update(AnalysisRow).where(*condition).values(owner=origin, updated=time.time())
            ).rowcount
        if changed != 1:
            return None
        return self.load_analysis(game_id)

    def save_analysis(
        self,
        game_id: str,
        origin: str,
        status: str,
        done: int,
        total: int,
        data: Mapping[str, object] | None,
    ) -> bool:
        """Store the analysis's progress; False when another process has taken it over."""
        with self._transaction() as connection:
            changed = connection.execute(
                update(AnalysisRow)
                .where(AnalysisRow.game_id == game_id, AnalysisRow.owner == origin)
                .values(status=status, done=done, total=total, data=data, updated=time.time())
            ).rowcount
        return changed == 1

    def load_analysis(self, game_id: str) -> StoredAnalysis | None:
        """The game's analysis as stored (None: it has none); CorruptGame if it cannot be read."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(
                    _raw(AnalysisRow.status),
                    _raw(AnalysisRow.done),
                    _raw(AnalysisRow.total),
                    cast(AnalysisRow.data, Text).label("data"),
                    _raw(AnalysisRow.updated),
                ).where(AnalysisRow.game_id == game_id)
            ).first()
        if row is None:
            return None
        read = Reader(game_id)
        total = read.integer(row.total, "analysis's move count")
        done = read.integer(row.done, "analysis's progress", 0, total)
        data = None if row.data is None else read.json(row.data, "analysis data")
        if data is not None and not isinstance(data, dict):
            read.fail("its analysis data is not an object")
        return {
            "status": read.text(row.status, "analysis's status", 10, ANALYSIS_STATUSES),
            "done": done,
            "total": total,
            "data": data,
            "updated": read.number(row.updated, "analysis's time"),
        }

    # -- the tables' chat ---------------------------------------------------------------------

    def add_chat_line(
        self,
        game_id: str,
        seat: int | None,
        speaker: str | None,
        name: str | None,
        client: str,
        words: str,
    ) -> ChatLine:
        """Store a line of ``game_id``'s chat and tell the other processes (``chat`` notice).
        A spectator (``speaker`` None) writes as the game's ``v:N``: the number it wrote under
        before, else the next one; ``name`` None: "spectator N"."""
        now = time.time()
        hashed = client_hash(client)
        with self._transaction() as connection:
            if speaker is None:
                if self.shared:  # two new spectators at once must not get one number
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key, hashtext(:game))"),
                        {"key": CHAT_KEY, "game": game_id},
                    )
                known = connection.execute(
                    select(ChatLineRow.speaker)
                    .where(
                        ChatLineRow.game_id == game_id,
                        ChatLineRow.client == hashed,
                        ChatLineRow.speaker.startswith("v:"),
                    )
                    .limit(1)
                ).scalar()
                if known is None:
                    count = connection.scalar(
                        select(func.count(func.distinct(ChatLineRow.speaker))).where(
                            ChatLineRow.game_id == game_id, ChatLineRow.speaker.startswith("v:")
                        )
                    )
                    known = f"v:{int(count or 0) + 1}"
                speaker = str(known)
            shown = name if name is not None else f"spectator {speaker[2:]}"
            line_id = connection.scalar(
                insert(ChatLineRow)
                .values(
                    game_id=game_id,
                    seat=seat,
                    speaker=speaker,
                    name=shown,
                    client=hashed if seat is None else None,
                    text=words,
                    created=now,
                )
                .returning(ChatLineRow.id)
            )
            if line_id is None:
                raise StorageError("the chat line was not stored")
            if self.shared:
                connection.execute(
                    text("SELECT pg_notify(:channel, :payload)"),
                    {
                        "channel": NOTIFY_CHANNEL,
                        "payload": f"chat {game_id} {line_id} {self.origin}",
                    },
                )
        return ChatLine(int(line_id), game_id, seat, speaker, shown, words, now)

    def chat_lines(
        self, game_id: str, limit: int, after: int = 0, line: int | None = None
    ) -> list[ChatLine]:
        """The last ``limit`` lines of the game's chat after line ``after`` (or line ``line``
        alone), oldest first. A line that cannot be read back is left out, not the chat."""
        query = select(
            _raw(ChatLineRow.id),
            _raw(ChatLineRow.seat),
            _raw(ChatLineRow.speaker),
            _raw(ChatLineRow.name),
            _raw(ChatLineRow.text),
            _raw(ChatLineRow.created),
        ).where(ChatLineRow.game_id == game_id, ChatLineRow.id > after)
        if line is not None:
            query = query.where(ChatLineRow.id == line)
        query = query.order_by(ChatLineRow.id.desc()).limit(limit)
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        lines = []
        read = Reader(game_id)
        for row in reversed(rows):
            try:
                seat = None if row.seat is None else read.integer(row.seat, "seat", 0, 7)
                lines.append(
                    ChatLine(
                        id=read.integer(row.id, "line"),
                        game_id=game_id,
                        seat=seat,
                        speaker=read.text(row.speaker, "speaker", 80),
                        name=read.text(row.name, "name", 80),
                        text=read.text(row.text, "chat line", 2000),
                        created=read.number(row.created, "time"),
                    )
                )
            except CorruptGame:
                continue
        return lines

    def spectator_of(self, game_id: str, client: str) -> str | None:
        """The handle (``v:N``) the guest spectator at ``client`` (hashed) writes under in
        ``game_id``'s chat (None: it has not written)."""
        with self.engine.connect() as connection:
            found = connection.execute(
                select(ChatLineRow.speaker)
                .where(
                    ChatLineRow.game_id == game_id,
                    ChatLineRow.client == client,
                    ChatLineRow.speaker.startswith("v:"),
                )
                .limit(1)
            ).scalar()
        return None if found is None else str(found)

    def speaker_names(self, game_id: str, speakers: Collection[str]) -> dict[str, str]:
        """The names of ``speakers`` (as a game's chat names them): an account's own, another
        speaker's as its latest line in ``game_id`` shows it (none: left out)."""
        ids = [speaker[2:] for speaker in speakers if speaker.startswith("a:")]
        others = [speaker for speaker in speakers if not speaker.startswith("a:")]
        found: dict[str, str] = {}
        with self.engine.connect() as connection:
            if ids:
                for account_id, name in connection.execute(
                    select(AccountRow.id, AccountRow.name).where(AccountRow.id.in_(ids))
                ):
                    found[f"a:{account_id}"] = str(name)
            if others:
                for speaker, name in connection.execute(
                    select(ChatLineRow.speaker, ChatLineRow.name)
                    .where(ChatLineRow.game_id == game_id, ChatLineRow.speaker.in_(others))
                    .order_by(ChatLineRow.id)
                ):
                    found[str(speaker)] = str(name)  # the latest line's name wins
        return found

    def mutes_of(self, viewer: str) -> set[str]:
        """The speakers ``viewer`` muted."""
        with self.engine.connect() as connection:
            found = connection.execute(
                select(ChatMuteRow.muted).where(ChatMuteRow.viewer == viewer)
            ).scalars()
            return {str(muted) for muted in found}

    def set_mute(self, viewer: str, muted: str, on: bool) -> None:
        """``viewer`` mutes (``on``) or hears again ``muted``; other processes are told."""
        with self._transaction() as connection:
            connection.execute(
                delete(ChatMuteRow).where(ChatMuteRow.viewer == viewer, ChatMuteRow.muted == muted)
            )
            if on:
                connection.execute(
                    insert(ChatMuteRow).values(viewer=viewer, muted=muted, created=time.time())
                )
            if self.shared:
                connection.execute(
                    text("SELECT pg_notify(:channel, :payload)"),
                    {"channel": NOTIFY_CHANNEL, "payload": f"mute {viewer} {self.origin}"},
                )

    # -- rates shared by the processes (PostgreSQL) --------------------------------------------

    def take_token(self, bucket: str, client: str, rate: float, burst: int, now: float) -> float:
        """Take one request of kind ``bucket`` from ``client``'s bucket, counted for every
        process on the database: 0.0 when it may go on (and it is counted), else the seconds
        until it may. ``burst`` at once, then ``rate`` per second, as the in-memory limiter."""
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        key = {"bucket": bucket, "client": client_hash(client)}
        with self._transaction() as connection:
            connection.execute(
                pg_insert(RateRow)
                .values(**key, tokens=float(burst), stamp=now)
                .on_conflict_do_nothing()
            )
            tokens, stamp = connection.execute(
                select(RateRow.tokens, RateRow.stamp)
                .where(RateRow.bucket == bucket, RateRow.client == key["client"])
                .with_for_update()
            ).one()
            tokens, wait = take(float(tokens), now - float(stamp), rate, float(burst))
            connection.execute(
                update(RateRow)
                .where(RateRow.bucket == bucket, RateRow.client == key["client"])
                .values(tokens=tokens, stamp=max(now, float(stamp)))
            )
        return wait

    def forget_rates(self, before: float) -> int:
        """Drop the buckets untouched since ``before`` (full again by then); how many."""
        with self._transaction() as connection:
            return int(connection.execute(delete(RateRow).where(RateRow.stamp < before)).rowcount)

    def listen_conninfo(self) -> str:
        """The libpq connection string for LISTEN (psycopg's own, without SQLAlchemy's dialect)."""
        return make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)

    # -- reads --------------------------------------------------------------------------------

    def load(self, game_id: str) -> StoredGame | None:
        """The game, or None if there is none; CorruptGame if its rows cannot be read back.

        The game row, seats, invites and actions are read by separate statements in one
        transaction that sees one snapshot (PostgreSQL: repeatable read; SQLite: a transaction
        begun for the reads too, see _sqlite_begin), so the result is one version of the game.
        """
        isolation = {"isolation_level": "REPEATABLE READ"} if self.shared else {}
        with self.engine.connect().execution_options(**isolation) as connection:
            row = connection.execute(select(*_GAME_COLUMNS).where(GameRow.id == game_id)).first()
            if row is None:
                return None
            return self._stored(connection, row._mapping)

    def version_of(self, game_id: str) -> int | None:
        """The game's stored version (None: no such game); CorruptGame if it is unreadable."""
        with self.engine.connect() as connection:
            found = connection.execute(
                select(_raw(GameRow.version)).where(GameRow.id == game_id)
            ).first()
        return None if found is None else Reader(game_id).integer(found[0], "version")

    def unfinished(self, bot_turn_only: bool = False, idle: float = 0.0) -> list[str]:
        """The ids of games in progress (only where a bot decides; only unchanged for ``idle``
        s)."""
        query = select(GameRow.id).where(GameRow.status.in_(LIVE))
        if bot_turn_only:
            query = query.where(GameRow.bot_turn.is_(True))
        if idle > 0:
            query = query.where(GameRow.updated < time.time() - idle)
        with self.engine.connect() as connection:
            return _ids(connection.execute(query).scalars())

    def check_unfinished(self) -> dict[str, str]:
        """The unfinished games whose rows are unreadable, with the reason (no replay: cheap)."""
        bad: dict[str, str] = {}
        with self.engine.connect() as connection:
            # Status included: a game whose status is unreadable is checked (and set aside).
            unfinished = GameRow.status.not_in(("over", *ENDED)) | GameRow.status.is_(None)
            rows = connection.execute(select(*_GAME_COLUMNS).where(unfinished)).all()
        for row in rows:
            try:
                _decode_game(row._mapping)
            except CorruptGame as exc:
                if exc.game_id != "?":
                    bad[exc.game_id] = exc.reason
        return bad

    def list_games(
        self,
        limit: int = 50,
        before: tuple[float, str] | None = None,
        status: str | None = None,
        where: LobbyFilter | None = None,
    ) -> list[ListedGame]:
        """Public facts about listed games, most recently active first (never seeds or
        tokens); ``before`` (updated, id) pages on from the last row of a previous page;
        ``where``: only the games that match it."""
        query = select(
            _raw(GameRow.id),
            _raw(GameRow.game),
            cast(GameRow.players, Text).label("players"),
            cast(GameRow.seats, Text).label("seats"),
            cast(GameRow.options, Text).label("options"),
            cast(GameRow.result, Text).label("result"),
            _raw(GameRow.hotseat),
            _raw(GameRow.status),
            _raw(GameRow.moves),
            _raw(GameRow.created),
            _raw(GameRow.updated),
            _raw(GameRow.mode),
            _raw(GameRow.deadline_s),
            _raw(GameRow.deadline),
            _raw(GameRow.ended_by),
            _raw(GameRow.rated),
        ).where(GameRow.status.not_in(ENDED))
        # A private table is listed to no one, except by its id ("my games": those who hold
        # its link know it anyway).
        if where is None or where.ids is None:
            query = query.where(GameRow.listed.is_(True))
        if status is not None:
            query = query.where(GameRow.status == status)
        if where is not None:
            if where.game is not None:
                query = query.where(GameRow.game == where.game)
            if where.mode is not None:
                query = query.where(GameRow.mode == where.mode)
            if where.ids is not None:
                query = query.where(GameRow.id.in_(where.ids))
        games: list[ListedGame] = []
        # Filters on what only the decoded row knows (players, variants) read on until the
        # page is full, a bounded number of rows at most.
        for _scan in range(LOBBY_SCANS):
            page = query
            if before is not None:
                updated, last_id = before
                page = page.where(
                    (GameRow.updated < updated)
                    | ((GameRow.updated == updated) & (GameRow.id < last_id))
                )
            page = page.order_by(GameRow.updated.desc(), GameRow.id.desc()).limit(limit)
            with self.engine.connect() as connection:
                rows = connection.execute(page).all()
            for row in rows:
                try:  # a corrupt row is left out of the lobby, not the lobby out of service
                    found = _decode_lobby_row(row._mapping)
                except CorruptGame:
                    continue
                keep = where is None or where.wanted(found)
                found.pop("all_options", None)
                if keep:
                    games.append(found)
            if len(rows) < limit or len(games) >= limit or where is None:
                break
            last = rows[-1]._mapping
            if not isinstance(last["updated"], int | float) or not isinstance(last["id"], str):
                break
            before = (float(last["updated"]), last["id"])
        games = games[:limit]
        rating = self.rating({g["id"]: len(g["seats"]) for g in games if g["rated"]})
        for game in games:
            game["rated"] = game["id"] in rating
        # The people's names at the seats: a table not loaded here is named as a loaded one
        # (a guest's seat read "Archer" in the lobby and "Guest 3868" at the table).
        named: dict[str, dict[int, str]] = {}
        if games:
            with self.engine.connect() as connection:
                for game_id, seat, name in connection.execute(
                    select(SeatRow.game_id, SeatRow.seat, SeatRow.name).where(
                        SeatRow.game_id.in_([g["id"] for g in games]), SeatRow.name.is_not(None)
                    )
                ):
                    named.setdefault(str(game_id), {})[int(seat)] = str(name)
        for game in games:
            seat_names = named.get(game["id"], {})
            game["names"] = [seat_names.get(seat) for seat in range(len(game["seats"]))]
        return games

    def rating(self, made_rated: Mapping[str, int]) -> set[str]:
        """Of the games made rated (id: number of seats), those that rate their players, or
        will once the seats that wait for a person (open, or invited) are taken
        (``ratings.rates``)."""
        if not made_rated:
            return set()
        holders: dict[str, dict[int, str]] = {}
        waiting: dict[str, set[int]] = {}
        now = time.time()
        ids = list(made_rated)
        with self.engine.connect() as connection:
            seats = connection.execute(
                select(SeatRow.game_id, SeatRow.seat, SeatRow.account_id, SeatRow.claimed).where(
                    SeatRow.game_id.in_(ids)
                )
            ).all()
            invited = connection.execute(
                select(InviteRow.game_id, InviteRow.seat).where(
                    InviteRow.game_id.in_(ids),
                    or_(InviteRow.expires.is_(None), InviteRow.expires > now),
                )
            ).all()
        for game_id, seat, account, claimed in seats:
            if account is not None:
                holders.setdefault(str(game_id), {})[int(seat)] = str(account)
            if claimed is False:
                waiting.setdefault(str(game_id), set()).add(int(seat))
        for game_id, seat in invited:
            waiting.setdefault(str(game_id), set()).add(int(seat))
        found = set()
        for game_id, count in made_rated.items():
            held = holders.get(game_id, {})
            seated = [held.get(seat) for seat in range(count)]
            if rates(True, seated, waiting.get(game_id, set())):
                found.add(game_id)
        return found

    def count_games(self) -> int:
        with self.engine.connect() as connection:
            return int(connection.scalar(select(func.count()).select_from(GameRow)) or 0)

    def _stored(self, connection: Connection, row: RowMapping) -> StoredGame:
        game = _decode_game(row)
        seats = connection.execute(
            select(
                _raw(SeatRow.seat),
                _raw(SeatRow.token),
                _raw(SeatRow.claimed),
                _raw(SeatRow.standin),
                _raw(SeatRow.account_id),
                _raw(SeatRow.name),
            ).where(SeatRow.game_id == game.id)
        ).all()
        invites = connection.execute(
            select(_raw(InviteRow.seat), _raw(InviteRow.code), _raw(InviteRow.expires)).where(
                InviteRow.game_id == game.id
            )
        ).all()
        actions = connection.execute(
            select(_raw(ActionRow.ply), _raw(ActionRow.seat), _raw(ActionRow.action)).where(
                ActionRow.game_id == game.id
            )
        ).all()
        read = Reader(game.id)
        last_seat = len(game.seats) - 1
        humans = {seat for seat, kind in enumerate(game.seats) if kind == "human"}
        for raw_seat, token, claimed, standin, account, name in seats:
            seat = read.integer(raw_seat, "token's seat", 0, last_seat)
            if account is not None:
                game.accounts[seat] = read.text(account, "seat's account", 16)
            if name is not None:
                game.names[seat] = read.text(name, "seat's name", 64)
            if seat not in humans:
                read.fail(f"a token for seat {seat}, which is no human seat")
            game.tokens[seat] = read.digest(token, "seat token")
            game.claimed[seat] = read.flag(claimed, "seat's taken flag")
            if standin is not None:  # a bot level (cradle.ai.LEVELS): no other bot stands in
                game.standins[seat] = read.text(standin, "stand-in bot", 40, tuple(LEVELS))
        if humans - set(game.tokens):  # every human seat gets its token when the game is made
            read.fail(f"human seat {min(humans - set(game.tokens))} has no token")
        for raw_seat, code, expires in invites:
            seat = read.integer(raw_seat, "invite's seat", 0, last_seat)
            if seat not in game.tokens:
                read.fail(f"an invite for seat {seat}, which has no token")
            game.invites[seat] = read.digest(code, "invite code")
            if expires is not None:
                game.invite_expires[seat] = read.number(expires, "invite's expiry")
        moves = sorted(
            (
                read.integer(ply, "move's number"),
                read.integer(seat, "move's seat", 0, last_seat),
                read.text(action, "move", MAX_ACTION_STORED),
            )
            for ply, seat, action in actions
        )
        if [ply for ply, _seat, _action in moves] != list(range(len(moves))):
            read.fail("its moves are not numbered 0, 1, 2, ...")
        if len(moves) != game.moves:
            read.fail(f"it counts {game.moves} moves but stores {len(moves)}")
        game.actions = [action for _ply, _seat, action in moves]
        game.action_seats = [seat for _ply, seat, _action in moves]
        return game


def _raw(column: InstrumentedAttribute[Column]) -> Label[None]:
    """A column read as the database holds it, for :class:`Reader` to check: SQLAlchemy's own
    conversions would pass some bad values on (SQLite's text 'x' in a boolean reads as True)."""
    return type_coerce(column, NullType()).label(column.key)


_GAME_COLUMNS = (
    _raw(GameRow.id),
    _raw(GameRow.game),
    # JSON read as text and decoded here, so that one corrupt row fails alone and says why.
    cast(GameRow.players, Text).label("players"),
    _raw(GameRow.seed),
    cast(GameRow.options, Text).label("options"),
    cast(GameRow.seats, Text).label("seats"),
    _raw(GameRow.hotseat),
    _raw(GameRow.listed),
    _raw(GameRow.table_token),
    _raw(GameRow.status),
    _raw(GameRow.moves),
    cast(GameRow.result, Text).label("result"),
    _raw(GameRow.created),
    _raw(GameRow.updated),
    _raw(GameRow.version),
    _raw(GameRow.bot_turn),
    _raw(GameRow.bot_seats),
    _raw(GameRow.bot_seconds),
    _raw(GameRow.mode),
    _raw(GameRow.deadline_s),
    _raw(GameRow.deadline),
    _raw(GameRow.standin),
    _raw(GameRow.ended_by),
    _raw(GameRow.creator),
    _raw(GameRow.spectator_chat),
    _raw(GameRow.rated),
    _raw(GameRow.away),
)


class Reader:
    """How every stored value of one game is read back: checked, or CorruptGame saying what
    is wrong.

    SQLite keeps any value in any column (a text where a number belongs), and even
    PostgreSQL's typed columns hold values no server wrote (a seat out of range, a JSON of the
    wrong shape): nothing read is trusted. A reason names the column, never its value (which
    could be a secret's hash).
    """

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id

    def fail(self, reason: str) -> NoReturn:
        raise CorruptGame(self.game_id, reason)

    def _present(self, raw: object, what: str) -> object:
        if raw is None:
            self.fail(f"its {what} {_is(what)} missing")
        return raw

    def integer(self, raw: object, what: str, low: int = 0, high: int = 2**63 - 1) -> int:
        value = self._present(raw, what)
        if type(value) is not int:  # not a bool, a float or a text
            self.fail(f"its {what} {_is(what)} not a whole number")
        if not low <= value <= high:
            self.fail(f"its {what} {_is(what)} out of range")
        return value

    def number(self, raw: object, what: str) -> float:
        value = self._present(raw, what)
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(f"its {what} {_is(what)} not a number")
        if not math.isfinite(value) or value < 0:
            self.fail(f"its {what} {_is(what)} out of range")
        return float(value)

    def flag(self, raw: object, what: str) -> bool:
        value = self._present(raw, what)
        if isinstance(value, bool):
            return value
        if type(value) is int and value in (0, 1):  # SQLite keeps booleans as 0 and 1
            return bool(value)
        self.fail(f"its {what} {_is(what)} neither true nor false")

    def text(self, raw: object, what: str, longest: int, choices: tuple[str, ...] = ()) -> str:
        value = self._present(raw, what)
        if not isinstance(value, str) or not value or len(value) > longest:
            self.fail(f"its {what} {_is(what)} not a text of 1 to {longest} characters")
        if choices and value not in choices:
            self.fail(f"its {what} {_is(what)} none of {', '.join(choices)}")
        return value

    def digest(self, raw: object, what: str) -> str:
        value = self._present(raw, what)
        if not isinstance(value, str) or len(value) != 64 or value.strip(_HEX):
            self.fail(f"its {what} {_is(what)} not a SHA-256 hash")
        return value

    def json(self, raw: object, what: str) -> object:
        value = self._present(raw, what)
        if not isinstance(value, str):
            return value  # a driver that decodes JSON itself
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            self.fail(f"its stored {what} {_is(what)} not valid JSON")

    def names(self, raw: object, what: str) -> list[str]:
        value = self.json(raw, what)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.fail(f"its stored {what} {_is(what)} not a list of names")
        return value


_HEX = "0123456789abcdef"


def _is(what: str) -> str:
    return "are" if what in ("players", "seats", "options") else "is"


def _game_id(raw: object) -> str:
    if not isinstance(raw, str) or not 0 < len(raw) <= 40:
        raise CorruptGame("?", "its id is not a text of 1 to 40 characters")
    return raw


def _ids(found: Iterable[object]) -> list[str]:
    """Game ids from a query; an unreadable one names no game anybody can ask for: left out."""
    return [value for value in found if isinstance(value, str) and 0 < len(value) <= 40]


def _decode_game(row: RowMapping) -> StoredGame:
    """A game row checked field by field; CorruptGame with the first thing wrong."""
    read = Reader(_game_id(row["id"]))
    players = read.names(row["players"], "players")
    seats = read.names(row["seats"], "seats")
    options = read.json(row["options"], "options")
    if not isinstance(options, dict):
        read.fail("its stored options are not an object")
    if not 1 <= len(players) <= MAX_PLAYERS_STORED:
        read.fail(f"it has {len(players)} players")
    if len(seats) != len(players):
        read.fail(f"it lists {len(seats)} seats for {len(players)} players")
    if any(kind != "human" and not kind.startswith("bot:") for kind in seats):
        read.fail("a seat is neither human nor a bot")
    hotseat = read.flag(row["hotseat"], "hot-seat flag")
    table_token = row["table_token"]
    if table_token is not None:
        table_token = read.digest(table_token, "table token")
    if hotseat != (table_token is not None):  # a hot-seat table, and only one, has the token
        read.fail("its hot-seat flag and its table token disagree")
    result = None if row["result"] is None else read.json(row["result"], "result")
    if result is not None and not (
        isinstance(result, list) and all(isinstance(place, dict) for place in result)
    ):  # (JSON's null, as SQLAlchemy stores None, is no result either)
        read.fail("its stored result is not a list of places")
    read.integer(row["bot_seats"], "bot seat count", 0, MAX_PLAYERS_STORED)
    bot_seconds = row["bot_seconds"]
    deadline_s, deadline, standin = row["deadline_s"], row["deadline"], row["standin"]
    ended_by, creator = row["ended_by"], row["creator"]
    return StoredGame(
        id=read.game_id,
        game=read.text(row["game"], "game", 20),
        players=players,
        seed=read.integer(row["seed"], "seed"),
        options=options,
        seats=seats,
        hotseat=hotseat,
        listed=read.flag(row["listed"], "listed flag"),
        table_token=table_token,
        status=read.text(row["status"], "status", 10, GAME_STATUSES),
        created=read.number(row["created"], "creation time"),
        updated=read.number(row["updated"], "time of change"),
        version=read.integer(row["version"], "version"),
        bot_seconds=None if bot_seconds is None else read.number(bot_seconds, "bot budget"),
        bot_turn=read.flag(row["bot_turn"], "bot-turn flag"),
        moves=read.integer(row["moves"], "move count"),
        mode=read.text(row["mode"], "mode", 5, MODES),
        deadline_s=None if deadline_s is None else read.number(deadline_s, "time per move"),
        deadline=None if deadline is None else read.number(deadline, "deadline"),
        standin=None
        if standin is None
        else read.integer(standin, "stand-in's seat", 0, len(seats) - 1),
        ended_by=None if ended_by is None else read.text(ended_by, "ending", 10, ENDINGS),
        result=result,
        creator=None if creator is None else read.integer(creator, "creator's seat", 0, 7),
        spectator_chat=read.flag(row["spectator_chat"], "spectators' chat flag"),
        rated=read.flag(row["rated"], "rated flag"),
        away=away_seats(read.integer(row["away"], "seats away", 0, 2 ** len(seats) - 1)),
    )


def _decode_lobby_row(row: RowMapping) -> ListedGame:
    """A lobby row's public facts, checked like every stored value (:class:`Reader`)."""
    read = Reader(_game_id(row["id"]))
    options = read.json(row["options"], "options")
    if not isinstance(options, dict):
        read.fail("its stored options are not an object")
    result = None if row["result"] is None else read.json(row["result"], "result")
    if result is not None and not (
        isinstance(result, list) and all(isinstance(place, dict) for place in result)
    ):
        read.fail("its stored result is not a list of places")
    deadline_s, deadline, ended_by = row["deadline_s"], row["deadline"], row["ended_by"]
    return ListedGame(
        id=read.game_id,
        game=read.text(row["game"], "game", 20),
        players=read.names(row["players"], "players"),
        seats=read.names(row["seats"], "seats"),
        options=shown_options(options),
        all_options=options,  # for the lobby's filters; not shown
        hotseat=read.flag(row["hotseat"], "hot-seat flag"),
        status=read.text(row["status"], "status", 10, GAME_STATUSES),
        moves=read.integer(row["moves"], "move count"),
        created=read.number(row["created"], "creation time"),
        updated=read.number(row["updated"], "time of change"),
        mode=read.text(row["mode"], "mode", 5, MODES),
        deadline_s=None if deadline_s is None else read.number(deadline_s, "time per move"),
        deadline=None if deadline is None else read.number(deadline, "deadline"),
        ended_by=None if ended_by is None else read.text(ended_by, "ending", 10, ENDINGS),
        result=result,
        rated=read.flag(row["rated"], "rated flag"),  # made rated; list_games checks the seats
        names=[],  # list_games reads them from the seats
    )


def _cannot_write(path: Path) -> bool:
    """Whether this process may not write the SQLite file at ``path`` (nor, when it does not
    exist yet, create it): the file or its folder, where SQLite keeps its write-ahead log.
    ``os.access`` asks the kernel, which also counts read-only mounts and immutable files."""
    real = path.resolve()
    if not real.exists():
        if not os.access(real.parent, os.W_OK):
            raise StorageError(f"cannot create {path}: its folder cannot be written")
        return False
    return not (os.access(real, os.W_OK) and os.access(real.parent, os.W_OK))


def _read_only_url(path: Path) -> str:
    """The URL that opens a SQLite file this process cannot write, for reading only.

    With a write-ahead log beside it (the last server was killed), SQLite reads the log too.
    Without one, the file holds everything, and ``immutable`` lets SQLite open it although it
    cannot create the log's index in a read-only folder.
    """
    from urllib.parse import quote

    real = path.resolve()
    wal = real.with_name(real.name + "-wal")
    immutable = "" if wal.exists() else "&immutable=1"
    return f"sqlite:///file:{quote(str(real))}?mode=ro{immutable}&uri=true"


def _number(value: object) -> float | None:
    """A stored number of the bots' queue, or None when it is not one (a damaged row)."""
    if value is None or isinstance(value, bool) or not isinstance(value, str | SupportsFloat):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _sqlite_begin(connection: Connection) -> None:
    # Python's sqlite3 opens a transaction only before a write, so the statements of a read
    # would each see the latest commit; BEGIN here makes every transaction, reads included,
    # one snapshot (what SQLAlchemy's documentation prescribes for pysqlite).
    connection.exec_driver_sql("BEGIN")


def _sqlite_pragmas(connection: sqlite3.Connection, _record: object) -> None:
    # WAL keeps readers off the writer's back; NORMAL sync is durable against a killed
    # process (the OS holds the written pages), which is the crash the server must survive.
    connection.isolation_level = None  # transactions are begun by _sqlite_begin instead
    # The bots' queue orders by exp(); a SQLite built without its math functions gets ours.
    connection.create_function("exp", 1, math.exp, deterministic=True)
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_read_only_pragmas(connection: sqlite3.Connection, _record: object) -> None:
    # A file that cannot be written: no journal mode to set; query_only makes sure of it.
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()
