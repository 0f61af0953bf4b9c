"""Accounts' routes: sign up, sign in and out, the signed-in account (its settings, password,
deletion, games), a signed-in player's seat on another device, and a guest's seat moved to
another device by a one-time link (cradle.server.accounts has the rules)."""

from __future__ import annotations

import hmac
import logging
import time
from dataclasses import replace
from typing import Annotated, Literal, TypedDict

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from cradle import i18n
from cradle.core.words import N_
from cradle.server import accounts, metrics, text
from cradle.server.account_answers import (
    AccountAnswer,
    Asked,
    PasswordChanged,
    SignedIn,
    Verified,
)
from cradle.server.accounts import (
    CSRF_HEADER,
    DEVICE_COOKIE,
    DEVICE_SECONDS,
    SESSION_COOKIE,
    SESSION_SECONDS,
    Account,
    Taken,
)
from cradle.server.errors import ApiError, field_refusal, forbidden
from cradle.server.models import (
    TOKEN_CHARS,
    AccountDeletion,
    AccountSettings,
    BadInput,
    Credentials,
    EmptyBody,
    NewPassword,
    PasswordChange,
    ResetRequest,
    SignUp,
    parse,
)
from cradle.server.refusal import Refusal
from cradle.server.routes.common import (
    Context,
    Ctx,
    allows,
    answer_route,
    body_of,
    body_route,
    client_of,
)
from cradle.server.signins import KNOWN
from cradle.server.tokens import hash_token

log = logging.getLogger("cradle.server")

MAILED_AT_ONCE = 3  # accounts of one address a reset request mails at most
Code = Annotated[str, Path(max_length=TOKEN_CHARS)]
UNAUTHORIZED = N_("sign in first (POST /api/session)")
WRONG = N_("wrong name or password")


class Signed:
    """A request's signed-in account and its session cookie's value."""

    def __init__(self, account: Account, secret: str) -> None:
        self.account = account
        self.secret = secret


SUSPENDED = N_("an operator suspended this account: it cannot sign in")


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


def valid_email(raw: str | None) -> str | None:
    """An address as stored (None: none); 400 for one that is not one e-mail address."""
    email = (raw or "").strip() or None
    if email is None:
        return None
    try:
        return text.email_address(email)
    except ValueError as exc:
        raise BadInput(f"email: not one e-mail address ({exc})", "email") from None


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


async def seat_holder(
    ctx: Context, request: Request, raw: str | None
) -> tuple[Signed | None, str | None]:
    """Who takes the seat a request makes or joins, and the name it shows: the signed-in
    account and its name, else a guest under ``raw`` (:func:`guest_name`), else nobody named."""
    signed = await signed_in(ctx, request, write=True)
    if signed is not None:
        return signed, signed.account.name
    return None, None if raw is None else await guest_name(ctx, raw)


class CookieFlags(TypedDict):
    httponly: bool
    samesite: Literal["lax"]
    secure: bool
    path: str


def cookie_flags(request: Request, path: str) -> CookieFlags:
    """How every cookie of cradle's is set and deleted: out of scripts' reach, sent on
    same-site requests and top-level visits, over HTTPS only where the page came so."""
    secure = request.url.scheme == "https"
    return CookieFlags(httponly=True, samesite="lax", secure=secure, path=path)


def signed_in_answer(
    request: Request, account: Account, secret: str, device: str | None = None
) -> JSONResponse:
    """The signed-in answer with the session cookie (and ``device``: the device cookie)."""
    answer = JSONResponse({"account": account.public(), "csrf": accounts.csrf_of(secret)})
    answer.set_cookie(
        SESSION_COOKIE, secret, max_age=int(SESSION_SECONDS), **cookie_flags(request, "/")
    )
    if device is not None and device != request.cookies.get(DEVICE_COOKIE):
        flags = cookie_flags(request, "/api/")
        answer.set_cookie(DEVICE_COOKIE, device, max_age=int(DEVICE_SECONDS), **flags)
    return answer


def signed_out_answer(request: Request, ended: str | None = None) -> JSONResponse:
    content: dict[str, object] = {"account": None, "csrf": None}
    if ended is not None:
        content["ended"] = ended
    answer = JSONResponse(content)
    answer.delete_cookie(SESSION_COOKIE, **cookie_flags(request, "/"))
    return answer


async def hashed(ctx: Context, who: str, priority: int, password: str) -> str:
    return await ctx.queue().run(
        who, priority, accounts.hash_password, password, ctx.limits.password_kib
    )


async def matches(ctx: Context, who: str, priority: int, stored: str | None, password: str) -> bool:
    return await ctx.queue().run(
        who, priority, accounts.password_matches, stored, password, ctx.limits.password_kib
    )


def device_secret(request: Request) -> str | None:
    secret = request.cookies.get(DEVICE_COOKIE)
    return secret if secret and len(secret) <= 128 else None


async def remember(ctx: Context, request: Request, account_id: str) -> str:
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


async def check_address(ctx: Context, account: Account) -> None:
    """Mail a check of the account's address (its link verifies it), within the limits
    per account and per address."""
    hub = ctx.hub()
    email = account.email
    if email is None or account.email_verified or not hub.outbox.on:
        return
    if not await allows(ctx, ctx.mails_to, "check-id:" + account.id):
        return
    if not await allows(ctx, ctx.mails_to, "check-to:" + email.lower()):
        return
    code = await hub.runtime.db(accounts.new_check, hub.store.codes, account.id, email, time.time())
    hub.outbox.send(
        "verify",
        email,
        account.language,
        name=account.name,
        email=email,
        link=hub.outbox.link(f"verify/{code}"),
    )


def account_routes(router: APIRouter) -> None:
    """Add this area's routes to ``router`` (the application's own)."""

    @body_route(router, "POST", "/api/accounts", SignUp, SignedIn)
    async def sign_up(ctx: Ctx, request: Request) -> JSONResponse:
        body = parse(SignUp, await body_of(request))
        name = valid_name(body.name)
        try:
            accounts.check_password(body.password)
        except ValueError as exc:
            raise field_refusal("password", exc) from None
        email = valid_email(body.email)
        client = client_of(request)
        await ctx.throttle(ctx.creations, client, "new accounts")
        hub = ctx.hub()
        password = await hashed(ctx, client, ctx.rules().priority(client), body.password)
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
        if email is not None:
            await hub.runtime.db(hub.store.accounts.set_mail, account.id, email, False, False)
            account = replace(account, email=email)
            await check_address(ctx, account)
        secret = await hub.runtime.db(
            accounts.start_session, hub.store.accounts, account.id, time.time()
        )
        device = await remember(ctx, request, account.id)
        return signed_in_answer(request, account, secret, device)

    @body_route(router, "POST", "/api/session", Credentials, SignedIn)
    async def sign_in(ctx: Ctx, request: Request) -> JSONResponse:
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
                ctx, device or client, priority, found[1] if found else None, body.password
            )
        except ApiError:
            metrics.SIGNINS.labels("refused").inc()
            raise
        if not right or found is None:
            metrics.SIGNINS.labels("wrong").inc()
            await rules.failed(ctx, client, name, device)
            log.info("sign-in failed", extra={"client": client})
            raise ApiError(401, WRONG)
        standing = await hub.runtime.db(hub.store.moderation.standing, found[0])
        if standing.suspended:  # said only to whoever knows the password
            metrics.SIGNINS.labels("refused").inc()
            raise ApiError(403, SUSPENDED)
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
        return signed_in_answer(request, account, secret, await remember(ctx, request, account.id))

    @router.delete("/api/session", response_model=SignedIn)
    async def sign_out(ctx: Ctx, request: Request) -> JSONResponse:
        found = await signed_in(ctx, request, write=True)
        if found is not None:
            hub = ctx.hub()
            await hub.runtime.db(accounts.end_session, hub.store.accounts, found.secret)
            await hub.people.tell(found.account.id, "sessions")  # its other tabs are told
        return signed_out_answer(request)

    @answer_route(router, "GET", "/api/me", SignedIn)
    async def me(ctx: Ctx, request: Request) -> dict[str, object] | JSONResponse:
        """The signed-in account and its CSRF token; ``account`` null for a guest, with
        ``ended`` (once) when this device's session was ended by a password's change or reset
        elsewhere."""
        found = await signed_in(ctx, request, write=False)
        if found is not None:
            return {"account": found.account.public(), "csrf": accounts.csrf_of(found.secret)}
        secret = request.cookies.get(SESSION_COOKIE)
        if secret and len(secret) <= 128:
            hub = ctx.hub()
            ended = await hub.runtime.db(hub.store.accounts.ended, hash_token(secret), time.time())
            if ended is not None:  # told once; the cookie goes
                return signed_out_answer(request, ended)
        return {"account": None, "csrf": None}

    @body_route(router, "PATCH", "/api/me", AccountSettings, AccountAnswer)
    async def settings(ctx: Ctx, request: Request) -> dict[str, object]:
        body = parse(AccountSettings, await body_of(request))
        found = await need_account(ctx, request, write=True)
        fields = body.model_fields_set
        email = found.account.email
        if "email" in fields:
            email = valid_email(body.email)
        turn_mail = found.account.turn_mail
        if "turn_mail" in fields:
            turn_mail = bool(body.turn_mail)
        invite_mail = found.account.invite_mail
        if "invite_mail" in fields:
            invite_mail = bool(body.invite_mail)
        if turn_mail and email is None:
            raise BadInput(N_("turn_mail: turn notices need an e-mail address"), "turn_mail")
        if invite_mail and email is None:
            raise BadInput("invite_mail: invitation mails need an e-mail address", "invite_mail")
        language = found.account.language
        if "language" in fields:
            language = body.language
            if language is None or language not in i18n.tags():
                known = ", ".join(i18n.tags())
                raise BadInput(N_("language: one of {known}"), "language", known=known)
        hub = ctx.hub()
        changed = await hub.runtime.db(
            hub.store.accounts.set_mail, found.account.id, email, turn_mail, invite_mail
        )
        if language != found.account.language:
            await hub.runtime.db(hub.store.accounts.set_language, found.account.id, language)
        account = await hub.runtime.db(
            accounts.account_of_session, hub.store.accounts, found.secret, time.time()
        )
        if account is not None and changed:
            await check_address(ctx, account)  # a new address is checked before any mail
        return {"account": account.public() if account else None}

    @body_route(router, "POST", "/api/me/verify", EmptyBody, Asked)
    async def send_check(ctx: Ctx, request: Request) -> dict[str, object]:
        """Mail a new check of the account's address (the last one's link stops working)."""
        parse(EmptyBody, await body_of(request))
        found = await need_account(ctx, request, write=True)
        if found.account.email is None:
            raise BadInput("the account has no e-mail address to check (PATCH /api/me)")
        if found.account.email_verified:
            raise ApiError(409, N_("this address is verified already"))
        if not ctx.hub().outbox.on:
            raise ApiError(503, N_("this server sends no mail (its operator set no SMTP server)"))
        await check_address(ctx, found.account)
        return {"asked": True}

    @body_route(router, "POST", "/api/email-verification/{code}", EmptyBody, Verified)
    async def verify_address(ctx: Ctx, code: Code, request: Request) -> dict[str, object]:
        """The link of an address check: the address is verified (no sign-in needed)."""
        parse(EmptyBody, await body_of(request))
        await ctx.throttle(ctx.resets, client_of(request), "codes tried")
        hub = ctx.hub()
        found = await hub.runtime.db(accounts.verify, hub.store.codes, code, time.time())
        if found is None:
            raise forbidden(
                N_(
                    "this link is not valid (each works once, within a day, for the address it "
                    "was sent to)"
                )
            )
        await hub.people.tell(found[0], "inbox")  # its open pages read the account again
        return {"email": found[1]}

    @body_route(router, "POST", "/api/password-reset", ResetRequest, Asked)
    async def ask_reset(ctx: Ctx, request: Request) -> dict[str, object]:
        """Mail a link that sets a new password to the verified address of the account named
        ``name``, or of each account whose verified address is ``email``. The answer is the
        same whether or not such an account or address exists, and whether or not a mail
        went (at most 3 an hour per account and per address)."""
        body = parse(ResetRequest, await body_of(request))
        given = [key for key in ("name", "email") if getattr(body, key)]
        if len(given) != 1:
            raise BadInput('send {"name": ...} or {"email": ...}')
        await ctx.throttle(ctx.resets, client_of(request), "password reset requests")
        hub = ctx.hub()
        found: list[Account] = []
        if body.name:
            key = accounts.name_key(body.name.strip())
            one = await hub.runtime.db(hub.store.accounts.by_key, key)
            found = [] if one is None else [one]
        elif body.email:
            email = body.email.strip()
            if await allows(ctx, ctx.mails_to, "reset-to:" + email.lower()):
                found = await hub.runtime.db(hub.store.accounts.by_address, email, MAILED_AT_ONCE)
        for account in found:
            address = account.mail_to
            if address is None or not hub.outbox.on:
                continue
            if not await allows(ctx, ctx.mails_to, "reset-id:" + account.id):
                continue
            if body.name and not await allows(ctx, ctx.mails_to, "reset-to:" + address.lower()):
                continue
            code = await hub.runtime.db(
                accounts.new_reset, hub.store.codes, account.id, time.time()
            )
            hub.outbox.send(
                "reset",
                address,
                account.language,
                name=account.name,
                link=hub.outbox.link(f"reset/{code}"),
            )
        return {"asked": True}

    @body_route(router, "POST", "/api/password-reset/{code}", NewPassword, SignedIn)
    async def reset(ctx: Ctx, code: Code, request: Request) -> JSONResponse:
        """A reset link's new password: every session of the account ends (their devices are
        told), and this device is signed in. 403 for a link used or older than an hour."""
        body = parse(NewPassword, await body_of(request))
        try:
            accounts.check_password(body.password)
        except ValueError as exc:
            raise BadInput(f"password: {exc}", "password") from None
        client = client_of(request)
        await ctx.throttle(ctx.resets, client, "codes tried")
        hub = ctx.hub()
        password = await hashed(ctx, client, ctx.rules().priority(client), body.password)
        account_id = await hub.runtime.db(
            accounts.use_reset, hub.store.codes, code, password, time.time()
        )
        if account_id is None:
            raise forbidden(N_("this link is not valid (each works once, within the hour)"))
        await hub.people.tell(account_id, "sessions")
        secret = await hub.runtime.db(
            accounts.start_session, hub.store.accounts, account_id, time.time()
        )
        account = await hub.runtime.db(
            accounts.account_of_session, hub.store.accounts, secret, time.time()
        )
        if account is None:  # deleted in between
            raise forbidden(N_("this link is not valid (each works once, within the hour)"))
        return signed_in_answer(request, account, secret)

    @router.get("/api/me/export")
    async def export(ctx: Ctx, request: Request) -> JSONResponse:
        """Everything stored of the signed-in account that is its own, as one JSON file."""
        found = await need_account(ctx, request, write=False)
        await ctx.throttle(ctx.reads, client_of(request), "reads")
        hub = ctx.hub()
        data = await hub.runtime.db(hub.store.account_data.export, found.account.id)
        data = {"exported": time.time(), **data}
        return JSONResponse(
            data,
            headers={
                "Content-Disposition": f'attachment; filename="cradle-{found.account.id}.json"'
            },
        )

    @body_route(router, "POST", "/api/me/password", PasswordChange, PasswordChanged)
    async def change_password(ctx: Ctx, request: Request) -> dict[str, object]:
        body = parse(PasswordChange, await body_of(request))
        found = await need_account(ctx, request, write=True)
        await ctx.throttle(ctx.signins_of, "id:" + found.account.id, "password attempts")
        hub = ctx.hub()
        stored = await hub.runtime.db(hub.store.accounts.password_by_id, found.account.id)
        who = "id:" + found.account.id
        if not await matches(ctx, who, KNOWN, stored, body.password):
            raise ApiError(401, N_("wrong password"))
        try:
            accounts.check_password(body.new_password)
        except ValueError as exc:
            raise field_refusal("new_password", exc) from None
        password = await hashed(ctx, who, KNOWN, body.new_password)
        await hub.runtime.db(
            accounts.set_password, hub.store.accounts, found.account.id, password, found.secret
        )
        await hub.people.tell(found.account.id, "sessions")  # the other devices are told at once
        return {"changed": True}

    @body_route(router, "DELETE", "/api/me", AccountDeletion, SignedIn)
    async def delete_account(ctx: Ctx, request: Request) -> JSONResponse:
        body = parse(AccountDeletion, await body_of(request))
        found = await need_account(ctx, request, write=True)
        await ctx.throttle(ctx.signins_of, "id:" + found.account.id, "password attempts")
        hub = ctx.hub()
        stored = await hub.runtime.db(hub.store.accounts.password_by_id, found.account.id)
        if not await matches(ctx, "id:" + found.account.id, KNOWN, stored, body.password):
            raise ApiError(401, N_("wrong password"))
        await hub.runtime.db(hub.store.accounts.delete, found.account.id)
        await hub.people.tell(found.account.id, "sessions")
        for game_id in list(hub.served.loaded):  # the names shown at loaded tables change too
            table = hub.served.loaded[game_id]
            for seat, holder in list(table.accounts.items()):
                if holder == found.account.id:
                    del table.accounts[seat]
                    table.names[seat] = accounts.FORMER
        return signed_out_answer(request)
