"""The routes of people's reports to the operator: a chat line, or a player (``cradle admin``
reads them and acts; :mod:`cradle.server.store.moderation` keeps them)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request

from cradle.core.words import N_
from cradle.server.accounts import name_key, normal_name
from cradle.server.answers import Reported
from cradle.server.chat import Viewer, clean_text, may_read
from cradle.server.errors import ApiError, forbidden
from cradle.server.models import ReportBody, parse
from cradle.server.routes.accounts import signed_in
from cradle.server.routes.common import Ctx, GameId, bearer, body_of, body_route, client_of
from cradle.server.routes.ratings import NAME_IN_URL
from cradle.server.store.database import client_hash
from cradle.server.store.errors import Refused

LineId = Annotated[int, Path(ge=1, le=2**53)]


def report_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    def reporter(account: str | None, client: str) -> str:
        """Who reports, as stored: the account, else the client's hash (never an address)."""
        return f"a:{account}" if account is not None else f"c:{client_hash(client)}"

    async def stored(report: int | None, missing: str, **params: object) -> Reported:
        if report is None:
            raise ApiError(404, missing, params=params)
        return Reported(id=report)

    @body_route(router, "POST", "/api/games/{game_id}/chat/{line_id}/report", ReportBody, Reported)
    async def report_line(ctx: Ctx, game_id: GameId, line_id: LineId, request: Request) -> Reported:
        """Report a line of the table's chat to the operator (whoever may read the chat)."""
        body = parse(ReportBody, await body_of(request))
        hub = ctx.hub()
        table = await hub.fresh(await hub.table(game_id))
        seat, hotseat = await hub.served.identify(table, bearer(request.headers))
        signed = None
        if seat is None and not hotseat:
            found = await signed_in(ctx, request, write=True)
            if found is not None:
                signed = (found.account.id, found.account.name)
        client = client_of(request)
        viewer = Viewer.at(table, seat, hotseat, signed, client)
        if not may_read(table, viewer):
            raise forbidden(N_("only a reader of this table's chat can report its lines"))
        reason = clean_text(body.reason)
        await ctx.throttle(ctx.chatted, client, "reports")
        try:
            report = await hub.runtime.db(
                hub.store.moderation.report_line,
                table.id,
                line_id,
                reporter(viewer.account, client),
                reason,
            )
        except Refused as exc:
            raise ApiError(429, exc.reason, retry_after=600) from None
        return await stored(report, N_("this table has no chat line {line}"), line=line_id)

    @body_route(router, "POST", "/api/players/{name}/report", ReportBody, Reported)
    async def report_player(
        ctx: Ctx, name: Annotated[str, Path(max_length=NAME_IN_URL)], request: Request
    ) -> Reported:
        """Report a player to the operator (their name, what they did: ``reason``)."""
        body = parse(ReportBody, await body_of(request))
        reason = clean_text(body.reason)
        found = await signed_in(ctx, request, write=True)
        client = client_of(request)
        await ctx.throttle(ctx.chatted, client, "reports")
        try:
            key = name_key(normal_name(name))
        except ValueError:
            raise ApiError(404, N_("no player has that name")) from None
        hub = ctx.hub()
        account = found.account.id if found is not None else None
        try:
            report = await hub.runtime.db(
                hub.store.moderation.report_player, key, reporter(account, client), reason
            )
        except Refused as exc:
            raise ApiError(429, exc.reason, retry_after=600) from None
        return await stored(report, "no player has that name")
