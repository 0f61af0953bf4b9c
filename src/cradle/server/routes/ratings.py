"""The routes of people's ratings: a game's leaderboard and a player's profile
(:mod:`cradle.server.store.ratings` reads them)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from cradle.core.words import N_
from cradle.games import game_names
from cradle.server.accounts import name_key, normal_name
from cradle.server.answers import PlayerProfile, RatingsPage
from cradle.server.errors import ApiError, bad_request
from cradle.server.models import GAME_CHARS
from cradle.server.routes.common import Ctx, answer_route, client_of

NAME_IN_URL = 100  # characters of a player's name in a URL (names have 24; escapes take more)


def rating_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    @answer_route(router, "GET", "/api/ratings", RatingsPage)
    async def ratings(
        ctx: Ctx,
        request: Request,
        game: Annotated[str, Query(max_length=GAME_CHARS)],
        players: Annotated[int | None, Query(ge=1, le=8)] = None,
    ) -> dict[str, Any]:
        """The leaderboard of ``game`` (with ``players`` players, or every number), best first."""
        if game not in game_names():
            raise bad_request(f"unknown game {game!r} (known: {', '.join(game_names())})")
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        hub = ctx.hub()
        rows = await hub.runtime.db(hub.store.ratings.leaderboard, game, players)
        return {"game": game, "players": players, "ratings": rows}

    @answer_route(router, "GET", "/api/players/{name}", PlayerProfile)
    async def player(
        ctx: Ctx, name: Annotated[str, Path(max_length=NAME_IN_URL)], request: Request
    ) -> dict[str, Any]:
        """A player's profile: ratings, finished games with results, rating over time."""
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        hub = ctx.hub()
        try:
            key = name_key(normal_name(name))
        except ValueError:
            raise ApiError(404, N_("no player has that name")) from None
        found = await hub.runtime.db(hub.store.ratings.profile, key)
        if found is None:
            raise ApiError(404, N_("no player has that name"))
        return found
