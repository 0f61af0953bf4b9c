"""What the route modules share: the :class:`Context` of one application (its limits, rate
buckets and hub), reading a request's body and bearer token, and the checks on origins."""

from __future__ import annotations

import asyncio
import copy
import functools
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, TypeVar
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Path, Request, WebSocket
from pydantic import BaseModel
from starlette.requests import HTTPConnection

from cradle.ai import LEVELS, bot_names
from cradle.ai.levels import describe
from cradle.core.words import N_
from cradle.server.answers import BotChoice, MergedFrame, TableFrame
from cradle.server.botpool import server_bot
from cradle.server.clients import client_key
from cradle.server.errors import ApiError, bad_request
from cradle.server.hub import Hub
from cradle.server.limits import Limits, RateLimiter
from cradle.server.models import API_VERSIONS, parse, read_json
from cradle.server.signins import PasswordQueue, SignInRules
from cradle.server.table import Table

LEASE_MOST = 16  # requests a process takes at once from a bucket the processes share
LEASE_SECONDS = 2.0  # and holds at most this long (unused, they lapse: never more allowed)
LEASES = 10_000  # leases held at most (client keys and buckets)
MAX_FRAME = 4 * 1024  # characters of one WebSocket frame from a client
MAX_PAGE = 1000  # a lobby page a client asks for (the server's own page size caps it again)
GAME_ID_CHARS = 40  # a game's id in a URL (the server makes 12-character ones)
# Reset links and address checks asked for: per client (a 429), and per address and per account
# (no mail, the same answer); friend requests and invitations per account.
RESETS_PER_HOUR, RESETS_BURST = 10.0, 10
MAILS_PER_HOUR, MAILS_BURST = 3.0, 3
SOCIAL_PER_HOUR, SOCIAL_BURST = 60.0, 30
HELLO_SECONDS = 10.0  # a WebSocket client sends its first message within this
TOKEN_IN_URL = (
    "tokens never travel in URLs (they end up in logs and browser history): send "
    "'Authorization: Bearer TOKEN', or {\"token\": TOKEN} as a WebSocket's first message"
)

GameId = Annotated[str, Path(max_length=GAME_ID_CHARS)]
B = TypeVar("B", bound=BaseModel)
R = TypeVar("R", bound=Callable[..., object])


# Each rate limit's refusal, a whole message (the ``what`` of Context.throttle).
THROTTLED = {
    "analyses asked for": N_("too many analyses asked for: wait {wait} s"),
    "changes": N_("too many changes: wait {wait} s"),
    "chat lines from this seat": N_("too many chat lines from this seat: wait {wait} s"),
    "chat lines": N_("too many chat lines: wait {wait} s"),
    "hints": N_("too many hints: wait {wait} s"),
    "links made": N_("too many links made: wait {wait} s"),
    "moves": N_("too many moves: wait {wait} s"),
    "new accounts": N_("too many new accounts: wait {wait} s"),
    "new games": N_("too many new games: wait {wait} s"),
    "password attempts": N_("too many password attempts: wait {wait} s"),
    "reads": N_("too many reads: wait {wait} s"),
    "seats joined": N_("too many seats joined: wait {wait} s"),
    "seats taken": N_("too many seats taken: wait {wait} s"),
}


@dataclass
class Context:
    """One application's state the routes share: its limits, the rate buckets, the allowed
    origins of WebSockets, and its hub (there once the application has started)."""

    limits: Limits
    origins: tuple[str, ...]
    creations: RateLimiter
    moves: RateLimiter
    reads: RateLimiter
    hinted: RateLimiter
    chatted: RateLimiter  # chat lines per client
    chat_speakers: RateLimiter  # chat lines per seat (or account) of a game
    spectator_lines: RateLimiter  # chat lines of all the spectators of a table together
    # Password checks of a signed-in account (changing the password, deleting the account), per
    # account. Sign-ins follow ``sign_rules`` (cradle.server.signins).
    signins_of: RateLimiter
    sign_rules: SignInRules | None = None
    passwords: PasswordQueue | None = None
    resets: RateLimiter = field(
        default_factory=lambda: RateLimiter(RESETS_PER_HOUR / 3600.0, RESETS_BURST, name="resets")
    )
    mails_to: RateLimiter = field(
        default_factory=lambda: RateLimiter(MAILS_PER_HOUR / 3600.0, MAILS_BURST, name="mails-to")
    )
    social: RateLimiter = field(
        default_factory=lambda: RateLimiter(SOCIAL_PER_HOUR / 3600.0, SOCIAL_BURST, name="social")
    )
    hub_box: dict[str, Hub] = field(default_factory=dict)
    # (bucket, key) -> the requests this process still holds of what it took from the shared
    # bucket at once, and until when (monotonic seconds): see shared_take.
    leases: dict[tuple[str, str], tuple[int, float]] = field(default_factory=dict)
    # (bucket, key) -> the lease being taken from the shared bucket now: the requests that
    # find the lease spent meanwhile wait for it instead of each taking one of their own.
    refills: dict[tuple[str, str], asyncio.Future[tuple[int, float]]] = field(default_factory=dict)
    menu: list[BotChoice] = field(default_factory=list)  # the bots' menu, made once
    sockets: Counter[str] = field(default_factory=Counter)  # live WebSocket connections per client

    def __post_init__(self) -> None:
        if self.sign_rules is None:
            self.sign_rules = SignInRules(self.limits)
        if self.passwords is None:
            self.passwords = PasswordQueue(
                self.limits.password_hashers, self.limits.signin_wait_seconds
            )

    def hub(self) -> Hub:
        return self.hub_box["hub"]

    async def shared_take(self, hub: Hub, bucket: RateLimiter, key: str) -> float:
        """One request counted in the bucket all processes share: from this process's lease
        when it holds one (requests taken from the shared bucket earlier, at most
        LEASE_SECONDS ago), else with a new lease of up to an eighth of the burst (LEASE_MOST
        at most). A lease's requests are taken from the shared bucket, so the processes
        together never allow more than it holds; a move costs a database write once per lease,
        not each time (what made a move on PostgreSQL cost several times SQLite's)."""
        name = (bucket.name, key)
        while True:
            now = time.monotonic()
            held = self.leases.get(name)
            if held is not None and held[0] > 0 and held[1] > now:
                self.leases[name] = (held[0] - 1, held[1])
                return 0.0
            pending = self.refills.get(name)
            if pending is None:
                break
            # One lease is taken at a time per bucket and key: many requests at once cost one
            # database write, not one each (each would replace the lease the last one took).
            await asyncio.wait([pending])
            if not pending.cancelled() and pending.exception() is None:
                taken, wait = pending.result()
                if taken < 1:
                    return wait
        refill: asyncio.Future[tuple[int, float]] = asyncio.get_running_loop().create_future()
        self.refills[name] = refill
        try:
            taken, wait = await hub.take_tokens(
                bucket, key, max(1, min(LEASE_MOST, int(bucket.burst) // 8))
            )
        except BaseException:
            refill.cancel()  # those waiting take a lease of their own
            raise
        finally:
            del self.refills[name]
        refill.set_result((taken, wait))
        if taken < 1:
            return wait
        if len(self.leases) >= LEASES:  # a flood of keys: the lapsed leases go
            self.leases = {k: v for k, v in self.leases.items() if v[1] > now}
            if len(self.leases) >= LEASES:
                self.leases.clear()
        self.leases[name] = (taken - 1, now + LEASE_SECONDS)
        return 0.0

    def rules(self) -> SignInRules:
        assert self.sign_rules is not None
        return self.sign_rules

    def queue(self) -> PasswordQueue:
        assert self.passwords is not None
        return self.passwords

    async def peek_bucket(self, bucket: RateLimiter, key: str) -> float:
        """The seconds until ``key`` may go on in ``bucket`` (0.0: now), counting nothing: in
        this process, and on a shared database for every process."""
        wait = bucket.peek(key)
        hub = self.hub_box.get("hub")
        if wait <= 0 and hub is not None and hub.store.shared:
            wait = await hub.peek_token(bucket, key)
        return wait

    async def take_bucket(self, bucket: RateLimiter, key: str) -> float:
        """Count one against ``key`` in ``bucket`` (here, and for every process on a shared
        database), whatever it held; the seconds it must now wait (0.0: none)."""
        wait = bucket.allow(key)
        hub = self.hub_box.get("hub")
        if hub is not None and hub.store.shared:
            wait = max(wait, await hub.take_token(bucket, key))
        return wait

    async def throttle(self, bucket: RateLimiter, key: str, what: str) -> None:
        """Count a request against ``key``'s bucket: in this process first (a flood costs no
        database work), then, on a shared database, for all processes together (N processes
        must not allow N times the rate), from a lease (:meth:`shared_take`)."""
        wait = bucket.allow(key)
        hub = self.hub_box.get("hub")
        if wait <= 0 and hub is not None and hub.store.shared:
            wait = await self.shared_take(hub, bucket, key)
        if wait > 0:
            said = THROTTLED.get(what)
            if said is None:  # a limit without a message of its own: in English
                raise ApiError(429, f"too many {what}: wait {wait:.1f} s", retry_after=wait)
            raise ApiError(429, said, retry_after=wait, params={"wait": round(wait, 1)})


async def context_of(connection: HTTPConnection) -> Context:
    """The serving application's :class:`Context` (the routes are made once a process, and
    every application built in it serves the same ones: each request finds its own)."""
    context: Context = connection.app.state.context
    return context


# An endpoint's parameter: its application's Context (a dependency, awaited, not threaded).
Ctx = Annotated[Context, Depends(context_of)]


def frame_route(
    router: APIRouter,
    path: str,
    body: type[B],
    check: Callable[[Hub, Table, str | None], Awaitable[object]],
    change: Callable[[Hub, Table, str | None, B], Awaitable[object]],
    *,
    name: str,
    about: str,
    fresh: bool = False,
) -> None:
    """Add ``POST path``: a change a seat asks for at a table (a move, an undo, a
    concession, ...), answered with the table's frame after it in the client's version of
    the API. The version and the body are read first, then ``check`` (its 403 comes before
    anything is counted), the move rate, and ``change``; ``fresh``: the table is read
    again first (a deadline or a stand-in as stored)."""

    async def route(ctx: Ctx, game_id: GameId, request: Request) -> MergedFrame | TableFrame:
        hub = ctx.hub()
        token = bearer(request.headers)
        api = api_version(request.headers)
        found = parse(body, await body_of(request))
        table = await hub.table(game_id)
        if fresh:
            table = await hub.fresh(table)
        await check(hub, table, token)
        await ctx.throttle(ctx.moves, client_of(request), "moves")
        await change(hub, table, token, found)
        seat, hotseat = table.authorize(token)
        return hub.frame(table, seat, hotseat, api)

    route.__name__ = route.__qualname__ = name  # the operation's id in the schema
    route.__doc__ = about
    body_route(router, "POST", path, body, MergedFrame | TableFrame, sparse=True)(route)


async def allows(ctx: Context, bucket: RateLimiter, key: str) -> bool:
    """Whether ``key``'s bucket has room (and it is counted), without refusing anything: what
    is over such a limit is left undone quietly (a mail not sent)."""
    if bucket.allow(key) > 0:
        return False
    hub = ctx.hub_box.get("hub")
    if hub is not None and hub.store.shared:
        return await hub.take_token(bucket, key) <= 0
    return True


def client_of(connection: Request | WebSocket) -> str:
    return client_key(connection.client.host if connection.client else None)


async def body_of(request: Request) -> object:
    raw = await request.body()
    return read_json(raw) if raw else {}


def answer_route(router: APIRouter, method: str, path: str, answer: object) -> Callable[[R], R]:
    """Add a ``method path`` route without a JSON body whose answer is ``answer``, leaving out
    of it what the route leaves unset (:func:`body_route` for a route with a body)."""
    return router.api_route(
        path, methods=[method], response_model=answer, response_model_exclude_unset=True
    )


def body_route(
    router: APIRouter,
    method: str,
    path: str,
    body: type[BaseModel],
    answer: object,
    *,
    required: bool | None = None,
    sparse: bool = False,
) -> Callable[[R], R]:
    """Add a ``method path`` route whose JSON body is ``body`` (published by
    :func:`body_schema`; ``required`` by default when it has fields) and whose answer is
    ``answer``; ``sparse``: what the route leaves unset stays out of the answer."""
    return router.api_route(
        path,
        methods=[method],
        openapi_extra=body_schema(body, bool(body.model_fields) if required is None else required),
        response_model=answer,
        response_model_exclude_unset=sparse,
    )


def body_schema(model: type[BaseModel], required: bool = True) -> dict[str, object]:
    """An ``openapi_extra`` that publishes ``model`` as the route's JSON body: the routes read
    bodies themselves (through read_json's limits), so FastAPI would not know them."""
    schema = copy.deepcopy(_json_schema(model))
    return {
        "requestBody": {
            "required": required,
            "content": {"application/json": {"schema": schema}},
        }
    }


@functools.cache
def _json_schema(model: type[BaseModel]) -> dict[str, object]:
    """``model``'s JSON schema, made once a process (each app built, in the tests hundreds,
    would make it again)."""
    return model.model_json_schema()


def bearer(request_headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer T`` header (None without one)."""
    value = request_headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise bad_request("the Authorization header must be 'Bearer TOKEN'")
    return token.strip()


API_HEADER = "Cradle-Api"  # the version of the API a client speaks (docs/server.md, "Versions")


def api_version(request_headers: Mapping[str, str]) -> int:
    """The version of the API the client speaks: its ``Cradle-Api`` header, 1 without one;
    400 for a version this server does not speak."""
    value = request_headers.get(API_HEADER.lower())
    if value is None:
        return 1
    if value.strip() not in [str(version) for version in API_VERSIONS]:
        known = " or ".join(str(version) for version in API_VERSIONS)
        raise bad_request(f"the {API_HEADER} header is {known}")
    return int(value)


def spoken_api(request_headers: Mapping[str, str]) -> int:
    """:func:`api_version`, 1 for a header that names none (for refusals, which must answer)."""
    try:
        return api_version(request_headers)
    except ApiError:
        return 1


def origin_allowed(origin: str, host: str | None, allowed: tuple[str, ...]) -> bool:
    """A browser's WebSocket may come from this server's own pages, or the listed origins."""
    if origin.rstrip("/") in allowed or "*" in allowed:
        return True
    return bool(host) and urlsplit(origin).netloc.lower() == (host or "").lower()


def bot_menu(limits: Limits) -> list[BotChoice]:
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
            # Its words from its own numbers as this server runs it (one core, capped time).
            about = describe(LEVELS[name], float(seconds), workers=1)
        else:
            doc = (type(bot).__doc__ or "").strip().splitlines()
            about = doc[0].split(" (see ")[0].rstrip(".") if doc else ""
        menu.append(
            BotChoice(
                name=name,
                level=name in LEVELS,
                strength=strength if name in LEVELS else None,
                seconds=round(float(seconds), 2),
                about=about,
            )
        )
    return menu
