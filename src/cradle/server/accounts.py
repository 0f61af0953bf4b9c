"""Accounts and sessions: names, passwords (argon2id), session cookies and their CSRF tokens,
and the seats an account holds.

A name is 3–24 characters of Unicode letters (with their marks), digits, spaces, ``-`` and
``_``, under Unicode's identifier rules (:mod:`cradle.server.text`); two names that differ only
in case are one (``name_key``), and so are two that look alike (``name_skeletons``). A password
is hashed with argon2id (argon2-cffi), in the bounded queue of :mod:`cradle.server.signins`; a
sign-in with an unknown name spends the same work, so the answer's time tells nothing either.
A browser the account signed in on keeps a device cookie (``devices``: its sha-256), and the
addresses it signed in from are kept there as hashes: they sign in whatever strangers guessed. A session is a random cookie stored only
as its sha-256; its CSRF token is derived from it (a page of this site reads it from
``GET /api/me``, a page of another site cannot), and every state-changing request that comes
with the cookie must send it back in ``X-CSRF-Token``.

What touches the database (:mod:`cradle.server.store.accounts`) is synchronous; the routes
call it in worker threads.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from cradle.core.words import N_
from cradle.server import text
from cradle.server.refusal import Refusal
from cradle.server.store.accounts import FORMER, Account, AccountStore, Taken
from cradle.server.store.codes import CodeStore
from cradle.server.store.seats import SeatStore
from cradle.server.tokens import hash_token, new_token

__all__ = ["FORMER", "Account", "Taken"]

NAME_MIN, NAME_MAX = text.NAME_MIN, text.NAME_MAX
PASSWORD_MIN, PASSWORD_MAX = 8, 256
EMAIL_MAX = text.EMAIL_MAX
SESSION_COOKIE = "cradle_session"
DEVICE_COOKIE = "cradle_device"  # a browser the account signed in on (signins.py: never locked out)
DEVICE_SECONDS = 365 * 86400.0  # a device (or home address) unused this long is forgotten
DEVICES_PER_ACCOUNT = 20  # the most recently used are kept
CSRF_HEADER = "x-csrf-token"
SESSION_SECONDS = 30 * 86400.0
TRANSFER_SECONDS = 3600.0  # a "continue on another device" link works this long, once
RESET_SECONDS = 3600.0  # a mailed password reset link works this long, once
CHECK_SECONDS = 86400.0  # a mailed address check works this long, once


@functools.cache
def _hasher(memory_kib: int) -> tuple[PasswordHasher, str]:
    """The argon2id hasher with ``memory_kib`` per hash (3 passes, 4 lanes), and a hash of a
    random password to verify against when no such account exists (the same work)."""
    hasher = PasswordHasher(time_cost=3, memory_cost=memory_kib, parallelism=4)
    return hasher, hasher.hash(secrets.token_hex(16))


def normal_name(raw: str) -> str:
    """The name as stored and shown, or ValueError saying what is wrong with it
    (cradle.server.text.normal_name's rules; "former player", and what looks like it, is
    nobody's)."""
    name = text.normal_name(raw)
    if text.name_skeletons(name) & text.name_skeletons(FORMER):
        raise Refusal(N_("{name} is the name of deleted accounts"), name=repr(FORMER))
    return name


def name_key(name: str) -> str:
    """What makes two names one for signing in (NFKC, case-folded)."""
    return text.name_key(name)


def check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise Refusal(
            N_("a password has {min} to {max} characters"), min=PASSWORD_MIN, max=PASSWORD_MAX
        )


def hash_password(password: str, memory_kib: int) -> str:
    """The argon2id hash of ``password`` (a worker thread of the queue in signins.py runs it)."""
    hasher, _dummy = _hasher(memory_kib)
    return hasher.hash(password)


def password_matches(stored: str | None, password: str, memory_kib: int) -> bool:
    hasher, dummy = _hasher(memory_kib)
    try:
        return hasher.verify(stored or dummy, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def csrf_of(secret: str) -> str:
    """The CSRF token of the session whose cookie is ``secret``."""
    return hmac.new(secret.encode(), b"cradle-csrf", hashlib.sha256).hexdigest()[:32]


def create_account(
    store: AccountStore, name: str, password_hash: str, now: float, language: str | None = None
) -> Account:
    """A new account that speaks ``language``; :class:`Taken` when the name (in any case) is
    someone's, or looks like someone's (:func:`cradle.server.text.name_skeletons`)."""
    return store.create(
        name, name_key(name), text.name_skeletons(name), password_hash, now, language
    )


def looks_like_an_account(store: AccountStore, name: str) -> bool:
    """Whether a guest's ``name`` looks like an account's name (which only its account shows)."""
    return store.alike(text.name_skeletons(name))


def device_of(store: AccountStore, secret: str) -> str | None:
    """The account whose browser holds the device cookie ``secret`` (None: not a known one)."""
    return store.device_account(hash_token(secret))


def home_key(client: str, account_id: str) -> str:
    """How an address the account signed in from is kept: a hash, with its devices."""
    return hash_token(f"home|{client}|{account_id}")


def is_home(store: AccountStore, client: str, account_id: str) -> bool:
    """Whether the account signed in from ``client``'s address (its key) before."""
    return store.device_account(home_key(client, account_id)) == account_id


def sign_in_facts(
    store: AccountStore, name: str, client: str, device: str | None
) -> tuple[tuple[str, str] | None, bool, bool]:
    """What a sign-in needs to know, in one call: (account id, password hash) of the account
    named ``name`` (None: no such account), whether the device cookie ``device`` is one of its
    browsers, and whether ``client``'s address is one of its homes. The same reads whether or
    not the account exists."""
    found = password_of(store, name)
    account_id = found[0] if found is not None else "-"
    known = device is not None and device_of(store, device) == account_id
    return found, known, is_home(store, client, account_id)


def remember_device(
    store: AccountStore, account_id: str, secret: str | None, now: float, client: str | None = None
) -> str:
    """This browser is the account's (``secret``: its device cookie, kept when it is one of
    this account's), and so is ``client``'s address (:func:`is_home`); the cookie's value to
    send back. Devices unused for a year, and beyond an account's 20, are forgotten."""
    devices = [] if client is None else [home_key(client, account_id)]
    if secret is None or store.device_account(hash_token(secret)) != account_id:
        secret = new_token()
    devices.append(hash_token(secret))
    store.remember_devices(account_id, devices, now, now - DEVICE_SECONDS, DEVICES_PER_ACCOUNT)
    return secret


def password_of(store: AccountStore, name: str) -> tuple[str, str] | None:
    """(account id, password hash) of the account named ``name`` (any case), or None."""
    return store.password_of(name_key(name))


def start_session(store: AccountStore, account_id: str, now: float) -> str:
    """A new session of the account; its cookie's value (stored only as its sha-256)."""
    secret = new_token()
    store.add_session(hash_token(secret), account_id, now, now + SESSION_SECONDS)
    return secret


def account_of_session(store: AccountStore, secret: str, now: float) -> Account | None:
    """The account signed in with the cookie ``secret``; None when it is no live session."""
    return store.account_of_session(hash_token(secret), now)


def end_session(store: AccountStore, secret: str) -> None:
    store.end_session(hash_token(secret))


def set_password(store: AccountStore, account_id: str, password_hash: str, keep: str) -> None:
    """A new password; every other session of the account ends (``keep``: this one's secret)."""
    store.set_password(account_id, password_hash, hash_token(keep))


def new_reset(store: CodeStore, account_id: str, now: float) -> str:
    """A one-time code that sets a new password of the account (within the hour)."""
    code = new_token()
    store.new_reset(hash_token(code), account_id, now, now + RESET_SECONDS)
    return code


def use_reset(store: CodeStore, code: str, password_hash: str, now: float) -> str | None:
    """Use a reset code: the new password, every session of the account ended. Its id, or None
    for a code unknown, used or lapsed."""
    return store.reset(hash_token(code), password_hash, now)


def new_check(store: CodeStore, account_id: str, email: str, now: float) -> str:
    """A one-time code that verifies ``email`` as the account's address (within the day)."""
    code = new_token()
    store.new_check(hash_token(code), account_id, email, now, now + CHECK_SECONDS)
    return code


def verify(store: CodeStore, code: str, now: float) -> tuple[str, str] | None:
    """Use an address check's code: (account id, the address now verified), or None."""
    return store.verify(hash_token(code), now)


def new_transfer(store: SeatStore, game_id: str, seat: int, now: float) -> str:
    """A one-time code that hands ``seat`` to whoever opens its link (within the hour)."""
    code = new_token()
    store.new_transfer(game_id, seat, hash_token(code), now + TRANSFER_SECONDS, now)
    return code


def transfer_of(store: SeatStore, game_id: str, code: str, now: float) -> int | None:
    """The seat a live transfer code of ``game_id`` hands over (not used up here); or None."""
    return store.transfer_of(game_id, hash_token(code), now)


def qr_svg(link: str) -> str:
    """The QR code of ``link``, as an SVG document (segno): with its namespace, which an
    ``<img>`` needs to draw it (an inline fragment's ``<svg>`` without one shows nothing)."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", xmldecl=False, scale=4, dark="#111", light="#fff")  # fmt: skip
    return out.getvalue().decode()
