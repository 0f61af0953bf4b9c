"""The FastAPI application: the HTTP and WebSocket API of docs/contract.md, and the web client.

In front of the routes, :class:`Guard` (plain ASGI) refuses what no route should see: a token in
a URL, a body over the size limit (read and answered, not reset), a body that is not declared
JSON; and it puts the security headers on every answer. Bodies and WebSocket frames are then
read by :func:`cradle.server.models.read_json` (depth, numbers) into pydantic models.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from pathlib import Path as FilePath
from typing import Any, TypedDict
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cradle.server import metrics
from cradle.server.botpool import watch_parent
from cradle.server.errors import ApiError, unavailable
from cradle.server.hub import Hub
from cradle.server.limits import Limits, RateLimiter
from cradle.server.mail import MailSettings
from cradle.server.models import BadInput
from cradle.server.protocol import SECURITY_HEADERS, JsonHttpProtocol, JsonWebSocketProtocol
from cradle.server.routes.accounts import account_routes
from cradle.server.routes.chat import chat_routes
from cradle.server.routes.common import TOKEN_IN_URL, Context, spoken_api
from cradle.server.routes.lessons import lesson_routes
from cradle.server.routes.live import live_routes
from cradle.server.routes.lobby import lobby_routes
from cradle.server.routes.mine import my_seat_routes
from cradle.server.routes.play import play_routes
from cradle.server.routes.ratings import rating_routes
from cradle.server.routes.reading import reading_routes
from cradle.server.routes.reports import report_routes
from cradle.server.routes.social import social_routes
from cradle.server.routes.turns import turns_routes
from cradle.server.store import Store
from cradle.server.store.errors import DATABASE_ERRORS, CorruptAccount, CorruptGame

log = logging.getLogger("cradle.server")

WEB_DIR = FilePath(__file__).resolve().parent.parent / "web"
MAX_BODY = 16 * 1024  # bytes of one request body
DRAIN_LIMIT = 1024 * 1024  # an oversized body is read this far so the 413 arrives, then cut
WS_MAX_SIZE = 64 * 1024  # beyond this the WebSocket layer itself closes the connection (1009)
CONFIG_ENV = "CRADLE_SERVER_CONFIG"  # create_app's arguments for `uvicorn --factory` workers
WORKER_GRACE = 10.0  # seconds an orphaned worker has to stop in order before it just exits


def _json_bytes(reason: str) -> bytes:
    return json.dumps({"error": reason}).encode()


class HttpLayer(ABC):
    """An ASGI layer over ``app`` that sees HTTP requests (:meth:`http`) and passes the rest
    (WebSockets, lifespan) through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer (or pass on) one HTTP request."""


class Guard(HttpLayer):
    """The ASGI layer in front of every route (see the module's doc)."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
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


class Timed(HttpLayer):
    """Each HTTP answer's time, by route pattern (``/api/games/{game_id}``, never the path
    itself: a bounded set of labels) and status class, into the metrics."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.monotonic()
        status = [0]

        async def noted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, noted)
        finally:
            route = scope.get("route")
            pattern = getattr(route, "path", None) or "unmatched"
            metrics.REQUEST_SECONDS.labels(
                pattern, scope.get("method", ""), f"{status[0] // 100}xx"
            ).observe(time.monotonic() - start)


ERROR_CONTENT = {
    "application/json": {
        "schema": {
            "type": "object",
            "properties": {
                "error": {"type": "string"},
                "message": {"type": "string"},
                "params": {"type": "object"},
                "field": {"type": "string"},
            },
            "required": ["error"],
        }
    }
}


AREAS = (
    lobby_routes,
    lesson_routes,
    account_routes,
    my_seat_routes,
    play_routes,
    reading_routes,
    live_routes,
    turns_routes,
    chat_routes,
    rating_routes,
    report_routes,
    social_routes,
)


@functools.cache
def api_routes() -> tuple[BaseRoute, ...]:
    """The API's routes and the live connections' (cradle.server.routes), made once a process:
    each application built serves the same ones, and each request reads its own application's
    Context (``Ctx``). Making them is most of what building an application costs."""
    router = APIRouter()
    for add_routes in AREAS:
        add_routes(router)
    return tuple(router.routes)


def create_app(
    database_url: str,
    bot_delay: float = 0.5,
    limits: Limits | None = None,
    origins: tuple[str, ...] | list[str] = (),
    upgrade: bool = True,
    mail: MailSettings | None = None,
    metrics_token: str | None = None,
) -> FastAPI:
    """The server's application on the database at ``database_url`` (SQLAlchemy URL), whose
    schema it upgrades at start unless ``upgrade`` is False (then it refuses an older one);
    ``mail``: where turn notices go out (none without it); ``metrics_token``: the bearer token
    ``/metrics`` answers (none: it answers nobody)."""
    limits = limits or Limits()
    ctx = Context(
        limits=limits,
        origins=tuple(o.rstrip("/") for o in origins),
        creations=RateLimiter(limits.create_per_minute / 60.0, limits.create_burst, name="create"),
        moves=RateLimiter(limits.moves_per_second, limits.moves_burst, name="moves"),
        reads=RateLimiter(limits.reads_per_second, limits.reads_burst, name="reads"),
        hinted=RateLimiter(limits.hints_per_minute / 60.0, limits.hints_burst, name="hints"),
        chatted=RateLimiter(limits.chat_per_minute / 60.0, limits.chat_burst, name="chat"),
        chat_speakers=RateLimiter(
            limits.chat_per_minute / 60.0, limits.chat_burst, name="chat-speaker"
        ),
        signins_of=RateLimiter(
            limits.signins_per_minute / 60.0, limits.signins_burst, name="signin-of"
        ),
        spectator_lines=RateLimiter(
            limits.spectator_lines_per_minute / 60.0,
            limits.spectator_lines_burst,
            name="chat-spectators",
        ),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        store = await asyncio.to_thread(Store, database_url, upgrade)
        hub = Hub(store, bot_delay=bot_delay, limits=limits, mail=mail)
        try:
            await hub.start()
        except Exception:
            await hub.stop()
            raise
        ctx.hub_box["hub"] = hub
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.stop()
            ctx.queue().close()

    app = FastAPI(title="cradle play server", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.context = ctx  # the routes' shared state (its password queue: tests, metrics)

    def published_schema() -> dict[str, Any]:
        """The OpenAPI schema as the server answers: refusals are ``{"error", "message",
        "params", "field"?}`` (the reason, the catalogue's message it is and its params) with
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
    app.add_middleware(Timed)

    def error(
        status: int,
        reason: str,
        field: str | None = None,
        retry_after: float | None = None,
        content: dict[str, object] | None = None,
    ) -> JSONResponse:
        content = content or {"error": reason}
        if field is not None:
            content["field"] = field
        headers = {"Retry-After": str(max(1, round(retry_after)))} if retry_after else None
        return JSONResponse(content, status_code=status, headers=headers)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        api = spoken_api(request.headers)
        content = exc.body()
        return error(exc.status_for(api), exc.reason, retry_after=exc.retry_after, content=content)

    @app.exception_handler(BadInput)
    async def bad_input(_request: Request, exc: BadInput) -> JSONResponse:
        return error(
            400,
            exc.reason,
            field=exc.field,
            content=ApiError(400, exc.message, params=exc.params).body(),
        )

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or str(first["loc"][0])
        return error(400, f"{where}: {first['msg']}", field=where)

    async def storage_failed(_request: Request, exc: Exception) -> JSONResponse:
        # Every failure of the database ends here, or in a WebSocket frame, through unavailable().
        if isinstance(exc, CorruptAccount | CorruptGame):
            log.warning("set aside: %s", exc)
        else:
            log.error("the database failed: %s", exc)
        answer = unavailable(exc)
        return error(
            answer.status, answer.reason, retry_after=answer.retry_after, content=answer.body()
        )

    for kind in DATABASE_ERRORS:
        app.add_exception_handler(kind, storage_failed)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return error(500, "internal error (the server's log has the details)")

    # -- the API and the live connection (cradle.server.routes) ---------------------------------

    app.router.routes.extend(api_routes())

    # -- the operator's metrics (cradle.server.metrics) ---------------------------------------

    @app.get("/metrics", include_in_schema=False)
    async def scrape(request: Request) -> Response:
        if not metrics_token:
            raise ApiError(
                404, "metrics are off (cradle serve --metrics-token TOKEN turns them on)"
            )
        if not metrics.allowed(metrics_token, request.headers.get("authorization")):
            raise ApiError(401, "send the metrics token: Authorization: Bearer TOKEN")
        hub = ctx.hub()
        try:
            queue = await hub.runtime.db(hub.store.bot_jobs.queue, time.time())
        except DATABASE_ERRORS as exc:
            log.warning("the bots' queue could not be read for the metrics: %s", exc)
            queue = None
        return Response(metrics.exposition(queue), media_type=metrics.CONTENT_TYPE)

    # -- the web client -----------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    if WEB_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    return app


class AppOptions(TypedDict):
    """:func:`create_app`'s arguments after the database's, as :func:`run_server` passes them."""

    bot_delay: float
    limits: Limits | None
    origins: tuple[str, ...] | list[str]
    upgrade: bool
    mail: MailSettings | None
    metrics_token: str | None


def server_config(database_url: str, options: AppOptions) -> str:
    """:func:`create_app`'s arguments as JSON, for :func:`app_from_env` in each worker."""
    mail = options["mail"]
    return json.dumps(
        {
            "database_url": database_url,
            "bot_delay": options["bot_delay"],
            "limits": (options["limits"] or Limits()).to_dict(),
            "origins": list(options["origins"]),
            "upgrade": options["upgrade"],
            "mail": mail.to_dict() if mail is not None else None,
            "metrics_token": options["metrics_token"],
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
        upgrade=bool(config.get("upgrade", True)),
        mail=MailSettings.from_dict(config["mail"]) if config.get("mail") else None,
        metrics_token=config.get("metrics_token"),
    )


def run_server(
    database_url: str,
    host: str,
    port: int,
    options: AppOptions,
    workers: int = 1,
    trusted_proxies: tuple[str, ...] | list[str] = (),
    log_format: str = "text",
    log_level: str = "warning",
) -> None:
    """Serve the app of ``database_url`` and ``options`` until interrupted (uvicorn, with our
    WebSocket frame limit); ``workers`` > 1 runs that many processes on the one (PostgreSQL)
    database. ``trusted_proxies``: the addresses (or networks) whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` name the client and its scheme; none by default, since any process on
    the machine could otherwise pick its own address. ``log_format``: ``text`` or ``json`` (cradle.server.logs)."""
    import uvicorn

    from cradle.server.logs import config as log_config

    common: dict[str, Any] = {
        "host": host,
        "port": port,
        "ws_max_size": WS_MAX_SIZE,
        "log_level": log_level,
        "log_config": log_config(log_format, log_level),
        "http": JsonHttpProtocol,  # the protocol layer's own refusals in JSON too
        "ws": JsonWebSocketProtocol,
        "proxy_headers": bool(trusted_proxies),
        "forwarded_allow_ips": list(trusted_proxies),
    }
    if workers > 1:
        import tempfile

        os.environ[CONFIG_ENV] = server_config(database_url, options)
        # Each worker keeps its metrics in files here; the one a scrape reaches adds them up.
        with tempfile.TemporaryDirectory(prefix="cradle-metrics-") as folder:
            os.environ[metrics.MULTIPROCESS_ENV] = folder
            uvicorn.run("cradle.server.app:app_from_env", factory=True, workers=workers, **common)
        return
    application = create_app(database_url, **options)
    uvicorn.run(application, **common)
