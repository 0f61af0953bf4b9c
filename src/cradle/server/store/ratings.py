"""People's ratings as stored: the update a rated game's end makes (:func:`rate`, in the
transaction that ends it), and what reads them (:class:`RatingStore`: the leaderboard of a game
and a player's profile).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection

from cradle.server.ratings import Skill, rate, rates
from cradle.server.store.database import Database
from cradle.server.store.games import names_at, seats_held
from cradle.server.store.schema import AccountRow, GameRow, RatingChangeRow, RatingRow, SeatRow

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


def _shown(mu: float, sigma: float) -> dict[str, float]:
    skill = Skill(float(mu), float(sigma))
    return {"rating": skill.shown, "mu": round(skill.mu, 3), "sigma": round(skill.sigma, 3)}


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
                RatingRow.players,
                RatingRow.mu,
                RatingRow.sigma,
                RatingRow.games,
                RatingRow.updated,
                AccountRow.name,
            )
            .join(AccountRow, AccountRow.id == RatingRow.account_id)
            .where(RatingRow.game == game)
        )
        if players is not None:
            query = query.where(RatingRow.players == players)
        query = query.order_by(order, AccountRow.name_key).limit(BOARD_SIZE)
        with self.database.engine.connect() as connection:
            rows = connection.execute(query).all()
        board = []
        for rank, rating in enumerate(rows, start=1):
            board.append(
                {
                    "rank": rank,
                    "name": str(rating.name),
                    "players": int(rating.players),
                    **_shown(rating.mu, rating.sigma),
                    "games": int(rating.games),
                    "updated": float(rating.updated),
                }
            )
        return board

    def profile(self, key: str) -> dict[str, Any] | None:
        """The public page of the player whose name's key (``accounts.name_key``) is ``key``
        (None: no such player): name, since, ratings, their rating changes (oldest first) and
        their latest finished games with each player's place."""
        with self.database.engine.connect() as connection:
            account = connection.execute(
                select(AccountRow.id, AccountRow.name, AccountRow.created).where(
                    AccountRow.name_key == key
                )
            ).first()
            if account is None:
                return None
            ratings = connection.execute(
                select(RatingRow)
                .where(RatingRow.account_id == account.id)
                .order_by(RatingRow.game, RatingRow.players)
            ).all()
            changes = connection.execute(
                select(RatingChangeRow)
                .where(RatingChangeRow.account_id == account.id)
                .order_by(RatingChangeRow.at.desc())
                .limit(PROFILE_CHANGES)
            ).all()
            seats = {game: held[0] for game, held in seats_held(connection, account.id).items()}
            games = connection.execute(
                select(
                    GameRow.id,
                    GameRow.game,
                    GameRow.players,
                    GameRow.seats,
                    GameRow.result,
                    GameRow.rated,
                    GameRow.updated,
                )
                .where(GameRow.id.in_(list(seats)), GameRow.status == "over")
                .order_by(GameRow.updated.desc())
                .limit(PROFILE_GAMES)
            ).all()
            shown_names = names_at(connection, [str(g.id) for g in games])
        by_game = {str(change.game_id): change for change in changes}
        finished = []
        for row in games:
            players = [str(p) for p in row.players] if isinstance(row.players, list) else []
            result = row.result if isinstance(row.result, list) else []
            seat = seats[str(row.id)]
            names = shown_names.get(str(row.id), {})
            places = {
                int(line["seat"]): line
                for line in result
                if isinstance(line, dict) and isinstance(line.get("seat"), int)
            }
            mine = places.get(seat, {})
            change = by_game.get(str(row.id))
            finished.append(
                {
                    "id": str(row.id),
                    "game": str(row.game),
                    "players": [names.get(s) or players[s] for s in range(len(players))],
                    "seats": [str(kind) for kind in row.seats]
                    if isinstance(row.seats, list)
                    else ["human"] * len(players),
                    "seat": seat,
                    "place": mine.get("place"),
                    "score": mine.get("score"),
                    "places": [places.get(s, {}).get("place") for s in range(len(players))],
                    "rated": bool(row.rated),
                    "change": None
                    if change is None
                    else round(
                        Skill(change.mu, change.sigma).shown
                        - Skill(change.mu_before, change.sigma_before).shown,
                        2,
                    ),
                    "ended": float(row.updated),
                }
            )
        return {
            "name": str(account.name),
            "since": float(account.created),
            "ratings": [
                {
                    "game": str(r.game),
                    "players": int(r.players),
                    **_shown(r.mu, r.sigma),
                    "games": int(r.games),
                    "updated": float(r.updated),
                }
                for r in ratings
            ],
            "history": [
                {
                    "game_id": str(c.game_id),
                    "game": str(c.game),
                    "players": int(c.players),
                    "place": int(c.place),
                    "before": Skill(c.mu_before, c.sigma_before).shown,
                    **_shown(c.mu, c.sigma),
                    "at": float(c.at),
                }
                for c in reversed(changes)
            ],
            "games": finished,
        }
