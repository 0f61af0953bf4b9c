"""Turn notices by e-mail: the settings, a mail handed to a real SMTP server (aiosmtpd) with
and without a login, and the "no more mails" link's refusals."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.mail import MailSettings, send_mail, turn_mail
from tests.helpers.mail import smtp_server
from tests.helpers.server import GAMES, create

pytestmark = [
    pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine"),
    # aiosmtpd warns of a login without TLS: on the loopback, in a test, that is the point.
    pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning"),
]

PUBLIC = "https://cradle.example/"


def settings(url: str, **given: Any) -> MailSettings:
    return MailSettings(url=url, sender="cradle@example.org", public_url=PUBLIC, **given)


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"url": "http://mail:25"}, "smtp://"),
        ({"url": "smtp://"}, "smtp://"),
        ({"url": "smtp://mail:99999"}, "port"),
        ({"sender": "nobody"}, "sender"),
        ({"sender": "a@b\r\nBcc: x@y"}, "sender"),
        ({"public_url": "cradle.example"}, "public URL"),
        ({"url": "smtps://mail", "starttls": True}, "STARTTLS"),
        ({"user": "me"}, "password"),
    ],
)
def test_bad_mail_settings_are_refused(given: dict[str, Any], words: str) -> None:
    base = {"url": "smtp://mail:25", "sender": "cradle@example.org", "public_url": PUBLIC}
    with pytest.raises(ValueError, match=words):
        MailSettings(**{**base, **given})


def test_a_turn_notice_reaches_the_smtp_server_with_its_links(client: TestClient) -> None:
    created = create(client, players=2, seats=["human", "human"], mode="turn", deadline_s=7200)
    table = client.app.state.hub.tables[created["id"]]  # type: ignore[attr-defined]
    with smtp_server() as inbox:
        mail = settings(inbox.url)
        send_mail(mail, turn_mail(mail, "ann@example.org", table, 1, "CODE123"))
        [received] = inbox.wait(1)
    assert inbox.mails[0][1] == ["ann@example.org"]
    assert received["From"] == "cradle@example.org"
    assert received["Subject"].startswith("Your turn in Tigris & Euphrates")
    body = received.get_content()
    assert f"https://cradle.example/#/play/{created['id']}" in body
    assert "https://cradle.example/#/unsubscribe/CODE123" in body
    assert "2 hours for each move" in body
    assert received["List-Unsubscribe"] == "<https://cradle.example/#/unsubscribe/CODE123>"


def test_the_smtp_login_is_used_when_configured(client: TestClient) -> None:
    created = create(client, players=2, seats=["human", "human"], mode="turn")
    table = client.app.state.hub.tables[created["id"]]  # type: ignore[attr-defined]
    with smtp_server(user="cradle", password="s3cret") as inbox:
        wrong = settings(inbox.url, user="cradle", password="nope")
        with pytest.raises(Exception, match=r"535|uthentication"):
            send_mail(wrong, turn_mail(wrong, "ann@example.org", table, 0, "C"))
        right = settings(inbox.url, user="cradle", password="s3cret")
        send_mail(right, turn_mail(right, "ann@example.org", table, 0, "C"))
        inbox.wait(1)
    assert inbox.logins == ["cradle"]


def test_an_unknown_stop_link_is_refused(client: TestClient) -> None:
    answer = client.post("/api/mail/stop", json={"code": "no-such-code"})
    assert answer.status_code == 404 and "unknown or was used" in answer.json()["error"]
    answer = client.post("/api/mail/stop", json={"code": 5})
    assert answer.status_code == 400
