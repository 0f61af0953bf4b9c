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
from cradle.server.storage import DueMail
from tests.helpers.mail import smtp_server
from tests.helpers.server import GAMES, create, token_of, wait_for

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


def notice(address: str, seat: int = 1, deadline_s: float = 7200) -> DueMail:
    return DueMail("g123", "tigris", seat, 0, ["Archer", "Bull"][seat], deadline_s, address)


def test_a_turn_notice_reaches_the_smtp_server_with_its_links() -> None:
    with smtp_server() as inbox:
        mail = settings(inbox.url)
        send_mail(mail, turn_mail(mail, notice("ann@example.org"), "CODE123"))
        [received] = inbox.wait(1)
    assert inbox.mails[0][1] == ["ann@example.org"]
    assert received["From"] == "cradle@example.org"
    assert received["Subject"] == "Your turn in Tigris & Euphrates (Bull)"
    body = received.get_content()
    assert "https://cradle.example/#/play/g123" in body
    assert "https://cradle.example/#/unsubscribe/CODE123" in body
    assert "2 hours for each move" in body
    assert received["List-Unsubscribe"] == "<https://cradle.example/#/unsubscribe/CODE123>"


def test_the_smtp_login_is_used_when_configured() -> None:
    with smtp_server(user="cradle", password="s3cret") as inbox:
        wrong = settings(inbox.url, user="cradle", password="nope")
        with pytest.raises(Exception, match=r"535|uthentication"):
            send_mail(wrong, turn_mail(wrong, notice("ann@example.org", 0), "C"))
        right = settings(inbox.url, user="cradle", password="s3cret")
        send_mail(right, turn_mail(right, notice("ann@example.org", 0), "C"))
        inbox.wait(1)
    assert inbox.logins == ["cradle"]


def test_an_unknown_stop_link_is_refused(client: TestClient) -> None:
    answer = client.post("/api/mail/stop", json={"code": "no-such-code"})
    assert answer.status_code == 404 and "unknown or was used" in answer.json()["error"]
    answer = client.post("/api/mail/stop", json={"code": 5})
    assert answer.status_code == 400


# -- notices at turn-based tables, sent through a real SMTP server ----------------------------

PASSWORD = "correct horse battery"


def csrf(client: TestClient) -> dict[str, str]:
    found = client.get("/api/me").json()["csrf"]
    return {"X-CSRF-Token": found} if found else {}


def person(app: Any, name: str, address: str | None) -> TestClient:
    """A browser of ``app`` signed up as ``name``, wanting turn notices at ``address``."""
    browser = TestClient(app)
    assert browser.post("/api/accounts", json={"name": name, "password": PASSWORD}).is_success
    if address is not None:
        answer = browser.patch(
            "/api/me", json={"email": address, "turn_mail": True}, headers=csrf(browser)
        )
        assert answer.status_code == 200, answer.text
    return browser


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


def stop_code(mail: Any) -> str:
    link: str = mail["List-Unsubscribe"].strip("<>")
    return link.rsplit("/", 1)[1]


def test_each_turn_is_mailed_once_and_the_link_stops_the_mails(any_db_url: str) -> None:
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    with smtp_server() as inbox:
        app = create_app(
            any_db_url, bot_delay=0, limits=Limits(analyse_finished=False),
            mail=settings(inbox.url),
        )  # fmt: skip
        with TestClient(app) as client:
            ann = person(app, "Ann", "ann@example.org")
            bob = person(app, "Bob", "bob@example.org")
            address = {0: "ann@example.org", 1: "bob@example.org"}
            game_id, tokens = table_of_two(app, ann, bob)
            # Everyone is seated: Ann, if she decides first, is mailed (Bob just joined).
            first = client.get(f"/api/games/{game_id}").json()["to_move"]
            if first == 1:
                second = play_until_turn_passes(client, game_id, tokens)
                assert second == 0
                first = 0  # from here on as if Ann began
            [mail] = inbox.wait(1)
            assert mail["To"] == address[first] == "ann@example.org"
            assert f"#/play/{game_id}" in mail.get_content()
            # A turn of several actions is one turn: one mail, when the next one begins.
            second = play_until_turn_passes(client, game_id, tokens)
            mails = inbox.wait(2)
            assert [m["To"] for m in mails] == [address[first], address[second]]
            # The link stops the mails of its account, once, without signing in.
            stranger = TestClient(app)
            assert stranger.post("/api/mail/stop", json={"code": stop_code(mails[1])}).is_success
            again = stranger.post("/api/mail/stop", json={"code": stop_code(mails[1])})
            assert again.status_code == 404
            mine = ann if second == 0 else bob
            assert mine.get("/api/me").json()["account"]["turn_mail"] is False
            # The unsubscribed seat's next turn is not mailed; the other's is.
            back = play_until_turn_passes(client, game_id, tokens)
            assert back == first
            assert inbox.wait(3)[2]["To"] == address[first]
            play_until_turn_passes(client, game_id, tokens)
            play_until_turn_passes(client, game_id, tokens)
            assert inbox.wait(4)[3]["To"] == address[first]
            hub = client.app.state.hub  # type: ignore[attr-defined]
            wait_for(lambda: hub.storage.due_notices() == [], 30)
            assert hub.notices.sent == 4 and len(inbox.mails) == 4
            assert all(m[1] == [m[2]["To"]] for m in inbox.mails)


def test_guests_and_live_tables_get_no_mail(db_url: str) -> None:
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    with smtp_server() as inbox:
        app = create_app(
            db_url, bot_delay=0, limits=Limits(analyse_finished=False), mail=settings(inbox.url)
        )
        with TestClient(app) as client:
            guest = create(client, players=2, seats=["human", "human"], mode="turn")
            hub = client.app.state.hub  # type: ignore[attr-defined]
            to_move = client.get(f"/api/games/{guest['id']}").json()["to_move"]
            play_until_turn_passes(client, guest["id"], [token_of(guest, seat) for seat in (0, 1)])
            assert to_move is not None and hub.storage.due_notices() == []  # no mail is owed
            ann = person(app, "Ann", "ann@example.org")
            bob = person(app, "Bob", "bob@example.org")
            live, _tokens = table_of_two(app, ann, bob, mode="live", deadline_s=None)
            # A turn-based table's notice afterwards arrives alone: the live one sent none.
            table_of_two(app, ann, bob)
            [mail] = inbox.wait(1)
            assert "#/play/" in mail.get_content() and live not in mail.get_content()
            wait_for(lambda: hub.notices.sent == 1, 30)
            assert len(inbox.mails) == 1


def test_two_processes_never_mail_one_turn_twice(postgres_url: str) -> None:
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    with smtp_server() as inbox:

        def app() -> Any:
            return create_app(
                postgres_url, bot_delay=0, limits=Limits(analyse_finished=False),
                mail=settings(inbox.url),
            )  # fmt: skip

        one_app, two_app = app(), app()
        with TestClient(one_app) as one, TestClient(two_app) as two:
            ann = person(one_app, "Ann", "ann@example.org")
            bob = person(one_app, "Bob", "bob@example.org")
            game_id, tokens = table_of_two(one_app, ann, bob)
            two.get(f"/api/games/{game_id}")  # the second process serves the table too
            if one.get(f"/api/games/{game_id}").json()["to_move"] == 1:  # Bob, who just joined
                play_until_turn_passes(two, game_id, tokens)
            inbox.wait(1)
            turns = 1
            for _ in range(3):  # each process plays some turns; each turn's mail is awaited
                play_until_turn_passes(one, game_id, tokens)
                inbox.wait(turns + 1)
                play_until_turn_passes(two, game_id, tokens)
                turns += 2
                inbox.wait(turns)
            hubs = [c.app.state.hub for c in (one, two)]  # type: ignore[attr-defined]
            # Both look for owed notices; the claims in the database made one mail of each.
            wait_for(lambda: hubs[0].storage.due_notices() == [], 30)
            assert sum(hub.notices.claimed for hub in hubs) == turns
            assert sum(hub.notices.sent for hub in hubs) == turns
            assert len(inbox.mails) == turns
