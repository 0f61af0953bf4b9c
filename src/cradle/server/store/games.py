"""Games as stored: a game's rows read back into a :class:`StoredGame` (every value checked by
:class:`~cradle.server.store.reader.Reader`), the sweeps' queries (games nobody played in, idle
turn-based games, seats away whose deadline passed) and the compare-and-set every write of a
game goes through (:func:`bump`: it names the version it expects, and changes nothing when
another process got there first)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Float, Text, cast, delete, func, literal, or_, select, update
from sqlalchemy.engine import Connection, RowMapping
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement

from cradle.ai import LEVELS
from cradle.core.record import GameRecord
from cradle.server.limits import FREE_BOTS
from cradle.server.store.database import Database
from cradle.server.store.errors import Conflict, CorruptGame
from cradle.server.store.reader import Reader, checked_id, game_ids, raw
from cradle.server.store.schema import (
    ENDED,
    ENDINGS,
    GAME_STATUSES,
    LIVE,
    MAX_ACTION_STORED,
    MAX_PLAYERS_STORED,
    MODES,
    ActionRow,
    BotJobRow,
    DueNoticeRow,
    GameRow,
    InviteRow,
    SeatRow,
)

STANDIN_DEFAULT = "easy"  # the bot level that plays for an overdue seat unless it chose another
SHOWN_OPTION_CHARS = 40  # a longer text option is shown as "custom" (a custom tile set)


def away_bits(seats: Iterable[int]) -> int:
    """The stored form of a set of seats (a bit per seat)."""
    return sum(1 << seat for seat in set(seats))


def away_seats(bits: int) -> set[int]:
    """The seats of :func:`away_bits`'s number."""
    return {seat for seat in range(bits.bit_length()) if bits >> seat & 1}


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
    # Each action's stand-in: the bot level that played it for its seat's person (None: the
    # seat's own player).
    action_standins: list[str | None] = field(default_factory=list)
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
    # A live table's clocks: base time and increment (None: no clock), each seat's time left.
    clock_base_s: float | None = None
    clock_increment_s: float | None = None
    clock_left: list[float] = field(default_factory=list)
    gone: dict[int, float] = field(default_factory=dict)  # seat -> since when no page is open

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


@dataclass(frozen=True)
class Clocks:
    """A live table's clocks after a change, worked out at the time it is stored (:meth:`at`):
    ``left``, each seat's seconds left as its clock last stopped; ``stops``, the seat whose
    turn the change ends (its clock stops: what its ``deadline`` left, or else what it had,
    plus ``increment``); ``runs``, the seat whose clock runs from the change on (None: none
    runs), and ``until`` (with ``keep``): the deadline of a clock that goes on running as it
    was (a turn of several actions, an undo)."""

    left: tuple[float, ...]
    stops: int | None = None
    deadline: float | None = None
    increment: float = 0.0
    runs: int | None = None
    keep: bool = False
    until: float | None = None

    def at(self, now: float) -> tuple[list[float], float | None]:
        """Each seat's time left and the running clock's deadline, for a change at ``now``."""
        left = list(self.left)
        if self.stops is not None:
            had = left[self.stops] if self.deadline is None else self.deadline - now
            left[self.stops] = max(0.0, had) + self.increment
        if self.keep:
            return left, self.until
        return left, None if self.runs is None else now + left[self.runs]


def clock_values(clocks: Clocks | None, now: float) -> dict[str, object]:
    """The games row's clock columns after a change at ``now`` (none: no clock)."""
    if clocks is None:
        return {}
    left, deadline = clocks.at(now)
    return {"clock_left": left, "deadline": deadline}


def playing_seats(seats: list[str], standin: int | None, standins: dict[int, str]) -> list[str]:
    """``seats`` with the seat ``standin`` (if any) played by its stand-in bot level."""
    if standin is None or not 0 <= standin < len(seats):
        return list(seats)
    playing = list(seats)
    playing[standin] = "bot:" + standins.get(standin, STANDIN_DEFAULT)
    return playing


def shown_options(options: dict[str, Any]) -> dict[str, Any]:
    """A table's options as the lobby and frames show them: a long text is only named."""
    return {
        name: "custom" if isinstance(value, str) and len(value) > SHOWN_OPTION_CHARS else value
        for name, value in options.items()
    }


def next_deadline(nobody: bool, now: float) -> ColumnElement[float | None] | None:
    """The deadline column after a change at ``now``: a turn-based table's next person gets
    its ``deadline_s`` from now; none when no person decides (a bot, or the game is over)."""
    return None if nobody else GameRow.deadline_s + literal(now, Float)


def bot_cost(seats: list[str]) -> int:
    """How many of ``seats`` are bots that cost something (FREE_BOTS cost nothing)."""
    return sum(1 for kind in seats if kind.startswith("bot:") and kind[4:] not in FREE_BOTS)


GAME_COLUMNS = (
    raw(GameRow.id),
    raw(GameRow.game),
    # JSON read as text and decoded here, so that one corrupt row fails alone and says why.
    cast(GameRow.players, Text).label("players"),
    raw(GameRow.seed),
    cast(GameRow.options, Text).label("options"),
    cast(GameRow.seats, Text).label("seats"),
    raw(GameRow.hotseat),
    raw(GameRow.listed),
    raw(GameRow.table_token),
    raw(GameRow.status),
    raw(GameRow.moves),
    cast(GameRow.result, Text).label("result"),
    raw(GameRow.created),
    raw(GameRow.updated),
    raw(GameRow.version),
    raw(GameRow.bot_turn),
    raw(GameRow.bot_seats),
    raw(GameRow.bot_seconds),
    raw(GameRow.mode),
    raw(GameRow.deadline_s),
    raw(GameRow.deadline),
    raw(GameRow.standin),
    raw(GameRow.ended_by),
    raw(GameRow.creator),
    raw(GameRow.spectator_chat),
    raw(GameRow.rated),
    raw(GameRow.away),
    raw(GameRow.clock_base_s),
    raw(GameRow.clock_increment_s),
    cast(GameRow.clock_left, Text).label("clock_left"),
)


def game_columns(names: str) -> tuple[Any, ...]:
    """Those of :data:`GAME_COLUMNS` whose names ``names`` lists (space-separated), read the
    same way: for a page that must not read seeds or tokens."""
    wanted = names.split()
    found = tuple(column for column in GAME_COLUMNS if column.name in wanted)
    if len(found) != len(wanted):
        raise ValueError(f"not game columns: {sorted(set(wanted) - {c.name for c in found})}")
    return found


def decode_game(row: RowMapping) -> StoredGame:
    """A game row checked field by field; CorruptGame with the first thing wrong."""
    read = Reader(checked_id(row["id"]))
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
    base, increment = row["clock_base_s"], row["clock_increment_s"]
    found = None if row["clock_left"] is None else read.json(row["clock_left"], "clocks")
    left: list[float] = []
    if base is None:
        if increment is not None or found is not None:
            read.fail("it has clocks without a base time")
    else:
        if not isinstance(found, list) or len(found) != len(seats):
            read.fail("its stored clocks are not one time per seat")
        left = [read.number(seconds, "time left") for seconds in found]
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
        clock_base_s=None if base is None else read.number(base, "base time"),
        clock_increment_s=None if base is None else read.number(increment, "increment"),
        clock_left=left,
    )


def not_ended() -> list[ColumnElement[bool]]:
    """A game not ended without a result: ``status NOT IN ENDED`` as plain comparisons (an
    ``IN`` list is spliced into the statement's text at each run: a cost on every move)."""
    return [GameRow.status != ended for ended in ENDED]


def bump(
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
        *not_ended(),
    ]
    if at_moves is not None:
        condition.append(GameRow.moves == at_moves)
    changed = connection.execute(
        update(GameRow).where(*condition).values(version=version + 1, **values)
    ).rowcount
    if changed != 1:
        raise Conflict(f"game {game_id} is no longer at version {version}")


def end_unplayed(
    database: Database,
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
    database.notify_change(connection, game_id, version + 1, now)
    return True


def seats_held(connection: Connection, account_id: str) -> dict[str, list[int]]:
    """The seats ``account_id`` holds, by game."""
    held: dict[str, list[int]] = {}
    for game_id, seat in connection.execute(
        select(SeatRow.game_id, SeatRow.seat).where(SeatRow.account_id == account_id)
    ):
        held.setdefault(str(game_id), []).append(int(seat))
    return held


def names_at(connection: Connection, game_ids: list[str]) -> dict[str, dict[int, str]]:
    """The names shown at the seats of the games ``game_ids`` (a seat without one: left out)."""
    names: dict[str, dict[int, str]] = {}
    for game_id, seat, name in connection.execute(
        select(SeatRow.game_id, SeatRow.seat, SeatRow.name).where(
            SeatRow.game_id.in_(game_ids), SeatRow.name.is_not(None)
        )
    ):
        names.setdefault(str(game_id), {})[int(seat)] = str(name)
    return names


class GameStore:
    """Reading games back, and the sweeps' queries over them."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def load(self, game_id: str) -> StoredGame | None:
        """The game, or None if there is none; CorruptGame if its rows cannot be read back.

        The game row, seats, invites and actions are read by separate statements in one
        transaction that sees one snapshot (PostgreSQL: repeatable read; SQLite: a transaction
        begun for the reads too, see _sqlite_begin), so the result is one version of the game.
        """
        isolation = {"isolation_level": "REPEATABLE READ"} if self.database.shared else {}
        with self.database.engine.connect().execution_options(**isolation) as connection:
            row = connection.execute(select(*GAME_COLUMNS).where(GameRow.id == game_id)).first()
            if row is None:
                return None
            return self._stored(connection, row._mapping)

    def _stored(self, connection: Connection, row: RowMapping) -> StoredGame:
        game = decode_game(row)
        seats = connection.execute(
            select(
                raw(SeatRow.seat),
                raw(SeatRow.token),
                raw(SeatRow.claimed),
                raw(SeatRow.standin),
                raw(SeatRow.account_id),
                raw(SeatRow.name),
                raw(SeatRow.gone),
            ).where(SeatRow.game_id == game.id)
        ).all()
        invites = connection.execute(
            select(raw(InviteRow.seat), raw(InviteRow.code), raw(InviteRow.expires)).where(
                InviteRow.game_id == game.id
            )
        ).all()
        actions = connection.execute(
            select(
                raw(ActionRow.ply),
                raw(ActionRow.seat),
                raw(ActionRow.action),
                raw(ActionRow.standin),
            ).where(ActionRow.game_id == game.id)
        ).all()
        read = Reader(game.id)
        last_seat = len(game.seats) - 1
        humans = {seat for seat, kind in enumerate(game.seats) if kind == "human"}
        levels = tuple(LEVELS)
        for raw_seat, token, claimed, standin, account, name, gone in seats:
            seat = read.integer(raw_seat, "token's seat", 0, last_seat)
            if gone is not None:
                game.gone[seat] = read.number(gone, "time the seat's person left")
            if account is not None:
                game.accounts[seat] = read.text(account, "seat's account", 16)
            if name is not None:
                game.names[seat] = read.text(name, "seat's name", 64)
            if seat not in humans:
                read.fail(f"a token for seat {seat}, which is no human seat")
            game.tokens[seat] = read.digest(token, "seat token")
            game.claimed[seat] = read.flag(claimed, "seat's taken flag")
            if standin is not None:  # a bot level (cradle.ai.LEVELS): no other bot stands in
                game.standins[seat] = read.text(standin, "stand-in bot", 40, levels)
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
                None if standin is None else read.text(standin, "move's stand-in", 40, levels),
            )
            for ply, seat, action, standin in actions
        )
        if [move[0] for move in moves] != list(range(len(moves))):
            read.fail("its moves are not numbered 0, 1, 2, ...")
        if len(moves) != game.moves:
            read.fail(f"it counts {game.moves} moves but stores {len(moves)}")
        game.actions = [move[2] for move in moves]
        game.action_seats = [move[1] for move in moves]
        game.action_standins = [move[3] for move in moves]
        return game

    def version_of(self, game_id: str) -> int | None:
        """The game's stored version (None: no such game); CorruptGame if it is unreadable."""
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(raw(GameRow.version)).where(GameRow.id == game_id)
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
        with self.database.engine.connect() as connection:
            return game_ids(connection.execute(query).scalars())

    def check_unfinished(self) -> dict[str, str]:
        """The unfinished games whose rows are unreadable, with the reason (no replay: cheap)."""
        bad: dict[str, str] = {}
        with self.database.engine.connect() as connection:
            # Status included: a game whose status is unreadable is checked (and set aside).
            unfinished = GameRow.status.not_in(("over", *ENDED)) | GameRow.status.is_(None)
            rows = connection.execute(select(*GAME_COLUMNS).where(unfinished)).all()
        for row in rows:
            try:
                decode_game(row._mapping)
            except CorruptGame as exc:
                if exc.game_id != "?":
                    bad[exc.game_id] = exc.reason
        return bad

    def count_games(self) -> int:
        with self.database.engine.connect() as connection:
            return int(connection.scalar(select(func.count()).select_from(GameRow)) or 0)

    def set_status(self, game_id: str, status: str) -> None:
        with self.database.transaction() as connection:
            connection.execute(
                update(GameRow).where(GameRow.id == game_id).values(status=status, bot_turn=False)
            )
            connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))

    def idle_turn_games(self, now: float, limit: int = 100) -> list[str]:
        """Turn-based games in progress that nobody changed for three of their deadlines."""
        idle = GameRow.deadline_s.is_not(None) & (GameRow.updated + GameRow.deadline_s * 3 < now)
        return self._turn_games(idle, GameRow.updated, limit)

    def lapsed_away(self, now: float, limit: int = 100) -> list[str]:
        """Turn-based games in progress whose deciding person's deadline passed before ``now``
        while some seat is away (its stand-in may then play: the caller checks it is that
        seat that decides)."""
        lapsed = (GameRow.away != 0) & GameRow.bot_turn.is_(False) & (GameRow.deadline < now)
        return self._turn_games(lapsed, GameRow.deadline, limit)

    def _turn_games(
        self, condition: ColumnElement[bool], order: InstrumentedAttribute[Any], limit: int
    ) -> list[str]:
        """The turn-based games in progress that meet ``condition``, the first ``limit`` by
        ``order``."""
        running = (GameRow.status == "running") & (GameRow.mode == "turn")
        query = select(GameRow.id).where(running & condition).order_by(order).limit(limit)
        with self.database.engine.connect() as connection:
            return game_ids(connection.execute(query).scalars())

    def lapsed_clocks(self, now: float, limit: int = 100) -> list[str]:
        """Live games in progress whose running clock ran out before ``now``."""
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(GameRow.id)
                .where(
                    GameRow.status == "running",
                    GameRow.mode == "live",
                    GameRow.clock_base_s.is_not(None),
                    GameRow.bot_turn.is_(False),
                    GameRow.deadline.is_not(None),
                    GameRow.deadline < now,
                )
                .order_by(GameRow.deadline)
                .limit(limit)
            ).scalars()
            return game_ids(found)

    def expire_unplayed(self, now: float, unplayed_seconds: float, limit: int = 500) -> list[str]:
        """End (``expired``) the live games nobody played in that nobody changed for
        ``unplayed_seconds``; their ids."""
        with self.database.transaction() as connection:
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
            return [
                str(row.id)
                for row in found
                if end_unplayed(
                    self.database, connection, str(row.id), int(row.version), "expired", now
                )
            ]
