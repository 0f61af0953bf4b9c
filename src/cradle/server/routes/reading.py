"""The routes that read a game: its record, replays, the history as a seat knows it, a past
board, and a finished game's analysis."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Query, Request

from cradle.core.words import N_
from cradle.server import answers, archive
from cradle.server.assist import AnalysisAnswer
from cradle.server.errors import ApiError, bad_request, forbidden
from cradle.server.models import (
    MAX_SEATS,
    EmptyBody,
    parse,
)
from cradle.server.routes.accounts import signed_in
from cradle.server.routes.common import (
    Context,
    Ctx,
    GameId,
    answer_route,
    bearer,
    body_of,
    body_route,
    client_of,
)
from cradle.server.table import Table

SHARE_HEADER = "cradle-share"  # a private table's share key (GET /api/games/{id}/share)
PRIVATE = N_("a private table's finished game is for its players and those they share it with")


async def player_of(ctx: Context, table: Table, request: Request) -> bool:
    """Whether the request is one of the table's players: a seat's token (or the hot-seat
    screen's), or the session of an account holding a seat."""
    token = bearer(request.headers)
    if token is not None:
        seat, hotseat = await ctx.hub().served.identify(table, token)
        if seat is not None or hotseat:
            return True
    if not table.accounts:
        return False
    signed = await signed_in(ctx, request, write=False)
    return signed is not None and signed.account.id in table.accounts.values()


async def may_read(ctx: Context, table: Table, request: Request) -> None:
    """A private table's game once it is over (its record with the seed, replays, every seat's
    past boards, the analysis) answers its players and those they share it with, no one else:
    its address is how they watched it, not a key to it for good. 403 otherwise."""
    if not table.private or not table.is_over:
        return
    shared = request.headers.get(SHARE_HEADER)
    if shared is not None and hmac.compare_digest(shared.encode(), table.share_key().encode()):
        return
    if not await player_of(ctx, table, request):
        raise forbidden(PRIVATE)


async def readable(ctx: Context, game_id: str, request: Request) -> Table:
    """The table as stored now, once the request may read it (:func:`may_read`)."""
    hub = ctx.hub()
    table = await hub.fresh(await hub.table(game_id))
    await may_read(ctx, table, request)
    return table


def reading_routes(router: APIRouter) -> None:
    """Add this area\'s routes to ``router`` (the application\'s own)."""

    @answer_route(router, "GET", "/api/games/{game_id}/record", answers.Record)
    async def record(ctx: Ctx, game_id: GameId, request: Request) -> archive.KnownRecord:
        table = await readable(ctx, game_id, request)
        return ctx.hub().archive.record(table, bearer(request.headers))

    @answer_route(router, "GET", "/api/games/{game_id}/replay", answers.Replay)
    async def replay(
        ctx: Ctx,
        game_id: GameId,
        request: Request,
        seat: int | None = Query(None, ge=0, le=MAX_SEATS),
    ) -> archive.Replay:
        return await ctx.hub().archive.replay(await readable(ctx, game_id, request), seat)

    @router.get("/api/games/{game_id}/share", response_model=answers.Share)
    async def share(ctx: Ctx, game_id: GameId, request: Request) -> answers.Share:
        """A private table's share key, for its players to give whom they choose: sent as
        the ``Cradle-Share`` header, it opens the finished game's record, replay and past
        boards (``may_read``)."""
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        if not await player_of(ctx, table, request):
            raise forbidden(N_("only the table's players may share it"))
        return answers.Share(key=table.share_key())

    @answer_route(router, "GET", "/api/games/{game_id}/history", answers.History)
    async def history(ctx: Ctx, game_id: GameId, request: Request) -> archive.History:
        """Every action so far with its events, as the token's seat may know them (the
        hot-seat screen and spectators: as spectators)."""
        hub = ctx.hub()
        token = bearer(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        seat, _hotseat = await hub.served.identify(table, token)
        await may_read(ctx, table, request)
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        return await hub.archive.history(table, seat)

    @answer_route(router, "GET", "/api/games/{game_id}/board", answers.BoardAfter)
    async def past_board(
        ctx: Ctx,
        game_id: GameId,
        request: Request,
        ply: int = Query(..., ge=0, le=100_000),
        seat: int | None = Query(None, ge=0, le=MAX_SEATS),
    ) -> archive.BoardAfter:
        """The board after ``ply`` actions as the token's seat saw it (any seat's view once
        the game is over, with ``seat``, as in replays)."""
        hub = ctx.hub()
        token = bearer(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        viewer, _hotseat = await hub.served.identify(table, token)
        await may_read(ctx, table, request)
        if seat is not None:
            if not table.is_over:
                raise ApiError(403, "'seat' opens other seats' views once the game is over")
            if seat >= len(table.seats):
                raise bad_request(f"no seat {seat}")
            viewer = seat
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        return await hub.archive.board(table, ply, viewer)

    @answer_route(router, "GET", "/api/games/{game_id}/analysis", answers.Analysis)
    async def analysis(ctx: Ctx, game_id: GameId, request: Request) -> AnalysisAnswer:
        return await ctx.hub().adviser.analysis(await readable(ctx, game_id, request))

    @body_route(
        router, "POST", "/api/games/{game_id}/analysis", EmptyBody, answers.Analysis, sparse=True
    )
    async def request_analysis(ctx: Ctx, game_id: GameId, request: Request) -> AnalysisAnswer:
        parse(EmptyBody, await body_of(request))
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        if not table.is_over:
            raise ApiError(403, N_("the analysis opens once the game is over"))
        await may_read(ctx, table, request)
        await ctx.throttle(ctx.creations, client_of(request), "analyses asked for")
        return await hub.adviser.request_analysis(table)
