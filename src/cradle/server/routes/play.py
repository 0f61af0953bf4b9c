"""The routes of play at a table: its frame for the token's seat or screen, a move, an undo,
whether an action is legal, and hints."""

from __future__ import annotations

from fastapi import APIRouter, Request

from cradle.core.words import N_
from cradle.server import answers
from cradle.server.answers import MergedFrame, TableFrame
from cradle.server.assist import Explanation, Hints
from cradle.server.errors import ApiError
from cradle.server.models import (
    ActionBody,
    EmptyBody,
    parse,
)
from cradle.server.routes.common import (
    Ctx,
    GameId,
    answer_route,
    api_version,
    bearer,
    body_of,
    body_route,
    client_of,
    frame_route,
)
from cradle.server.table import hints_allowed


def play_routes(router: APIRouter) -> None:
    """Add this area\'s routes to ``router`` (the application\'s own)."""

    @answer_route(router, "GET", "/api/games/{game_id}", MergedFrame | TableFrame)
    async def view(ctx: Ctx, game_id: GameId, request: Request) -> MergedFrame | TableFrame:
        hub = ctx.hub()
        token = bearer(request.headers)
        api = api_version(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        seat, hotseat = await hub.served.identify(table, token)
        return hub.frame(table, seat, hotseat, api)

    frame_route(
        router,
        "/api/games/{game_id}/actions",
        ActionBody,
        lambda hub, table, token: hub.served.mover_of(table, token, "a move"),
        lambda hub, table, token, body: hub.play.act(table, token, body.action),
        name="act",
        about="A move for the deciding seat (its token, or the hot-seat screen's).",
    )
    frame_route(
        router,
        "/api/games/{game_id}/undo",
        EmptyBody,
        lambda hub, table, token: hub.served.mover_of(table, token, "an undo"),
        lambda hub, table, token, _body: hub.play.undo(table, token),
        name="undo",
        about="The deciding seat takes its last action back (docs/server.md, the undo rule).",
    )

    @body_route(
        router, "POST", "/api/games/{game_id}/explain", ActionBody, answers.Explanation, sparse=True
    )
    async def explain(ctx: Ctx, game_id: GameId, request: Request) -> Explanation:
        """Whether an action is legal now for the deciding seat, and if not, why."""
        hub = ctx.hub()
        token = bearer(request.headers)
        body = parse(ActionBody, await body_of(request))
        table = await hub.table(game_id)
        await hub.served.mover_of(table, token, "an explanation")
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        return await hub.adviser.explain(table, token, body.action)

    @body_route(router, "POST", "/api/games/{game_id}/hint", EmptyBody, answers.Hints, sparse=True)
    async def hint(ctx: Ctx, game_id: GameId, request: Request) -> Hints:
        """The best few moves for the deciding seat (games against bots and hot seats)."""
        hub = ctx.hub()
        token = bearer(request.headers)
        parse(EmptyBody, await body_of(request))
        table = await hub.table(game_id)
        await hub.served.mover_of(table, token, "a hint")
        if table.rated:
            raise ApiError(403, N_("a rated game has no hints"))
        if not hints_allowed(table):
            raise ApiError(403, N_("hints are off in games between people at their own screens"))
        await ctx.throttle(ctx.hinted, client_of(request), "hints")
        return await hub.adviser.hint(table, token)
