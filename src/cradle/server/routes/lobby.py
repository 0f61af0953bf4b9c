"""The lobby's routes: what the server offers (games, bots), the listed tables, a new table,
taking a seat, and the games' fixed board maps."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Literal, TypedDict

from fastapi import APIRouter, Path, Query, Request

from cradle.ai import bot_names
from cradle.games import game_names, get_game
from cradle.server.answers import BoardMap, Created, Joined, Meta
from cradle.server.answers import LobbyPage as LobbyPageAnswer
from cradle.server.archive import LobbyPage
from cradle.server.errors import ApiError, bad_request
from cradle.server.models import (
    GAME_CHARS,
    CreateBody,
    JoinBody,
    parse,
)
from cradle.server.routes.accounts import signed_in, valid_name
from cradle.server.routes.common import (
    MAX_PAGE,
    BotChoice,
    Context,
    GameId,
    body_of,
    body_schema,
    bot_menu,
    client_of,
)
from cradle.server.seats import NewTable


class GameOffer(TypedDict):
    """A game this server offers, with its default options."""

    name: str
    min_players: int
    max_players: int
    options: dict[str, object]


class Offer(TypedDict):
    """What this server offers: its games, its bots, the most a bot may think per decision."""

    games: list[GameOffer]
    bots: list[str]
    bot_menu: list[BotChoice]
    max_bot_seconds: float


def lobby_routes(router: APIRouter, ctx: Context) -> None:
    """Add this area\'s routes to ``router`` (the application\'s own)."""

    @router.get("/api/meta", response_model=Meta, response_model_exclude_unset=True)
    async def meta() -> Offer:
        games: list[GameOffer] = []
        for name in game_names():
            try:
                module = get_game(name)
                defaults = module.options_to_dict(module.options_from_dict({}))
            except Exception:  # a game whose package is missing is simply not offered
                continue
            games.append(
                GameOffer(
                    name=name,
                    min_players=module.MIN_PLAYERS,
                    max_players=module.MAX_PLAYERS,
                    options=defaults,
                )
            )
        if not ctx.menu:
            ctx.menu.extend(bot_menu(ctx.limits))
        return Offer(
            games=games,
            bots=bot_names(),
            bot_menu=ctx.menu,
            max_bot_seconds=ctx.limits.bot_seconds,
        )

    @router.get("/api/games", response_model=LobbyPageAnswer, response_model_exclude_unset=True)
    async def lobby(
        status: Literal["open", "running", "over"] | None = None,
        before: str | None = Query(None, max_length=80),
        limit: int | None = Query(None, ge=1, le=MAX_PAGE),
    ) -> LobbyPage:
        size = min(limit or ctx.limits.lobby_page, ctx.limits.lobby_page)
        return await ctx.hub().archive.lobby(status, before, size)

    @router.post(
        "/api/games",
        openapi_extra=body_schema(CreateBody),
        response_model=Created,
        response_model_exclude_unset=True,
    )
    async def create(request: Request) -> Mapping[str, object]:
        body = parse(CreateBody, await body_of(request))
        signed = await signed_in(ctx, request, write=True)
        name = signed.account.name if signed else None
        if name is None and body.name is not None:
            name = valid_name(body.name)
        await ctx.throttle(ctx.creations, client_of(request), "new games")
        players = body.players
        return await ctx.hub().create(
            NewTable(
                game=body.game,
                players=players,
                options=dict(body.options),
                seats=list(body.seats) if body.seats is not None else ["human"] * players,
                hotseat=body.hotseat,
                listed=body.listed,
                bot_seconds=body.bot_seconds,
                spectator_chat=body.spectator_chat,
                rated=body.rated,
                account=signed.account.id if signed else None,
                name=name,
            ),
            client_of(request),
        )

    @router.post(
        "/api/games/{game_id}/join",
        openapi_extra=body_schema(JoinBody, required=False),
        response_model=Joined,
        response_model_exclude_unset=True,
    )
    async def join(game_id: GameId, request: Request) -> Mapping[str, object]:
        body = parse(JoinBody, await body_of(request))
        signed = await signed_in(ctx, request, write=True)
        name = signed.account.name if signed else None
        if name is None and body.name is not None:
            name = valid_name(body.name)
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        await ctx.throttle(ctx.creations, client_of(request), "seats joined")
        account = signed.account.id if signed else None
        return await hub.join(table, body.invite, account, name)

    @router.get("/api/boards/{game}", response_model=BoardMap, response_model_exclude_unset=True)
    async def board(
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
