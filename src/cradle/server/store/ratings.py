"""People's ratings as stored: the update a rated game's end makes (:func:`rate`, in the
transaction that ends it), and what reads them (:class:`RatingStore`: the leaderboard of a game
and a player's profile).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Text, cast, func, insert, select, update
from sqlalchemy.engine import Connection

from cradle.server.ratings import Skill, rate, rates
from cradle.server.store.database import Database
from cradle.server.store.errors import CorruptAccount, CorruptGame
from cradle.server.store.reader import AccountReader, Reader, checked_id, game_ids, raw
from cradle.server.store.schema import (
    AccountRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
    SeatRow,
)

log = logging.getLogger("cradle.server")

RATE_KEY = 0x72617465  # held while a game's end updates the ratings ("rate")
BOARD_SIZE = 100  # players one leaderboard lists
PROFILE_GAMES = 50  # finished games a profile lists
PROFILE_CHANGES = 500  # rated games a profile's chart draws


def rate_game(
    database: Database,
    connection: Connection,
    game_id: str,
    result: Sequence[Mapping[str, object]],
    now: float,
) -> None:
    """A rated game's end: its players' ratings (for its game and number of players) move
    by its places. It runs in the transaction storing the change that ends the game, which
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
    # One game's end at a time: two games of one player both count.
    database.lock(connection, RATE_KEY)
    counted = connection.scalar(
        select(func.count()).select_from(RatingChangeRow).where(RatingChangeRow.game_id == game_id)
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
    try:
        before = [
            read_skill(AccountReader(a), stored[a].mu, stored[a].sigma) if a in stored else Skill()
            for a in accounts
        ]
        counts = {
            a: AccountReader(a).integer(stored[a].games, "rated games' count") for a in stored
        }
    except CorruptAccount as exc:
        # The game's end stands; a rating that cannot be read is not moved from nonsense.
        log.warning("game %s not rated: %s", game_id, exc)
        return
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
                    games=counts[account] + 1,
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


def _shown(mu: float, sigma: float) -> dict[str, float]:
    skill = Skill(float(mu), float(sigma))
    return {"rating": skill.shown, "mu": round(skill.mu, 3), "sigma": round(skill.sigma, 3)}


def read_skill(read: AccountReader, mu: object, sigma: object, what: str = "rating") -> Skill:
    """A stored rating, checked (``mu`` any finite number, ``sigma`` a positive one)."""
    if isinstance(mu, bool) or not isinstance(mu, int | float) or not math.isfinite(mu):
        read.fail(f"its {what} is not a number")
    spread = read.number(sigma, f"{what}'s uncertainty")
    if spread <= 0:
        read.fail(f"its {what}'s uncertainty is out of range")
    return Skill(float(mu), spread)


def read_rating(read: AccountReader, row: Any) -> dict[str, Any]:
    """A ratings row's shown values (players, rating, mu, sigma, games, updated), checked."""
    skill = read_skill(read, row.mu, row.sigma)
    return {
        "players": read.integer(row.players, "rating's number of players", 1, 64),
        "rating": skill.shown,
        "mu": round(skill.mu, 3),
        "sigma": round(skill.sigma, 3),
        "games": read.integer(row.games, "rated games' count"),
        "updated": read.number(row.updated, "rating's time"),
    }


class RatingStore:
    """What reads the ratings: the leaderboard and a player's profile."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def leaderboard(self, game: str, players: int | None) -> list[dict[str, Any]]:
        """The best rated players of ``game`` (with ``players`` players, or every count), best
        first: rank, name, players, rating, mu, sigma, games, updated."""
        order = (RatingRow.mu - 3.0 * RatingRow.sigma).desc()
        query = (
            select(
                raw(RatingRow.players),
                raw(RatingRow.mu),
                raw(RatingRow.sigma),
                raw(RatingRow.games),
                raw(RatingRow.updated),
                raw(AccountRow.name),
            )
            .join(AccountRow, AccountRow.id == RatingRow.account_id)
            .where(RatingRow.game == game)
        )
        if players is not None:
            query = query.where(RatingRow.players == players)
        query = query.order_by(order, AccountRow.name_key).limit(BOARD_SIZE)
        with self.database.engine.connect() as connection:
            rows = connection.execute(query).all()
        board: list[dict[str, Any]] = []
        for rating in rows:
            try:  # a damaged row is left out of the board, not the board out of service
                read = AccountReader(rating.name)
                row = {
                    "rank": len(board) + 1,
                    "name": read.text(rating.name, "name", 64),
                    **read_rating(read, rating),
                }
            except CorruptAccount as exc:
                log.warning("a rating left out of the leaderboard: %s", exc)
                continue
            board.append(row)
        return board

    def profile(self, key: str) -> dict[str, Any] | None:
        """The public page of the player whose name's key (``accounts.name_key``) is ``key``
        (None: no such player): name, since, ratings, their rating changes (oldest first) and
        their latest finished games with each player's place. A damaged value of the account
        or of its ratings is :class:`CorruptAccount` (a 503 for this page); a damaged game is
        left out of its list."""
        with self.database.engine.connect() as connection:
            account = connection.execute(
                select(raw(AccountRow.id), raw(AccountRow.name), raw(AccountRow.created)).where(
                    AccountRow.name_key == key
                )
            ).first()
            if account is None:
                return None
            read = AccountReader(account.name)
            name = read.text(account.name, "name", 64)
            since = read.number(account.created, "creation time")
            account_id = read.text(account.id, "id", 16)
            ratings = connection.execute(
                select(
                    raw(RatingRow.game),
                    raw(RatingRow.players),
                    raw(RatingRow.mu),
                    raw(RatingRow.sigma),
                    raw(RatingRow.games),
                    raw(RatingRow.updated),
                )
                .where(RatingRow.account_id == account_id)
                .order_by(RatingRow.game, RatingRow.players)
            ).all()
            changes = connection.execute(
                select(
                    raw(RatingChangeRow.game_id),
                    raw(RatingChangeRow.game),
                    raw(RatingChangeRow.players),
                    raw(RatingChangeRow.place),
                    raw(RatingChangeRow.mu_before),
                    raw(RatingChangeRow.sigma_before),
                    raw(RatingChangeRow.mu),
                    raw(RatingChangeRow.sigma),
                    raw(RatingChangeRow.at),
                )
                .where(RatingChangeRow.account_id == account_id)
                .order_by(RatingChangeRow.at.desc())
                .limit(PROFILE_CHANGES)
            ).all()
            held = connection.execute(
                select(SeatRow.game_id, SeatRow.seat).where(SeatRow.account_id == account_id)
            ).all()
            seats: dict[str, int] = {str(row.game_id): int(row.seat) for row in held}
            # A private table is its players' own: a public page never names it.
            private = set(
                connection.execute(
                    select(GameRow.id).where(
                        GameRow.id.in_(game_ids(change.game_id for change in changes)),
                        GameRow.listed.is_not(True),
                        GameRow.hotseat.is_not(True),
                    )
                ).scalars()
            )
            games = connection.execute(
                select(
                    raw(GameRow.id),
                    raw(GameRow.game),
                    cast(GameRow.players, Text).label("players"),
                    cast(GameRow.seats, Text).label("seats"),
                    cast(GameRow.result, Text).label("result"),
                    raw(GameRow.rated),
                    raw(GameRow.updated),
                )
                .where(
                    GameRow.id.in_(list(seats)),
                    GameRow.status == "over",
                    GameRow.listed.is_(True) | GameRow.hotseat.is_(True),
                )
                .order_by(GameRow.updated.desc())
                .limit(PROFILE_GAMES)
            ).all()
            shown_names: dict[str, dict[int, str]] = {}
            for game_id, seat, shown in connection.execute(
                select(SeatRow.game_id, SeatRow.seat, SeatRow.name).where(
                    SeatRow.game_id.in_(game_ids(g.id for g in games)), SeatRow.name.is_not(None)
                )
            ):
                shown_names.setdefault(str(game_id), {})[int(seat)] = str(shown)
        history: list[dict[str, Any]] = []
        for change in reversed(changes):
            before = read_skill(read, change.mu_before, change.sigma_before, "rating before")
            after = read_skill(read, change.mu, change.sigma, "rating change")
            game_id = read.text(change.game_id, "rating change's game", 40)
            history.append(
                {
                    "game_id": None if game_id in private else game_id,
                    "game": read.text(change.game, "rating change's game", 20),
                    "players": read.integer(change.players, "rating change's players", 1, 64),
                    "place": read.integer(change.place, "rating change's place", 1, 64),
                    "before": before.shown,
                    "rating": after.shown,
                    "mu": round(after.mu, 3),
                    "sigma": round(after.sigma, 3),
                    "at": read.number(change.at, "rating change's time"),
                }
            )
        by_game = {entry["game_id"]: entry for entry in history if entry["game_id"]}
        finished = []
        for row in games:
            try:  # a damaged game is left out of the list, not the page out of service
                finished.append(_finished(row, seats, shown_names, by_game))
            except CorruptGame:
                continue
        return {
            "name": name,
            "since": since,
            "ratings": [
                {"game": read.text(r.game, "rating's game", 20), **read_rating(read, r)}
                for r in ratings
            ],
            "history": history,
            "games": finished,
        }


def _finished(
    row: Any,
    seats: Mapping[str, int],
    shown_names: Mapping[str, Mapping[int, str]],
    changes: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """One finished game of a profile, as stored (checked: CorruptGame when damaged)."""
    game_id = checked_id(row.id)
    read = Reader(game_id)
    players = read.names(row.players, "players")
    kinds = read.names(row.seats, "seats")
    result = read.json(row.result, "result") if row.result is not None else []
    if not isinstance(result, list):
        read.fail("its stored result is not a list")
    seat = seats[game_id]
    names = shown_names.get(game_id, {})
    places = {
        int(line["seat"]): line
        for line in result
        if isinstance(line, dict) and isinstance(line.get("seat"), int)
    }
    mine = places.get(seat, {})
    change = changes.get(game_id)
    return {
        "id": game_id,
        "game": read.text(row.game, "game", 20),
        "players": [names.get(s) or players[s] for s in range(len(players))],
        "seats": kinds,
        "seat": seat,
        "place": mine.get("place"),
        "score": mine.get("score"),
        "places": [places.get(s, {}).get("place") for s in range(len(players))],
        "rated": read.flag(row.rated, "rated flag"),
        "change": None if change is None else round(change["rating"] - change["before"], 2),
        "ended": read.number(row.updated, "time"),
    }
