"""Accounts' routes: sign up, sign in and out, the signed-in account (its settings, password,
deletion, games), a signed-in player's seat on another device, and a guest's seat moved to
another device by a one-time link (cradle.server.accounts has the rules)."""

from __future__ import annotations

import hmac
import logging
import time
from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from cradle import i18n
from cradle.core.words import N_
from cradle.server import accounts, metrics, text
from cradle.server.accounts import (
    CSRF_HEADER,
    DEVICE_COOKIE,
    DEVICE_SECONDS,
    SESSION_COOKIE,
    SESSION_SECONDS,
    TRANSFER_SECONDS,
    Account,
    Taken,
)
from cradle.server.answers import (
    AccountAnswer,
    Joined,
    MyGames,
    PasswordChanged,
    SignedIn,
    Transfer,
)
from cradle.server.errors import ApiError, bad_request, field_refusal, forbidden
from cradle.server.models import (
    AccountDeletion,
    AccountSettings,
    BadInput,
    ContinueBody,
    Credentials,
    EmptyBody,
    PasswordChange,
    SeatBody,
    parse,
)
from cradle.server.refusal import Refusal
from cradle.server.routes.common import Context, GameId, bearer, body_of, body_schema, client_of
from cradle.server.signins import KNOWN
from cradle.server.store.schema import LIVE
from cradle.server.tokens import hash_token

log = logging.getLogger("cradle.server")

MY_GAMES = 60  # the games GET /api/me/games lists at most (the latest changed)
UNAUTHORIZED = N_("sign in first (POST /api/session)")
WRONG = N_("wrong name or password")


class Signed:
    """A request's signed-in account and its session cookie's value."""

    def __init__(self, account: Account, secret: str) -> None:
        self.account = account
        self.secret = secret


async def signed_in(ctx: Context, request: HTTPConnection, write: bool) -> Signed | None:
    """The account of the request's session cookie (None: a guest, or a lapsed session). A
    request that changes something with it must carry its CSRF token (403 otherwise)."""
    secret = request.cookies.get(SESSION_COOKIE)
    if not secret or len(secret) > 128:
        return None
    hub = ctx.hub()
    account = await hub.runtime.db(
        accounts.account_of_session, hub.store.accounts, secret, time.time()
    )
    if account is None:
        return None
    if write:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent, accounts.csrf_of(secret)):
            raise forbidden(
                "a request made with the session cookie needs its X-CSRF-Token header "
                "(GET /api/me gives it)"
            )
    return Signed(account, secret)


async def need_account(ctx: Context, request: Request, write: bool) -> Signed:
    found = await signed_in(ctx, request, write)
    if found is None:
        raise ApiError(401, UNAUTHORIZED)
    return found


def valid_name(raw: str, field: str = "name") -> str:
    try:
        return accounts.normal_name(raw)
    except ValueError as exc:
        raise field_refusal(field, exc) from None


def browser_language(request: Request) -> str | None:
    """The tag of the catalogue the request's ``Accept-Language`` asks for first, if any."""
    found = i18n.from_accept_language(request.headers.get("accept-language"))
    return None if found is None else i18n.tag_of(found)


async def guest_name(ctx: Context, raw: str, field: str = "name") -> str:
    """A guest's name for a seat: a valid name that does not look like an account's (only the
    account shows its name)."""
    name = valid_name(raw, field)
    hub = ctx.hub()
    if await hub.runtime.db(accounts.looks_like_an_account, hub.store.accounts, name):
        raise field_refusal(
            field, Refusal(N_("that name is an account's (sign in, or choose another)"))
        )
    return name


def signed_in_answer(
    request: Request, account: Account, secret: str, device: str | None = None
) -> JSONResponse:
    """The signed-in answer with the session cookie (and ``device``: the device cookie)."""
    answer = JSONResponse({"account": account.public(), "csrf": accounts.csrf_of(secret)})
    answer.set_cookie(
        SESSION_COOKIE,
        secret,
        max_age=int(SESSION_SECONDS),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    if device is not None and device != request.cookies.get(DEVICE_COOKIE):
        answer.set_cookie(
            DEVICE_COOKIE,
            device,
            max_age=int(DEVICE_SECONDS),
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
            path="/api/",
        )
    return answer


def signed_out_answer(request: Request) -> JSONResponse:
    answer = JSONResponse({"account": None, "csrf": None})
    answer.delete_cookie(
        SESSION_COOKIE,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return answer


def account_routes(router: APIRouter, ctx: Context) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    memory = ctx.limits.password_kib

    async def hashed(who: str, priority: int, password: str) -> str:
        return await ctx.queue().run(who, priority, accounts.hash_password, password, memory)

    async def matches(who: str, priority: int, stored: str | None, password: str) -> bool:
        return await ctx.queue().run(
            who, priority, accounts.password_matches, stored, password, memory
        )

    def device_secret(request: Request) -> str | None:
        secret = request.cookies.get(DEVICE_COOKIE)
        return secret if secret and len(secret) <= 128 else None

    async def remember(request: Request, account_id: str) -> str:
        """This browser (its device cookie's value) and its address are the account's now."""
        hub = ctx.hub()
        return await hub.runtime.db(
            accounts.remember_device,
            hub.store.accounts,
            account_id,
            device_secret(request),
            time.time(),
            client_of(request),
        )

    @router.post("/api/accounts", openapi_extra=body_schema(Credentials), response_model=SignedIn)
    async def sign_up(request: Request) -> JSONResponse:
        body = parse(Credentials, await body_of(request))
        name = valid_name(body.name)
        try:
            accounts.check_password(body.password)
        except ValueError as exc:
            raise field_refusal("password", exc) from None
        client = client_of(request)
        await ctx.throttle(ctx.creations, client, "new accounts")
        hub = ctx.hub()
        password = await hashed(client, ctx.rules().priority(client), body.password)
        try:
            account = await hub.runtime.db(
                accounts.create_account,
                hub.store.accounts,
                name,
                password,
                time.time(),
                browser_language(request),
            )
        except Taken as exc:
            raise ApiError(409, exc.reason) from None
        secret = await hub.runtime.db(
            accounts.start_session, hub.store.accounts, account.id, time.time()
        )
        device = await remember(request, account.id)
        return signed_in_answer(request, account, secret, device)

    @router.post("/api/session", openapi_extra=body_schema(Credentials), response_model=SignedIn)
    async def sign_in(request: Request) -> JSONResponse:
        """Sign in (cradle.server.signins: who may try, in which order)."""
        body = parse(Credentials, await body_of(request))
        client = client_of(request)
        name = accounts.name_key(body.name.strip())
        hub = ctx.hub()
        held = device_secret(request)
        # One trip to the database's thread (a flood's requests queue there too), the same
        # reads whether or not the account exists (the answer's time tells nothing).
        found, known, home = await hub.runtime.db(
            accounts.sign_in_facts, hub.store.accounts, body.name.strip(), client, held
        )
        device = "device:" + hash_token(held) if held and known else None
        rules = ctx.rules()
        try:
            priority = await rules.admit(ctx, client, name, device, home)
            right = await matches(
                device or client, priority, found[1] if found else None, body.password
            )
        except ApiError:
            metrics.SIGNINS.labels("refused").inc()
            raise
        if not right or found is None:
            metrics.SIGNINS.labels("wrong").inc()
            await rules.failed(ctx, client, name, device)
            log.info("sign-in failed", extra={"client": client})
            raise ApiError(401, WRONG)
        metrics.SIGNINS.labels("ok").inc()
        secret = await hub.runtime.db(
            accounts.start_session, hub.store.accounts, found[0], time.time()
        )
        account = await hub.runtime.db(
            accounts.account_of_session, hub.store.accounts, secret, time.time()
        )
        if account is None:  # deleted in between
            raise ApiError(401, WRONG)
        language = browser_language(request)
        if account.language is None and language is not None:
            # An account made before accounts had a language: its browser's, for its mails.
            await hub.runtime.db(hub.store.accounts.set_language, account.id, language)
            account = replace(account, language=language)
        return signed_in_answer(request, account, secret, await remember(request, account.id))

    @router.delete("/api/session", response_model=SignedIn)
    async def sign_out(request: Request) -> JSONResponse:
        found = await signed_in(ctx, request, write=True)
        if found is not None:
            hub = ctx.hub()
            await hub.runtime.db(accounts.end_session, hub.store.accounts, found.secret)
        return signed_out_answer(request)

    @router.get("/api/me", response_model=SignedIn)
    async def me(request: Request) -> dict[str, Any]:
        """The signed-in account and its CSRF token; ``account`` null for a guest."""
        found = await signed_in(ctx, request, write=False)
        if found is None:
            return {"account": None, "csrf": None}
        return {"account": found.account.public(), "csrf": accounts.csrf_of(found.secret)}

    @router.patch(
        "/api/me", openapi_extra=body_schema(AccountSettings), response_model=AccountAnswer
    )
    async def settings(request: Request) -> dict[str, Any]:
        body = parse(AccountSettings, await body_of(request))
        found = await need_account(ctx, request, write=True)
        fields = body.model_fields_set
        email = found.account.email
        if "email" in fields:
            email = (body.email or "").strip() or None
            if email is not None:
                try:
                    email = text.email_address(email)
                except ValueError as exc:
                    raise BadInput(
                        N_("email: not one e-mail address ({detail})"), "email", detail=str(exc)
                    ) from None
        turn_mail = found.account.turn_mail
        if "turn_mail" in fields:
            turn_mail = bool(body.turn_mail)
        if turn_mail and email is None:
            raise BadInput(N_("turn_mail: turn notices need an e-mail address"), "turn_mail")
        language = found.account.language
        if "language" in fields:
            language = body.language
            if language is None or language not in i18n.tags():
                known = ", ".join(i18n.tags())
                raise BadInput(N_("language: one of {known}"), "language", known=known)
        hub = ctx.hub()
        await hub.runtime.db(hub.store.accounts.set_mail, found.account.id, email, turn_mail)
        if language != found.account.language:
            await hub.runtime.db(hub.store.accounts.set_language, found.account.id, language)
        account = await hub.runtime.db(
            accounts.account_of_session, hub.store.accounts, found.secret, time.time()
        )
        return {"account": account.public() if account else None}

    @router.post(
        "/api/me/password",
        openapi_extra=body_schema(PasswordChange),
        response_model=PasswordChanged,
    )
    async def change_password(request: Request) -> dict[str, Any]:
        body = parse(PasswordChange, await body_of(request))
        found = await need_account(ctx, request, write=True)
        await ctx.throttle(ctx.signins_of, "id:" + found.account.id, "password attempts")
        hub = ctx.hub()
        stored = await hub.runtime.db(hub.store.accounts.password_by_id, found.account.id)
        who = "id:" + found.account.id
        if not await matches(who, KNOWN, stored, body.password):
            raise ApiError(401, N_("wrong password"))
        try:
            accounts.check_password(body.new_password)
        except ValueError as exc:
            raise field_refusal("new_password", exc) from None
        password = await hashed(who, KNOWN, body.new_password)
        await hub.runtime.db(
            accounts.set_password, hub.store.accounts, found.account.id, password, found.secret
        )
        return {"changed": True}

    @router.delete("/api/me", openapi_extra=body_schema(AccountDeletion), response_model=SignedIn)
    async def delete_account(request: Request) -> JSONResponse:
        body = parse(AccountDeletion, await body_of(request))
        found = await need_account(ctx, request, write=True)
        await ctx.throttle(ctx.signins_of, "id:" + found.account.id, "password attempts")
        hub = ctx.hub()
        stored = await hub.runtime.db(hub.store.accounts.password_by_id, found.account.id)
        if not await matches("id:" + found.account.id, KNOWN, stored, body.password):
            raise ApiError(401, N_("wrong password"))
        await hub.runtime.db(hub.store.accounts.delete, found.account.id)
        for game_id in list(hub.served.loaded):  # the names shown at loaded tables change too
            table = hub.served.loaded[game_id]
            for seat, holder in list(table.accounts.items()):
                if holder == found.account.id:
                    del table.accounts[seat]
                    table.names[seat] = accounts.FORMER
        return signed_out_answer(request)

    @router.get("/api/me/games", response_model=MyGames)
    async def my_games(
        request: Request, limit: int | None = Query(None, ge=1, le=MY_GAMES)
    ) -> dict[str, Any]:
        """The signed-in player's games (the ``limit`` changed last): those where it is their
        turn first, then the other games in progress, then the ended ones; the latest changed
        first within each."""
        found = await need_account(ctx, request, write=False)
        hub = ctx.hub()
        rows = await hub.runtime.db(
            hub.store.accounts.games_of, found.account.id, limit or MY_GAMES
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

    @router.post(
        "/api/games/{game_id}/seat",
        openapi_extra=body_schema(SeatBody, required=False),
        response_model=Joined,
    )
    async def my_seat(game_id: GameId, request: Request) -> dict[str, Any]:
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

    @router.post(
        "/api/games/{game_id}/transfer",
        openapi_extra=body_schema(EmptyBody, required=False),
        response_model=Transfer,
    )
    async def transfer(game_id: GameId, request: Request) -> dict[str, Any]:
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

    @router.post(
        "/api/games/{game_id}/continue",
        openapi_extra=body_schema(ContinueBody),
        response_model=Joined,
    )
    async def continue_here(game_id: GameId, request: Request) -> dict[str, Any]:
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
