"""A real SMTP server for the tests (aiosmtpd, on a free port of the loopback) that keeps
every mail it receives."""

from __future__ import annotations

import email
import email.policy
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from tests.helpers import waiting
from tests.helpers.server import free_port


@dataclass
class Inbox:
    """What the SMTP server received: each mail with its envelope."""

    host: str
    port: int
    mails: list[tuple[str, list[str], EmailMessage]] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"smtp://{self.host}:{self.port}"

    def wait(self, count: int, seconds: float = 30.0) -> list[EmailMessage]:
        """The first ``count`` mails, once they arrived (AssertionError after ``seconds``)."""
        deadline = time.monotonic() + seconds
        pause = waiting.pauses()
        while True:
            with self.lock:
                if len(self.mails) >= count:
                    return [mail for _sender, _to, mail in self.mails[:count]]
            assert time.monotonic() < deadline, f"{len(self.mails)} mails of {count} came"
            time.sleep(next(pause))


class _Handler:
    def __init__(self, inbox: Inbox) -> None:
        self.inbox = inbox

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        with self.inbox.lock:
            self.inbox.mails.append((envelope.mail_from, list(envelope.rcpt_tos), parsed))
        return "250 OK"


@contextmanager
def smtp_server(user: str | None = None, password: str | None = None) -> Iterator[Inbox]:
    """An SMTP server on a free loopback port; with ``user``, it asks for that login."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    inbox = Inbox("127.0.0.1", free_port())

    def authenticate(_server: Any, _session: Any, _envelope: Any, _mechanism: str,
                     data: Any) -> AuthResult:  # fmt: skip
        ok = (
            isinstance(data, LoginPassword)
            and data.login.decode() == user
            and data.password.decode() == password
        )
        if ok:
            inbox.logins.append(data.login.decode())
        return AuthResult(success=ok, handled=False)  # a refusal answers 535

    options: dict[str, Any] = {}
    if user is not None:
        # On the loopback only: no TLS.
        options = {"authenticator": authenticate, "auth_required": True,
                   "auth_require_tls": False}  # fmt: skip
    with warnings.catch_warnings():  # "AUTH without TLS": the loopback, in a test
        warnings.simplefilter("ignore", UserWarning)
        controller = Controller(_Handler(inbox), hostname=inbox.host, port=inbox.port, **options)
        controller.start()
    try:
        yield inbox
    finally:
        controller.stop()
