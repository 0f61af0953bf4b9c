"""What is read of people's ratings: the leaderboard of a game (and number of players) and a
player's profile (their ratings, their finished games with results, their rating over time).
The ratings themselves change in :meth:`cradle.server.storage.Storage.append_action`.

Everything here is synchronous; the routes call it in worker threads.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from cradle.server.accounts import name_key, normal_name
from cradle.server.ratings import Skill
from cradle.server.storage import AccountRow, GameRow, RatingChangeRow, RatingRow, SeatRow, Storage

BOARD_SIZE = 100  # players one leaderboard lists
PROFILE_GAMES = 50  # finished games a profile lists
PROFILE_CHANGES = 500  # rated games a profile's chart draws


def _shown(mu: float, sigma: float) -> dict[str, float]:
    skill = Skill(float(mu), float(sigma))
    return {"rating": skill.shown, "mu": round(skill.mu, 3), "sigma": round(skill.sigma, 3)}


def leaderboard(storage: Storage, game: str, players: int | None) -> list[dict[str, Any]]:
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
    with storage.engine.connect() as connection:
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


def profile(storage: Storage, raw_name: str) -> dict[str, Any] | None:
    """A player's public page (None: no such player): name, since, ratings, their rating
    changes (oldest first) and their latest finished games with each player's place."""
    try:
        key = name_key(normal_name(raw_name))
    except ValueError:
        return None
    with storage.engine.connect() as connection:
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
        held = connection.execute(
            select(SeatRow.game_id, SeatRow.seat).where(SeatRow.account_id == account.id)
        ).all()
        seats: dict[str, int] = {str(row.game_id): int(row.seat) for row in held}
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
        shown_names: dict[str, dict[int, str]] = {}
        for game_id, seat, name in connection.execute(
            select(SeatRow.game_id, SeatRow.seat, SeatRow.name).where(
                SeatRow.game_id.in_([g.id for g in games]), SeatRow.name.is_not(None)
            )
        ):
            shown_names.setdefault(str(game_id), {})[int(seat)] = str(name)
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
