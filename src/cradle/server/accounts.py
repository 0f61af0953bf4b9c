"""Accounts and sessions: names, passwords (argon2id), session cookies and their CSRF tokens,
and the seats an account holds.

A name is 3–24 characters of Unicode letters (with their marks), digits, spaces, ``-`` and
``_``, NFC-normalised and trimmed; two names that differ only in case are one (``name_key``).
A password is hashed with argon2id (argon2-cffi); a sign-in with an unknown name spends the
same work, so the answer's time tells nothing either. A session is a random cookie stored only
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
import threading
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from cradle.server.store.accounts import FORMER, Account, AccountStore, Taken
from cradle.server.store.codes import CodeStore
from cradle.server.store.seats import SeatStore
from cradle.server.tokens import hash_token, new_token

__all__ = ["FORMER", "Account", "Taken"]

NAME_MIN, NAME_MAX = 3, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 256
EMAIL_MAX = 254
SESSION_COOKIE = "cradle_session"
CSRF_HEADER = "x-csrf-token"
SESSION_SECONDS = 30 * 86400.0
TRANSFER_SECONDS = 3600.0  # a "continue on another device" link works this long, once
RESET_SECONDS = 3600.0  # a mailed password reset link works this long, once
CHECK_SECONDS = 86400.0  # a mailed address check works this long, once
HASHING = threading.BoundedSemaphore(2)  # argon2id takes 64 MiB each: a few at a time


@functools.cache
def _hasher(memory_kib: int) -> tuple[PasswordHasher, str]:
    """The argon2id hasher with ``memory_kib`` per hash (3 passes, 4 lanes), and a hash of a
    random password to verify against when no such account exists (the same work)."""
    hasher = PasswordHasher(time_cost=3, memory_cost=memory_kib, parallelism=4)
    return hasher, hasher.hash(secrets.token_hex(16))


def normal_name(raw: str) -> str:
    """The name as stored and shown, or ValueError saying what is wrong with it."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ValueError(f"a name has {NAME_MIN} to {NAME_MAX} characters")
    previous = ""
    for char in name:
        kind = unicodedata.category(char)
        if kind[0] in "LN" and kind in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd"):
            pass
        elif kind[0] == "M" and unicodedata.category(previous or " ")[0] in "LM":
            pass  # a mark on a letter (many scripts write vowels so)
        elif char in " -_":
            if char == " " and previous == " ":
                raise ValueError("a name has no two spaces in a row")
        else:
            raise ValueError(
                "a name has only letters, digits, spaces, '-' and '_' "
                f"(not {unicodedata.name(char, repr(char)).lower()})"
            )
        previous = char
    if name_key(name) == name_key(FORMER):
        raise ValueError(f"{FORMER!r} is the name of deleted accounts")
    return name


def name_key(name: str) -> str:
    """What makes two names one: case-folded, NFC again (folding can undo it)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ValueError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")


def hash_password(password: str, memory_kib: int) -> str:
    hasher, _dummy = _hasher(memory_kib)
    with HASHING:
        return hasher.hash(password)


def password_matches(stored: str | None, password: str, memory_kib: int) -> bool:
    hasher, dummy = _hasher(memory_kib)
    with HASHING:
        try:
            return hasher.verify(stored or dummy, password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False


def csrf_of(secret: str) -> str:
    """The CSRF token of the session whose cookie is ``secret``."""
    return hmac.new(secret.encode(), b"cradle-csrf", hashlib.sha256).hexdigest()[:32]


def create_account(store: AccountStore, name: str, password_hash: str, now: float) -> Account:
    """A new account; :class:`Taken` when the name (in any case) is someone's."""
    return store.create(name, name_key(name), password_hash, now)


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
