"""Accounts, sessions and seats that follow the person (docs/server.md, "Accounts"), on SQLite
and PostgreSQL: every route and its refusals."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.accounts import normal_name
from cradle.server.app import create_app
from cradle.server.limits import Limits
from tests.helpers.mail import csrf
from tests.helpers.server import GAMES, auth, create, token_of

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

PASSWORD = "correct horse battery"


@pytest.fixture
def app_url(any_db_url: str) -> str:
    return any_db_url


@pytest.fixture
def server(app_url: str) -> Iterator[Any]:
    """The app, for as many browsers (TestClients, each with its own cookies) as a test needs."""
    app = create_app(app_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64))
    with TestClient(app) as first:
        yield app, first


def browser(app: Any) -> TestClient:
    """Another browser on the same running app (its own cookie jar)."""
    return TestClient(app)


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    answer = client.post("/api/accounts", json={"name": name, "password": password})
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    return client.post("/api/session", json={"name": name, "password": password})


def new_table(client: TestClient) -> dict[str, Any]:
    """A two-player Tigris table the signed-in account of ``client`` makes (with its CSRF
    token), seat 0 its own."""
    answer = client.post("/api/games", json={"game": "tigris", "players": 2}, headers=csrf(client))
    assert answer.status_code == 200, answer.text
    made: dict[str, Any] = answer.json()
    return made


def test_names_are_trimmed_normalised_and_checked() -> None:
    assert normal_name("  Zoë  ") == "Zoë"
    assert normal_name("Zoe\u0308") == "Zoë"  # NFC: one character
    assert normal_name("李小龍") == "李小龍"
    assert normal_name("a-b_c 9") == "a-b_c 9"
    for bad in ("ab", "x" * 25, "<script>", "a\u200bb", "bad!name", "two  spaces", "Former Player"):
        with pytest.raises(ValueError):
            normal_name(bad)


def test_sign_up_signs_in_with_a_safe_cookie(server: Any) -> None:
    _app, client = server
    answer = client.post("/api/accounts", json={"name": " Ada ", "password": PASSWORD})
    assert answer.status_code == 200
    assert answer.json()["account"]["name"] == "Ada" and answer.json()["csrf"]
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    me = client.get("/api/me").json()
    assert me["account"]["name"] == "Ada" and me["csrf"] == answer.json()["csrf"]
    # The session is stored hashed: the cookie's value is nowhere in the database.
    secret = client.cookies.get("cradle_session")
    assert secret and secret not in str(_stored_sessions(server))
    from sqlalchemy import text

    with _app.state.hub.store.database.engine.connect() as connection:
        stored = connection.execute(text("SELECT password FROM accounts")).scalar()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored


def _stored_sessions(server: Any) -> list[Any]:
    from sqlalchemy import text

    app, _client = server
    with app.state.hub.store.database.engine.connect() as connection:
        return list(connection.execute(text("SELECT id, account_id FROM sessions")).all())


def test_a_cookie_over_tls_is_secure(app_url: str) -> None:
    app = create_app(app_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64))
    with TestClient(app, base_url="https://testserver") as client:
        answer = client.post("/api/accounts", json={"name": "Tls user", "password": PASSWORD})
        assert answer.status_code == 200
        assert "secure" in answer.headers["set-cookie"].lower()


def test_names_are_unique_in_any_case_and_bad_ones_refused(server: Any) -> None:
    _app, client = server
    sign_up(client, "Émile")
    other = browser(_app)
    taken = other.post("/api/accounts", json={"name": "éMILE", "password": PASSWORD})
    assert taken.status_code == 409 and taken.json()["error"] == "that name is taken"
    for body, field in [
        ({"name": "<img src=x onerror=alert(1)>", "password": PASSWORD}, "name"),
        ({"name": "ok name", "password": "short"}, "password"),
        ({"name": "ok name"}, "password"),
        ({"name": "ok name", "password": PASSWORD, "admin": True}, "admin"),
    ]:
        refused = other.post("/api/accounts", json=body)
        assert refused.status_code == 400 and field in refused.text, refused.text
    lone = b'{"name": "ok name", "password": "lone \\ud800 surrogate"}'  # escaped in JSON
    refused = other.post(
        "/api/accounts", content=lone, headers={"content-type": "application/json"}
    )
    assert refused.status_code == 400 and "surrogate" in refused.text, refused.text
    assert other.get("/api/me").json()["account"] is None


def test_a_bad_sign_in_gives_no_hint_and_is_rate_limited(server: Any) -> None:
    app, client = server
    sign_up(client, "Grace")
    guest = browser(app)
    wrong_password = sign_in(guest, "Grace", "not the password")
    wrong_name = sign_in(guest, "Nobody here", PASSWORD)
    assert wrong_password.status_code == wrong_name.status_code == 401
    assert (
        wrong_password.json()
        == wrong_name.json()
        == {"error": "wrong name or password", "message": "wrong name or password", "params": {}}
    )
    assert sign_in(guest, "grace").status_code == 200  # any case
    # 10 attempts at once, then 6 a minute: a burst of guesses meets a 429 within a few more
    # (however slowly a loaded machine hashes them), and then even the right password waits.
    statuses = []
    while 429 not in statuses and len(statuses) < 30:
        statuses.append(sign_in(guest, "Grace", f"guess {len(statuses)}").status_code)
    assert statuses[-1] == 429 and len(statuses) <= 15, statuses
    assert set(statuses[:-1]) == {401}
    limited = sign_in(guest, "Grace")
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1


def test_csrf_is_needed_with_the_cookie_and_bearer_tokens_work_as_before(server: Any) -> None:
    _app, client = server
    sign_up(client, "Hedy")
    # With the cookie, a change needs the CSRF token; with it, it goes through.
    no_token = client.post("/api/games", json={"game": "tigris", "players": 2})
    assert no_token.status_code == 403 and "X-CSRF-Token" in no_token.json()["error"]
    wrong = client.patch("/api/me", json={"turn_mail": False}, headers={"X-CSRF-Token": "x" * 32})
    assert wrong.status_code == 403
    assert client.delete("/api/session").status_code == 403
    assert client.get("/api/me").json()["account"]["name"] == "Hedy"  # still signed in
    new_table(client)
    # A script with no cookie plays with its bearer token, no CSRF token needed.
    script = browser(_app)
    created = create(script)
    token = token_of(created, 0)
    seen = script.get(f"/api/games/{created['id']}", headers=auth(token)).json()
    assert seen["seat"] == 0


def test_sign_out_ends_the_session(server: Any) -> None:
    _app, client = server
    sign_up(client, "Ida")
    secret = client.cookies.get("cradle_session")
    out = client.delete("/api/session", headers=csrf(client))
    assert out.status_code == 200 and out.json()["account"] is None
    assert client.get("/api/me").json() == {"account": None, "csrf": None}
    # The old cookie, replayed, is no session any more.
    replay = browser(_app)
    replay.cookies.set("cradle_session", secret or "")
    assert replay.get("/api/me").json()["account"] is None
    assert replay.get("/api/me/games").status_code == 401


def test_change_password_ends_the_other_sessions(server: Any) -> None:
    app, client = server
    sign_up(client, "Joan")
    laptop = browser(app)
    assert sign_in(laptop, "Joan").status_code == 200
    wrong = client.post(
        "/api/me/password",
        json={"password": "not it at all", "new_password": "a new secret"},
        headers=csrf(client),
    )
    assert wrong.status_code == 401
    short = client.post(
        "/api/me/password", json={"password": PASSWORD, "new_password": "x"}, headers=csrf(client)
    )
    assert short.status_code == 400
    changed = client.post(
        "/api/me/password",
        json={"password": PASSWORD, "new_password": "a new secret"},
        headers=csrf(client),
    )
    assert changed.status_code == 200
    assert client.get("/api/me").json()["account"]["name"] == "Joan"
    assert laptop.get("/api/me").json()["account"] is None
    assert sign_in(laptop, "Joan").status_code == 401
    assert sign_in(laptop, "Joan", "a new secret").status_code == 200


def test_mail_settings_are_stored_and_checked(server: Any) -> None:
    _app, client = server
    sign_up(client, "Kay")
    headers = csrf(client)
    no_address = client.patch("/api/me", json={"turn_mail": True}, headers=headers)
    assert no_address.status_code == 400
    bad = client.patch("/api/me", json={"email": "not an address"}, headers=headers)
    assert bad.status_code == 400
    done = client.patch(
        "/api/me", json={"email": "kay@example.org", "turn_mail": True}, headers=headers
    )
    assert done.status_code == 200
    assert done.json()["account"]["email"] == "kay@example.org"
    assert client.get("/api/me").json()["account"]["turn_mail"] is True
    assert browser(_app).patch("/api/me", json={"turn_mail": False}).status_code == 401


def test_an_account_speaks_its_browsers_language_until_it_chooses_one(server: Any) -> None:
    """Issue 66: a new account takes the language its browser asks for first (its mails go
    out in it); an account without one takes it at its next sign-in; the account screen sets
    it to any catalogue's tag, and only to those."""
    app, client = server
    made = client.post(
        "/api/accounts",
        json={"name": "Ines", "password": PASSWORD},
        headers={"Accept-Language": "fr-FR, es-MX;q=0.8, en;q=0.5"},
    )
    assert made.json()["account"]["language"] == "es"  # no French catalogue: Spanish next
    headers = csrf(client)
    chosen = client.patch("/api/me", json={"language": "pt-PT"}, headers=headers)
    assert chosen.status_code == 200 and chosen.json()["account"]["language"] == "pt-PT"
    assert client.get("/api/me").json()["account"]["language"] == "pt-PT"
    for wrong in ("fr", "pt_BR", "", None, "e" * 17):
        refused = client.patch("/api/me", json={"language": wrong}, headers=headers)
        assert refused.status_code == 400, wrong
    assert client.get("/api/me").json()["account"]["language"] == "pt-PT"
    # Another device that reads English: the account keeps its own language.
    laptop = browser(app)
    again = laptop.post(
        "/api/session",
        json={"name": "Ines", "password": PASSWORD},
        headers={"Accept-Language": "en"},
    )
    assert again.json()["account"]["language"] == "pt-PT"

    quiet = browser(app)
    assert sign_up(quiet, "Quim")["account"]["language"] is None  # no Accept-Language
    assert sign_in(browser(app), "Quim").json()["account"]["language"] is None
    later = browser(app).post(
        "/api/session",
        json={"name": "Quim", "password": PASSWORD},
        headers={"Accept-Language": "pt"},
    )
    assert later.json()["account"]["language"] == "pt-BR"
    assert sign_in(browser(app), "Quim").json()["account"]["language"] == "pt-BR"


def test_seats_follow_the_account_to_another_device(server: Any) -> None:
    app, client = server
    sign_up(client, "Lin")
    created = new_table(client)
    game_id, first_token = created["id"], token_of(created, 0)
    table = client.get(f"/api/games/{game_id}").json()["table"]
    assert table["names"] == ["Lin", None]
    # The second player, signed in, joins by the invite.
    friend = browser(app)
    sign_up(friend, "Moe")
    joined = friend.post(
        f"/api/games/{game_id}/join",
        json={"invite": created["seats"][1]["invite"]},
        headers=csrf(friend),
    )
    assert joined.status_code == 200
    assert friend.get(f"/api/games/{game_id}").json()["table"]["names"] == ["Lin", "Moe"]
    # Lin's phone: signed in, it lists the game and gets the seat's token.
    phone = browser(app)
    assert sign_in(phone, "Lin").status_code == 200
    mine = phone.get("/api/me/games").json()
    assert [g["id"] for g in mine["games"]] == [game_id]
    entry = mine["games"][0]
    assert entry["names"] == ["Lin", "Moe"] and entry["seats_held"] == [0]
    to_move = entry["to_move"]
    assert entry["your_turn"] is (to_move == 0) and mine["your_turn"] == int(to_move == 0)
    assert phone.post(f"/api/games/{game_id}/seat", json={}).status_code == 403  # no CSRF
    got = phone.post(f"/api/games/{game_id}/seat", json={}, headers=csrf(phone))
    assert got.status_code == 200 and got.json()["seat"] == 0
    token = got.json()["token"]
    assert phone.get(f"/api/games/{game_id}", headers=auth(token)).json()["seat"] == 0
    # The seat moved to the phone: the laptop's token stops working.
    assert client.get(f"/api/games/{game_id}", headers=auth(first_token)).status_code == 403
    # Moe's account holds seat 1 only: no seat 0 for Mo, and nothing for a guest.
    other = friend.post(f"/api/games/{game_id}/seat", json={"seat": 0}, headers=csrf(friend))
    assert other.status_code == 403
    assert browser(app).post(f"/api/games/{game_id}/seat", json={}).status_code == 401
    # Moe's inbox puts the game first when it is Moe's turn.
    theirs = friend.get("/api/me/games").json()
    assert theirs["games"][0]["your_turn"] is (to_move == 1)


def test_your_turn_comes_first(server: Any) -> None:
    _app, client = server
    sign_up(client, "Nia")
    games = []
    for _ in range(3):
        made = new_table(client)
        games.append(made["id"])
    listed = client.get("/api/me/games").json()["games"]
    assert sorted(g["id"] for g in listed) == sorted(games)
    flags = [g["your_turn"] for g in listed]
    assert flags == sorted(flags, reverse=True)  # every "your turn" before the others


def test_delete_account_keeps_its_games_as_a_former_player(server: Any) -> None:
    app, client = server
    sign_up(client, "Olu")
    created = new_table(client)
    wrong = client.request(
        "DELETE", "/api/me", json={"password": "wrong password"}, headers=csrf(client)
    )
    assert wrong.status_code == 401
    gone = client.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf(client))
    assert gone.status_code == 200 and gone.json()["account"] is None
    assert client.get("/api/me").json()["account"] is None
    assert sign_in(browser(app), "Olu").status_code == 401
    table = browser(app).get(f"/api/games/{created['id']}").json()["table"]
    assert table["names"][0] == "former player"
    # The seat's token still plays it; the name is free again.
    seen = client.get(f"/api/games/{created['id']}", headers=auth(token_of(created, 0))).json()
    assert seen["seat"] == 0
    sign_up(browser(app), "olu")


def test_a_guest_names_a_seat_and_moves_it_with_a_one_time_link(server: Any) -> None:
    app, client = server
    created = create(client, name="Pat the guest")
    game_id, token = created["id"], token_of(created, 0)
    joined = browser(app).post(
        f"/api/games/{game_id}/join",
        json={"invite": created["seats"][1]["invite"], "name": "  Quinn "},
    )
    assert joined.status_code == 200
    names = client.get(f"/api/games/{game_id}").json()["table"]["names"]
    assert names == ["Pat the guest", "Quinn"]
    refused = browser(app).post("/api/games", json={"game": "tigris", "name": "<b>bold</b>"})
    assert refused.status_code == 400
    assert client.post(f"/api/games/{game_id}/transfer").status_code == 403  # no token
    link = client.post(f"/api/games/{game_id}/transfer", headers=auth(token))
    assert link.status_code == 200
    moved = link.json()
    assert moved["link"].endswith(f"/#/continue/{game_id}/{moved['code']}")
    assert moved["qr_svg"].startswith('<svg xmlns="http://www.w3.org/2000/svg"')  # for an <img>
    assert moved["seat"] == 0
    phone = browser(app)
    forged = phone.post(f"/api/games/{game_id}/continue", json={"code": "forged"})
    assert forged.status_code == 403
    taken = phone.post(f"/api/games/{game_id}/continue", json={"code": moved["code"]})
    assert taken.status_code == 200 and taken.json()["seat"] == 0
    new_token = taken.json()["token"]
    assert phone.get(f"/api/games/{game_id}", headers=auth(new_token)).json()["seat"] == 0
    assert client.get(f"/api/games/{game_id}", headers=auth(token)).status_code == 403
    again = browser(app).post(f"/api/games/{game_id}/continue", json={"code": moved["code"]})
    assert again.status_code == 403  # once only


def test_a_moved_seats_open_connection_is_closed_and_its_token_refused(server: Any) -> None:
    """The device a seat moved away from stops getting the seat's frames (its hand) at once:
    its WebSocket closes, and reconnecting with the old token is refused."""
    from starlette.websockets import WebSocketDisconnect

    app, client = server
    created = create(client, name="Pat the guest")
    game_id, token = created["id"], token_of(created, 0)
    with client.websocket_connect(f"/ws/games/{game_id}") as old:
        old.send_json({"token": token})
        assert old.receive_json()["table"]["seat"] == 0
        code = client.post(f"/api/games/{game_id}/transfer", headers=auth(token)).json()["code"]
        phone = browser(app)
        taken = phone.post(f"/api/games/{game_id}/continue", json={"code": code}).json()
        seen = phone.get(f"/api/games/{game_id}", headers=auth(taken["token"])).json()
        if seen["to_move"] == 0:  # a frame the old connection would get if it were still open
            moved = phone.post(
                f"/api/games/{game_id}/actions",
                json={"action": seen["legal_actions"][0]},
                headers=auth(taken["token"]),
            )
            assert moved.status_code == 200
        with pytest.raises(WebSocketDisconnect) as closed:
            frame = old.receive_json()
            raise AssertionError(f"the old device still got {frame.get('type')}")
        assert closed.value.code == 1013 and "another device" in closed.value.reason
    with client.websocket_connect(f"/ws/games/{game_id}") as again:
        again.send_json({"token": token})
        assert again.receive_json()["status"] == 403
        with pytest.raises(WebSocketDisconnect) as refused:
            again.receive_json()
        assert refused.value.code == 4403


def test_a_seat_of_an_account_is_not_moved_by_link(server: Any) -> None:
    _app, client = server
    sign_up(client, "Rae")
    created = new_table(client)
    answer = client.post(f"/api/games/{created['id']}/transfer", headers=auth(token_of(created, 0)))
    assert answer.status_code == 400 and "sign in" in answer.json()["error"]


def test_hotseat_tables_keep_working_for_signed_in_players(server: Any) -> None:
    _app, client = server
    sign_up(client, "Sol")
    made = client.post(
        "/api/games",
        json={"game": "tigris", "players": 2, "hotseat": True},
        headers=csrf(client),
    )
    assert made.status_code == 200 and made.json()["table_token"]
    table = client.get(f"/api/games/{made.json()['id']}").json()["table"]
    assert table["names"] == [None, None]
