"""Turn notices by e-mail: a person whose turn it is at a turn-based table gets one mail per
turn, through the SMTP server the operator configured (``cradle serve --smtp-url``), if their
account opted in; each mail carries a one-time link that stops them, which works without
signing in.

The database owes the notices: whoever stores the change that begins a person's turn (a server
process, or a ``cradle bots`` worker that has no table loaded) writes the notice with it, in the
same transaction. Every server process with SMTP settings claims owed notices and sends them;
a claim removes the owed row and writes the sent one (a row per game, seat and turn, inserted
once), so no two processes send one turn's mail. A mail the SMTP server surely did not take
(it was down, or answered "later") is owed again after a back-off that doubles with each try,
for as long as the turn lasts; one it refused for good, or may have taken (the connection lost
while it answered the mail's text), is logged and never sent again: at most one mail per turn.
A notice whose seat acted before any process sent it (or whose stand-in took over, or whose
game ended) is no longer owed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gettext
import logging
import smtplib
import ssl
import time
from dataclasses import asdict, dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any, TypeVar
from urllib.parse import urlsplit

from cradle import i18n
from cradle.core.words import N_
from cradle.games import UnknownGame, get_game
from cradle.server.events import Changed
from cradle.server.metrics import MAILS
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.errors import DATABASE_ERRORS
from cradle.server.store.notices import DueMail
from cradle.server.text import email_address
from cradle.server.tokens import hash_token, new_token

log = logging.getLogger("cradle.server")

T = TypeVar("T")

SMTP_SECONDS = 30.0  # the SMTP server's answers are awaited this long
NOTICE_SECONDS = 2.0  # how often a process looks for notices other processes' changes owe


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
    # A notice the SMTP server did not take is tried again after retry_first seconds, then
    # twice as long after each try, retry_most at most, for as long as it is owed.
    retry_first: float = 30.0
    retry_most: float = 900.0

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
        if not 0 < self.retry_first <= self.retry_most:
            raise ValueError("the retries' back-off needs 0 < retry_first <= retry_most")
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


class NotSent(Exception):
    """The SMTP server did not take the mail, for sure: it could not be reached, or refused
    before the mail's text was handed over, or said so after. ``again``: trying later may
    help (a server down, a 4xx answer; not a 5xx refusal of the sender or the recipient)."""

    def __init__(self, reason: str, again: bool = True) -> None:
        super().__init__(reason)
        self.again = again


def _refused(step: str, code: int, reply: bytes | str) -> NotSent:
    words = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
    return NotSent(f"{step} refused: {code} {words[:200]}", again=400 <= code < 500)


def send_mail(settings: MailSettings, message: EmailMessage) -> None:
    """Hand ``message`` to the SMTP server (blocking: run it in a thread). :class:`NotSent`
    when the server surely did not take it (so trying again never mails twice); any other
    error may come after it took it (a connection lost while it answered the mail's text)."""
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    try:
        if settings.tls:
            smtp = smtplib.SMTP_SSL(
                settings.host, settings.port, timeout=SMTP_SECONDS, context=context
            )
        else:
            smtp = smtplib.SMTP(settings.host, settings.port, timeout=SMTP_SECONDS)
    except (OSError, smtplib.SMTPException) as exc:
        raise NotSent(f"the SMTP server cannot be reached: {exc}") from exc
    with smtp:
        try:
            if settings.starttls:
                smtp.starttls(context=context)
            if settings.user is not None and settings.password is not None:
                smtp.login(settings.user, settings.password)
            smtp.ehlo_or_helo_if_needed()
            code, reply = smtp.mail(settings.sender)
            if code != 250:
                raise _refused("the sender", code, reply)
            code, reply = smtp.rcpt(str(message["To"]))
            if code not in (250, 251):
                raise _refused("the recipient", code, reply)
        except (OSError, smtplib.SMTPException) as exc:
            # Nothing of the mail was handed over yet.
            raise NotSent(f"the SMTP server failed: {exc}") from exc
        try:
            code, reply = smtp.data(message.as_bytes(policy=message.policy.clone(linesep="\r\n")))
        except smtplib.SMTPDataError as exc:  # its answer to DATA: nothing handed over
            raise _refused("the mail", exc.smtp_code, exc.smtp_error) from exc
        if code != 250:  # its own answer to the text: it did not take the mail
            raise _refused("the mail", code, reply)


def time_words(seconds: float, words: gettext.NullTranslations | None = None) -> str:
    """A time per move as the lobby offers them: "1 hour", "6 hours", "1 day", "3 days", in
    the language of ``words`` (English by default), its plural forms by the catalogue's rule."""
    words = words or i18n.translations(i18n.SOURCE)
    hours = round(seconds / 3600)
    if hours >= 24 and hours % 24 == 0:
        days = hours // 24
        return words.ngettext("{count} day", "{count} days", days).format(count=days)
    if hours >= 1:
        return words.ngettext("{count} hour", "{count} hours", hours).format(count=hours)
    minutes = max(1, round(seconds / 60))
    return words.ngettext("{count} minute", "{count} minutes", minutes).format(count=minutes)


def turn_mail(
    settings: MailSettings, notice: DueMail, unsubscribe: str, language: str | None = None
) -> EmailMessage:
    """The mail that tells ``notice``'s seat it decides; ``unsubscribe``: its one-time code;
    ``language``: a catalogue's (cradle.i18n), else the recipient's (the account's language),
    else English."""
    if language is None:
        language = i18n.catalogue_of(notice.language or i18n.SOURCE)
    words = i18n.translations(language)
    try:
        title = get_game(notice.game).PRESENTATION.title
    except UnknownGame:  # a game this server no longer offers
        title = notice.game
    game_link = settings.link(f"play/{notice.game_id}")
    stop_link = settings.link(f"unsubscribe/{unsubscribe}")
    per_move = time_words(notice.deadline_s or 0, words)
    # The game's name for the seat (a dynasty), written as the table writes it: "Archer".
    seat = words.pgettext("player", notice.player)
    seat = seat[:1].upper() + seat[1:]
    message = EmailMessage()
    message["Subject"] = words.gettext("Your turn in {game} ({seat})").format(game=title, seat=seat)
    message["From"] = settings.sender
    # One address, whatever an older server stored (a list would mail every name in it).
    message["To"] = email_address(notice.address)
    # RFC 5322 requires it; without it some mail servers and clients date the mail themselves
    # or file it as spam.
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message["List-Unsubscribe"] = f"<{stop_link}>"
    if notice.away:
        rule = words.gettext(
            "A bot plays for you while you are away: it plays this turn when your time for it "
            '({time}) runs out, unless you play it first or press "I\'m back" at the table.'
        )
    else:
        rule = words.gettext(
            "You have {time} for each move; when the time runs out, the other players may let "
            "your stand-in bot play for you until you come back, or end the game without you."
        )
    lines = [
        words.gettext("It is your turn in the game of {game} you play as {seat}.").format(
            game=title, seat=seat
        ),
        words.gettext("Play it here: {link}").format(link=game_link),
        rule.format(time=per_move),
        words.gettext(
            "You get one mail per turn at most. To get no more of these mails: {link}"
        ).format(link=stop_link),
    ]
    message.set_content("\n\n".join(lines) + "\n")
    message["Content-Language"] = i18n.tag_of(language)  # after set_content, which drops it
    return message


@dataclass(eq=False)
class Notices:
    """Sends the turn notices the database owes (:class:`cradle.server.store.schema.DueNoticeRow`:
    written with the move that began the turn, by whichever process or ``cradle bots`` worker
    stored it). Every server process with SMTP settings runs :meth:`run`; each notice is
    claimed by one of them (:meth:`NoticeStore.claim_due`) and sent once."""

    store: Store
    runtime: Runtime
    settings: MailSettings | None
    sent: int = 0  # mails handed to the SMTP server by this process
    claimed: int = 0  # notices this process claimed (sent, or refused by the SMTP server)
    # Set when this process stored a change at a turn-based table (a notice may be owed): the
    # loop looks at once; other writers' notices are found within NOTICE_SECONDS.
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)

    def poke(self, change: Changed) -> None:
        """A table changed: if it is turn-based, look for owed notices now."""
        if self.settings is not None and change.table.mode == "turn":
            self.wakeup.set()

    async def run(self) -> None:
        """Claim and send the owed notices, then wait for a change or NOTICE_SECONDS."""
        while not self.runtime.closing:
            self.wakeup.clear()  # before looking: a change meanwhile wakes the wait below
            try:
                await self.send_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sending the turn notices failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wakeup.wait(), NOTICE_SECONDS)

    async def send_due(self) -> int:
        """Claim and send every notice owed now; how many this process sent."""
        settings = self.settings
        assert settings is not None
        sent = 0
        while not self.runtime.closing:
            code = new_token()
            try:
                notice = await self.runtime.db(
                    self.store.notices.claim_due, hash_token(code), time.time()
                )
            except DATABASE_ERRORS as exc:
                log.warning("the turn notices could not be claimed: %s", exc)
                return sent
            if notice is None:
                return sent
            self.claimed += 1
            try:
                await asyncio.to_thread(send_mail, settings, turn_mail(settings, notice, code))
            except NotSent as exc:
                MAILS.labels("failed").inc()
                if exc.again and await self.retry(notice, code):
                    continue
                log.error("game %s: the turn notice could not be sent: %s", notice.game_id, exc)
                continue
            except (OSError, smtplib.SMTPException, ValueError) as exc:
                # The server may have taken it: never tried again (one mail per turn at most).
                log.error("game %s: the turn notice could not be sent: %s", notice.game_id, exc)
                MAILS.labels("failed").inc()
                continue
            MAILS.labels("sent").inc()
            self.sent += 1
            sent += 1
        return sent

    async def retry(self, notice: DueMail, code: str) -> bool:
        """Owe ``notice`` again after a back-off (the first ``retry_first`` seconds, doubled
        with each try, ``retry_most`` at most) when the SMTP server did not take it; False when
        it is owed no more (the seat acted, the game ended) or the database failed."""
        settings = self.settings
        assert settings is not None
        wait = min(settings.retry_first * 2 ** min(notice.tries, 30), settings.retry_most)
        try:
            owed = await self.runtime.db(
                self.store.notices.retry, notice, hash_token(code), time.time() + wait
            )
        except DATABASE_ERRORS as exc:
            log.warning("game %s: the turn notice cannot be retried: %s", notice.game_id, exc)
            return False
        if owed:
            MAILS.labels("retried").inc()
            log.warning(
                "game %s: the SMTP server did not take the turn notice (try %d); again in %.0f s",
                notice.game_id,
                notice.tries + 1,
                wait,
            )
        return owed


# The mails about an account (whole sentences with named placeholders, gettext messages said
# in the recipient's language): each kind's subject and body.
ACCOUNT_MAILS: dict[str, tuple[str, str]] = {
    "reset": (
        N_("Choose a new password for {name}"),
        N_(
            "Someone, hopefully you, asked to reset the password of the account {name}.\n\n"
            "To choose a new password, open this link within an hour: {link}\n\n"
            "The link works once, and using it signs the account out on every device. If you "
            "did not ask for it, ignore this mail: your password stays as it is.\n"
        ),
    ),
    "verify": (
        N_("Confirm your e-mail address for {name}"),
        N_(
            "To confirm that {email} is the address of the account {name}, open this link "
            "within a day: {link}\n\n"
            "Until then no turn notices or invitations are mailed to this address. If you did "
            "not give this address, ignore this mail.\n"
        ),
    ),
    "invite": (
        N_("{sender} invites you to a game of {title}"),
        N_(
            "{sender} invites you to take a seat at a table of {title}.\n\n"
            "Take the seat or decline in your inbox: {link}\n\n"
            "To get no more invitation mails, turn them off on your account page: {account}\n"
        ),
    ),
}


def account_mail(
    settings: MailSettings, kind: str, to: str, language: str | None = None, **params: str
) -> EmailMessage:
    """The mail of ``kind`` (:data:`ACCOUNT_MAILS`) to the address ``to`` in ``language`` (the
    recipient's account's BCP 47 tag; English without one), its placeholders filled with
    ``params``."""
    catalogue = i18n.catalogue_of(language or i18n.SOURCE)
    words = i18n.translations(catalogue)
    subject, body = ACCOUNT_MAILS[kind]
    message = EmailMessage()
    message["Subject"] = words.gettext(subject).format(**params)
    message["From"] = settings.sender
    message["To"] = to
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message.set_content(words.gettext(body).format(**params))
    message["Content-Language"] = i18n.tag_of(catalogue)  # after set_content, which drops it
    return message


class Outbox:
    """Mails about accounts (a reset link, an address check, a friend's invitation), sent at
    once in the background: the request that causes one never waits for the SMTP server, so
    its answer and its time say nothing of whether a mail went. A mail the SMTP server refuses
    is logged; the person may ask again. The codes in them are stored only as hashes, so a mail
    is never kept to be sent later."""

    def __init__(self, runtime: Runtime, settings: MailSettings | None) -> None:
        self.runtime = runtime
        self.settings = settings
        self.sent = 0

    @property
    def on(self) -> bool:
        return self.settings is not None

    def link(self, fragment: str) -> str:
        assert self.settings is not None
        return self.settings.link(fragment)

    def send(self, kind: str, to: str, language: str | None, **params: str) -> None:
        """Send the mail of ``kind`` to ``to`` in ``language`` (the recipient's) in the
        background (nothing without SMTP)."""
        settings = self.settings
        if settings is None:
            return
        message = account_mail(settings, kind, to, language, **params)
        self.runtime.spawn(self._send(settings, message, kind))

    async def _send(self, settings: MailSettings, message: EmailMessage, kind: str) -> None:
        try:
            await asyncio.to_thread(send_mail, settings, message)
        except (OSError, smtplib.SMTPException, ValueError) as exc:
            log.error("a mail (%s) could not be sent: %s", kind, exc)
            return
        self.sent += 1
