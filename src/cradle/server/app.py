"""The FastAPI application: the HTTP and WebSocket API of docs/contract.md, and the web client."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from cradle.ai import bot_names
from cradle.games import game_names, get_game
from cradle.server.hub import ApiError, Connection, Hub, bad_request
from cradle.server.storage import Storage

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
MAX_BODY = 16 * 1024  # bytes of one request body
MAX_FRAME = 4 * 1024  # characters of one WebSocket frame from a client
WS_MAX_SIZE = 64 * 1024  # beyond this the WebSocket layer itself closes the connection (1009)


def create_app(database_url: str, bot_delay: float = 0.5) -> FastAPI:
    """The server's application on the database at ``database_url`` (SQLAlchemy URL)."""
    storage_box: dict[str, Hub] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        storage = await asyncio.to_thread(Storage, database_url)
        hub = Hub(storage, bot_delay=bot_delay)
        await hub.start()
        storage_box["hub"] = hub
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.stop()

    app = FastAPI(title="cradle play server", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.add_middleware(GZipMiddleware, minimum_size=4096)

    def hub_of() -> Hub:
        return storage_box["hub"]

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.reason}, status_code=exc.status)

    async def body_of(request: Request) -> Any:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
        try:
            return json.loads(raw) if raw else {}
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise bad_request(f"the body is not valid JSON: {exc}") from None

    def field(body: Any, name: str) -> Any:
        if not isinstance(body, dict):
            raise bad_request("the body must be a JSON object")
        return body.get(name)

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
        return {"games": games, "bots": bot_names()}

    @app.get("/api/games")
    async def lobby() -> dict[str, Any]:
        return {"games": await hub_of().lobby()}

    @app.post("/api/games")
    async def create(request: Request) -> dict[str, Any]:
        return await hub_of().create(await body_of(request))

    @app.get("/api/games/{game_id}")
    async def view(game_id: str, token: str | None = None) -> dict[str, Any]:
        hub = hub_of()
        table = await hub.table(game_id)
        seat, hotseat = await hub.authorize(table, token)
        return hub.frame(table, seat, hotseat)

    @app.post("/api/games/{game_id}/actions")
    async def act(game_id: str, request: Request) -> dict[str, Any]:
        hub = hub_of()
        body = await body_of(request)
        table = await hub.table(game_id)
        token = field(body, "token")
        if not isinstance(token, str):
            raise ApiError(403, "a move needs the seat's token")
        await hub.act(table, token, field(body, "action"))
        seat, hotseat = await hub.authorize(table, token)
        return hub.frame(table, seat, hotseat)

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str, request: Request) -> dict[str, Any]:
        hub = hub_of()
        body = await body_of(request)
        table = await hub.table(game_id)
        token = field(body, "token")
        if not isinstance(token, str):
            raise ApiError(403, "an undo needs the seat's token")
        await hub.undo(table, token)
        seat, hotseat = await hub.authorize(table, token)
        return hub.frame(table, seat, hotseat)

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: str) -> dict[str, Any]:
        return await hub_of().join(game_id)

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str, token: str | None = None) -> dict[str, Any]:
        hub = hub_of()
        return await hub.record(await hub.table(game_id), token)

    @app.get("/api/games/{game_id}/replay")
    async def replay(game_id: str, seat: int | None = None) -> dict[str, Any]:
        hub = hub_of()
        table = await hub.table(game_id)
        return await asyncio.to_thread(hub.replay, table, seat)

    @app.get("/api/boards/{game}")
    async def board(game: str, board: str = "standard") -> Any:
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

    @app.websocket("/ws/games/{game_id}")
    async def live(websocket: WebSocket, game_id: str, token: str | None = None) -> None:
        hub = hub_of()
        await websocket.accept()
        try:
            table = await hub.table(game_id)
            seat, hotseat = await hub.authorize(table, token)
        except ApiError as exc:
            await websocket.send_text(json.dumps({"type": "error", "error": exc.reason}))
            await websocket.close(code=4403 if exc.status == 403 else 4404)
            return
        connection = Connection(seat=seat, hotseat=hotseat, send=websocket.send_text)

        async def pump() -> None:
            await connection.pump()
            if connection.dropped:
                await websocket.close(code=1013)  # "try again later": the client reconnects

        connection.task = asyncio.get_running_loop().create_task(pump())
        hub.attach(table, connection)
        try:
            while True:
                text = await websocket.receive_text()
                reply = await handle_frame(hub, table, token, text)
                if reply is not None:
                    connection.push(json.dumps(reply))
        except WebSocketDisconnect:
            pass
        finally:
            hub.detach(table, connection)
            connection.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await connection.task

    async def handle_frame(hub: Hub, table: Any, token: str | None, text: str) -> Any:
        """Carry out one client frame; an error frame for a bad one, None when all went well."""
        if len(text) > MAX_FRAME:
            return {"type": "error", "error": f"a frame has at most {MAX_FRAME} characters"}
        try:
            message = json.loads(text)
        except json.JSONDecodeError as exc:
            return {"type": "error", "error": f"the frame is not valid JSON: {exc.msg}"}
        if not isinstance(message, dict):
            return {"type": "error", "error": "a frame must be a JSON object"}
        try:
            if "action" in message:
                await hub.act(table, token, message["action"])
            elif message.get("undo"):
                await hub.undo(table, token)
            elif message.get("type") == "ping":
                return {"type": "pong"}
            else:
                return {"type": "error", "error": 'send {"action": "..."} or {"undo": true}'}
        except ApiError as exc:
            return {"type": "error", "error": exc.reason, "status": exc.status}
        return None

    # -- the web client -----------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    if WEB_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    return app


def run_server(database_url: str, host: str, port: int, bot_delay: float = 0.5) -> None:
    """Serve until interrupted (uvicorn, with our WebSocket frame limit)."""
    import uvicorn

    uvicorn.run(
        create_app(database_url, bot_delay=bot_delay),
        host=host,
        port=port,
        ws_max_size=WS_MAX_SIZE,
        log_level="warning",
    )
