"""Turn notices by e-mail: a person whose turn it is at a turn-based table gets one mail per
turn, through the SMTP server the operator configured (``cradle serve --smtp-url``), if their
account opted in; each mail carries a one-time link that stops them, which works without
signing in.

A notice is claimed in the database before it is sent (:meth:`Storage.claim_turn_notice`: a
row per game, seat and turn, inserted once), so two processes that both see the turn pass never
send two mails for it; a mail the SMTP server refuses is logged and not tried again (at most
one mail per turn, never two).
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

from cradle.server.storage import DATABASE_ERRORS, Storage
from cradle.server.tables import Table
from cradle.server.tokens import hash_token, new_token

log = logging.getLogger("cradle.server")

T = TypeVar("T")

SMTP_SECONDS = 30.0  # the SMTP server's answers are awaited this long
GAME_TITLES = {"tigris": "Tigris & Euphrates", "gheos": "Gheos"}


@dataclass(frozen=True)
class MailSettings:
    """Where turn notices go out: the SMTP server (``smtp://host:port``, or ``smtps://`` for
    TLS from the start), its user and password, whether to upgrade with STARTTLS, the sender
    address, and the server's public address for the links in the mails."""

    url: str
    sender: str
    public_url: str
    user: str | None = None
    password: str | None = None
    starttls: bool = False

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError(
                f"an SMTP URL is smtp://HOST:PORT or smtps://HOST:PORT, not {self.url!r}"
            )
        try:
            parts.port  # noqa: B018 (a port out of range raises here)
        except ValueError:
            raise ValueError(f"the SMTP URL's port is not a port: {self.url!r}") from None
        if "@" not in self.sender or any(c in self.sender for c in "\r\n<> "):
            raise ValueError(f"the sender address is not an address: {self.sender!r}")
        public = urlsplit(self.public_url)
        if public.scheme not in ("http", "https") or not public.netloc:
            raise ValueError(f"the public URL is http(s)://HOST[:PORT], not {self.public_url!r}")
        if self.starttls and parts.scheme == "smtps":
            raise ValueError("smtps:// is TLS from the start: STARTTLS is for smtp://")
        if (self.user is None) != (self.password is None):
            raise ValueError("an SMTP user needs a password, and a password a user")

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        return parts.port or (465 if parts.scheme == "smtps" else 25)

    @property
    def tls(self) -> bool:
        return urlsplit(self.url).scheme == "smtps"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MailSettings:
        return cls(**data)

    def link(self, fragment: str) -> str:
        """A link to the web client's screen ``fragment`` (``play/GAME``, ``unsubscribe/CODE``)."""
        return f"{self.public_url.rstrip('/')}/#/{fragment}"


def send_mail(settings: MailSettings, message: EmailMessage) -> None:
    """Hand ``message`` to the SMTP server (blocking: run it in a thread)."""
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if settings.tls:
        smtp = smtplib.SMTP_SSL(settings.host, settings.port, timeout=SMTP_SECONDS, context=context)
    else:
        smtp = smtplib.SMTP(settings.host, settings.port, timeout=SMTP_SECONDS)
    with smtp:
        if settings.starttls:
            smtp.starttls(context=context)
        if settings.user is not None and settings.password is not None:
            smtp.login(settings.user, settings.password)
        smtp.send_message(message)


def turn_mail(
    settings: MailSettings, to: str, table: Table, seat: int, unsubscribe: str
) -> EmailMessage:
    """The mail that tells ``seat`` it decides at ``table``; ``unsubscribe``: its one-time code."""
    title = GAME_TITLES.get(table.game, table.game)
    player = table.record.players[seat]
    game_link = settings.link(f"play/{table.id}")
    stop_link = settings.link(f"unsubscribe/{unsubscribe}")
    hours = (table.deadline_s or 0) / 3600
    message = EmailMessage()
    message["Subject"] = f"Your turn in {title} ({player})"
    message["From"] = settings.sender
    message["To"] = to
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message["List-Unsubscribe"] = f"<{stop_link}>"
    message.set_content(
        f"It is your turn in the game of {title} you play as {player}.\n\n"
        f"Play it here: {game_link}\n\n"
        f"You have {hours:g} hours for each move; when the time runs out, the other players "
        "may let your stand-in bot play your turn, or end the game without you.\n\n"
        f"You get one mail per turn at most. To get no more of these mails: {stop_link}\n"
    )
    return message


class NoticesHost(Protocol):
    """What the turn notices need of the server (the hub is one)."""

    @property
    def storage(self) -> Storage: ...

    @property
    def closing(self) -> bool: ...

    async def db(self, function: Callable[..., T], *args: Any) -> T: ...


def turn_start(table: Table) -> int:
    """The move number at which the seat deciding now began its turn (a turn of several
    actions, as in Tigris, is one turn): with the game and seat, it names the turn."""
    seat = table.to_move()
    start = table.ply
    while start > 0 and table.action_seats[start - 1] == seat:
        start -= 1
    return start


class Notices:
    """Sends the turn notices of the turn-based tables this process sees change."""

    def __init__(self, host: NoticesHost, settings: MailSettings | None) -> None:
        self.host = host
        self.settings = settings
        self.sent = 0  # mails handed to the SMTP server by this process
        self.seen: set[tuple[str, int, int]] = set()  # turns this process looked at
        # The turns to mail, sent in order by one task of the server's own (a request's task
        # may be cancelled once it has answered).
        self.waiting: asyncio.Queue[tuple[Table, int, int]] = asyncio.Queue()

    async def run(self) -> None:
        """Send the notices of the turns :meth:`consider` found, one after the other."""
        while not self.host.closing:
            table, seat, turn = await self.waiting.get()
            try:
                await self._send(table, seat, turn)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("game %s: the turn notice failed", table.id)

    def consider(self, table: Table) -> None:
        """``table`` changed: if a person's turn began at a turn-based table, mail them (once)."""
        if self.settings is None or table.mode != "turn" or table.ended is not None:
            return
        seat = table.to_move()
        if seat is None or table.bot_turn() or table.seats[seat] != "human":
            return
        if not table.claimed.get(seat, True):
            return
        turn = (table.id, seat, turn_start(table))
        if turn in self.seen:
            return
        if len(self.seen) > 10000:
            self.seen.clear()
        self.seen.add(turn)
        self.waiting.put_nowait((table, seat, turn[2]))

    async def _send(self, table: Table, seat: int, turn: int) -> None:
        settings = self.settings
        assert settings is not None
        code = new_token()
        try:
            address = await self.host.db(
                self.host.storage.claim_turn_notice, table.id, seat, turn, hash_token(code),
                time.time(),
            )  # fmt: skip
        except DATABASE_ERRORS as exc:
            log.warning("game %s: the turn notice could not be claimed: %s", table.id, exc)
            return
        if address is None:
            return  # no opted-in account holds the seat, or another process sent it
        try:
            message = turn_mail(settings, address, table, seat, code)
            await asyncio.to_thread(send_mail, settings, message)
        except (OSError, smtplib.SMTPException, ValueError) as exc:
            log.error("game %s: the turn notice could not be sent: %s", table.id, exc)
            return
        self.sent += 1
