"""The routes that read a game: its record, replays, the history as a seat knows it, a past
board, and a finished game's analysis."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from cradle.core.words import N_
from cradle.server import answers, archive
from cradle.server.assist import AnalysisAnswer
from cradle.server.errors import ApiError, bad_request
from cradle.server.models import (
    MAX_SEATS,
    EmptyBody,
    parse,
)
from cradle.server.routes.common import (
    Context,
    GameId,
    bearer,
    body_of,
    body_schema,
    client_of,
)


def reading_routes(router: APIRouter, ctx: Context) -> None:
    """Add this area\'s routes to ``router`` (the application\'s own)."""

    @router.get(
        "/api/games/{game_id}/record",
        response_model=answers.Record,
        response_model_exclude_unset=True,
    )
    async def record(game_id: GameId, request: Request) -> archive.KnownRecord:
        hub = ctx.hub()
        token = bearer(request.headers)
        return hub.archive.record(await hub.fresh(await hub.table(game_id)), token)

    @router.get(
        "/api/games/{game_id}/replay",
        response_model=answers.Replay,
        response_model_exclude_unset=True,
    )
    async def replay(
        game_id: GameId, seat: int | None = Query(None, ge=0, le=MAX_SEATS)
    ) -> archive.Replay:
        hub = ctx.hub()
        return await hub.archive.replay(await hub.fresh(await hub.table(game_id)), seat)

    @router.get(
        "/api/games/{game_id}/history",
        response_model=answers.History,
        response_model_exclude_unset=True,
    )
    async def history(game_id: GameId, request: Request) -> archive.History:
        """Every action so far with its events, as the token's seat may know them (the
        hot-seat screen and spectators: as spectators)."""
        hub = ctx.hub()
        token = bearer(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        seat, _hotseat = await hub.served.identify(table, token)
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        return await hub.archive.history(table, seat)

    @router.get(
        "/api/games/{game_id}/board",
        response_model=answers.Board,
        response_model_exclude_unset=True,
    )
    async def past_board(
        game_id: GameId,
        request: Request,
        ply: int = Query(..., ge=0, le=100_000),
        seat: int | None = Query(None, ge=0, le=MAX_SEATS),
    ) -> archive.Board:
        """The board after ``ply`` actions as the token's seat saw it (any seat's view once
        the game is over, with ``seat``, as in replays)."""
        hub = ctx.hub()
        token = bearer(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        viewer, _hotseat = await hub.served.identify(table, token)
        if seat is not None:
            if not table.is_over:
                raise ApiError(403, "'seat' opens other seats' views once the game is over")
            if seat >= len(table.seats):
                raise bad_request(f"no seat {seat}")
            viewer = seat
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        return await hub.archive.board(table, ply, viewer)

    @router.get(
        "/api/games/{game_id}/analysis",
        response_model=answers.Analysis,
        response_model_exclude_unset=True,
    )
    async def analysis(game_id: GameId) -> AnalysisAnswer:
        hub = ctx.hub()
        return await hub.adviser.analysis(await hub.fresh(await hub.table(game_id)))

    @router.post(
        "/api/games/{game_id}/analysis",
        openapi_extra=body_schema(EmptyBody, required=False),
        response_model=answers.Analysis,
        response_model_exclude_unset=True,
    )
    async def request_analysis(game_id: GameId, request: Request) -> AnalysisAnswer:
        parse(EmptyBody, await body_of(request))
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        if not table.is_over:
            raise ApiError(403, N_("the analysis opens once the game is over"))
        await ctx.throttle(ctx.creations, client_of(request), "analyses asked for")
        return await hub.adviser.request_analysis(table)
