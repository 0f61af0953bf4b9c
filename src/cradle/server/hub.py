"""The live tables: games in memory, their seats and tokens, moves, undo, bots and WebSockets.

Every game in progress lives here as a :class:`Table` whose ``state`` is never mutated: a move is
applied to a clone, stored, and only then published by swapping the clone in. So readers (views,
bots thinking in a worker thread) need no lock, and a move that fails to store changes nothing.
A table's lock orders its moves; different tables never wait for each other.

The hub talks to the games only through the contract (:mod:`cradle.games`) and to bots through
the :mod:`cradle.ai` registry.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cradle.ai import bot_names, make_bot
from cradle.core.contract import Event, GameModule, GameState
from cradle.core.record import GameRecord, RecordError
from cradle.games import UnknownGame, game_names, get_game
from cradle.server.storage import Storage, StorageError, StoredGame

log = logging.getLogger("cradle.server")

T = TypeVar("T")

MAX_ACTION_LENGTH = 200
FINISHED_CACHE = 256  # finished games kept replayed in memory (they are read-only)
SEND_QUEUE_LIMIT = 64  # frames waiting for one slow client before it is dropped
# Public counters of the hidden stock in the games' views: when one moves, a tile was drawn.
DRAW_COUNTERS = ("bag_size", "stack_size", "stack_epochs", "epochs_drawn")


class ApiError(Exception):
    """A request the hub refuses: ``status`` is the HTTP status, ``reason`` the message."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def forbidden(reason: str) -> ApiError:
    return ApiError(403, reason)


def bad_request(reason: str) -> ApiError:
    return ApiError(400, reason)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def bot_seed(game_seed: int, ply: int, seat: int) -> int:
    """The seed of the bot deciding at ``ply``: a restarted server makes the very same choice.

    Hashed so that the bots' choices, which everybody sees, say nothing about the game's seed.
    """
    digest = hashlib.sha256(f"bot:{game_seed}:{ply}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(eq=False)
class Connection:
    """One WebSocket client: a seat, a spectator (``seat is None``) or a hot-seat screen."""

    seat: int | None
    hotseat: bool
    send: Callable[[str], Awaitable[None]]
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    dropped: bool = False  # too slow: the server closes it (the client reconnects)

    def push(self, text: str) -> bool:
        if self.queue.qsize() >= SEND_QUEUE_LIMIT:
            return False
        self.queue.put_nowait(text)
        return True

    async def pump(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            await self.send(text)


@dataclass(eq=False)
class Table:
    """A game being played (or a finished one loaded for reading)."""

    id: str
    module: GameModule
    record: GameRecord
    state: GameState
    seats: list[str]
    tokens: dict[int, str]  # seat -> sha-256 of its token (human seats only)
    claimed: dict[int, bool]
    action_seats: list[int]
    hotseat: bool
    listed: bool
    table_token: str | None
    created: float
    updated: float
    version: int = 0  # counts every change a client sees
    moves: int = 0  # counts moves and undos: a bot's choice is stale once it changed
    events: list[Event] = field(default_factory=list)
    previous: GameState | None = None  # the state before the last action, when known
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    undo_cache: tuple[int, dict[int, bool]] = (-1, {})

    @property
    def ply(self) -> int:
        return len(self.record.actions)

    @property
    def is_over(self) -> bool:
        return bool(self.state.is_over)

    @property
    def status(self) -> str:
        if self.is_over:
            return "over"
        if not self.hotseat and not all(self.claimed.get(s, True) for s in self.tokens):
            return "open"
        return "running"

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token is ``token``; None if it matches none."""
        if not token:
            return None
        digest = hash_token(token)
        found = None
        for seat, stored in self.tokens.items():
            if hmac.compare_digest(stored, digest):
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

    def summary(self) -> dict[str, Any]:
        """Public facts about the table, for the lobby and every frame."""
        return {
            "id": self.id,
            "game": self.record.game,
            "players": list(self.record.players),
            "seats": list(self.seats),
            "claimed": [self.claimed.get(s, True) for s in range(len(self.seats))],
            "hotseat": self.hotseat,
            "status": self.status,
            "moves": self.ply,
            "to_move": self.to_move(),
            "created": self.created,
            "updated": self.updated,
        }


class Hub:
    """All tables of one server, their storage and their bots."""

    def __init__(self, storage: Storage, bot_delay: float = 0.5, bot_threads: int = 2) -> None:
        self.storage = storage
        self.bot_delay = bot_delay
        # SQLite wants one writer; a server database takes a few connections in parallel.
        self.db_pool = ThreadPoolExecutor(
            max_workers=1 if storage.is_sqlite else 4, thread_name_prefix="cradle-db"
        )
        self.bot_pool = ThreadPoolExecutor(max_workers=bot_threads, thread_name_prefix="cradle-bot")
        self.tables: dict[str, Table] = {}
        self.finished: OrderedDict[str, Table] = OrderedDict()
        self.broken: dict[str, str] = {}
        self.closing = False

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Rebuild every unfinished game from its record and wake the bots whose turn it is."""
        for stored in await self._db(self.storage.load_unfinished):
            try:
                table = self._rebuild(stored)
            except RecordError as exc:
                log.error("game %s cannot be restored: %s", stored.id, exc)
                self.broken[stored.id] = str(exc)
                continue
            if table.is_over:  # stored before its last status update could be written
                await self._db(self.storage.set_status, table.id, "over")
                self._remember_finished(table)
            else:
                self.tables[table.id] = table
        for table in list(self.tables.values()):
            self._schedule_bot(table)
        log.info("restored %d games", len(self.tables))

    async def stop(self) -> None:
        self.closing = True
        tasks = [t.bot_task for t in self.tables.values() if t.bot_task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        for table in list(self.tables.values()):
            for connection in list(table.connections):
                connection.queue.put_nowait(None)
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        self.db_pool.shutdown(wait=True)
        self.storage.close()

    async def _db(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db_pool, function, *args)

    def _rebuild(self, stored: StoredGame) -> Table:
        record = GameRecord(
            game=stored.game,
            players=list(stored.players),
            seed=stored.seed,
            options=dict(stored.options),
            actions=list(stored.actions),
        )
        state = record.replay()
        return Table(
            id=stored.id,
            module=get_game(stored.game),
            record=record,
            state=state,
            seats=list(stored.seats),
            tokens=dict(stored.tokens),
            claimed=dict(stored.claimed),
            action_seats=list(stored.action_seats),
            hotseat=stored.hotseat,
            listed=stored.listed,
            table_token=stored.table_token,
            created=stored.created,
            updated=stored.updated,
            version=len(stored.actions),
        )

    def _remember_finished(self, table: Table) -> None:
        self.finished[table.id] = table
        self.finished.move_to_end(table.id)
        while len(self.finished) > FINISHED_CACHE:
            old_id, old = self.finished.popitem(last=False)
            if old.connections:  # still watched: keep it
                self.finished[old_id] = old
                break

    async def table(self, game_id: str) -> Table:
        """The table ``game_id``: live, or finished and replayed from the database."""
        table = self.tables.get(game_id) or self.finished.get(game_id)
        if table is not None:
            return table
        if game_id in self.broken:
            raise ApiError(500, f"game {game_id} cannot be restored: {self.broken[game_id]}")
        if len(game_id) > 40:
            raise ApiError(404, "no such game")
        stored = await self._db(self.storage.load, game_id)
        if stored is None:
            raise ApiError(404, f"no game {game_id!r}")
        table = self.tables.get(game_id) or self.finished.get(game_id)
        if table is not None:  # loaded meanwhile
            return table
        try:
            table = self._rebuild(stored)
        except RecordError as exc:
            self.broken[game_id] = str(exc)
            raise ApiError(500, f"game {game_id} cannot be restored: {exc}") from None
        if table.is_over:
            self._remember_finished(table)
        else:
            self.tables[game_id] = table
        return table

    # -- creating and joining -----------------------------------------------------------------

    async def create(self, body: Any) -> dict[str, Any]:
        """``POST /api/games``: set up a table; returns its id and the human seats' tokens."""
        if not isinstance(body, dict):
            raise bad_request("the body must be a JSON object")
        name = body.get("game")
        if not isinstance(name, str):
            raise bad_request(f"'game' must be one of {', '.join(game_names())}")
        try:
            module = get_game(name)
        except UnknownGame as exc:
            raise bad_request(str(exc)) from None
        players = body.get("players", 2)
        if not isinstance(players, int) or isinstance(players, bool):
            raise bad_request("'players' must be a whole number")
        if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise bad_request(
                f"{name} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, not {players}"
            )
        seats = body.get("seats", ["human"] * players)
        if not isinstance(seats, list) or len(seats) != players:
            raise bad_request(f'\'seats\' must list {players} seats, e.g. ["human", "bot:random"]')
        seats = [self._seat_kind(kind) for kind in seats]
        options_in = body.get("options") or {}
        if not isinstance(options_in, dict):
            raise bad_request("'options' must be an object")
        try:
            options = module.options_from_dict(options_in)
            options_dict = dict(module.options_to_dict(options))
        except (ValueError, TypeError) as exc:
            raise bad_request(f"bad options: {exc}") from None
        hotseat = bool(body.get("hotseat", False))
        listed = bool(body.get("listed", True))
        seed = secrets.randbits(63)
        try:
            first = module.new_game(players, seed, options)
            record = GameRecord(
                game=name, players=list(first.players), seed=seed, options=options_dict
            )
            # The same path a restart takes, so the stored record is known to replay.
            state = record.replay()
        except (ValueError, RecordError) as exc:
            raise bad_request(f"cannot set up the game: {exc}") from None

        tokens = {seat: new_token() for seat, kind in enumerate(seats) if kind == "human"}
        table_token = new_token() if hotseat else None
        now = time.time()
        game_id = secrets.token_urlsafe(9)
        stored = StoredGame(
            id=game_id,
            game=name,
            players=list(record.players),
            seed=seed,
            options=options_dict,
            seats=seats,
            hotseat=hotseat,
            listed=listed,
            table_token=hash_token(table_token) if table_token else None,
            status="running",
            created=now,
            updated=now,
            tokens={seat: hash_token(token) for seat, token in tokens.items()},
            claimed={seat: hotseat for seat in tokens},
        )
        table = Table(
            id=game_id,
            module=module,
            record=record,
            state=state,
            seats=seats,
            tokens=dict(stored.tokens),
            claimed=dict(stored.claimed),
            action_seats=[],
            hotseat=hotseat,
            listed=listed,
            table_token=stored.table_token,
            created=now,
            updated=now,
        )
        stored.status = table.status
        await self._db(self.storage.create_game, stored)
        self.tables[game_id] = table
        self._schedule_bot(table)
        answer: dict[str, Any] = {
            "id": game_id,
            "game": name,
            "players": list(record.players),
            "seats": [{"seat": seat, "token": token} for seat, token in tokens.items()],
        }
        if table_token:
            answer["table_token"] = table_token
        return answer

    @staticmethod
    def _seat_kind(given: Any) -> str:
        if not isinstance(given, str):
            raise bad_request('each seat is "human" or "bot:NAME"')
        kind = given.strip().lower()
        if kind == "human":
            return kind
        if kind.startswith("bot:"):
            name = kind[4:]
            if name in bot_names():
                return kind
            raise bad_request(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
        raise bad_request(f'unknown seat {kind!r}: use "human" or "bot:NAME"')

    async def join(self, game_id: str) -> dict[str, Any]:
        """Take the first unclaimed human seat of a listed table (from the lobby)."""
        table = await self.table(game_id)
        async with table.lock:
            if table.is_over:
                raise forbidden("the game is over")
            free = [
                seat
                for seat in sorted(table.tokens)
                if not table.claimed.get(seat, True) and not table.hotseat
            ]
            if not table.listed or not free:
                raise forbidden("this game has no open seat")
            seat = free[0]
            token = new_token()
            # The joiner gets a fresh token: an invite link sent for this seat stops working.
            await self._db(self.storage.claim_seat, table.id, seat, hash_token(token))
            table.tokens[seat] = hash_token(token)
            table.claimed[seat] = True
            self._changed(table, events=None)
        return {"id": table.id, "seat": seat, "token": token}

    async def authorize(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        """(seat, hot-seat screen?) for ``token``: no token is a spectator, a wrong one is 403."""
        if not token:
            return None, False
        if table.is_table_token(token):
            return None, True
        seat = table.seat_of(token)
        if seat is None:
            raise forbidden("that token belongs to no seat of this game")
        if not table.claimed.get(seat, True):
            await self._db(self.storage.claim_seat, table.id, seat, None)
            table.claimed[seat] = True
            self._changed(table, events=None)
        return seat, False

    # -- views --------------------------------------------------------------------------------

    def frame(self, table: Table, seat: int | None, hotseat: bool = False) -> dict[str, Any]:
        """What ``seat`` may see (a spectator: ``None``), with its legal actions if it decides."""
        if hotseat:
            seat = table.hotseat_seat()
        state = table.state
        to_move = table.to_move()
        view = dict(state.view(seat))
        deciding = seat is not None and to_move == seat
        meta = table.summary()
        meta.update(
            {
                "version": table.version,
                "seat": seat,
                "screen": "hotseat" if hotseat else ("seat" if seat is not None else "spectator"),
                "events": table.events,
                "last": (
                    {"seat": table.action_seats[-1], "action": table.record.actions[-1]}
                    if table.record.actions
                    else None
                ),
                "can_undo": seat is not None and self.can_undo(table, seat),
                "result": state.result() if table.is_over else None,
            }
        )
        view.update(
            {
                "to_move": to_move,
                "legal_actions": list(state.legal_actions()) if deciding else [],
                "table": meta,
            }
        )
        return view

    def _broadcast(self, table: Table) -> None:
        texts: dict[tuple[int | None, bool], str] = {}
        for connection in list(table.connections):
            key = (connection.seat, connection.hotseat)
            if key not in texts:
                frame = self.frame(table, connection.seat, connection.hotseat)
                frame["type"] = "view"
                texts[key] = json.dumps(frame, separators=(",", ":"))
            if not connection.push(texts[key]):
                log.warning("dropping a slow client of game %s", table.id)
                table.connections.discard(connection)
                connection.dropped = True
                connection.queue.put_nowait(None)

    def _changed(self, table: Table, events: list[Event] | None) -> None:
        table.version += 1
        table.updated = time.time()
        if events is not None:
            table.events = events
        self._broadcast(table)

    # -- moves --------------------------------------------------------------------------------

    async def act(self, table: Table, token: str | None, action: Any) -> None:
        """A move for the seat holding ``token`` (or the hot-seat screen's current human)."""
        seat, hotseat = await self.authorize(table, token)
        if seat is None and not hotseat:
            raise forbidden("a move needs the token of the seat that decides")
        if hotseat:
            seat = table.hotseat_seat()
            if seat is None:
                raise forbidden("no human at this table decides now")
        assert seat is not None
        if not isinstance(action, str) or not action.strip():
            raise bad_request("'action' must be a non-empty string, e.g. \"pass\"")
        await self.play(table, seat, action)

    async def play(
        self, table: Table, seat: int, action: str, expected_moves: int | None = None
    ) -> bool:
        """Apply, store, then publish ``action`` for ``seat``; False if the table moved on."""
        action = " ".join(action.split())
        if len(action) > MAX_ACTION_LENGTH:
            raise bad_request(f"an action has at most {MAX_ACTION_LENGTH} characters")
        async with table.lock:
            if expected_moves is not None and table.moves != expected_moves:
                return False
            if table.is_over:
                raise forbidden("the game is over")
            if table.to_move() != seat:
                raise forbidden(f"it is not seat {seat}'s decision")
            before = table.state
            after = before.clone()
            try:
                events = after.apply(action)
            except table.module.IllegalAction as exc:
                raise bad_request(str(exc) or "illegal action") from None
            except ValueError as exc:
                raise bad_request(str(exc) or "illegal action") from None
            status = "over" if after.is_over else table.status
            result = after.result() if after.is_over else None
            try:
                await self._db(
                    self.storage.append_action, table.id, table.ply, seat, action, status, result
                )
            except StorageError as exc:
                log.error("game %s: %s", table.id, exc)
                raise ApiError(503, "the move could not be stored; try again") from None
            table.previous = before
            table.state = after
            table.moves += 1
            table.record.actions.append(action)
            table.action_seats.append(seat)
            self._changed(table, list(events or []))
            if after.is_over:
                self.tables.pop(table.id, None)
                self._remember_finished(table)
        self._schedule_bot(table)
        return True

    # -- undo ---------------------------------------------------------------------------------

    def can_undo(self, table: Table, seat: int) -> bool:
        version, known = table.undo_cache
        if version != table.version:
            known = {}
            table.undo_cache = (table.version, known)
        if seat not in known:
            known[seat] = self._undo_reason(table, seat) is None
        return known[seat]

    def _undo_reason(self, table: Table, seat: int) -> str | None:
        """Why ``seat`` may not take its last action back now (None: it may).

        The rule: only the seat that decides now, only its own last action, only while no other
        seat has decided since, and only if that action revealed nothing hidden (no tile drawn,
        no hidden stack turned). The last condition is tested in two ways: the public count of
        hidden tiles (bag or stack size) must not have changed, and the action is replayed on a
        few states that differ only in what ``seat`` cannot know: if the seat would see the same
        thing after it in every one, the action revealed nothing.
        """
        if table.is_over:
            return "the game is over"
        if table.seats[seat] != "human":
            return "only people take moves back"
        if not table.record.actions or table.action_seats[-1] != seat:
            return "your last move is not the last move of the game"
        if table.to_move() != seat:
            return "another player decides now"
        before = self._previous(table)
        if before is None or before.to_move != seat:
            return "that move cannot be taken back"
        action = table.record.actions[-1]
        seen = table.state.view(seat)
        earlier = before.view(seat)
        if any(earlier.get(key) != seen.get(key) for key in DRAW_COUNTERS):
            return "that move drew from the hidden tiles"
        for sample in range(2):
            try:
                trial = before.sample_hidden(seat, random.Random(sample))
                trial.apply(action)
                if trial.view(seat) != seen:
                    return "that move revealed hidden information"
            except Exception:
                return "that move cannot be taken back"
        return None

    def _previous(self, table: Table) -> Any:
        if table.previous is None and table.record.actions:
            shorter = GameRecord(
                game=table.record.game,
                players=list(table.record.players),
                seed=table.record.seed,
                options=dict(table.record.options),
                actions=table.record.actions[:-1],
            )
            try:
                table.previous = shorter.replay()
            except RecordError:
                return None
        return table.previous

    async def undo(self, table: Table, token: str | None) -> None:
        seat, hotseat = await self.authorize(table, token)
        if hotseat:
            seat = table.hotseat_seat()
        if seat is None:
            raise forbidden("an undo needs the token of the seat that decides")
        async with table.lock:
            reason = self._undo_reason(table, seat)
            if reason is not None:
                raise forbidden(f"cannot undo: {reason}")
            before = self._previous(table)
            keep = table.ply - 1
            await self._db(self.storage.truncate_actions, table.id, keep, "running")
            undone = table.record.actions.pop()
            table.action_seats.pop()
            table.state = before
            table.previous = None
            table.moves += 1
            text = f"{table.record.players[seat]} took back {undone!r}"
            self._changed(table, [{"type": "undo", "text": text, "seat": seat}])
        self._schedule_bot(table)

    # -- bots ---------------------------------------------------------------------------------

    def _schedule_bot(self, table: Table) -> None:
        if self.closing or table.is_over:
            return
        if table.bot_task is not None and not table.bot_task.done():
            return
        seat = table.to_move()
        if seat is None or not table.seats[seat].startswith("bot:"):
            return
        table.bot_task = asyncio.get_running_loop().create_task(self._bot_turn(table, table.moves))

    async def _bot_turn(self, table: Table, moves: int) -> None:
        try:
            await self._bot_move(table, moves)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot turn failed in game %s", table.id)
            if asyncio.current_task() is table.bot_task:
                table.bot_task = None
            # Try again later rather than spin on a bot that keeps failing.
            asyncio.get_running_loop().call_later(5.0, self._schedule_bot, table)
            return
        if asyncio.current_task() is table.bot_task:
            table.bot_task = None
        self._schedule_bot(table)

    async def _bot_move(self, table: Table, moves: int) -> None:
        if self.bot_delay > 0:
            await asyncio.sleep(self.bot_delay)
        if table.moves != moves or table.is_over:
            return
        state = table.state
        seat = int(state.to_move)
        name = table.seats[seat].removeprefix("bot:")
        seed = bot_seed(table.record.seed, table.ply, seat)
        loop = asyncio.get_running_loop()
        bot = make_bot(name, seed)
        action = await loop.run_in_executor(self.bot_pool, bot.choose, state.clone(), seat)
        try:
            await self.play(table, seat, action, expected_moves=moves)
        except ApiError as exc:
            if exc.status != 400:
                raise
            # A bot's bug must not stall the table: this turn, the random bot decides.
            log.error("bot %s in game %s chose %r: %s", name, table.id, action, exc.reason)
            fallback = make_bot("random", seed)
            action = await loop.run_in_executor(self.bot_pool, fallback.choose, state.clone(), seat)
            await self.play(table, seat, action, expected_moves=moves)

    # -- WebSockets ---------------------------------------------------------------------------

    def attach(self, table: Table, connection: Connection) -> None:
        table.connections.add(connection)
        frame = self.frame(table, connection.seat, connection.hotseat)
        frame["type"] = "view"
        connection.push(json.dumps(frame, separators=(",", ":")))

    def detach(self, table: Table, connection: Connection) -> None:
        table.connections.discard(connection)

    # -- lobby and records --------------------------------------------------------------------

    async def lobby(self) -> list[dict[str, Any]]:
        live = {t.id: t.summary() for t in self.tables.values() if t.listed}
        rows = await self._db(self.storage.list_games)
        games = []
        for row in rows:
            if row["id"] in live:
                games.append(live.pop(row["id"]))
            else:
                games.append(
                    {
                        "id": row["id"],
                        "game": row["game"],
                        "players": row["players"],
                        "seats": row["seats"],
                        "hotseat": row["hotseat"],
                        "status": row["status"],
                        "moves": row["moves"],
                        "to_move": None,
                        "created": row["created"],
                        "updated": row["updated"],
                    }
                )
        games.extend(live.values())
        return games

    async def record(self, table: Table, token: str | None) -> dict[str, Any]:
        """The full record once the game is over; before that, the seed-free part to a seat."""
        if table.is_over:
            return table.record.to_dict()
        seat, hotseat = await self.authorize(table, token)
        if seat is None and not hotseat:
            raise forbidden("the record is public once the game is over")
        data = table.record.to_dict()
        del data["seed"]  # it fixes the bag: hidden until the end
        data["seats"] = list(table.action_seats)
        return data

    def replay(self, table: Table, seat: int | None) -> dict[str, Any]:
        """Every step of a finished game: the action, its events and the view after it."""
        if not table.is_over:
            raise forbidden("the replay opens once the game is over")
        if seat is not None and not 0 <= seat < len(table.seats):
            raise bad_request(f"no seat {seat}")
        record = table.record
        module = table.module
        options = module.options_from_dict(record.options)
        state = module.new_game(len(record.players), record.seed, options, dynasties=record.players)
        steps: list[dict[str, Any]] = [
            {"ply": 0, "seat": None, "action": None, "events": [], "view": state.view(seat)}
        ]
        for ply, action in enumerate(record.actions, start=1):
            mover = int(state.to_move)
            events = state.apply(action)
            steps.append(
                {
                    "ply": ply,
                    "seat": mover,
                    "action": action,
                    "events": list(events or []),
                    "view": state.view(seat),
                }
            )
        return {
            "id": table.id,
            "game": record.game,
            "players": list(record.players),
            "seats": list(table.seats),
            "options": dict(record.options),
            "result": state.result(),
            "steps": steps,
        }
