"""New games: stored with their seats and invites if they fit the caps on live games and bot
seats (:class:`Caps`), counted in the creating transaction itself so that every process counts
the same; a full server gives a newcomer the place of the heaviest client's game."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement

from cradle.core.lessons import LESSON_OPTION
from cradle.core.words import N_
from cradle.server.store.botjobs import BotJobStore, set_job
from cradle.server.store.database import Database
from cradle.server.store.errors import CapReached
from cradle.server.store.games import StoredGame, end_unplayed
from cradle.server.store.schema import LIVE, GameRow, InviteRow, SeatRow

CAPS_KEY = 0x63617073  # held while a new game is counted against the caps ("caps")
LIVE_WINDOW = 86400.0  # a game people played in counts while it changed this recently
# Lesson tables a client keeps live at once (the newest): an older one ends when it starts one more.
LESSON_TABLES = 3
RECLAIMS = 8  # games one new game may take the place of at most


@dataclass(frozen=True)
class Caps:
    """What a new game must fit (see :meth:`NewGameStore.create`): live games and the bot
    seats at them that cost something, per client and for the whole server."""

    games: int
    games_per_client: int
    bot_seats: int
    bot_seats_per_client: int
    unplayed_seconds: float  # a game nobody played in counts (and lives) this long unchanged
    live_seconds: float = LIVE_WINDOW


class NewGameStore:
    """Storing new games within the caps, and counting what the caps count."""

    def __init__(self, database: Database, bot_jobs: BotJobStore) -> None:
        self.database = database
        self.bot_jobs = bot_jobs

    def create(self, game: StoredGame, caps: Caps | None = None) -> list[str]:
        """Store a new game (and its bot's turn, if a bot begins), if it fits ``caps``.

        The caps are counted in the same transaction (PostgreSQL: under an advisory lock, so
        every process counts the same). When the server is full, the client holding the most
        (games, or bot seats) gives up its least recently played game, but only while it holds
        more than the new game's client would: a flood of clients cannot lock a newcomer out
        unless every live game belongs to a different client. Returns the ids of the games so
        ended (``reclaimed``); CapReached when the game does not fit.
        """
        now = game.created
        with self.database.transaction() as connection:
            reclaimed: list[str] = []
            if caps is not None:
                self.database.lock(connection, CAPS_KEY)
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
                    "clock_base_s": game.clock_base_s,
                    "clock_increment_s": game.clock_increment_s,
                    "clock_left": list(game.clock_left) if game.clock_base_s is not None else None,
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
            ready = now + self.bot_jobs.delay
            set_job(connection, game.id, game.version, game.bot_turn, ready, game.bot_cost)
        return reclaimed

    def live_use(
        self, now: float, unplayed_seconds: float, client: str | None = None
    ) -> tuple[int, int]:
        """(live games, bot seats at them) that count against the caps at ``now``, of the
        client with key ``client`` (hashed) or of everybody."""
        caps = Caps(0, 0, 0, 0, unplayed_seconds)
        with self.database.engine.connect() as connection:
            return self._use(connection, self._live(now, caps), client)

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
                minutes = caps.unplayed_seconds / 60
                raise CapReached(
                    N_(
                        "you have {games} games in progress on this server, the most one client "
                        "may have: finish one first (a game nobody plays in ends after "
                        "{minutes} minutes)"
                    ),
                    games=games,
                    minutes=int(minutes) if minutes == int(minutes) else minutes,
                )
            if cost and bots + cost > caps.bot_seats_per_client:
                raise CapReached(
                    N_(
                        "your games have {bots} bot seats and this table asks for {cost} more; "
                        "one client may have {most} (the random bot is free)"
                    ),
                    bots=bots,
                    cost=cost,
                    most=caps.bot_seats_per_client,
                )
        for _round in range(RECLAIMS + 1):
            all_games, all_bots = self._use(connection, live, None)
            by_bots = all_games + 1 <= caps.games
            if by_bots and (not cost or all_bots + cost <= caps.bot_seats):
                return reclaimed
            if by_bots:
                refusal = CapReached(
                    N_(
                        "too many bots are playing on this server ({bots} of {most} bot seats "
                        "taken); try again later, or with fewer bots (the random bot is free)"
                    ),
                    bots=all_bots,
                    most=caps.bot_seats,
                )
            else:
                refusal = CapReached(
                    N_("this server has its maximum of {most} games in progress; try again later"),
                    most=caps.games,
                )
            if _round == RECLAIMS or game.client is None:
                raise refusal
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
                raise refusal
            query = select(GameRow.id, GameRow.version).where(
                live, GameRow.client == heaviest.client
            )
            if by_bots:
                query = query.where(GameRow.bot_seats > 0)
            victim = connection.execute(
                query.order_by(GameRow.played, GameRow.updated, GameRow.id).limit(1)
            ).first()
            if victim is None:
                raise refusal
            if end_unplayed(
                self.database, connection, str(victim.id), int(victim.version), "reclaimed", now
            ):
                reclaimed.append(str(victim.id))
        raise CapReached(N_("the server is full"))  # not reached: the last round refuses

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
            if end_unplayed(
                self.database, connection, str(row.id), int(row.version), "reclaimed", now
            ):
                ended.append(str(row.id))
        return ended
