"""The routes of a table's chat: its lines, a new line, and muting a speaker
(:mod:`cradle.server.chat` decides who may read and write, and pushes each line)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from cradle.server.answers import ChatLine, ChatPage
from cradle.server.chat import ShownLine, ShownPage, Viewer
from cradle.server.models import ChatBody, MuteBody, parse
from cradle.server.routes.accounts import signed_in
from cradle.server.routes.common import Context, Ctx, GameId, bearer, body_of, body_route, client_of
from cradle.server.table import Table


def chat_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    async def viewer_of(
        ctx: Context, game_id: str, request: Request, write: bool
    ) -> tuple[Table, Viewer]:
        """The table and who asks: the bearer token's seat, else a spectator (signed in, with
        the session cookie: then writing needs its CSRF token, as every write does; or a
        guest, known by its client)."""
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        seat, hotseat = await hub.served.identify(table, bearer(request.headers))
        signed = None
        if seat is None and not hotseat:
            found = await signed_in(ctx, request, write)
            if found is not None:
                signed = (found.account.id, found.account.name)
        return table, Viewer.at(table, seat, hotseat, signed, client_of(request))

    @router.get(
        "/api/games/{game_id}/chat", response_model=ChatPage, response_model_exclude_unset=True
    )
    async def chat(
        ctx: Ctx,
        game_id: GameId,
        request: Request,
        after: Annotated[int, Query(ge=0, le=2**53)] = 0,
    ) -> ShownPage:
        """The latest lines of the table's chat this viewer may read (after line ``after``)."""
        table, viewer = await viewer_of(ctx, game_id, request, write=False)
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        return await ctx.hub().chat.lines(table, viewer, after)

    @body_route(router, "POST", "/api/games/{game_id}/chat", ChatBody, ChatLine, sparse=True)
    async def say(ctx: Ctx, game_id: GameId, request: Request) -> ShownLine:
        """A line in the table's chat (players; spectators where the table lets them)."""
        body = parse(ChatBody, await body_of(request))
        table, viewer = await viewer_of(ctx, game_id, request, write=True)
        chat = ctx.hub().chat
        refusal = chat.may_write(table, viewer)
        client = client_of(request)
        if refusal is None:  # a refused line counts against nothing
            await ctx.throttle(ctx.chatted, client, "chat lines")
            speaker = viewer.speaker()
            if speaker is not None:  # a seat's, or an account's wherever it writes from
                key = speaker if speaker.startswith("a:") else f"{table.id}:{speaker}"
                await ctx.throttle(ctx.chat_speakers, key, "chat lines from this seat")
            if viewer.seat is None and not viewer.hotseat:
                # All spectators together: however many addresses they have, their lines
                # cannot push the players' off the latest page.
                await ctx.throttle(
                    ctx.spectator_lines, table.id, "lines from this table's spectators"
                )
        return await chat.say(table, viewer, client, body.text)

    @body_route(router, "POST", "/api/games/{game_id}/mute", MuteBody, ChatPage, sparse=True)
    async def mute(ctx: Ctx, game_id: GameId, request: Request) -> ShownPage:
        """Mute a speaker of this table (``"muted": false``: hear them again)."""
        body = parse(MuteBody, await body_of(request))
        table, viewer = await viewer_of(ctx, game_id, request, write=True)
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        return await ctx.hub().chat.mute(table, viewer, body.speaker, body.muted)
