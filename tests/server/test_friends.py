"""Friends and blocks (docs/server.md, "Friends"), on SQLite and PostgreSQL: a request the other
accepts, who is online and their tables, an invitation by name to a seat (the inbox, a push to
an open page, a mail to a checked address that asked for them), and a block: no invitations,
no chat lines and no friend requests from the person blocked."""

from __future__ import annotations

import re
import time
import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from tests.helpers.mail import PUBLIC, Inbox, csrf
from tests.helpers.server import GAMES

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

PASSWORD = "correct horse battery"


def person(app: Any, name: str, email: str | None = None) -> TestClient:
    browser = TestClient(app)
    body: dict[str, Any] = {"name": name, "password": PASSWORD}
    if email:
        body["email"] = email
    assert browser.post("/api/accounts", json=body).status_code == 200
    return browser


def befriend(one: TestClient, other: TestClient, name_one: str, name_other: str) -> None:
    asked = one.post("/api/friends", json={"name": name_other}, headers=csrf(one))
    assert asked.json()["status"] == "asked", asked.text
    accepted = other.post("/api/friends", json={"name": name_one}, headers=csrf(other))
    assert accepted.json()["status"] == "friends", accepted.text


def names(found: list[dict[str, Any]]) -> list[str]:
    return [f["name"] for f in found]


def table(client: TestClient, seats: list[str] | None = None, **body: Any) -> dict[str, Any]:
    made = client.post(
        "/api/games",
        json={"game": "tigris", "players": 2, "seats": seats or ["human", "human"], **body},
        headers=csrf(client),
    )
    assert made.status_code == 200, made.text
    data: dict[str, Any] = made.json()
    return data


def test_a_friend_request_is_accepted_by_the_other(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, _client, _inbox = mailing
    ann, bob = person(app, "Ann"), person(app, "Bob")
    assert ann.get("/api/friends").json() == {
        "friends": [],
        "asked": [],
        "asking": [],
        "blocked": [],
    }
    asked = ann.post("/api/friends", json={"name": "bob"}, headers=csrf(ann)).json()
    assert asked["status"] == "asked" and names(asked["asked"]) == ["Bob"]
    assert names(bob.get("/api/friends").json()["asking"]) == ["Ann"]
    # Asking again changes nothing; the other's request accepts.
    assert (
        ann.post("/api/friends", json={"name": "Bob"}, headers=csrf(ann)).json()["status"]
        == "asked"
    )
    assert (
        bob.post("/api/friends", json={"name": "Ann"}, headers=csrf(bob)).json()["status"]
        == "friends"
    )
    for browser, other in ((ann, "Bob"), (bob, "Ann")):
        listed = browser.get("/api/friends").json()
        assert names(listed["friends"]) == [other] and not listed["asked"] and not listed["asking"]
    # Refusals: nobody of that name, oneself, signed out, no CSRF token.
    assert ann.post("/api/friends", json={"name": "Nobody"}, headers=csrf(ann)).status_code == 404
    assert ann.post("/api/friends", json={"name": "ANN"}, headers=csrf(ann)).status_code == 400
    assert TestClient(app).post("/api/friends", json={"name": "Ann"}).status_code == 401
    assert ann.post("/api/friends", json={"name": "Bob"}).status_code == 403
    # Either ends it.
    ended = bob.delete("/api/friends/Ann", headers=csrf(bob))
    assert ended.status_code == 200 and ended.json()["friends"] == []
    assert ann.get("/api/friends").json()["friends"] == []


def test_friends_see_who_is_online_and_their_tables(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, _client, _inbox = mailing
    ann, bob = person(app, "Ann"), person(app, "Bob")
    befriend(ann, bob, "Ann", "Bob")
    [friend] = ann.get("/api/friends").json()["friends"]
    assert friend == {"name": "Bob", "online": False, "tables": []}
    open_table = table(bob, ["human", "open"])
    table(bob, ["human", "human"], private=True)  # a private table stays private
    with bob.websocket_connect("/ws/me") as socket:
        assert socket.receive_json()["type"] == "hello"
        deadline = time.monotonic() + 10
        while not ann.get("/api/friends").json()["friends"][0]["online"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        [friend] = ann.get("/api/friends").json()["friends"]
        assert [t["id"] for t in friend["tables"]] == [open_table["id"]]
        assert friend["tables"][0]["free"] == 1 and friend["tables"][0]["status"] == "open"


def test_a_friend_is_invited_to_a_seat_by_name(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, client, inbox = mailing
    ann = person(app, "Ann")
    bob = person(app, "Bob", "bob@example.org")
    cat = person(app, "Cat")
    check = inbox.wait(1)[0]
    code = re.search(r"#/verify/(\S+)", check.get_content())
    assert code is not None and client.post(f"/api/email-verification/{code.group(1)}").is_success
    bob.patch("/api/me", json={"invite_mail": True}, headers=csrf(bob))
    befriend(ann, bob, "Ann", "Bob")
    made = table(ann, private=True)
    # Not a friend: refused; a friend: in their inbox, pushed to their open page, mailed.
    refused = ann.post(f"/api/games/{made['id']}/invite", json={"name": "Cat"}, headers=csrf(ann))
    assert refused.status_code == 403 and "friends" in refused.json()["error"]
    assert (
        cat.post(
            f"/api/games/{made['id']}/invite", json={"name": "Bob"}, headers=csrf(cat)
        ).status_code
        == 403
    )
    with bob.websocket_connect("/ws/me") as socket:
        assert socket.receive_json()["type"] == "hello"
        invited = ann.post(
            f"/api/games/{made['id']}/invite", json={"name": "bob"}, headers=csrf(ann)
        )
        assert invited.status_code == 200, invited.text
        assert invited.json() == {"id": made["id"], "seat": 1, "name": "Bob"}
        assert socket.receive_json() == {"type": "inbox"}
    [mail] = inbox.wait(2)[1:]
    assert (
        mail["To"] == "bob@example.org"
        and mail["Subject"] == "Ann invites you to a game of Tigris & Euphrates"
    )
    assert f"{PUBLIC}#/inbox" in mail.get_content()
    [entry] = bob.get("/api/me/invitations").json()["invitations"]
    assert entry["game_id"] == made["id"] and entry["sender"] == "Ann" and entry["seat"] == 1
    assert cat.get("/api/me/invitations").json()["invitations"] == []
    assert cat.post(f"/api/me/invitations/{entry['id']}", headers=csrf(cat)).status_code == 403
    # Bob takes the seat: the invite link of that seat stops working, the game begins.
    taken = bob.post(f"/api/me/invitations/{entry['id']}", headers=csrf(bob))
    assert taken.status_code == 200, taken.text
    assert taken.json()["seat"] == 1
    link = made["seats"][1]["invite"]
    assert client.post(f"/api/games/{made['id']}/join", json={"invite": link}).status_code == 403
    view = bob.get(
        f"/api/games/{made['id']}", headers={"Authorization": f"Bearer {taken.json()['token']}"}
    ).json()
    assert view["table"]["names"] == ["Ann", "Bob"] and view["table"]["status"] == "running"
    assert bob.get("/api/me/invitations").json()["invitations"] == []
    again = ann.post(f"/api/games/{made['id']}/invite", json={"name": "Bob"}, headers=csrf(ann))
    assert again.status_code == 409


def test_a_declined_invitation_goes(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, _client, _inbox = mailing
    ann, bob = person(app, "Ann"), person(app, "Bob")
    befriend(ann, bob, "Ann", "Bob")
    made = table(ann)
    ann.post(f"/api/games/{made['id']}/invite", json={"name": "Bob"}, headers=csrf(ann))
    [entry] = bob.get("/api/me/invitations").json()["invitations"]
    declined = bob.delete(f"/api/me/invitations/{entry['id']}", headers=csrf(bob))
    assert declined.status_code == 200 and declined.json()["invitations"] == []
    assert bob.post(f"/api/me/invitations/{entry['id']}", headers=csrf(bob)).status_code == 403


def test_a_blocked_person_cannot_invite_chat_or_ask(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, _client, _inbox = mailing
    ann, bob = person(app, "Ann"), person(app, "Bob")
    befriend(ann, bob, "Ann", "Bob")
    made = table(bob)  # Bob's table; he invites Ann before she blocks him
    bob.post(f"/api/games/{made['id']}/invite", json={"name": "Ann"}, headers=csrf(bob))
    [entry] = ann.get("/api/me/invitations").json()["invitations"]
    blocked = ann.post("/api/blocks", json={"name": "Bob"}, headers=csrf(ann))
    assert blocked.status_code == 200
    assert names(blocked.json()["blocked"]) == ["Bob"] and blocked.json()["friends"] == []
    # The friendship ended and his invitation went; he can send no other.
    assert ann.get("/api/me/invitations").json()["invitations"] == []
    assert ann.post(f"/api/me/invitations/{entry['id']}", headers=csrf(ann)).status_code == 403
    refused = bob.post(f"/api/games/{made['id']}/invite", json={"name": "Ann"}, headers=csrf(bob))
    assert refused.status_code == 403
    # His friend request is taken (he learns nothing) but never shown to her.
    assert (
        bob.post("/api/friends", json={"name": "Ann"}, headers=csrf(bob)).json()["status"]
        == "asked"
    )
    assert ann.get("/api/friends").json()["asking"] == []
    # She cannot ask him while she blocks him.
    assert ann.post("/api/friends", json={"name": "Bob"}, headers=csrf(ann)).status_code == 409
    # At a table they share, his lines are refused, and she hears nobody's he wrote before.
    joined = ann.post(
        f"/api/games/{made['id']}/join",
        json={"invite": made["seats"][1]["invite"]},
        headers=csrf(ann),
    )
    assert joined.status_code == 200, joined.text
    bob_token = made["seats"][0]["token"]
    said = bob.post(
        f"/api/games/{made['id']}/chat",
        json={"text": "hi"},
        headers={"Authorization": f"Bearer {bob_token}"},
    )
    assert said.status_code == 403 and "blocks you" in said.json()["error"]
    ann_token = joined.json()["token"]
    page = ann.get(
        f"/api/games/{made['id']}/chat", headers={"Authorization": f"Bearer {ann_token}"}
    ).json()
    assert page["lines"] == [] and page["muted"] == []
    # Unblocked: he may chat again; the request he made meanwhile is gone, not shown now.
    assert ann.delete("/api/blocks/Bob", headers=csrf(ann)).json()["blocked"] == []
    assert ann.get("/api/friends").json()["asking"] == []
    again = bob.post(
        f"/api/games/{made['id']}/chat",
        json={"text": "hi again"},
        headers={"Authorization": f"Bearer {bob_token}"},
    )
    assert again.status_code == 200
    lines = ann.get(
        f"/api/games/{made['id']}/chat", headers={"Authorization": f"Bearer {ann_token}"}
    ).json()["lines"]
    assert [line["text"] for line in lines] == ["hi again"]


def test_a_deleted_account_leaves_no_friends_behind(mailing: tuple[Any, TestClient, Inbox]) -> None:
    app, _client, _inbox = mailing
    ann, bob = person(app, "Ann"), person(app, "Bob")
    befriend(ann, bob, "Ann", "Bob")
    ann.post("/api/blocks", json={"name": "Bob"}, headers=csrf(ann))
    ann.delete("/api/blocks/Bob", headers=csrf(ann))
    befriend(ann, bob, "Ann", "Bob")
    gone = bob.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf(bob))
    assert gone.status_code == 200
    assert ann.get("/api/friends").json()["friends"] == []
    assert ann.post("/api/friends", json={"name": "Bob"}, headers=csrf(ann)).status_code == 404
