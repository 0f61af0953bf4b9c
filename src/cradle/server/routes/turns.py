"""The routes of turn-based play and of games ended before their rules end them: conceding,
acting on a deadline that passed, coming back to a seat a stand-in played for, and removing a
table before it begins."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from cradle.core.words import N_
from cradle.server.answers import Done, MailStopped
from cradle.server.errors import ApiError
from cradle.server.models import EmptyBody, StopMailBody, TimeoutBody, parse
from cradle.server.routes.common import (
    Ctx,
    GameId,
    bearer,
    body_of,
    body_route,
    client_of,
    frame_route,
)
from cradle.server.tokens import hash_token


def turns_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    frame_route(
        router,
        "/api/games/{game_id}/concede",
        EmptyBody,
        lambda hub, table, token: hub.turns.seat_of(table, token, "conceding"),
        lambda hub, table, token, _body: hub.turns.concede(table, token),
        name="concede",
        about="The token's seat gives up: the game ends with it last.",
    )
    frame_route(
        router,
        "/api/games/{game_id}/timeout",
        TimeoutBody,
        lambda hub, table, token: hub.turns.seat_of(table, token, "acting on a deadline"),
        lambda hub, table, token, body: hub.turns.timeout(table, token, body.choice),
        name="timeout",
        about="Another seat of a turn-based table whose deciding seat's deadline passed: "
        "its stand-in bot plays for it until its person comes back (bot: this turn, and each "
        "later turn of theirs whose deadline passes), or the game ends without it (end).",
        fresh=True,  # the deadline as stored
    )
    frame_route(
        router,
        "/api/games/{game_id}/return",
        EmptyBody,
        lambda hub, table, token: hub.turns.seat_of(table, token, "coming back"),
        lambda hub, table, token, _body: hub.turns.come_back(table, token),
        name="come_back",
        about="The token's seat is back (I'm back): its stand-in stops playing for it; a "
        "turn the stand-in was playing is the person's again, with a fresh deadline.",
        fresh=True,  # the stand-in may have been chosen on another process a moment ago
    )

    @router.delete("/api/games/{game_id}", response_model=Done, response_model_exclude_unset=True)
    async def remove(ctx: Ctx, game_id: GameId, request: Request) -> dict[str, Any]:
        """The creator (its own seat's token, or the hot-seat table token) removes a table
        nobody has moved at; it answers 410 from then on."""
        hub = ctx.hub()
        token = bearer(request.headers)
        table = await hub.table(game_id)
        await ctx.throttle(ctx.creations, client_of(request), "changes")
        await hub.turns.remove(table, token)
        return {"id": table.id, "status": "removed"}

    @body_route(router, "POST", "/api/mail/stop", StopMailBody, MailStopped, sparse=True)
    async def stop_mail(ctx: Ctx, request: Request) -> dict[str, Any]:
        """The link of a turn notice: its account gets no more mails (no sign-in needed;
        each link works once)."""
        hub = ctx.hub()
        body = parse(StopMailBody, await body_of(request))
        await ctx.throttle(ctx.creations, client_of(request), "changes")
        if not await hub.runtime.db(hub.store.notices.stop, hash_token(body.code)):
            raise ApiError(404, N_("this link is unknown or was used already"))
        return {"stopped": True}
