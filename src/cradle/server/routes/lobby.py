"""The lobby's routes: what the server offers (games, bots), the listed tables, a new table,
taking a seat, and the games' fixed board maps."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from pydantic import Field

from cradle.ai import bot_names
from cradle.games import game_names, get_game
from cradle.server.answers import BoardMap, Created, GameInfo, Joined, Meta
from cradle.server.answers import LobbyPage as LobbyPageAnswer
from cradle.server.archive import LobbyPage
from cradle.server.errors import ApiError, bad_request
from cradle.server.models import (
    GAME_CHARS,
    MAX_OPTIONS,
    MAX_SEATS,
    OPTION_NAME_CHARS,
    CreateBody,
    JoinBody,
    parse,
)
from cradle.server.routes.accounts import seat_holder
from cradle.server.routes.common import (
    GAME_ID_CHARS,
    MAX_PAGE,
    Ctx,
    GameId,
    answer_route,
    body_of,
    body_route,
    bot_menu,
    client_of,
)
from cradle.server.seats import NewTable
from cradle.server.store.lobby import LobbyFilter

MAX_IDS = 100  # game ids in one lobby filter ("my games")
VARIANT_CHARS = 200  # one NAME=VALUE of the lobby's variant filter
VariantText = Annotated[str, Field(max_length=VARIANT_CHARS)]


def lobby_filter(
    game: str | None, players: int | None, mode: str | None, variant: list[str], ids: str | None
) -> LobbyFilter | None:
    """The lobby's filters as storage reads them; 400 for a variant that is not NAME=VALUE.
    A variant's value is read as JSON when it can be (``true``, ``3``), else as a word."""
    options = []
    for given in variant:
        name, equals, value = given.partition("=")
        if not equals or not name or len(name) > OPTION_NAME_CHARS:
            raise bad_request("each 'variant' must be NAME=VALUE, an option of the table")
        try:
            parsed: Any = json.loads(value)
        except ValueError:
            parsed = value
        if isinstance(parsed, dict | list):
            parsed = value
        options.append((name, parsed))
    wanted = None
    if ids is not None:
        wanted = tuple(part for part in ids.split(",") if part)
        if len(wanted) > MAX_IDS or any(len(part) > GAME_ID_CHARS for part in wanted):
            raise bad_request(f"'ids' lists at most {MAX_IDS} game ids")
    if game is None and players is None and mode is None and not options and wanted is None:
        return None
    return LobbyFilter(game, players, mode, tuple(options), wanted)


def lobby_routes(router: APIRouter) -> None:
    """Add this area\'s routes to ``router`` (the application\'s own)."""

    @answer_route(router, "GET", "/api/meta", Meta)
    async def meta(ctx: Ctx) -> Meta:
        games: list[GameInfo] = []
        for name in game_names():
            try:
                module = get_game(name)
                defaults = module.options_to_dict(module.options_from_dict({}))
            except Exception:  # a game whose package is missing is simply not offered
                continue
            games.append(
                GameInfo(
                    name=name,
                    title=module.PRESENTATION.title,
                    seat_names=list(module.PRESENTATION.seat_names),
                    min_players=module.MIN_PLAYERS,
                    max_players=module.MAX_PLAYERS,
                    options=defaults,
                )
            )
        if not ctx.menu:
            ctx.menu.extend(bot_menu(ctx.limits))
        return Meta(
            games=games,
            bots=bot_names(),
            bot_menu=ctx.menu,
            max_bot_seconds=ctx.limits.bot_seconds,
            analyse_finished=ctx.limits.analyse_finished,
            mail=ctx.hub().outbox.on,
        )

    @answer_route(router, "GET", "/api/games", LobbyPageAnswer)
    async def lobby(
        ctx: Ctx,
        status: Literal["open", "running", "over"] | None = None,
        before: str | None = Query(None, max_length=80),
        limit: int | None = Query(None, ge=1, le=MAX_PAGE),
        game: str | None = Query(None, max_length=GAME_CHARS),
        players: int | None = Query(None, ge=1, le=MAX_SEATS),
        mode: Literal["live", "turn"] | None = None,
        variant: Annotated[list[VariantText] | None, Query(max_length=MAX_OPTIONS)] = None,
        ids: str | None = Query(None, max_length=MAX_IDS * (GAME_ID_CHARS + 1)),
    ) -> LobbyPage:
        """One page of the lobby; ``game``, ``players``, ``mode``, ``variant`` (each
        ``NAME=VALUE``, an option the table sets so) and ``ids`` (a comma-separated list:
        "my games") keep only the tables that match."""
        size = min(limit or ctx.limits.lobby_page, ctx.limits.lobby_page)
        where = lobby_filter(game, players, mode, variant or [], ids)
        return await ctx.hub().archive.lobby(status, before, size, where)

    @body_route(router, "POST", "/api/games", CreateBody, Created, sparse=True)
    async def create(ctx: Ctx, request: Request) -> Mapping[str, object]:
        body = parse(CreateBody, await body_of(request))
        signed, name = await seat_holder(ctx, request, body.name)
        await ctx.throttle(ctx.creations, client_of(request), "new games")
        players = body.players
        return await ctx.hub().create(
            NewTable(
                game=body.game,
                players=players,
                options=dict(body.options),
                seats=list(body.seats) if body.seats is not None else ["human"] * players,
                hotseat=body.hotseat,
                listed=body.listed and not body.private,
                bot_seconds=body.bot_seconds,
                mode=body.mode,
                deadline_s=body.deadline_s,
                clock=None if body.clock is None else (body.clock.base_s, body.clock.increment_s),
                standin=body.standin,
                spectator_chat=body.spectator_chat,
                rated=body.rated,
                account=signed.account.id if signed else None,
                name=name,
            ),
            client_of(request),
        )

    @body_route(
        router, "POST", "/api/games/{game_id}/join", JoinBody, Joined, required=False, sparse=True
    )
    async def join(ctx: Ctx, game_id: GameId, request: Request) -> Mapping[str, object]:
        body = parse(JoinBody, await body_of(request))
        signed, name = await seat_holder(ctx, request, body.name)
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        await ctx.throttle(ctx.creations, client_of(request), "seats joined")
        account = signed.account.id if signed else None
        return await hub.seats.join(table, body.invite, account, name, body.standin)

    @answer_route(router, "GET", "/api/boards/{game}", BoardMap)
    async def board(
        ctx: Ctx,
        game: Annotated[str, Path(max_length=GAME_CHARS)],
        board: str = Query("standard", max_length=20),
    ) -> Mapping[str, object]:
        """The fixed map of a game's board (rivers, special squares), if the game exports one."""
        try:
            module = get_game(game)
        except ValueError as exc:
            raise ApiError(404, str(exc)) from None
        board_map: Callable[[str], Mapping[str, object]] | None = getattr(module, "board_map", None)
        if board_map is None:
            raise ApiError(404, f"{game} has no board map")
        try:
            return board_map(board)
        except (ValueError, KeyError) as exc:
            raise bad_request(str(exc)) from None
