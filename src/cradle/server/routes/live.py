"""The live connection of a table (``/ws/games/{id}``): the first message names the seat, then
the client is sent every change of the table and may move, undo and ping."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket
from starlette.types import Message

from cradle.core.words import N_
from cradle.server.errors import ApiError, unavailable
from cradle.server.hub import Hub
from cradle.server.messages import ErrorMessage, PongMessage
from cradle.server.models import BadInput, ClientMessage, Hello, parse, read_json
from cradle.server.routes.accounts import signed_in
from cradle.server.routes.common import (
    HELLO_SECONDS,
    MAX_FRAME,
    TOKEN_IN_URL,
    Context,
    Ctx,
    GameId,
    client_of,
    origin_allowed,
)
from cradle.server.store.database import client_hash
from cradle.server.store.errors import DATABASE_ERRORS
from cradle.server.table import Connection, Table
from cradle.server.tokens import hash_token

log = logging.getLogger("cradle.server")


def live_routes(router: APIRouter) -> None:
    """Add this area\'s routes to ``router`` (the application\'s own)."""

    def error_message(refused: ApiError, api: int = 1) -> str:
        """The error frame of a refusal, for a client of version ``api`` of the API."""
        found = ErrorMessage(
            type="error",
            error=refused.reason,
            status=refused.status_for(api),
            message=refused.message,
            params=refused.params,
        )
        if refused.kind is not None:
            found.kind = refused.kind
        return found.model_dump_json(exclude_unset=True)

    async def send_error(websocket: WebSocket, status: int, reason: str) -> None:
        await websocket.send_text(error_message(ApiError(status, reason)))

    async def hello(websocket: WebSocket) -> Hello:
        """The first message (a token, or none for a spectator; the version of the API);
        bad messages get error frames."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HELLO_SECONDS
        while True:
            message = await asyncio.wait_for(websocket.receive(), max(0.0, deadline - loop.time()))
            if message["type"] == "websocket.disconnect":
                raise ConnectionError("gone before saying hello")
            try:
                return parse(Hello, read_frame(message))
            except BadInput as exc:
                await send_error(
                    websocket, 400, f'the first message is {{"token": ...}} or {{}}: {exc.reason}'
                )

    def read_frame(message: Message) -> object:
        text = message.get("text")
        if text is None:
            raise BadInput("binary frames are not understood: send JSON text")
        if len(text) > MAX_FRAME:
            raise BadInput(f"a frame has at most {MAX_FRAME} characters")
        return read_json(text)

    async def refuse_socket(websocket: WebSocket, refused: ApiError) -> None:
        # Accepted only to say why: the refusal frame, then the close code 4000 + status.
        await websocket.accept()
        await websocket.send_text(error_message(refused))
        await websocket.close(code=4000 + refused.status, reason=refused.reason[:120])

    @router.websocket("/ws/games/{game_id}")
    async def live(ctx: Ctx, websocket: WebSocket, game_id: GameId) -> None:
        client = client_of(websocket)
        sockets = ctx.sockets
        if sockets[client] >= ctx.limits.sockets_per_client:
            # A client cannot hold the server's sockets and memory.
            most = ctx.limits.sockets_per_client
            said = N_("at most {most} live connections per client")
            await refuse_socket(websocket, ApiError(429, said, params={"most": most}))
            return
        if sockets.total() >= ctx.limits.sockets:
            said = N_("this server has its maximum of {most} live connections; try again later")
            await refuse_socket(websocket, ApiError(503, said, params={"most": ctx.limits.sockets}))
            return
        sockets[client] += 1
        try:
            await serve_socket(ctx, websocket, game_id)
        finally:
            sockets[client] -= 1
            if not sockets[client]:
                del sockets[client]

    async def serve_socket(ctx: Context, websocket: WebSocket, game_id: str) -> None:
        hub = ctx.hub()
        origin = websocket.headers.get("origin")
        if origin is not None and not origin_allowed(
            origin, websocket.headers.get("host"), ctx.origins
        ):
            await websocket.close(code=4403)  # before accepting: the handshake gets a 403
            return
        await websocket.accept()
        try:
            try:
                if "token" in websocket.query_params:
                    raise ApiError(400, TOKEN_IN_URL)
                table = await hub.table(game_id)
                said = await hello(websocket)
                token = said.token
                await hub.fresh(table)
                seat, hotseat = await hub.served.identify(table, token)
                # A spectator's chat mutes are its account's (signed in) or its client's.
                signed = (
                    None if seat is not None or hotseat else await signed_in(ctx, websocket, False)
                )
            except DATABASE_ERRORS as exc:
                log.error("the database failed: %s", exc)
                raise unavailable(exc) from None
        except ApiError as refused:
            await websocket.send_text(error_message(refused))  # with its message and params
            code = {400: 4400, 403: 4403, 404: 4404, 410: 4410, 503: 4503}.get(refused.status, 4500)
            await websocket.close(code=code, reason=refused.reason[:120])
            return
        except TimeoutError:
            await websocket.close(code=4408, reason="no first message within 10 s")
            return
        except ConnectionError:
            return
        connection = Connection(seat=seat, hotseat=hotseat, send=websocket.send_text, api=said.api)
        if seat is not None and not hotseat and token:
            connection.key = hash_token(token)
        if seat is None and not hotseat:
            if signed is not None:
                connection.account = signed.account.id
            else:
                connection.client = client_hash(client_of(websocket))

        async def pump() -> None:
            await connection.pump()
            if connection.close_reason is not None:
                # 1013 "try again later": the client reconnects and resumes where the game is.
                with contextlib.suppress(Exception):
                    await websocket.close(code=1013, reason=connection.close_reason[:120])

        connection.task = asyncio.get_running_loop().create_task(pump())
        hub.attach(table, connection)
        client = client_of(websocket)
        try:
            while connection.close_reason is None:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                reply = await handle_frame(ctx, hub, table, token, message, client, connection.api)
                if reply is not None and not await connection.reply(reply):
                    break  # the client does not read: it is closed with the reason
        except Exception as exc:  # a broken connection ends here, never the server
            if not isinstance(exc, RuntimeError | ConnectionError):
                log.exception("game %s: WebSocket failed", game_id)
        finally:
            hub.play.detach(table, connection)
            connection.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await connection.task

    async def handle_frame(
        ctx: Context,
        hub: Hub,
        table: Table,
        token: str | None,
        message: Message,
        client: str,
        api: int,
    ) -> str | None:
        """Carry out one client frame; an error frame for a bad one (for a client of version
        ``api`` of the API), a pong for a ping, None when all went well."""
        try:
            frame = parse(ClientMessage, read_frame(message))
            if frame.action is not None:
                await hub.served.mover_of(table, token, "a move")
                await ctx.throttle(ctx.moves, client, "moves")
                await hub.play.act(table, token, frame.action)
            elif frame.undo:
                await hub.served.mover_of(table, token, "an undo")
                await ctx.throttle(ctx.moves, client, "moves")
                await hub.play.undo(table, token)
            elif frame.type == "ping":
                return PongMessage(type="pong").model_dump_json()
            else:
                reason = 'send {"action": "..."}, {"undo": true} or {"type": "ping"}'
                return error_message(ApiError(400, reason))
        except BadInput as exc:
            return error_message(ApiError(400, exc.message, params=exc.params))
        except ApiError as exc:
            return error_message(exc, api)
        except DATABASE_ERRORS as exc:
            log.error("the database failed: %s", exc)
            return error_message(unavailable(exc))
        return None
