"""A real SMTP server for the tests (aiosmtpd, on a free port of the loopback) that keeps
every mail it receives."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

from tests.helpers import waiting
from tests.helpers.app import client_of
from tests.helpers.e2e import wait_until
from tests.helpers.server import free_port

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

    from cradle.server.mail import MailSettings


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

    def wait(self, count: int, seconds: float = 180.0) -> list[EmailMessage]:
        """The first ``count`` mails, once they arrived (AssertionError after ``seconds``):
        generously, as ``wait_for`` (a loaded machine mails late; the wait ends at once)."""
        deadline = time.monotonic() + seconds
        pause = waiting.pauses()
        while True:
            with self.lock:
                if len(self.mails) >= count:
                    return [mail for _sender, _to, mail in self.mails[:count]]
            assert time.monotonic() < deadline, f"{len(self.mails)} mails of {count} came"
            time.sleep(next(pause))


class _Handler:
    def __init__(self, inbox: Inbox, refusals: list[str]) -> None:
        self.inbox = inbox
        self.refusals = refusals

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        if self.refusals:  # the answers to the first mails: not taken
            return self.refusals.pop(0)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        with self.inbox.lock:
            self.inbox.mails.append((envelope.mail_from, list(envelope.rcpt_tos), parsed))
        return "250 OK"


PUBLIC = "https://cradle.example/"  # the public address of the servers that mail in tests


def mail_settings(url: str, **given: Any) -> MailSettings:
    """The MailSettings of a server that mails through the SMTP server at ``url``."""
    from cradle.server.mail import MailSettings

    return MailSettings(url=url, sender="cradle@example.org", public_url=PUBLIC, **given)


@contextmanager
def mailing_app(db_url: str) -> Iterator[tuple[Any, TestClient, Inbox]]:
    """An app on ``db_url`` that mails through a real SMTP server (cheap password hashes, no
    analyses of finished games), started: the app, its client and the inbox."""
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    with smtp_server() as inbox:
        limits = Limits(analyse_finished=False, password_kib=64)
        app = create_app(db_url, bot_delay=0, limits=limits, mail=mail_settings(inbox.url))
        with client_of(app) as client:
            yield app, client, inbox


@contextmanager
def smtp_server(
    user: str | None = None,
    password: str | None = None,
    port: int | None = None,
    refusals: tuple[str, ...] = (),
) -> Iterator[Inbox]:
    """An SMTP server on a free loopback port (or ``port``); with ``user``, it asks for that
    login; ``refusals``: its answers to the first mails' text (which it does not keep)."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    inbox = Inbox("127.0.0.1", port or free_port())

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
        controller = Controller(
            _Handler(inbox, list(refusals)), hostname=inbox.host, port=inbox.port, **options
        )
        controller.start()
    try:
        yield inbox
    finally:
        controller.stop()


# -- turn-based tables of two people, for the mail tests -------------------------------------


def csrf(client: TestClient) -> dict[str, str]:
    found = client.get("/api/me").json()["csrf"]
    return {"X-CSRF-Token": found} if found else {}


def table_of_two(app: Any, ann: TestClient, bob: TestClient, **body: Any) -> tuple[str, list[str]]:
    """A turn-based table of Ann (seat 0) and Bob (seat 1, joined by invite): id and tokens."""
    made = ann.post(
        "/api/games",
        json={"game": "tigris", "players": 2, "seats": ["human", "human"], "mode": "turn",
              "deadline_s": 3600, "private": True, **body},
        headers=csrf(ann),
    )  # fmt: skip
    assert made.status_code == 200, made.text
    created = made.json()
    joined = bob.post(
        f"/api/games/{created['id']}/join",
        json={"invite": created["seats"][1]["invite"]},
        headers=csrf(bob),
    )
    assert joined.status_code == 200, joined.text
    return created["id"], [created["seats"][0]["token"], joined.json()["token"]]


def play_until_turn_passes(client: TestClient, game_id: str, tokens: list[str]) -> int:
    """Moves by whoever decides until another seat's turn begins; that seat."""
    first = client.get(f"/api/games/{game_id}").json()["to_move"]
    while True:
        frame = client.get(f"/api/games/{game_id}", headers={"Authorization": f"Bearer {tokens[first]}"}).json()  # fmt: skip
        if frame["to_move"] != first:
            seat: int = frame["to_move"]
            return seat
        action = frame["legal_actions"][0]
        answer = client.post(
            f"/api/games/{game_id}/actions",
            json={"action": action},
            headers={"Authorization": f"Bearer {tokens[first]}"},
        )
        assert answer.status_code == 200, answer.text


def mailed_link(inbox: Inbox, to: str, screen: str, count: int) -> str:
    """The link to ``screen`` in the ``count``-th mail to ``to``, once it came."""

    def mails() -> list[Any]:
        return [mail for _sender, rcpt, mail in inbox.mails if rcpt == [to]]

    wait_until(lambda: len(mails()) >= count, 30)
    found = re.search(rf"(http://\S+/#/{screen}/\S+)", mails()[count - 1].get_content())
    assert found is not None, mails()[count - 1].get_content()
    return found.group(1)
