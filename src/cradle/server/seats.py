"""Seats: creating a table (within the caps, with its tokens and invites), joining one, and
telling which seat a token holds. Tokens are handed out once and stored only as their sha-256."""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import TypeVar

from cradle.ai import LEVELS, bot_names
from cradle.core.lessons import LESSON_OPTION, LESSON_SEED
from cradle.core.record import GameRecord
from cradle.core.words import N_
from cradle.games import UnknownGame, get_game
from cradle.server.botpool import decision_cost
from cradle.server.errors import ApiError, bad_request, unavailable
from cradle.server.events import Changed, Events
from cradle.server.limits import Limits
from cradle.server.models import DEADLINE_DEFAULT
from cradle.server.referee import Referee
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.database import client_hash
from cradle.server.store.errors import DATABASE_ERRORS, CapReached, CorruptGame
from cradle.server.store.games import StoredGame
from cradle.server.store.new_games import Caps
from cradle.server.table import Rebuilt, Table, replay_record
from cradle.server.tables import Tables
from cradle.server.tokens import hash_token, new_token

log = logging.getLogger("cradle.server")

T = TypeVar("T")


@dataclass(frozen=True)
class NewTable:
    """A validated ``POST /api/games`` body (see :mod:`cradle.server.models`)."""

    game: str
    players: int
    options: dict[str, object]
    seats: list[str]  # "human" (the creator's), "open" (for the lobby) or "bot:NAME"
    hotseat: bool = False
    listed: bool = True
    bot_seconds: float | None = None
    spectator_chat: bool = False
    rated: bool = False
    lesson: str | None = None  # a step of the guided first game: its position, not a deal
    account: str | None = None  # the signed-in creator's account, which holds their seat
    name: str | None = None  # the name shown at the creator's seat (an account's, a guest's)
    mode: str = "live"  # or "turn": turn-based, ``deadline_s`` per decision
    deadline_s: float | None = None
    standin: str | None = None  # the creator's stand-in bot level
    clock: tuple[float, float] | None = None  # a live table's base time and increment


def standin_level(given: str | None) -> str | None:
    """A stand-in bot level as asked for (None: the default); 400 for one that is no level."""
    if given is None:
        return None
    name = given.strip().lower()
    if name not in LEVELS:
        raise bad_request(f"unknown stand-in {name[:30]!r}: a bot level ({', '.join(LEVELS)})")
    return name


@dataclass(eq=False)
class Seats:
    """Creating tables and taking their seats; which seat (or hot-seat screen) a token is."""

    store: Store
    runtime: Runtime
    tables: Tables
    events: Events
    referee: Referee
    limits: Limits

    async def create(self, request: NewTable, client: str) -> dict[str, object]:
        """``POST /api/games`` from ``client`` (its key: an address, or a group of them): set up
        a table, if it fits the caps; returns its id and the creator's tokens."""
        try:
            module = get_game(request.game)
        except UnknownGame as exc:
            raise bad_request(str(exc)) from None
        players = request.players
        if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise bad_request(
                f"{request.game} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, "
                f"not {players}"
            )
        if len(request.seats) != players:
            raise bad_request(f'\'seats\' must list {players} seats, e.g. ["human", "bot:random"]')
        seats = [self._seat_kind(kind) for kind in request.seats]
        if request.hotseat and "open" in seats:
            raise bad_request(
                N_("a hot-seat table has no open seats: every person is at the screen")
            )
        if not request.listed and "open" in seats:
            raise bad_request(N_("an unlisted table has no open seats (send invites instead)"))
        if request.mode == "turn" and request.hotseat:
            raise bad_request(N_("a hot-seat table is played live: everyone is at the screen"))
        if request.mode != "turn" and request.deadline_s is not None:
            raise bad_request(
                '\'deadline_s\' is for turn-based tables ("mode": "turn")',
            )
        if request.clock is not None and (request.mode != "live" or request.hotseat):
            raise bad_request(
                N_(
                    "clocks are for live tables with a screen per person (turn-based ones have "
                    "deadlines)"
                )
            )
        deadline_s = None
        if request.mode == "turn":
            deadline_s = float(request.deadline_s or DEADLINE_DEFAULT)
        standin = standin_level(request.standin)
        if request.rated:
            self._check_rated(request, seats)
        bot_seconds = None
        if request.bot_seconds is not None:
            bot_seconds = min(request.bot_seconds, self.limits.bot_seconds)
        lesson = request.lesson
        if lesson is not None:
            # Only a name from the game's own list reaches the engine (and the stored record).
            known = [step.name for step in module.LESSONS]
            if lesson not in known:
                raise bad_request(
                    f"{request.game} has no lesson {lesson[:40]!r} (known: {', '.join(known)})"
                )
            options_dict: dict[str, object] = {LESSON_OPTION: lesson}
            seed = LESSON_SEED
        else:
            try:
                options = module.options_from_dict(request.options)
                options_dict = dict(module.options_to_dict(options))
            except (ValueError, TypeError) as exc:
                raise bad_request(f"bad options: {exc}") from None
            seed = secrets.randbits(63)

        def set_up() -> tuple[GameRecord, Rebuilt]:
            if lesson is not None:
                first = module.lesson_start(lesson, seed)
            else:
                first = module.new_game(players, seed, options)
            record = GameRecord(
                game=request.game, players=list(first.players), seed=seed, options=options_dict
            )
            # The same path a restart takes, so the stored record is known to replay.
            return record, replay_record(record)

        try:
            record, rebuilt = await self.runtime.engine(set_up)
        except (ValueError, CorruptGame) as exc:
            reason = exc.reason if isinstance(exc, CorruptGame) else str(exc)
            raise bad_request(f"cannot set up the game: {reason}") from None

        humans = [seat for seat, kind in enumerate(seats) if kind in ("human", "open")]
        tokens = {seat: new_token() for seat in humans if seats[seat] == "human"}
        # An open seat's token is made when someone joins; until then nobody can hold it.
        hashes = {seat: hash_token(tokens.get(seat) or new_token()) for seat in humans}
        # An invite for each human seat but the creator's own (the first: its token is theirs).
        invited = list(tokens)[1:] if not request.hotseat else []
        invites = {seat: new_token() for seat in invited}
        table_token = new_token() if request.hotseat else None
        # The creator's own seat (not at a hot-seat table, whose seats are the screen's).
        own = list(tokens)[:1] if not request.hotseat else []
        names = {seat: request.name for seat in own if request.name}
        accounts = {seat: request.account for seat in own if request.account}
        stored_seats = ["human" if kind == "open" else kind for kind in seats]
        now = time.time()
        expires = now + self.limits.invite_days * 86400.0
        game_id = secrets.token_urlsafe(9)
        table = Table(
            id=game_id,
            module=module,
            record=record,
            state=rebuilt.state,
            seats=stored_seats,
            tokens=hashes,
            claimed={seat: seats[seat] == "human" for seat in humans},
            invites={seat: hash_token(code) for seat, code in invites.items()},
            invite_expires=dict.fromkeys(invites, expires),
            names=names,
            accounts=accounts,
            action_seats=[],
            hotseat=request.hotseat,
            listed=request.listed,
            table_token=hash_token(table_token) if table_token else None,
            created=now,
            updated=now,
            version=0,
            bot_seconds=bot_seconds,
            mode=request.mode,
            deadline_s=deadline_s,
            standins={seat: standin for seat in tokens} if standin else {},
            creator=min(tokens) if tokens and not request.hotseat else None,
            spectator_chat=request.spectator_chat,
            rated=request.rated,
        )
        if deadline_s is not None and not table.open_seats() and not table.bot_turn():
            table.deadline = now + deadline_s  # the first person's clock runs from now
        if request.clock is not None:
            table.clock_base_s, table.clock_increment_s = request.clock
            table.clock_left = [table.clock_base_s] * players
            # It runs for the person deciding once every seat is taken (invites opened).
            if table.clock_seat(table.state, None, table.free_seats()) is not None:
                table.deadline = now + table.clock_base_s
        stored = StoredGame(
            id=game_id,
            game=request.game,
            players=list(record.players),
            seed=seed,
            options=options_dict,
            seats=stored_seats,
            hotseat=request.hotseat,
            listed=request.listed,
            table_token=table.table_token,
            status=table.status,
            created=now,
            updated=now,
            version=0,
            bot_seconds=bot_seconds,
            bot_turn=table.bot_turn(),
            bot_cost=decision_cost(
                table.seats, table.state, table.bot_seconds, self.limits.bot_seconds
            ),
            tokens=dict(table.tokens),
            claimed=dict(table.claimed),
            invites=dict(table.invites),
            invite_expires=dict(table.invite_expires),
            names=dict(names),
            accounts=dict(accounts),
            client=client_hash(client),
            mode=table.mode,
            deadline_s=table.deadline_s,
            deadline=table.deadline,
            standins=dict(table.standins),
            creator=table.creator,
            spectator_chat=request.spectator_chat,
            rated=request.rated,
            clock_base_s=table.clock_base_s,
            clock_increment_s=None if request.clock is None else table.clock_increment_s,
            clock_left=list(table.clock_left),
        )
        limits = self.limits
        caps = Caps(
            games=limits.max_live_games,
            games_per_client=limits.live_games_per_client,
            bot_seats=limits.max_bot_seats,
            bot_seats_per_client=limits.bot_seats_per_client,
            unplayed_seconds=limits.unplayed_minutes * 60.0,
        )
        try:
            reclaimed = await self.runtime.db(self.store.new_games.create, stored, caps)
        except CapReached as exc:
            raise ApiError(429, exc.reason, retry_after=60, params=exc.params) from None
        except DATABASE_ERRORS as exc:
            log.error("cannot store a new game: %s", exc)
            raise unavailable(exc, N_("the game could not be stored")) from None
        for ended in reclaimed:
            log.info("game %s reclaimed for a new one", ended)
            await self.tables.end(ended, "reclaimed")
        self.tables.loaded[game_id] = table
        self.tables.evict()
        self.events.publish(Changed(table, "created"))
        answer: dict[str, object] = {
            "id": game_id,
            "game": request.game,
            "players": list(record.players),
            "seats": [
                {"seat": seat, "token": token, "invite": invites.get(seat)}
                for seat, token in tokens.items()
            ],
            "open": table.open_seats(),
            "bot_seconds": bot_seconds,
            "invites_expire": expires if invites else None,
        }
        if table_token:
            answer["table_token"] = table_token
        return answer

    @staticmethod
    def _check_rated(request: NewTable, seats: list[str]) -> None:
        """A rated table can hold only if every seat will be a different signed-in person's."""
        if request.account is None:
            raise bad_request(N_("a rated game needs you signed in: ratings belong to accounts"))
        if request.hotseat:
            raise bad_request(N_("a hot-seat game is not rated: its players share one screen"))
        if any(kind.startswith("bot:") for kind in seats):
            raise bad_request(
                "a game with bots is not rated (people's ratings are between people; the bots "
                "have their own ladder)"
            )
        if len(seats) < 2:
            raise bad_request(N_("a rated game needs at least two people"))

    @staticmethod
    def _seat_kind(given: str) -> str:
        kind = given.strip().lower()
        if kind in ("human", "open"):
            return kind
        if kind.startswith("bot:"):
            name = kind[4:]
            if name in bot_names():
                return kind
            raise bad_request(f"unknown bot {name[:30]!r} (known: {', '.join(bot_names())})")
        raise bad_request(f'unknown seat {kind[:30]!r}: use "human", "open" or "bot:NAME"')

    async def join(
        self,
        table: Table,
        invite: str | None,
        account: str | None = None,
        name: str | None = None,
        standin: str | None = None,
        invitation: tuple[str, int] | None = None,
    ) -> dict[str, object]:
        """Take a seat: the one an invite code was made for, the one of a friend's
        ``invitation`` (its id and seat, in ``account``'s inbox), or else the first open seat
        of a listed table. The seat gets a fresh token (the code, or any old token, stops
        working); it is ``account``'s (None: a guest's) and shows ``name``. ``standin``: the
        bot level that may play for it when its deadline passes."""
        taken = await self.referee.seat(
            table, invite, account, name, standin_level(standin), invitation
        )
        return {"id": table.id, "seat": taken.seat, "token": taken.token}

    async def rekey(self, table: Table, seat: int, transfer: str | None = None) -> str:
        """A fresh token for a taken ``seat`` (the old one stops working): for its account's
        signed-in player on another device, or for whoever holds the one-time ``transfer``
        code (its hash; used up in the same write, or 403)."""
        return await self.referee.rekey(table, seat, transfer)
