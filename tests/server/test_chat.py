"""The chat of each table (docs/server.md, "Chat"): who reads and writes it, what a line may
hold, rate limits, mutes, the WebSocket push, and a line reaching every process once."""

from __future__ import annotations

import json
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits
from tests.helpers.server import (
    GAMES,
    PlayServer,
    auth,
    create,
    token_of,
    watch,
)

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "\"'><svg onload=alert(1)>",
]


@pytest.fixture
def served(any_db_url: str) -> Iterator[TestClient]:
    limits = Limits(analyse_finished=False, password_kib=64)
    with TestClient(create_app(any_db_url, bot_delay=0, limits=limits)) as test_client:
        yield test_client


def say(client: TestClient, game_id: str, token: str | None, text: Any) -> Any:
    return client.post(f"/api/games/{game_id}/chat", json={"text": text}, headers=auth(token))


def lines(client: TestClient, game_id: str, token: str | None) -> list[dict[str, Any]]:
    answer = client.get(f"/api/games/{game_id}/chat", headers=auth(token))
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["lines"]
    return found


def next_chat(ws: Any) -> dict[str, Any]:
    """The next chat frame a TestClient WebSocket gets (view frames skipped)."""
    while True:
        frame = ws.receive_json()
        if frame.get("type") == "chat":
            line: dict[str, Any] = frame["line"]
            return line


def test_players_chat_and_the_lines_are_kept_with_the_game(any_db_url: str) -> None:
    limits = Limits(analyse_finished=False, password_kib=64)
    with TestClient(create_app(any_db_url, bot_delay=0, limits=limits)) as client:
        created = create(client)
        game_id, first, second = created["id"], token_of(created, 0), token_of(created, 1)
        with watch(client, game_id, second) as ws:
            ws.receive_json()  # the view
            for text in ["hello", *HOSTILE]:
                answer = say(client, game_id, first, f"  {text} ")
                assert answer.status_code == 200, answer.text
                line = answer.json()
                assert line["text"] == text and line["seat"] == 0 and line["speaker"] == "s:0"
                assert line["name"] == created["players"][0]
                assert next_chat(ws) == line  # pushed at once, exactly as answered
        shown = lines(client, game_id, first)
        assert [line["text"] for line in shown] == ["hello", *HOSTILE]
        assert lines(client, game_id, second) == shown
        page = client.get(f"/api/games/{game_id}/chat", headers=auth(second)).json()
        assert page["can_write"] is True and page["spectators"] is False and page["muted"] == []
        assert page["you"] == "s:1"
        after = shown[1]["id"]
        later = client.get(f"/api/games/{game_id}/chat?after={after}", headers=auth(first))
        assert [line["id"] for line in later.json()["lines"]] == [x["id"] for x in shown[2:]]
        # Spectators were not invited: they neither read nor write, nor are they pushed lines.
        assert client.get(f"/api/games/{game_id}/chat").status_code == 403
        refused = say(client, game_id, None, "hi")
        assert refused.status_code == 403 and "spectators" in refused.json()["error"]
        with watch(client, game_id) as spectator:
            spectator.receive_json()
            assert say(client, game_id, second, "players only").status_code == 200
            spectator.send_json({"type": "ping"})
            assert spectator.receive_json() == {"type": "pong"}  # no chat frame came first
    # Kept with the game: a new server reads them back.
    with TestClient(create_app(any_db_url, bot_delay=0, limits=limits)) as again:
        kept = [line["text"] for line in lines(again, game_id, first)]
        assert kept == ["hello", *HOSTILE, "players only"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"text": ""}, "empty"),
        ({"text": "   "}, "empty"),
        ({"text": "x" * 501}, "at most 500 characters (this one has 501)"),
        ({"text": "two\nlines"}, "U+000A"),
        ({"text": "nul\x00"}, "U+0000"),
        ({"text": "bell\x07"}, "U+0007"),
        ({"text": "evil\u202etxt.exe"}, "U+202E"),
        ({"text": "one\u2028two"}, "line or paragraph separator (U+2028"),
        ({"text": "para\u2029graph"}, "U+2029"),
        ({"text": "zero\u200bwidth"}, "invisible character (U+200B"),
        ({"text": "\ufeffbom"}, "U+FEFF"),
        ({"text": "tag\U000e0041"}, "U+E0041"),
        ({"text": "z" + "\u0301" * 400}, "marks on one character"),
        ({"text": "x" * 2001}, "text"),
        ({"text": 5}, "text"),
        ({"text": None}, "text"),
        ({}, "text"),
        ({"text": "hi", "seat": 1}, "seat"),
    ],
)
def test_bad_lines_are_refused_and_store_nothing(
    client: TestClient, body: Any, reason: str
) -> None:
    created = create(client)
    game_id, token = created["id"], token_of(created, 0)
    answer = client.post(f"/api/games/{game_id}/chat", json=body, headers=auth(token))
    assert answer.status_code == 400, answer.text
    assert reason in answer.json()["error"]
    assert lines(client, game_id, token) == []


def test_a_lone_surrogate_is_refused(client: TestClient) -> None:
    created = create(client)
    game_id, token = created["id"], token_of(created, 0)
    answer = client.post(
        f"/api/games/{game_id}/chat",
        content=b'{"text": "a\\ud800b"}',
        headers={"Content-Type": "application/json", **auth(token)},
    )
    # Refused where the body is read, before any field (the server's one JSON reader).
    assert answer.status_code == 400 and "lone surrogate" in answer.json()["error"]
    assert lines(client, game_id, token) == []
    assert say(client, game_id, token, "x" * 500).status_code == 200  # the longest line
    assert say(client, game_id, token, "emoji 👍🏽 and ünïcödé").status_code == 200


def test_chat_is_rate_limited_per_client(db_url: str) -> None:
    limits = Limits(analyse_finished=False, password_kib=64, chat_burst=3, chat_per_minute=1.0)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        created = create(client)
        game_id, first, second = created["id"], token_of(created, 0), token_of(created, 1)
        for number in range(3):
            assert say(client, game_id, first, f"line {number}").status_code == 200
        refused = say(client, game_id, second, "one more")
        assert refused.status_code == 429 and "chat" in refused.json()["error"]
        assert int(refused.headers["Retry-After"]) >= 1
        # A refused line (bad, or not allowed) costs nothing and stores nothing.
        assert len(lines(client, game_id, first)) == 3


def test_chat_is_rate_limited_per_seat_whatever_the_address(db_url: str) -> None:
    limits = Limits(analyse_finished=False, password_kib=64, chat_burst=2, chat_per_minute=1.0)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        created = create(client)
        game_id, first, second = created["id"], token_of(created, 0), token_of(created, 1)
        # The same app from other addresses: each its own client, one seat.
        other = [TestClient(client.app, client=(f"10.0.0.{n}", 1)) for n in range(2, 6)]
        assert say(other[0], game_id, first, "a").status_code == 200
        assert say(other[1], game_id, first, "b").status_code == 200
        refused = say(other[2], game_id, first, "c")
        assert refused.status_code == 429 and "seat" in refused.json()["error"]
        assert "Retry-After" in refused.headers
        assert say(other[3], game_id, second, "d").status_code == 200


def test_spectators_chat_where_the_table_lets_them(served: TestClient) -> None:
    created = create(served, spectator_chat=True)
    game_id, first = created["id"], token_of(created, 0)
    assert served.get(f"/api/games/{game_id}", headers=auth(first)).json()["table"][
        "spectator_chat"
    ]
    answer = say(served, game_id, None, "go Archer!")
    assert answer.status_code == 200, answer.text
    line = answer.json()
    assert line["seat"] is None and line["speaker"] == "v:1" and line["name"] == "spectator 1"
    assert say(served, game_id, None, "again").json()["speaker"] == "v:1"  # the same client
    other = TestClient(served.app, client=("10.9.8.7", 4000))  # the same app, another address
    assert say(other, game_id, None, "me too").json()["speaker"] == "v:2"
    texts = [line["text"] for line in lines(served, game_id, first)]
    assert texts == ["go Archer!", "again", "me too"]
    assert lines(served, game_id, None) == lines(served, game_id, first)


def test_spectators_lines_are_capped_per_table_whatever_their_addresses(db_url: str) -> None:
    """The probe's crowd (~25 addresses) cannot push the players' lines off the latest page:
    all the spectators of a table together write a few lines a minute; the players write on."""
    limits = Limits(analyse_finished=False, password_kib=64, spectator_lines_burst=5)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        created = create(client, spectator_chat=True)
        game_id, first = created["id"], token_of(created, 0)
        other = create(client, spectator_chat=True)["id"]
        crowd = [TestClient(client.app, client=(f"10.1.0.{n}", 1)) for n in range(25)]
        statuses = [say(viewer, game_id, None, "look at me").status_code for viewer in crowd]
        assert statuses == [200] * 5 + [429] * 20
        refused = say(crowd[-1], game_id, None, "and me")
        assert "spectators" in refused.json()["error"] and "Retry-After" in refused.headers
        assert say(client, game_id, first, "the players still talk").status_code == 200
        assert say(crowd[-1], other, None, "another table").status_code == 200
        assert [line["seat"] for line in lines(client, game_id, first)] == [None] * 5 + [0]


def test_a_player_mutes_another_and_hears_them_again(served: TestClient) -> None:
    created = create(served, players=3, seats=["human"] * 3, spectator_chat=True)
    game_id = created["id"]
    tokens = [token_of(created, seat) for seat in range(3)]
    mute_url = f"/api/games/{game_id}/mute"
    assert say(served, game_id, tokens[1], "spam").status_code == 200
    assert say(served, game_id, None, "spectator spam").status_code == 200
    for speaker in ("s:1", "v:1"):
        answer = served.post(mute_url, json={"speaker": speaker}, headers=auth(tokens[0]))
        assert answer.status_code == 200, answer.text
    assert answer.json()["muted"] == ["s:1", "v:1"] and answer.json()["lines"] == []
    with watch(served, game_id, tokens[0]) as muter, watch(served, game_id, tokens[2]) as other:
        muter.receive_json()
        other.receive_json()
        assert say(served, game_id, tokens[1], "more spam").status_code == 200
        assert say(served, game_id, tokens[2], "hello all").status_code == 200
        assert next_chat(muter)["text"] == "hello all"  # the muted line never came
        assert next_chat(other)["text"] == "more spam"
        assert next_chat(other)["text"] == "hello all"
    assert [line["text"] for line in lines(served, game_id, tokens[0])] == ["hello all"]
    assert len(lines(served, game_id, tokens[2])) == 4  # a mute is the muter's alone
    # Refusals: yourself, a made-up speaker.
    own = served.post(mute_url, json={"speaker": "s:0"}, headers=auth(tokens[0]))
    assert own.status_code == 400
    for bad in ("x", "s:", "s:1; drop", "a:", "v:-1"):
        answer = served.post(mute_url, json={"speaker": bad}, headers=auth(tokens[0]))
        assert answer.status_code == 400, bad
    heard = served.post(mute_url, json={"speaker": "s:1", "muted": False}, headers=auth(tokens[0]))
    assert heard.json()["muted"] == ["v:1"]
    assert [line["speaker"] for line in lines(served, game_id, tokens[0])] == ["s:1", "s:1", "s:2"]


def test_a_guest_spectator_mutes_for_itself(served: TestClient) -> None:
    """A guest spectator mutes a player or another spectator: its mutes are kept for its
    client at this table, its GET and its WebSocket no longer carry their lines, and nobody
    else's view changes."""
    created = create(served, spectator_chat=True)
    game_id, first, second = created["id"], token_of(created, 0), token_of(created, 1)
    other = TestClient(served.app, client=("10.9.8.7", 4000))  # another guest spectator
    mute_url = f"/api/games/{game_id}/mute"
    assert say(served, game_id, None, "I watch").json()["speaker"] == "v:1"
    assert say(other, game_id, None, "me too").json()["speaker"] == "v:2"
    for speaker in ("s:1", "v:2"):
        answer = served.post(mute_url, json={"speaker": speaker})
        assert answer.status_code == 200, answer.text
    assert answer.json()["muted"] == ["s:1", "v:2"]
    player = created["players"][1]  # a seat nobody named writes under its game name
    assert answer.json()["names"] == {"s:1": player, "v:2": "spectator 2"}
    assert [line["text"] for line in answer.json()["lines"]] == ["I watch"]
    with (
        watch(served, game_id) as muter,
        watch(other, game_id) as unmuted,
        watch(served, game_id, first) as player,
    ):
        for ws in (muter, unmuted, player):
            ws.receive_json()  # the view
        assert say(served, game_id, second, "spam").status_code == 200
        assert say(other, game_id, None, "more").status_code == 200
        assert say(served, game_id, first, "hello all").status_code == 200
        assert next_chat(muter)["text"] == "hello all"  # the muted lines never came
        assert [next_chat(unmuted)["text"] for _ in range(3)] == ["spam", "more", "hello all"]
        assert [next_chat(player)["text"] for _ in range(3)] == ["spam", "more", "hello all"]
    assert [x["text"] for x in lines(served, game_id, None)] == ["I watch", "hello all"]
    assert len(lines(other, game_id, None)) == 5  # a mute is the muter's alone
    assert len(lines(served, game_id, first)) == 5
    assert other.get(f"/api/games/{game_id}/chat").json()["muted"] == []
    assert other.get(f"/api/games/{game_id}/chat").json()["you"] == "v:2"  # its own number
    quiet = TestClient(served.app, client=("10.9.8.6", 1))
    assert quiet.get(f"/api/games/{game_id}/chat").json()["you"] is None  # never wrote
    # Yourself (as the number you write under) is refused; hearing again works.
    assert served.post(mute_url, json={"speaker": "v:1"}).status_code == 400
    assert other.post(mute_url, json={"speaker": "v:2"}).status_code == 400
    heard = served.post(mute_url, json={"speaker": "v:2", "muted": False})
    assert heard.json()["muted"] == ["s:1"]
    # A table whose chat is for its players: a spectator reads nothing, so mutes nothing.
    closed = create(served)
    refused = served.post(f"/api/games/{closed['id']}/mute", json={"speaker": "s:1"})
    assert refused.status_code == 403 and "spectator" in refused.json()["error"]


def test_a_signed_in_spectator_mutes_as_its_account(served: TestClient) -> None:
    """A signed-in spectator's mutes are its account's (as a player's are): kept across
    tables, applied to its WebSocket, and needing its CSRF token to change."""
    viewer = TestClient(served.app, client=("10.0.0.5", 1))
    made = viewer.post("/api/accounts", json={"name": "Esther", "password": "a long secret"})
    assert made.status_code == 200, made.text
    csrf = {"X-CSRF-Token": made.json()["csrf"]}
    tables = [create(served, spectator_chat=True) for _ in range(2)]
    speakers = [say(served, t["id"], token_of(t, 1), "hi").json()["speaker"] for t in tables]
    assert speakers == ["s:1", "s:1"]  # guests' seats: muted per table
    game_id = tables[0]["id"]
    mute_url = f"/api/games/{game_id}/mute"
    refused = viewer.post(mute_url, json={"speaker": "s:1"})
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
    answer = viewer.post(mute_url, json={"speaker": "s:1"}, headers=csrf)
    assert answer.status_code == 200, answer.text
    assert answer.json()["muted"] == ["s:1"] and answer.json()["lines"] == []
    assert answer.json()["you"] == "a:" + made.json()["account"]["id"]
    with watch(viewer, game_id) as ws:
        ws.receive_json()
        assert say(served, game_id, token_of(tables[0], 1), "muted").status_code == 200
        assert say(served, game_id, token_of(tables[0], 0), "heard").status_code == 200
        assert next_chat(ws)["text"] == "heard"
    # The other table's seat 1 is another person: heard there.
    assert [x["text"] for x in lines(viewer, tables[1]["id"], None)] == ["hi"]
    # The guest at the same address is not the account: it hears everyone.
    assert len(lines(TestClient(served.app, client=("10.0.0.5", 2)), game_id, None)) == 3


def test_a_hot_seat_screen_reads_the_chat_and_a_bot_table_chats(served: TestClient) -> None:
    created = create(served, hotseat=True)
    table = created["table_token"]
    assert say(served, created["id"], table, "hi").status_code == 403
    assert lines(served, created["id"], table) == []
    against = create(served, seats=["human", "bot:random"])
    assert say(served, against["id"], token_of(against, 0), "good luck, bot").status_code == 200


def test_chat_of_no_game_and_a_wrong_token(served: TestClient) -> None:
    assert served.get("/api/games/nope/chat").status_code == 404
    assert say(served, "nope", None, "hi").status_code == 404
    created = create(served)
    assert say(served, created["id"], "not-a-token", "hi").status_code == 403


class Listener(threading.Thread):
    """A WebSocket client of one process collecting the chat lines it is pushed."""

    def __init__(self, server: PlayServer, game_id: str, token: str | None) -> None:
        super().__init__(daemon=True)
        self.url = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
        self.token = token
        self.lines: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.stop = threading.Event()

    def run(self) -> None:
        from websockets.sync.client import connect

        with connect(self.url) as ws:
            ws.send(json.dumps({"token": self.token} if self.token else {}))
            while not self.stop.is_set():
                try:
                    frame = json.loads(ws.recv(timeout=0.2))
                except TimeoutError:
                    continue
                if frame.get("type") == "view":
                    self.ready.set()
                elif frame.get("type") == "chat":
                    self.lines.append(frame["line"])


def test_a_line_reaches_every_process_once(postgres_url: str) -> None:
    one = PlayServer(postgres_url).start()
    two = PlayServer(postgres_url).start()
    listeners: list[Listener] = []
    try:
        created = one.post(
            "/api/games", {"game": "tigris", "players": 2, "seats": ["human", "human"]}
        )
        game_id, first, second = created["id"], token_of(created, 0), token_of(created, 1)
        listeners = [
            Listener(one, game_id, second),
            Listener(two, game_id, second),
            Listener(two, game_id, first),
        ]
        for listener in listeners:
            listener.start()
            assert listener.ready.wait(30)
        two.post(f"/api/games/{game_id}/mute", {"speaker": "s:1"}, first)
        said = [one.post(f"/api/games/{game_id}/chat", {"text": t}, second) for t in ("a", "b")]
        said.append(two.post(f"/api/games/{game_id}/chat", {"text": "c"}, first))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and any(len(x.lines) < 3 for x in listeners[:2]):
            time.sleep(0.05)
        time.sleep(1.0)  # time for a line pushed twice to arrive twice
        for listener in listeners[:2]:
            # Each once, on either process. Pushes from two processes keep no order between
            # them (a line relayed by NOTIFY may come after a later one said here): the page
            # puts lines in the order of their ids.
            assert sorted(listener.lines, key=lambda line: line["id"]) == said, listener.lines
        assert listeners[2].lines == [said[2]]  # seat 0 muted seat 1 (on the other process)
        for server in (one, two):
            kept = server.get(f"/api/games/{game_id}/chat", second)["lines"]
            assert kept == said
    finally:
        for listener in listeners:
            listener.stop.set()
        for listener in listeners:
            listener.join(5)
        one.stop()
        two.stop()


def test_a_game_that_does_not_exist_refuses_mute(client: TestClient) -> None:
    answer = client.post("/api/games/zzz/mute", json={"speaker": "s:1"})
    assert answer.status_code == 404


def test_accounts_chat_under_their_names_and_mutes_follow_the_account(served: TestClient) -> None:
    """A seat an account holds writes as the account (``a:ID``) under its name; its player's
    mutes hold at every table; a signed-in spectator writes under their name too."""
    app = served.app
    browsers = [TestClient(app, client=(f"10.0.0.{n}", 1)) for n in (1, 2, 3)]
    csrf = []
    for browser, name in zip(browsers, ("Alice", "Bruno", "Carmen"), strict=True):
        answer = browser.post("/api/accounts", json={"name": name, "password": "a long secret"})
        assert answer.status_code == 200, answer.text
        csrf.append(answer.json()["csrf"])
    tables = []
    for _ in range(2):
        made = (
            browsers[0]
            .post(
                "/api/games",
                json={"game": "tigris", "seats": ["human", "human"], "spectator_chat": True},
                headers={"X-CSRF-Token": csrf[0]},
            )
            .json()
        )
        joined = (
            browsers[1]
            .post(
                f"/api/games/{made['id']}/join",
                json={"invite": made["seats"][1]["invite"]},
                headers={"X-CSRF-Token": csrf[1]},
            )
            .json()
        )
        tables.append((made["id"], token_of(made, 0), joined["token"]))
    game_id, alice, bruno = tables[0]
    line = say(browsers[1], game_id, bruno, "hola").json()
    assert line["name"] == "Bruno" and line["seat"] == 1 and line["speaker"].startswith("a:")
    # Carmen watches, signed in: her line carries her name (and needs her CSRF token).
    refused = browsers[2].post(f"/api/games/{game_id}/chat", json={"text": "hi"})
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
    watched = (
        browsers[2]
        .post(
            f"/api/games/{game_id}/chat",
            json={"text": "nice move"},
            headers={"X-CSRF-Token": csrf[2]},
        )
        .json()
    )
    assert watched["name"] == "Carmen" and watched["seat"] is None
    # Alice mutes Bruno at the first table: he is muted at the second one too.
    muted = browsers[0].post(
        f"/api/games/{game_id}/mute", json={"speaker": line["speaker"]}, headers=auth(alice)
    )
    assert muted.status_code == 200 and muted.json()["muted"] == [line["speaker"]]
    assert muted.json()["names"] == {line["speaker"]: "Bruno"}  # though no line of his shows
    other_id, alice_there, bruno_there = tables[1]
    assert say(browsers[1], other_id, bruno_there, "me again").status_code == 200
    assert lines(browsers[0], other_id, alice_there) == []
    assert [x["text"] for x in lines(browsers[1], other_id, bruno_there)] == ["me again"]
    own = browsers[0].post(
        f"/api/games/{game_id}/mute",
        json={"speaker": say(browsers[0], game_id, alice, "me").json()["speaker"]},
        headers=auth(alice),
    )
    assert own.status_code == 400


def test_a_deleted_accounts_lines_stay_as_former_player(served: TestClient) -> None:
    browser = TestClient(served.app, client=("10.0.0.9", 1))
    csrf = browser.post("/api/accounts", json={"name": "Dora", "password": "a long secret"})
    headers = {"X-CSRF-Token": csrf.json()["csrf"]}
    made = browser.post(
        "/api/games", json={"game": "tigris", "seats": ["human", "human"]}, headers=headers
    ).json()
    game_id, dora = made["id"], token_of(made, 0)
    assert say(browser, game_id, dora, "bye all").json()["name"] == "Dora"
    gone = browser.request("DELETE", "/api/me", json={"password": "a long secret"}, headers=headers)
    assert gone.status_code == 200, gone.text
    kept = lines(served, game_id, token_of(made, 1))
    assert [(x["name"], x["text"]) for x in kept] == [("former player", "bye all")]
