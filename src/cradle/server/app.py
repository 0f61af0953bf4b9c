"""The FastAPI application: the HTTP and WebSocket API of docs/contract.md, and the web client.

In front of the routes, :class:`Guard` (plain ASGI) refuses what no route should see: a token in
a URL, a body over the size limit (read and answered, not reset), a body that is not declared
JSON; and it puts the security headers on every answer. Bodies and WebSocket frames are then
read by :func:`cradle.server.models.read_json` (depth, numbers) into pydantic models.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path as FilePath
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, urlsplit

from fastapi import FastAPI, Path, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from cradle.ai import LEVELS, bot_names
from cradle.games import game_names, get_game
from cradle.server.bots import server_bot, watch_parent
from cradle.server.clients import client_key
from cradle.server.hub import (
    ApiError,
    Connection,
    Hub,
    NewTable,
    Table,
    bad_request,
    unavailable,
)
from cradle.server.limits import Limits, RateLimiter
from cradle.server.models import (
    GAME_CHARS,
    MAX_SEATS,
    ActionBody,
    BadInput,
    CreateBody,
    EmptyBody,
    Frame,
    Hello,
    JoinBody,
    parse,
    read_json,
)
from cradle.server.protocol import SECURITY_HEADERS, JsonHttpProtocol, JsonWebSocketProtocol
from cradle.server.storage import DATABASE_ERRORS, CorruptGame, Storage

log = logging.getLogger("cradle.server")

WEB_DIR = FilePath(__file__).resolve().parent.parent / "web"
MAX_BODY = 16 * 1024  # bytes of one request body
DRAIN_LIMIT = 1024 * 1024  # an oversized body is read this far so the 413 arrives, then cut
MAX_FRAME = 4 * 1024  # characters of one WebSocket frame from a client
WS_MAX_SIZE = 64 * 1024  # beyond this the WebSocket layer itself closes the connection (1009)
MAX_PAGE = 1000  # a lobby page a client asks for (the server's own page size caps it again)
GAME_ID_CHARS = 40  # a game's id in a URL (the server makes 12-character ones)
HELLO_SECONDS = 10.0  # a WebSocket client sends its first message within this
TOKEN_IN_URL = (
    "tokens never travel in URLs (they end up in logs and browser history): send "
    "'Authorization: Bearer TOKEN', or {\"token\": TOKEN} as a WebSocket's first message"
)
CONFIG_ENV = "CRADLE_SERVER_CONFIG"  # create_app's arguments for `uvicorn --factory` workers
WORKER_GRACE = 10.0  # seconds an orphaned worker has to stop in order before it just exits


GameId = Annotated[str, Path(max_length=GAME_ID_CHARS)]
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def _json_bytes(reason: str) -> bytes:
    return json.dumps({"error": reason}).encode()


class Guard:
    """The ASGI layer in front of every route (see the module's doc)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        api = path.startswith("/api/") or path.startswith("/ws/")

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                if api and b"cache-control" not in present:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if api and "token" in query:
            await self._refuse(secured, 400, TOKEN_IN_URL)
            return
        if scope["method"] not in ("POST", "PUT", "PATCH", "DELETE"):
            await self.app(scope, receive, secured)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > DRAIN_LIMIT:
            await self._refuse(secured, 413, f"the body is larger than {MAX_BODY} bytes")
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > DRAIN_LIMIT:
                break
            if not message.get("more_body", False):
                break
        if len(body) > MAX_BODY:
            await self._refuse(secured, 413, f"the body is larger than {MAX_BODY} bytes")
            return
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        # A form or a plain-text POST from another site's page gets no further (no preflight
        # protects them): a body must be declared JSON, and creating a game needs one.
        needs_json = bool(body) or (path.rstrip("/") == "/api/games" and scope["method"] == "POST")
        if api and needs_json and kind != "application/json":
            await self._refuse(
                secured, 415, "send the body as JSON (Content-Type: application/json)"
            )
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, secured)

    @staticmethod
    async def _refuse(send: Send, status: int, reason: str) -> None:
        content = _json_bytes(reason)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(content)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": content})


ERROR_CONTENT = {
    "application/json": {
        "schema": {
            "type": "object",
            "properties": {"error": {"type": "string"}, "field": {"type": "string"}},
            "required": ["error"],
        }
    }
}


def body_schema(model: type[BaseModel], required: bool = True) -> dict[str, Any]:
    """An ``openapi_extra`` that publishes ``model`` as the route's JSON body: the routes read
    bodies themselves (through read_json's limits), so FastAPI would not know them."""
    schema = model.model_json_schema()
    return {
        "requestBody": {
            "required": required,
            "content": {"application/json": {"schema": schema}},
        }
    }


def bearer(request_headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer T`` header (None without one)."""
    value = request_headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise bad_request("the Authorization header must be 'Bearer TOKEN'")
    return token.strip()


def origin_allowed(origin: str, host: str | None, allowed: tuple[str, ...]) -> bool:
    """A browser's WebSocket may come from this server's own pages, or the listed origins."""
    if origin.rstrip("/") in allowed or "*" in allowed:
        return True
    return bool(host) and urlsplit(origin).netloc.lower() == (host or "").lower()


def bot_menu(limits: Limits) -> list[dict[str, Any]]:
    """Every bot a seat may take, for the new-table form: the playing levels first, weakest
    first (the AI's own order and words), then the other bots; each with the most it thinks per
    decision on this server (0: at once)."""
    levels = [name for name in LEVELS if name in bot_names()]
    others = [name for name in bot_names() if name not in LEVELS]
    menu = []
    for strength, name in enumerate([*levels, *others]):
        bot = server_bot(name, 0, limits.bot_seconds)
        budget = getattr(bot, "budget", None)
        seconds = getattr(budget, "seconds", None) or 0.0
        if name in LEVELS:
            about = LEVELS[name].about
        else:
            doc = (type(bot).__doc__ or "").strip().splitlines()
            about = doc[0].split(" (see ")[0].rstrip(".") if doc else ""
        menu.append(
            {
                "name": name,
                "level": name in LEVELS,
                "strength": strength if name in LEVELS else None,
                "seconds": round(float(seconds), 2),
                "about": about,
            }
        )
    return menu


def create_app(
    database_url: str,
    bot_delay: float = 0.5,
    limits: Limits | None = None,
    origins: tuple[str, ...] | list[str] = (),
) -> FastAPI:
    """The server's application on the database at ``database_url`` (SQLAlchemy URL)."""
    limits = limits or Limits()
    allowed = tuple(o.rstrip("/") for o in origins)
    hub_box: dict[str, Hub] = {}
    creations = RateLimiter(limits.create_per_minute / 60.0, limits.create_burst, name="create")
    moves = RateLimiter(limits.moves_per_second, limits.moves_burst, name="moves")
    reads = RateLimiter(limits.reads_per_second, limits.reads_burst, name="reads")
    hinted = RateLimiter(limits.hints_per_minute / 60.0, limits.hints_burst, name="hints")
    menu: list[dict[str, Any]] = []

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        storage = await asyncio.to_thread(Storage, database_url)
        hub = Hub(storage, bot_delay=bot_delay, limits=limits)
        try:
            await hub.start()
        except Exception:
            await hub.stop()
            raise
        hub_box["hub"] = hub
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.stop()

    app = FastAPI(title="cradle play server", lifespan=lifespan, docs_url=None, redoc_url=None)

    def published_schema() -> dict[str, Any]:
        """The OpenAPI schema as the server answers: refusals are ``{"error", "field"?}`` with
        a 4xx (400 where FastAPI would say 422), or 503 when the database fails."""
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    responses = operation.setdefault("responses", {})
                    responses.pop("422", None)
                    responses["4XX"] = {"description": "refused", "content": ERROR_CONTENT}
                    responses["503"] = {"description": "try again later", "content": ERROR_CONTENT}
            found = schema.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                found.pop(name, None)
            if "components" in schema and not found:
                del schema["components"]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = published_schema  # type: ignore[method-assign]
    app.add_middleware(GZipMiddleware, minimum_size=4096)
    app.add_middleware(Guard)

    def hub_of() -> Hub:
        return hub_box["hub"]

    def error(
        status: int, reason: str, field: str | None = None, retry_after: float | None = None
    ) -> JSONResponse:
        content: dict[str, Any] = {"error": reason}
        if field is not None:
            content["field"] = field
        headers = {"Retry-After": str(max(1, round(retry_after)))} if retry_after else None
        return JSONResponse(content, status_code=status, headers=headers)

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error(exc.status, exc.reason, retry_after=exc.retry_after)

    @app.exception_handler(BadInput)
    async def bad_input(_request: Request, exc: BadInput) -> JSONResponse:
        return error(400, exc.reason, field=exc.field)

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or str(first["loc"][0])
        return error(400, f"{where}: {first['msg']}", field=where)

    async def storage_failed(_request: Request, exc: Exception) -> JSONResponse:
        # Every failure of the database ends here, or in a WebSocket frame, through unavailable().
        if not isinstance(exc, CorruptGame):
            log.error("the database failed: %s", exc)
        answer = unavailable(exc)
        return error(answer.status, answer.reason, retry_after=answer.retry_after)

    for kind in DATABASE_ERRORS:
        app.add_exception_handler(kind, storage_failed)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return error(500, "internal error (the server's log has the details)")

    def client_of(connection: Request | WebSocket) -> str:
        return client_key(connection.client.host if connection.client else None)

    async def throttle(bucket: RateLimiter, key: str, what: str) -> None:
        """Count a request against ``key``'s bucket: in this process first (a flood costs no
        database work), then, on a shared database, for all processes together (N processes
        must not allow N times the rate)."""
        wait = bucket.allow(key)
        hub = hub_box.get("hub")
        if wait <= 0 and hub is not None and hub.storage.shared:
            wait = await hub.take_token(bucket, key)
        if wait > 0:
            raise ApiError(429, f"too many {what}: wait {wait:.1f} s", retry_after=wait)

    async def body_of(request: Request) -> Any:
        raw = await request.body()
        return read_json(raw) if raw else {}

    # -- the API ------------------------------------------------------------------------------

    @app.get("/api/meta")
    async def meta() -> dict[str, Any]:
        games = []
        for name in game_names():
            try:
                module = get_game(name)
                defaults = module.options_to_dict(module.options_from_dict({}))
            except Exception:  # a game whose package is missing is simply not offered
                continue
            games.append(
                {
                    "name": name,
                    "min_players": module.MIN_PLAYERS,
                    "max_players": module.MAX_PLAYERS,
                    "options": defaults,
                }
            )
        if not menu:
            menu.extend(bot_menu(limits))
        return {
            "games": games,
            "bots": bot_names(),
            "bot_menu": menu,
            "max_bot_seconds": limits.bot_seconds,
        }

    @app.get("/api/games")
    async def lobby(
        status: Literal["open", "running", "over"] | None = None,
        before: str | None = Query(None, max_length=80),
        limit: int | None = Query(None, ge=1, le=MAX_PAGE),
    ) -> dict[str, Any]:
        size = min(limit or limits.lobby_page, limits.lobby_page)
        return await hub_of().lobby(status, before, size)

    @app.post("/api/games", openapi_extra=body_schema(CreateBody))
    async def create(request: Request) -> dict[str, Any]:
        body = parse(CreateBody, await body_of(request))
        await throttle(creations, client_of(request), "new games")
        players = body.players
        return await hub_of().create(
            NewTable(
                game=body.game,
                players=players,
                options=dict(body.options),
                seats=list(body.seats) if body.seats is not None else ["human"] * players,
                hotseat=body.hotseat,
                listed=body.listed,
                bot_seconds=body.bot_seconds,
            ),
            client_of(request),
        )

    @app.get("/api/games/{game_id}")
    async def view(game_id: GameId, request: Request) -> dict[str, Any]:
        hub = hub_of()
        token = bearer(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        seat, hotseat = await hub.identify(table, token)
        return hub.frame(table, seat, hotseat)

    @app.post("/api/games/{game_id}/actions", openapi_extra=body_schema(ActionBody))
    async def act(game_id: GameId, request: Request) -> dict[str, Any]:
        hub = hub_of()
        token = bearer(request.headers)
        body = parse(ActionBody, await body_of(request))
        table = await hub.table(game_id)
        await hub.mover_of(table, token, "a move")  # 403 before anything is counted
        await throttle(moves, client_of(request), "moves")
        await hub.act(table, token, body.action)
        seat, hotseat = hub.authorize(table, token)
        return hub.frame(table, seat, hotseat)

    @app.post("/api/games/{game_id}/undo", openapi_extra=body_schema(EmptyBody, required=False))
    async def undo(game_id: GameId, request: Request) -> dict[str, Any]:
        hub = hub_of()
        token = bearer(request.headers)
        parse(EmptyBody, await body_of(request))
        table = await hub.table(game_id)
        await hub.mover_of(table, token, "an undo")
        await throttle(moves, client_of(request), "moves")
        await hub.undo(table, token)
        seat, hotseat = hub.authorize(table, token)
        return hub.frame(table, seat, hotseat)

    @app.post("/api/games/{game_id}/join", openapi_extra=body_schema(JoinBody, required=False))
    async def join(game_id: GameId, request: Request) -> dict[str, Any]:
        body = parse(JoinBody, await body_of(request))
        hub = hub_of()
        table = await hub.fresh(await hub.table(game_id))
        await throttle(creations, client_of(request), "seats joined")
        return await hub.join(table, body.invite)

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: GameId, request: Request) -> dict[str, Any]:
        hub = hub_of()
        token = bearer(request.headers)
        return hub.record(await hub.fresh(await hub.table(game_id)), token)

    @app.get("/api/games/{game_id}/replay")
    async def replay(
        game_id: GameId, seat: int | None = Query(None, ge=0, le=MAX_SEATS)
    ) -> dict[str, Any]:
        hub = hub_of()
        return await hub.replay(await hub.fresh(await hub.table(game_id)), seat)

    @app.get("/api/games/{game_id}/history")
    async def history(game_id: GameId, request: Request) -> dict[str, Any]:
        """Every action so far with its events, as the token's seat may know them (the
        hot-seat screen and spectators: as spectators)."""
        hub = hub_of()
        token = bearer(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        seat, _hotseat = await hub.identify(table, token)
        await throttle(reads, client_of(request), "reads")
        return await hub.history(table, seat)

    @app.get("/api/games/{game_id}/board")
    async def past_board(
        game_id: GameId,
        request: Request,
        ply: int = Query(..., ge=0, le=100_000),
        seat: int | None = Query(None, ge=0, le=MAX_SEATS),
    ) -> dict[str, Any]:
        """The board after ``ply`` actions as the token's seat saw it (any seat's view once
        the game is over, with ``seat``, as in replays)."""
        hub = hub_of()
        token = bearer(request.headers)
        table = await hub.fresh(await hub.table(game_id))
        viewer, _hotseat = await hub.identify(table, token)
        if seat is not None:
            if not table.is_over:
                raise ApiError(403, "'seat' opens other seats' views once the game is over")
            if seat >= len(table.seats):
                raise bad_request(f"no seat {seat}")
            viewer = seat
        await throttle(reads, client_of(request), "reads")
        return await hub.board(table, ply, viewer)

    @app.post("/api/games/{game_id}/explain", openapi_extra=body_schema(ActionBody))
    async def explain(game_id: GameId, request: Request) -> dict[str, Any]:
        """Whether an action is legal now for the deciding seat, and if not, why."""
        hub = hub_of()
        token = bearer(request.headers)
        body = parse(ActionBody, await body_of(request))
        table = await hub.table(game_id)
        await hub.mover_of(table, token, "an explanation")
        await throttle(reads, client_of(request), "reads")
        return await hub.explain(table, token, body.action)

    @app.post("/api/games/{game_id}/hint", openapi_extra=body_schema(EmptyBody, required=False))
    async def hint(game_id: GameId, request: Request) -> dict[str, Any]:
        """The best few moves for the deciding seat (games against bots and hot seats)."""
        hub = hub_of()
        token = bearer(request.headers)
        parse(EmptyBody, await body_of(request))
        table = await hub.table(game_id)
        await hub.mover_of(table, token, "a hint")
        if not hub.hints_allowed(table):
            raise ApiError(403, "hints are off in games between people at their own screens")
        await throttle(hinted, client_of(request), "hints")
        return await hub.hint(table, token)

    @app.get("/api/games/{game_id}/analysis")
    async def analysis(game_id: GameId) -> dict[str, Any]:
        hub = hub_of()
        return await hub.analysis(await hub.fresh(await hub.table(game_id)))

    @app.post("/api/games/{game_id}/analysis", openapi_extra=body_schema(EmptyBody, required=False))
    async def request_analysis(game_id: GameId, request: Request) -> dict[str, Any]:
        parse(EmptyBody, await body_of(request))
        hub = hub_of()
        table = await hub.fresh(await hub.table(game_id))
        if not table.is_over:
            raise ApiError(403, "the analysis opens once the game is over")
        await throttle(creations, client_of(request), "analyses asked for")
        return await hub.request_analysis(table)

    @app.get("/api/boards/{game}")
    async def board(
        game: Annotated[str, Path(max_length=GAME_CHARS)],
        board: str = Query("standard", max_length=20),
    ) -> Any:
        """The fixed map of a game's board (rivers, special squares), if the game exports one."""
        try:
            module = get_game(game)
        except ValueError as exc:
            raise ApiError(404, str(exc)) from None
        board_map = getattr(module, "board_map", None)
        if board_map is None:
            raise ApiError(404, f"{game} has no board map")
        try:
            return board_map(board)
        except (ValueError, KeyError) as exc:
            raise bad_request(str(exc)) from None

    # -- the live connection ------------------------------------------------------------------

    async def send_error(websocket: WebSocket, status: int, reason: str) -> None:
        await websocket.send_text(json.dumps({"type": "error", "error": reason, "status": status}))

    async def hello(websocket: WebSocket) -> str | None:
        """The first message's token (None: a spectator); bad messages get error frames."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HELLO_SECONDS
        while True:
            message = await asyncio.wait_for(websocket.receive(), max(0.0, deadline - loop.time()))
            if message["type"] == "websocket.disconnect":
                raise ConnectionError("gone before saying hello")
            try:
                found = parse(Hello, read_frame(message))
            except BadInput as exc:
                await send_error(
                    websocket, 400, f'the first message is {{"token": ...}} or {{}}: {exc.reason}'
                )
                continue
            return found.token

    def read_frame(message: Message) -> Any:
        text = message.get("text")
        if text is None:
            raise BadInput("binary frames are not understood: send JSON text")
        if len(text) > MAX_FRAME:
            raise BadInput(f"a frame has at most {MAX_FRAME} characters")
        return read_json(text)

    sockets: Counter[str] = Counter()  # live WebSocket connections per client
    socket_cap = limits.sockets

    async def refuse_socket(websocket: WebSocket, status: int, reason: str) -> None:
        # Accepted only to say why: the refusal frame, then the close code 4000 + status.
        await websocket.accept()
        await send_error(websocket, status, reason)
        await websocket.close(code=4000 + status, reason=reason[:120])

    @app.websocket("/ws/games/{game_id}")
    async def live(websocket: WebSocket, game_id: GameId) -> None:
        client = client_of(websocket)
        if sockets[client] >= limits.sockets_per_client:
            # A client cannot hold the server's sockets and memory.
            reason = f"at most {limits.sockets_per_client} live connections per client"
            await refuse_socket(websocket, 429, reason)
            return
        if sockets.total() >= socket_cap:
            reason = (
                f"this server has its maximum of {socket_cap} live connections; try again later"
            )
            await refuse_socket(websocket, 503, reason)
            return
        sockets[client] += 1
        try:
            await serve_socket(websocket, game_id)
        finally:
            sockets[client] -= 1
            if not sockets[client]:
                del sockets[client]

    async def serve_socket(websocket: WebSocket, game_id: str) -> None:
        hub = hub_of()
        origin = websocket.headers.get("origin")
        if origin is not None and not origin_allowed(
            origin, websocket.headers.get("host"), allowed
        ):
            await websocket.close(code=4403)  # before accepting: the handshake gets a 403
            return
        await websocket.accept()
        try:
            try:
                if "token" in websocket.query_params:
                    raise ApiError(400, TOKEN_IN_URL)
                table = await hub.table(game_id)
                token = await hello(websocket)
                await hub.fresh(table)
                seat, hotseat = await hub.identify(table, token)
            except DATABASE_ERRORS as exc:
                log.error("the database failed: %s", exc)
                raise unavailable(exc) from None
        except ApiError as refused:
            await send_error(websocket, refused.status, refused.reason)
            code = {400: 4400, 403: 4403, 404: 4404, 410: 4410, 503: 4503}.get(refused.status, 4500)
            await websocket.close(code=code, reason=refused.reason[:120])
            return
        except TimeoutError:
            await websocket.close(code=4408, reason="no first message within 10 s")
            return
        except ConnectionError:
            return
        connection = Connection(seat=seat, hotseat=hotseat, send=websocket.send_text)

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
                reply = await handle_frame(hub, table, token, message, client)
                if reply is not None and not await connection.reply(json.dumps(reply)):
                    break  # the client does not read: it is closed with the reason
        except Exception as exc:  # a broken connection ends here, never the server
            if not isinstance(exc, RuntimeError | ConnectionError):
                log.exception("game %s: WebSocket failed", game_id)
        finally:
            hub.detach(table, connection)
            connection.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await connection.task

    async def handle_frame(
        hub: Hub, table: Table, token: str | None, message: Message, client: str
    ) -> Any:
        """Carry out one client frame; an error frame for a bad one, None when all went well."""
        try:
            frame = parse(Frame, read_frame(message))
            if frame.action is not None:
                await hub.mover_of(table, token, "a move")
                await throttle(moves, client, "moves")
                await hub.act(table, token, frame.action)
            elif frame.undo:
                await hub.mover_of(table, token, "an undo")
                await throttle(moves, client, "moves")
                await hub.undo(table, token)
            elif frame.type == "ping":
                return {"type": "pong"}
            else:
                return {
                    "type": "error",
                    "error": 'send {"action": "..."}, {"undo": true} or {"type": "ping"}',
                    "status": 400,
                }
        except BadInput as exc:
            return {"type": "error", "error": exc.reason, "status": 400}
        except ApiError as exc:
            return {"type": "error", "error": exc.reason, "status": exc.status}
        except DATABASE_ERRORS as exc:
            log.error("the database failed: %s", exc)
            refused = unavailable(exc)
            return {"type": "error", "error": refused.reason, "status": refused.status}
        return None

    # -- the web client -----------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    if WEB_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    return app


def server_config(
    database_url: str,
    bot_delay: float = 0.5,
    limits: Limits | None = None,
    origins: tuple[str, ...] | list[str] = (),
) -> str:
    return json.dumps(
        {
            "database_url": database_url,
            "bot_delay": bot_delay,
            "limits": (limits or Limits()).to_dict(),
            "origins": list(origins),
        }
    )


def follow_supervisor() -> None:
    """In a worker process of ``--workers N``: stop when the supervisor is gone.

    uvicorn's supervisor stops its workers when it is stopped, but a supervisor killed with
    SIGKILL stops nothing: its workers would answer on the port, bots and all, beside any
    server started after it. So each worker watches it (as the bot workers watch their server)
    and stops itself, in order (its lifespan ends, and with it its bot and assist processes),
    or, past ``WORKER_GRACE``, at once (those processes then see their server gone too).
    """
    import multiprocessing

    supervisor = multiprocessing.parent_process()
    if supervisor is None or supervisor.pid is None:
        return  # one process, started by a person or a service manager: nothing to follow

    def stop() -> None:
        log.warning("the supervisor (pid %s) is gone: this worker stops", supervisor.pid)
        os.kill(os.getpid(), signal.SIGTERM)  # uvicorn's own way to stop
        time.sleep(WORKER_GRACE)

    watch_parent(supervisor.pid, stop)


def app_from_env() -> FastAPI:
    """The app from ``$CRADLE_SERVER_CONFIG``: what each ``uvicorn --workers N`` process runs
    (``uvicorn --factory cradle.server.app:app_from_env``); each follows its supervisor."""
    raw = os.environ.get(CONFIG_ENV)
    if not raw:
        raise RuntimeError(f"set {CONFIG_ENV} (cradle serve --workers does it)")
    config = json.loads(raw)
    follow_supervisor()
    return create_app(
        config["database_url"],
        bot_delay=float(config.get("bot_delay", 0.5)),
        limits=Limits.from_dict(config.get("limits") or {}),
        origins=tuple(config.get("origins") or ()),
    )


def run_server(
    database_url: str,
    host: str,
    port: int,
    bot_delay: float = 0.5,
    limits: Limits | None = None,
    origins: tuple[str, ...] | list[str] = (),
    workers: int = 1,
    trusted_proxies: tuple[str, ...] | list[str] = (),
) -> None:
    """Serve until interrupted (uvicorn, with our WebSocket frame limit); ``workers`` > 1 runs
    that many processes on the one (PostgreSQL) database. ``trusted_proxies``: the addresses
    (or networks) whose ``X-Forwarded-For`` names the client; none by default, since any
    process on the machine could otherwise pick its own address."""
    import uvicorn

    common: dict[str, Any] = {
        "host": host,
        "port": port,
        "ws_max_size": WS_MAX_SIZE,
        "log_level": "warning",
        "http": JsonHttpProtocol,  # the protocol layer's own refusals in JSON too
        "ws": JsonWebSocketProtocol,
        "proxy_headers": bool(trusted_proxies),
        "forwarded_allow_ips": list(trusted_proxies),
    }
    if workers > 1:
        os.environ[CONFIG_ENV] = server_config(database_url, bot_delay, limits, origins)
        uvicorn.run("cradle.server.app:app_from_env", factory=True, workers=workers, **common)
        return
    uvicorn.run(create_app(database_url, bot_delay, limits, origins), **common)
