"""The routes of a signed-in person's own seats: the games they hold seats at, taking their seat
on this device, a seat's transfer link, and continuing a seat here (the rules of signing in are
in :mod:`cradle.server.routes.accounts`)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Query, Request

from cradle.core.words import N_
from cradle.server import accounts
from cradle.server.account_answers import (
    MyGames,
    Transfer,
)
from cradle.server.accounts import (
    TRANSFER_SECONDS,
)
from cradle.server.answers import Joined
from cradle.server.errors import ApiError, bad_request, forbidden
from cradle.server.models import (
    ContinueBody,
    EmptyBody,
    SeatBody,
    parse,
)
from cradle.server.routes.accounts import need_account
from cradle.server.routes.common import Ctx, GameId, bearer, body_of, body_route, client_of
from cradle.server.store.schema import LIVE
from cradle.server.tokens import hash_token

MY_GAMES = 60  # the games GET /api/me/games lists at most (the latest changed)


def my_seat_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    @router.get("/api/me/games", response_model=MyGames)
    async def my_games(
        ctx: Ctx, request: Request, limit: int | None = Query(None, ge=1, le=MY_GAMES)
    ) -> dict[str, Any]:
        """The signed-in player's games (the ``limit`` changed last): those where it is their
        turn first, then the other games in progress, then the ended ones; the latest changed
        first within each."""
        found = await need_account(ctx, request, write=False)
        hub = ctx.hub()
        rows = await hub.runtime.db(
            hub.store.account_data.games_of, found.account.id, limit or MY_GAMES
        )
        games = []
        for row in rows:
            entry = dict(row)
            entry["to_move"] = None
            if row["status"] in LIVE:
                try:
                    table = await hub.table(row["id"])
                except ApiError:
                    continue  # set aside, or ended meanwhile
                entry["to_move"] = table.to_move()
                entry["names"] = [table.names.get(s) for s in range(len(table.seats))]
                entry["moves"] = table.ply
                entry["status"] = table.status
                entry["updated"] = table.updated
                entry["rated"] = table.rates()
            entry["your_turn"] = entry["to_move"] in entry["seats_held"]
            games.append(entry)
        games.sort(
            key=lambda g: (not g["your_turn"], g["status"] not in LIVE, -float(g["updated"]))
        )
        waiting = sum(1 for g in games if g["your_turn"])
        return {"games": games, "your_turn": waiting}

    @body_route(router, "POST", "/api/games/{game_id}/seat", SeatBody, Joined, required=False)
    async def my_seat(ctx: Ctx, game_id: GameId, request: Request) -> dict[str, object]:
        """The signed-in player's seat here, on this device: the token it sent (Authorization)
        while that is still the seat's, else a fresh one (the seat's earlier token stops
        working: the seat follows the player to the device that asks)."""
        body = parse(SeatBody, await body_of(request))
        found = await need_account(ctx, request, write=True)
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        held = sorted(s for s, a in table.accounts.items() if a == found.account.id)
        if not held or (body.seat is not None and body.seat not in held):
            raise forbidden(N_("your account holds no such seat at this game"))
        seat = body.seat if body.seat is not None else held[0]
        current = bearer(request.headers)
        if current is not None and table.seat_of(current) == seat:
            return {"id": table.id, "seat": seat, "token": current}  # this device holds it
        await ctx.throttle(ctx.creations, client_of(request), "seats taken")
        token = await hub.seats.rekey(table, seat)
        return {"id": table.id, "seat": seat, "token": token}

    @body_route(router, "POST", "/api/games/{game_id}/transfer", EmptyBody, Transfer)
    async def transfer(ctx: Ctx, game_id: GameId, request: Request) -> dict[str, object]:
        """A one-time link (and its QR code, SVG) that moves the bearer's seat to another
        device, within the hour; the seat's token here stops working when it is used."""
        parse(EmptyBody, await body_of(request))
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        seat, _screen = table.authorize(bearer(request.headers))
        if seat is None:
            raise forbidden("send the seat's token (Authorization: Bearer TOKEN)")
        if seat in table.accounts:
            raise bad_request(N_("this seat is an account's: sign in on the other device instead"))
        if table.is_over:
            raise forbidden(N_("the game is over"))
        await ctx.throttle(ctx.creations, client_of(request), "links made")
        code = await hub.runtime.db(
            accounts.new_transfer, hub.store.seats, table.id, seat, time.time()
        )
        link = f"{str(request.base_url).rstrip('/')}/#/continue/{table.id}/{code}"
        return {
            "id": table.id,
            "seat": seat,
            "code": code,
            "link": link,
            "qr_svg": accounts.qr_svg(link),
            "expires_in": TRANSFER_SECONDS,
        }

    @body_route(router, "POST", "/api/games/{game_id}/continue", ContinueBody, Joined)
    async def continue_here(ctx: Ctx, game_id: GameId, request: Request) -> dict[str, object]:
        """Exchange a "continue on another device" code for its seat's token (once)."""
        body = parse(ContinueBody, await body_of(request))
        await ctx.throttle(ctx.creations, client_of(request), "seats taken")
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        seat = await hub.runtime.db(
            accounts.transfer_of, hub.store.seats, table.id, body.code, time.time()
        )
        if seat is None:
            raise forbidden(N_("this link is not valid (each link works once, within the hour)"))
        token = await hub.seats.rekey(table, seat, hash_token(body.code))
        return {"id": table.id, "seat": seat, "token": token}
