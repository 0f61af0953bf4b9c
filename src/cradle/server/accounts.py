"""Accounts and sessions: names, passwords (argon2id), session cookies and their CSRF tokens,
and the seats an account holds.

A name is 3–24 characters of Unicode letters (with their marks), digits, spaces, ``-`` and
``_``, under Unicode's identifier rules (:mod:`cradle.server.text`); two names that differ only
in case are one (``name_key``), and so are two that look alike (``name_skeletons``). A password
is hashed with argon2id (argon2-cffi), in the bounded queue of :mod:`cradle.server.signins`; a
sign-in with an unknown name spends the same work, so the answer's time tells nothing either.
A browser the account signed in on keeps a device cookie (``devices``: its sha-256), which lets
it sign in whatever strangers guessed at the name. A session is a random cookie stored only
as its sha-256; its CSRF token is derived from it (a page of this site reads it from
``GET /api/me``, a page of another site cannot), and every state-changing request that comes
with the cookie must send it back in ``X-CSRF-Token``.

Everything here that touches the database is synchronous; the routes call it in worker threads.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from cradle.server import text
from cradle.server.storage import (
    AccountRow,
    ChatLineRow,
    ChatMuteRow,
    DeviceRow,
    GameRow,
    NameSkeletonRow,
    SeatRow,
    SessionRow,
    Storage,
    StorageError,
    TransferRow,
)
from cradle.server.tokens import hash_token, new_token

NAME_MIN, NAME_MAX = text.NAME_MIN, text.NAME_MAX
PASSWORD_MIN, PASSWORD_MAX = 8, 256
EMAIL_MAX = text.EMAIL_MAX
FORMER = "former player"  # the name at the seats of a deleted account (no one may take it)
SESSION_COOKIE = "cradle_session"
DEVICE_COOKIE = "cradle_device"  # a browser the account signed in on (signs.py: never locked out)
DEVICE_SECONDS = 365 * 86400.0  # a device unused this long is forgotten
DEVICES_PER_ACCOUNT = 20  # the most recently used are kept
CSRF_HEADER = "x-csrf-token"
SESSION_SECONDS = 30 * 86400.0
TRANSFER_SECONDS = 3600.0  # a "continue on another device" link works this long, once


@functools.cache
def _hasher(memory_kib: int) -> tuple[PasswordHasher, str]:
    """The argon2id hasher with ``memory_kib`` per hash (3 passes, 4 lanes), and a hash of a
    random password to verify against when no such account exists (the same work)."""
    hasher = PasswordHasher(time_cost=3, memory_cost=memory_kib, parallelism=4)
    return hasher, hasher.hash(secrets.token_hex(16))


class Taken(StorageError):
    def __init__(self, alike: bool = False) -> None:
        reason = "that name looks like one taken" if alike else "that name is taken"
        super().__init__(reason, reason)


def normal_name(raw: str) -> str:
    """The name as stored and shown, or ValueError saying what is wrong with it
    (cradle.server.text.normal_name's rules; "former player" is nobody's)."""
    name = text.normal_name(raw)
    if text.name_skeletons(name) & text.name_skeletons(FORMER):
        raise ValueError(f"{FORMER!r} is the name of deleted accounts")
    return name


def name_key(name: str) -> str:
    """What makes two names one for signing in (NFKC, case-folded)."""
    return text.name_key(name)


def check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ValueError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")


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


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    email: str | None
    turn_mail: bool
    created: float

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "turn_mail": self.turn_mail,
            "created": self.created,
        }


def _account(row: Any) -> Account:
    return Account(row.id, row.name, row.email, bool(row.turn_mail), float(row.created))


def create_account(storage: Storage, name: str, password_hash: str, now: float) -> Account:
    """A new account; :class:`Taken` when the name (in any case) is someone's, or looks like
    someone's (:func:`cradle.server.text.name_skeletons`)."""
    account_id = secrets.token_hex(8)
    skeletons = sorted(text.name_skeletons(name))
    try:
        with storage.transaction() as connection:
            taken = connection.execute(
                select(AccountRow.id).where(AccountRow.name_key == name_key(name))
            ).first()
            alike = connection.execute(
                select(NameSkeletonRow.account_id).where(NameSkeletonRow.skeleton.in_(skeletons))
            ).first()
            if taken is not None or alike is not None:
                raise Taken(alike=taken is None)
            connection.execute(
                insert(AccountRow).values(
                    id=account_id,
                    name=name,
                    name_key=name_key(name),
                    password=password_hash,
                    created=now,
                    turn_mail=False,
                )
            )
            for skeleton in skeletons:
                connection.execute(
                    insert(NameSkeletonRow).values(skeleton=skeleton, account_id=account_id)
                )
    except StorageError as exc:
        if isinstance(exc.__cause__, IntegrityError):
            raise Taken() from None  # another process took it meanwhile
        raise
    return Account(account_id, name, None, False, now)


def password_of(storage: Storage, name: str) -> tuple[str, str] | None:
    """(account id, password hash) of the account named ``name`` (any case), or None."""
    with storage.engine.connect() as connection:
        row = connection.execute(
            select(AccountRow.id, AccountRow.password).where(AccountRow.name_key == name_key(name))
        ).first()
    return None if row is None else (str(row.id), str(row.password))


def password_by_id(storage: Storage, account_id: str) -> str | None:
    with storage.engine.connect() as connection:
        found = connection.execute(
            select(AccountRow.password).where(AccountRow.id == account_id)
        ).scalar()
    return None if found is None else str(found)


def looks_like_an_account(storage: Storage, name: str) -> bool:
    """Whether a guest's ``name`` looks like an account's name (which only its account shows)."""
    skeletons = sorted(text.name_skeletons(name))
    with storage.engine.connect() as connection:
        found = connection.execute(
            select(NameSkeletonRow.account_id).where(NameSkeletonRow.skeleton.in_(skeletons))
        ).first()
    return found is not None


def device_of(storage: Storage, secret: str) -> str | None:
    """The account whose browser holds the device cookie ``secret`` (None: not a known one)."""
    with storage.engine.connect() as connection:
        found = connection.execute(
            select(DeviceRow.account_id).where(DeviceRow.id == hash_token(secret))
        ).scalar()
    return None if found is None else str(found)


def home_key(client: str, account_id: str) -> str:
    """How an address the account signed in from is kept: a hash, with its devices."""
    return hash_token(f"home|{client}|{account_id}")


def is_home(storage: Storage, client: str, account_id: str) -> bool:
    """Whether the account signed in from ``client``'s address (its key) before."""
    with storage.engine.connect() as connection:
        found = connection.execute(
            select(DeviceRow.id).where(
                DeviceRow.id == home_key(client, account_id), DeviceRow.account_id == account_id
            )
        ).first()
    return found is not None


def remember_device(
    storage: Storage, account_id: str, secret: str | None, now: float, client: str | None = None
) -> str:
    """This browser is the account's (``secret``: its device cookie, when it holds one of this
    account's), and so is ``client``'s address (:func:`is_home`); the cookie's value to send
    back. Old and surplus devices are forgotten."""
    with storage.transaction() as connection:
        if client is not None:
            home = home_key(client, account_id)
            if not connection.execute(
                update(DeviceRow).where(DeviceRow.id == home).values(used=now)
            ).rowcount:
                connection.execute(
                    insert(DeviceRow).values(id=home, account_id=account_id, created=now, used=now)
                )
        if secret is not None:
            kept = connection.execute(
                update(DeviceRow)
                .where(DeviceRow.id == hash_token(secret), DeviceRow.account_id == account_id)
                .values(used=now)
            ).rowcount
            if kept:
                return secret
        secret = new_token()
        connection.execute(delete(DeviceRow).where(DeviceRow.used < now - DEVICE_SECONDS))
        connection.execute(
            insert(DeviceRow).values(
                id=hash_token(secret), account_id=account_id, created=now, used=now
            )
        )
        surplus = (
            select(DeviceRow.id)
            .where(DeviceRow.account_id == account_id)
            .order_by(DeviceRow.used.desc(), DeviceRow.id)
            .offset(DEVICES_PER_ACCOUNT)
        )
        old = [row.id for row in connection.execute(surplus)]
        if old:
            connection.execute(delete(DeviceRow).where(DeviceRow.id.in_(old)))
    return secret


def start_session(storage: Storage, account_id: str, now: float) -> str:
    """A new session of the account; its cookie's value (stored only as its sha-256)."""
    secret = new_token()
    with storage.transaction() as connection:
        connection.execute(delete(SessionRow).where(SessionRow.expires < now))
        connection.execute(
            insert(SessionRow).values(
                id=hash_token(secret),
                account_id=account_id,
                created=now,
                expires=now + SESSION_SECONDS,
            )
        )
    return secret


def account_of_session(storage: Storage, secret: str, now: float) -> Account | None:
    """The account signed in with the cookie ``secret``; None when it is no live session."""
    with storage.engine.connect() as connection:
        row = connection.execute(
            select(AccountRow)
            .join(SessionRow, SessionRow.account_id == AccountRow.id)
            .where(SessionRow.id == hash_token(secret), SessionRow.expires > now)
        ).first()
    return None if row is None else _account(row)


def end_session(storage: Storage, secret: str) -> None:
    with storage.transaction() as connection:
        connection.execute(delete(SessionRow).where(SessionRow.id == hash_token(secret)))


def set_password(storage: Storage, account_id: str, password_hash: str, keep: str) -> None:
    """A new password; every other session of the account ends (``keep``: this one's secret)."""
    with storage.transaction() as connection:
        connection.execute(
            update(AccountRow).where(AccountRow.id == account_id).values(password=password_hash)
        )
        connection.execute(
            delete(SessionRow).where(
                SessionRow.account_id == account_id, SessionRow.id != hash_token(keep)
            )
        )


def set_mail(storage: Storage, account_id: str, email: str | None, turn_mail: bool) -> None:
    with storage.transaction() as connection:
        connection.execute(
            update(AccountRow)
            .where(AccountRow.id == account_id)
            .values(email=email, turn_mail=turn_mail and email is not None)
        )


def delete_account(storage: Storage, account_id: str) -> None:
    """The account and its sessions go; its games stay, its seats named ``former player``."""
    with storage.transaction() as connection:
        connection.execute(
            update(SeatRow)
            .where(SeatRow.account_id == account_id)
            .values(account_id=None, name=FORMER)
        )
        # Its chat lines stay with their games, under the same name as its seats; its mutes go
        # (its ratings go with the account: their rows cascade).
        connection.execute(
            update(ChatLineRow).where(ChatLineRow.speaker == f"a:{account_id}").values(name=FORMER)
        )
        connection.execute(delete(ChatMuteRow).where(ChatMuteRow.viewer == f"a:{account_id}"))
        connection.execute(delete(SessionRow).where(SessionRow.account_id == account_id))
        connection.execute(delete(AccountRow).where(AccountRow.id == account_id))


def games_of(storage: Storage, account_id: str, limit: int) -> list[dict[str, Any]]:
    """The account's games as stored (the latest changed first, at most ``limit``): id,
    game, the players (the game's names), the seats' kinds and the names at them, the seats
    it holds,
    status, moves, result, times, and whether it is rated (``Storage.rating``)."""
    with storage.engine.connect() as connection:
        held = connection.execute(
            select(SeatRow.game_id, SeatRow.seat).where(SeatRow.account_id == account_id)
        ).all()
        seats: dict[str, list[int]] = {}
        for row in held:
            seats.setdefault(str(row.game_id), []).append(int(row.seat))
        if not seats:
            return []
        games = connection.execute(
            select(
                GameRow.id,
                GameRow.game,
                GameRow.players,
                GameRow.seats,
                GameRow.status,
                GameRow.moves,
                GameRow.result,
                GameRow.created,
                GameRow.updated,
                GameRow.rated,
            )
            .where(GameRow.id.in_(list(seats)))
            .order_by(GameRow.updated.desc())
            .limit(limit)
        ).all()
        names: dict[str, dict[int, str]] = {}
        for game_id, seat, name in connection.execute(
            select(SeatRow.game_id, SeatRow.seat, SeatRow.name).where(
                SeatRow.game_id.in_([g.id for g in games]), SeatRow.name.is_not(None)
            )
        ):
            names.setdefault(str(game_id), {})[int(seat)] = str(name)
    rating = storage.rating(
        {
            str(game.id): len(game.players)
            for game in games
            if game.rated and isinstance(game.players, list)
        }
    )
    found = []
    for game in games:
        players = list(game.players) if isinstance(game.players, list) else []
        shown = names.get(str(game.id), {})
        found.append(
            {
                "id": str(game.id),
                "game": str(game.game),
                "players": [str(p) for p in players],
                "seats": [str(kind) for kind in game.seats]
                if isinstance(game.seats, list)
                else ["human"] * len(players),
                "names": [shown.get(seat) for seat in range(len(players))],
                "seats_held": sorted(seats[str(game.id)]),
                "status": str(game.status),
                "moves": int(game.moves),
                "result": game.result if isinstance(game.result, list) else None,
                "created": float(game.created),
                "updated": float(game.updated),
                "rated": str(game.id) in rating,
            }
        )
    return found


def count_accounts(storage: Storage) -> int:
    with storage.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(AccountRow)).scalar() or 0)


def new_transfer(storage: Storage, game_id: str, seat: int, now: float) -> str:
    """A one-time code that hands ``seat`` to whoever opens its link (within the hour)."""
    code = new_token()
    with storage.transaction() as connection:
        connection.execute(delete(TransferRow).where(TransferRow.expires < now))
        connection.execute(
            delete(TransferRow).where(TransferRow.game_id == game_id, TransferRow.seat == seat)
        )
        connection.execute(
            insert(TransferRow).values(
                code=hash_token(code), game_id=game_id, seat=seat, expires=now + TRANSFER_SECONDS
            )
        )
    return code


def transfer_of(storage: Storage, game_id: str, code: str, now: float) -> int | None:
    """The seat a live transfer code of ``game_id`` hands over (not used up here); or None."""
    with storage.engine.connect() as connection:
        found = connection.execute(
            select(TransferRow.seat).where(
                TransferRow.code == hash_token(code),
                TransferRow.game_id == game_id,
                TransferRow.expires > now,
            )
        ).scalar()
    return None if found is None else int(found)


def qr_svg(link: str) -> str:
    """The QR code of ``link``, as an SVG document (segno): with its namespace, which an
    ``<img>`` needs to draw it (an inline fragment's ``<svg>`` without one shows nothing)."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", xmldecl=False, scale=4, dark="#111", light="#fff")  # fmt: skip
    return out.getvalue().decode()
