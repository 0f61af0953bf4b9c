"""Accounts people trust (docs/server.md, "Accounts"), on SQLite and PostgreSQL, with a real SMTP
server (aiosmtpd): an address is checked before any mail goes to it, a password is reset by a
one-time mailed link (hashed, an hour, once; every session ends; the same answer whether or not
the account exists; limited per address and per account), the devices signed out are told
why, and an account's data comes out whole."""

from __future__ import annotations

import json
import re
import time
import warnings
from typing import Any

import pytest
from sqlalchemy import select, update

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.store.schema import EmailCheckRow, PasswordResetRow
from cradle.server.tokens import hash_token
from tests.helpers.mail import PUBLIC, Inbox, csrf, mailing_app
from tests.helpers.server import GAMES, wait_for

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

PASSWORD = "correct horse battery"


def link_code(mail: Any, screen: str) -> str:
    found = re.search(rf"{re.escape(PUBLIC)}#/{screen}/(\S+)", mail.get_content())
    assert found is not None, mail.get_content()
    return found.group(1)


def sign_up(app: Any, name: str, email: str | None = None) -> TestClient:
    browser = TestClient(app)
    body: dict[str, Any] = {"name": name, "password": PASSWORD}
    if email is not None:
        body["email"] = email
    answer = browser.post("/api/accounts", json=body)
    assert answer.status_code == 200, answer.text
    return browser


def checked_ann(app: Any, client: TestClient, inbox: Inbox) -> TestClient:
    """Ann's browser, signed up with her address, which she checked by the mailed link."""
    ann = sign_up(app, "Ann", "ann@example.org")
    client.post(f"/api/email-verification/{link_code(inbox.wait(1)[0], 'verify')}")
    return ann


def test_an_address_is_checked_before_any_mail_goes_to_it(
    mailing: tuple[Any, TestClient, Inbox],
) -> None:
    app, client, inbox = mailing
    ann = sign_up(app, "Ann", "ann@example.org")
    me = ann.get("/api/me").json()["account"]
    assert me["email"] == "ann@example.org" and me["email_verified"] is False
    [check] = inbox.wait(1)
    assert check["To"] == "ann@example.org" and check["Date"]
    assert check["Subject"] == "Confirm your e-mail address for Ann"
    code = link_code(check, "verify")
    hub = client.app.state.hub  # type: ignore[attr-defined]
    with hub.store.database.engine.connect() as connection:
        stored = connection.execute(select(EmailCheckRow.code)).scalars().all()
    assert stored == [hash_token(code)]  # only its hash is kept
    # The link works without signing in, once.
    stranger = TestClient(app)
    assert stranger.post(f"/api/email-verification/{code}").json() == {"email": "ann@example.org"}
    assert stranger.post(f"/api/email-verification/{code}").status_code == 403
    assert ann.get("/api/me").json()["account"]["email_verified"] is True
    # A new address is unchecked again: a fresh check goes to it, the old link is void.
    changed = ann.patch("/api/me", json={"email": "ann@new.example"}, headers=csrf(ann))
    assert changed.json()["account"]["email_verified"] is False
    second = inbox.wait(2)[1]
    assert second["To"] == "ann@new.example"
    # Asking again sends a new check, whose link replaces the last one's.
    assert ann.post("/api/me/verify", headers=csrf(ann)).json() == {"asked": True}
    third = inbox.wait(3)[2]
    assert (
        stranger.post(f"/api/email-verification/{link_code(second, 'verify')}").status_code == 403
    )
    assert stranger.post(f"/api/email-verification/{link_code(third, 'verify')}").status_code == 200
    assert ann.post("/api/me/verify", headers=csrf(ann)).status_code == 409  # verified already
    # A check of an address the account no longer has verifies nothing.
    bob = sign_up(app, "Bob", "bob@one.example")
    first = inbox.wait(4)[3]
    bob.patch("/api/me", json={"email": "bob@two.example"}, headers=csrf(bob))
    assert inbox.wait(5)[4]["To"] == "bob@two.example"
    assert stranger.post(f"/api/email-verification/{link_code(first, 'verify')}").status_code == 403
    # Three checks an hour per account: the fourth is not sent, and the answer is the same.
    assert bob.post("/api/me/verify", headers=csrf(bob)).json() == {"asked": True}
    inbox.wait(6)
    assert bob.post("/api/me/verify", headers=csrf(bob)).json() == {"asked": True}
    time.sleep(0.5)
    assert len(inbox.mails) == 6


def test_turn_notices_wait_for_the_check(any_db_url: str) -> None:
    """A turn-based game's notice goes to a checked address only."""
    from tests.helpers.mail import play_until_turn_passes, table_of_two

    with mailing_app(any_db_url) as (app, client, inbox):
        ann = sign_up(app, "Ann", "ann@example.org")
        bob = sign_up(app, "Bob", "bob@example.org")
        checks = inbox.wait(2)
        for browser in (ann, bob):
            answer = browser.patch("/api/me", json={"turn_mail": True}, headers=csrf(browser))
            assert answer.status_code == 200
        bob_check = next(m for m in checks if m["To"] == "bob@example.org")
        assert client.post(f"/api/email-verification/{link_code(bob_check, 'verify')}").is_success
        game_id, tokens = table_of_two(app, ann, bob)
        # Whoever begins, only Bob's turns are mailed: Ann's address is unchecked.
        for _ in range(3):
            play_until_turn_passes(client, game_id, tokens)
        wait_for(lambda: len(inbox.mails) >= 3, 30)
        time.sleep(0.5)
        turns = [m for _f, _t, m in inbox.mails[2:]]
        assert turns and all(m["To"] == "bob@example.org" for m in turns)


def test_a_password_is_reset_by_a_one_time_mailed_link(
    mailing: tuple[Any, TestClient, Inbox],
) -> None:
    app, client, inbox = mailing
    ann = checked_ann(app, client, inbox)
    phone = TestClient(app)
    assert phone.post("/api/session", json={"name": "ann", "password": PASSWORD}).is_success
    stranger = TestClient(app)
    # By name (any case) or by address: the same answer, and the same for nobody.
    for body in ({"name": "ANN"}, {"email": "nobody@example.org"}, {"name": "Nobody"}):
        answer = stranger.post("/api/password-reset", json=body)
        assert answer.status_code == 200 and answer.json() == {"asked": True}
    [_check, reset] = inbox.wait(2)
    time.sleep(0.3)
    assert len(inbox.mails) == 2  # nobody's requests mailed nothing
    assert reset["To"] == "ann@example.org" and reset["Subject"] == "Choose a new password for Ann"
    code = link_code(reset, "reset")
    hub = client.app.state.hub  # type: ignore[attr-defined]
    with hub.store.database.engine.connect() as connection:
        assert connection.execute(select(PasswordResetRow.code)).scalars().all() == [
            hash_token(code)
        ]
    # Too short a password changes nothing and leaves the link working.
    assert stranger.post(f"/api/password-reset/{code}", json={"password": "x"}).status_code == 400
    done = stranger.post(f"/api/password-reset/{code}", json={"password": "a brand new one"})
    assert done.status_code == 200 and done.json()["account"]["name"] == "Ann"
    assert stranger.get("/api/me").json()["account"]["name"] == "Ann"  # signed in here
    # Every other session ended, and each device is told why, once.
    for device in (ann, phone):
        told = device.get("/api/me").json()
        assert told == {"account": None, "csrf": None, "ended": "reset"}
        assert device.get("/api/me").json() == {"account": None, "csrf": None}
    # The link works once; the new password signs in, the old one does not.
    again = TestClient(app).post(f"/api/password-reset/{code}", json={"password": "another one"})
    assert again.status_code == 403
    assert phone.post("/api/session", json={"name": "Ann", "password": PASSWORD}).status_code == 401
    signed = phone.post("/api/session", json={"name": "Ann", "password": "a brand new one"})
    assert signed.status_code == 200


def test_a_reset_link_lapses_after_an_hour_and_a_change_voids_it(
    mailing: tuple[Any, TestClient, Inbox],
) -> None:
    app, client, inbox = mailing
    ann = checked_ann(app, client, inbox)
    client.post("/api/password-reset", json={"email": "ANN@example.org"})
    code = link_code(inbox.wait(2)[1], "reset")
    hub = client.app.state.hub  # type: ignore[attr-defined]
    with hub.store.database.transaction() as connection:
        connection.execute(update(PasswordResetRow).values(expires=time.time() - 1))
    lapsed = client.post(f"/api/password-reset/{code}", json={"password": "a brand new one"})
    assert lapsed.status_code == 403 and "within the hour" in lapsed.json()["error"]
    # A password changed while a link is out makes the link void.
    client.post("/api/password-reset", json={"name": "Ann"})
    code = link_code(inbox.wait(3)[2], "reset")
    changed = ann.post(
        "/api/me/password",
        json={"password": PASSWORD, "new_password": "changed meanwhile"},
        headers=csrf(ann),
    )
    assert changed.status_code == 200
    used = client.post(f"/api/password-reset/{code}", json={"password": "a brand new one"})
    assert used.status_code == 403


def test_no_reset_mail_goes_to_an_unchecked_address_or_over_the_limits(
    mailing: tuple[Any, TestClient, Inbox],
) -> None:
    app, client, inbox = mailing
    sign_up(app, "Ann", "ann@example.org")
    inbox.wait(1)
    assert client.post("/api/password-reset", json={"name": "Ann"}).json() == {"asked": True}
    time.sleep(0.3)
    assert len(inbox.mails) == 1  # the check only: the address was not checked
    client.post(f"/api/email-verification/{link_code(inbox.mails[0][2], 'verify')}")
    # Three mails an hour per account, and as many per address; the answer never changes.
    for _ in range(5):
        assert client.post("/api/password-reset", json={"name": "Ann"}).json() == {"asked": True}
    inbox.wait(4)
    time.sleep(0.3)
    assert len(inbox.mails) == 4
    assert client.post("/api/password-reset", json={"email": "ann@example.org"}).status_code == 200
    time.sleep(0.3)
    assert len(inbox.mails) == 4
    # A client asking too often is told to wait (it learns nothing of any account).
    answers = [
        client.post("/api/password-reset", json={"name": f"Someone{n}"}).status_code
        for n in range(12)
    ]
    assert 429 in answers
    bad = client.post("/api/password-reset", json={"name": "Ann", "email": "ann@example.org"})
    assert bad.status_code in (400, 429)


def test_a_password_change_tells_the_other_devices(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, _client, _inbox = mailing
    laptop = sign_up(app, "Ann")
    phone = TestClient(app)
    assert phone.post("/api/session", json={"name": "Ann", "password": PASSWORD}).is_success
    with phone.websocket_connect("/ws/me") as socket:
        assert socket.receive_json() == {"type": "hello", "name": "Ann"}
        changed = laptop.post(
            "/api/me/password",
            json={"password": PASSWORD, "new_password": "a new secret"},
            headers=csrf(laptop),
        )
        assert changed.status_code == 200
        assert socket.receive_json() == {"type": "signed_out", "reason": "password"}
    assert phone.get("/api/me").json()["ended"] == "password"
    assert laptop.get("/api/me").json()["account"]["name"] == "Ann"


def test_an_account_exports_its_own_data(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, _client, inbox = mailing
    ann = sign_up(app, "Ann", "ann@example.org")
    bob = sign_up(app, "Bob")
    assert ann.post("/api/friends", json={"name": "Bob"}, headers=csrf(ann)).is_success
    made = ann.post(
        "/api/games",
        json={"game": "tigris", "players": 2, "seats": ["human", "bot:random"]},
        headers=csrf(ann),
    ).json()
    token = made["seats"][0]["token"]
    said = ann.post(
        f"/api/games/{made['id']}/chat",
        json={"text": "hello there"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert said.status_code == 200, said.text
    answer = ann.get("/api/me/export")
    assert answer.status_code == 200
    assert "attachment" in answer.headers["content-disposition"]
    data = answer.json()
    assert data["account"]["name"] == "Ann" and data["account"]["email"] == "ann@example.org"
    assert [g["id"] for g in data["games"]] == [made["id"]]
    assert [line["text"] for line in data["chat_lines"]] == ["hello there"]
    assert data["friends"] == [
        {
            "name": "Bob",
            "asked_by_you": True,
            "accepted": False,
            "created": data["friends"][0]["created"],
        }
    ]
    assert data["sessions"] and all("id" not in s for s in data["sessions"])
    text = json.dumps(data)
    assert "argon2" not in text and token not in text  # no password hash, no token
    assert bob.get("/api/me/export").json()["account"]["name"] == "Bob"
    assert TestClient(app).get("/api/me/export").status_code == 401
    assert inbox is not None
