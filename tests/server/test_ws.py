"""The WebSocket API: pushed views, error frames that keep the connection, reconnection."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from cradle.server.app import create_app
from cradle.server.limits import Limits
from tests.helpers.server import GAMES, PlayServer, auth, create, run_async, token_of, watch

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def receive(ws: Any) -> dict[str, Any]:
    frame: dict[str, Any] = ws.receive_json()
    return frame


def refused_and_closed(ws: Any, status: int, words: str = "") -> None:
    """The connection is refused with ``status`` (a reason saying ``words``), then closed with
    the code 4000 + ``status``."""
    reply = receive(ws)
    assert reply["type"] == "error" and reply["status"] == status, reply
    assert words in reply["error"], reply
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == 4000 + status


def catch_up(ws: Any, version: int) -> dict[str, Any]:
    """The first frame at ``version`` or later: a spectator that connected while seats were
    still arriving may have been sent one more table change than the test waited for."""
    for _ in range(5):
        frame = receive(ws)
        if frame["table"]["version"] >= version:
            return frame
    raise AssertionError(f"no frame reached version {version}")


def test_each_seat_gets_its_own_view_after_every_move(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    tokens = [token_of(created, 0), token_of(created, 1)]
    with (
        watch(client, game_id, tokens[0]) as ws0,
        watch(client, game_id, tokens[1]) as ws1,
        watch(client, game_id) as watcher,
    ):
        sockets = [ws0, ws1]
        frames = [receive(ws0), receive(ws1)]
        first_watch = receive(watcher)
        assert first_watch["table"]["screen"] == "spectator" and not first_watch.get("hand")
        # Arriving changes nothing: every seat was taken when the game was created.
        assert frames[0]["table"]["version"] == frames[1]["table"]["version"] == 0
        for frame, seat in zip(frames, (0, 1), strict=True):
            assert frame["type"] == "view" and frame["table"]["seat"] == seat
        mover = frames[0]["to_move"]
        assert frames[mover]["legal_actions"] and not frames[1 - mover]["legal_actions"]
        for _ in range(6):
            mover = frames[0]["to_move"]
            sockets[mover].send_json({"action": frames[mover]["legal_actions"][0]})
            frames = [receive(ws0), receive(ws1)]
            watched = catch_up(watcher, frames[0]["table"]["version"])
            assert frames[0]["table"]["version"] == frames[1]["table"]["version"]
            assert watched["table"]["version"] == frames[0]["table"]["version"]
            assert frames[0]["board"] == frames[1]["board"] == watched["board"]
            assert frames[0]["table"]["events"] == watched["table"]["events"]


def test_bad_frames_get_an_error_and_the_connection_stays(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    seat = client.get(f"/api/games/{game_id}").json()["to_move"]
    token = token_of(created, seat)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        # Bad first messages are answered too; the connection waits for a good one.
        ws.send_bytes(b"\x00\x01")
        assert receive(ws)["type"] == "error"
        ws.send_text(json.dumps({"token": 7}))
        assert "token" in receive(ws)["error"]
        ws.send_json({"token": token})
        start = receive(ws)
        assert start["type"] == "view" and start["table"]["seat"] == seat
        bad: list[str | bytes] = [
            "{not json",
            json.dumps(["pass"]),
            json.dumps({"hello": 1}),
            json.dumps({"action": "tile purple Z99"}),
            json.dumps({"action": 7}),
            json.dumps({"action": "pass", "padding": "x" * 5000}),
            json.dumps({"undo": True}),
            "[" * 2000,
            '{"a":' * 30 + "1" + "}" * 30,
            "x" * 20000,
            '{"action": NaN}',
            b"\x89PNG binary",
            b"",
        ]
        for content in bad:
            if isinstance(content, bytes):
                ws.send_bytes(content)
            else:
                ws.send_text(content)
            reply = receive(ws)
            assert reply["type"] == "error" and reply["error"] and reply["status"] in (400, 403)
        ws.send_json({"type": "ping"})
        assert receive(ws) == {"type": "pong"}
        # Still the same game, untouched, and the connection still takes a good move.
        ws.send_json({"action": "pass"})
        after = receive(ws)
        assert after["type"] == "view"
        assert after["table"]["version"] == start["table"]["version"] + 1
        assert after["table"]["moves"] == 1


def test_spectators_and_other_seats_cannot_move(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    seat = client.get(f"/api/games/{game_id}").json()["to_move"]
    with watch(client, game_id) as watcher:
        receive(watcher)
        watcher.send_json({"action": "pass"})
        reply = receive(watcher)
        assert reply["type"] == "error" and reply["status"] == 403
    other = token_of(created, 1 - seat)
    with watch(client, game_id, other) as ws:
        receive(ws)
        ws.send_json({"action": "pass"})
        reply = receive(ws)
        assert reply["type"] == "error" and reply["status"] == 403
    assert client.get(f"/api/games/{game_id}").json()["table"]["moves"] == 0


def test_a_wrong_token_is_refused(client: TestClient) -> None:
    created = create(client)
    with watch(client, created["id"], "forged") as ws:
        refused_and_closed(ws, 403)
    with client.websocket_connect("/ws/games/nosuchgame") as ws:
        refused_and_closed(ws, 404)


def test_a_token_in_the_url_is_refused(client: TestClient) -> None:
    created = create(client)
    token = token_of(created, 0)
    with client.websocket_connect(f"/ws/games/{created['id']}?token={token}") as ws:
        refused_and_closed(ws, 400, "never travel in URLs")


def test_other_sites_pages_cannot_open_a_websocket(client: TestClient) -> None:
    created = create(client)
    url = f"/ws/games/{created['id']}"
    evil = {"origin": "https://evil.example"}
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(url, headers=evil):
        pass
    assert refused.value.code == 4403
    # The server's own pages may (the test client's host is "testserver").
    with client.websocket_connect(url, headers={"origin": "http://testserver"}) as ws:
        ws.send_json({})
        assert receive(ws)["type"] == "view"


def test_reconnecting_resumes_where_the_game_is(client: TestClient) -> None:
    created = create(client, seats=["human", "bot:random"])
    game_id = created["id"]
    token = token_of(created, 0)
    with watch(client, game_id, token) as ws:
        frame = receive(ws)
        while not frame["legal_actions"]:
            frame = receive(ws)
        ws.send_json({"action": "pass"})
        frame = receive(ws)
    # Gone for a while; the bot moves on meanwhile; back again.
    with watch(client, game_id, token) as ws:
        again = receive(ws)
        current = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        assert again["table"]["seat"] == 0
        assert again["table"]["moves"] >= frame["table"]["moves"]
        assert again["hand"] == current["hand"]


def test_a_client_that_cannot_keep_up_is_closed_with_a_reason() -> None:

    from cradle.server.table import SEND_QUEUE_LIMIT, Connection

    async def never_sent(_text: str) -> None:
        raise AssertionError("not pumped in this test")

    async def run() -> None:
        connection = Connection(seat=0, hotseat=False, send=never_sent)
        for number in range(SEND_QUEUE_LIMIT):
            assert connection.push(f"frame {number}")
        assert not connection.push("one too many")
        assert connection.close_reason is not None and "too slow" in connection.close_reason
        assert not connection.push("later")  # nothing more is queued once it is closing

    run_async(run)


def test_a_client_holds_at_most_its_share_of_live_connections(db_url: str) -> None:
    limits = Limits(analyse_finished=False, sockets_per_client=2)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        created = create(client)
        game_id = created["id"]
        with watch(client, game_id) as first, watch(client, game_id, token_of(created, 0)):
            assert receive(first)["type"] == "view"
            with client.websocket_connect(f"/ws/games/{game_id}") as third:
                refused_and_closed(third, 429, "at most 2 live connections")
        # Closed connections free their places (once the server has seen them close).
        deadline = time.monotonic() + 120
        while True:
            with watch(client, game_id) as again, watch(client, game_id) as other:
                frames = [receive(again), receive(other)]
            if [f["type"] for f in frames] == ["view", "view"]:
                break
            assert all(f["type"] == "view" or f["status"] == 429 for f in frames), frames
            assert time.monotonic() < deadline, "closed connections never freed their places"
            time.sleep(0.05)


def test_two_applications_in_one_process_keep_their_own_databases_and_limits(
    tmp_path: Path,
) -> None:
    """The routes are made once a process and shared by every application built in it: each
    request still reads its own application's database, limits and live connections."""
    strict = Limits(analyse_finished=False, sockets_per_client=1, create_burst=1)
    loose = Limits(analyse_finished=False, sockets_per_client=3)
    with (
        TestClient(create_app(f"sqlite:///{tmp_path / 'a.sqlite3'}", 0, strict)) as a,
        TestClient(create_app(f"sqlite:///{tmp_path / 'b.sqlite3'}", 0, loose)) as b,
    ):
        game_a = create(a)["id"]
        game_b = create(b)["id"]
        assert a.get(f"/api/games/{game_b}").status_code == 404
        assert b.get(f"/api/games/{game_a}").status_code == 404
        assert (
            a.post("/api/games", json={"game": "tigris", "seats": ["human"] * 2}).status_code == 429
        )
        assert (
            b.post("/api/games", json={"game": "tigris", "seats": ["human"] * 2}).status_code == 200
        )
        with watch(a, game_a) as only, watch(b, game_b) as first, watch(b, game_b) as second:
            assert [receive(w)["type"] for w in (only, first, second)] == ["view"] * 3
            with a.websocket_connect(f"/ws/games/{game_a}") as refused:
                refused_and_closed(refused, 429, "at most 1 live connections")
            with watch(b, game_b) as third:
                assert receive(third)["type"] == "view"


def test_a_burst_of_pings_gets_every_pong_on_a_real_server(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    server = PlayServer(f"sqlite:///{tmp_path / 'games.sqlite3'}").start()
    try:
        created = server.post("/api/games", {"game": "tigris", "seats": ["human", "human"]})
        with connect(f"ws://127.0.0.1:{server.port}/ws/games/{created['id']}") as ws:
            ws.send("{}")
            assert json.loads(ws.recv(timeout=30))["type"] == "view"
            for _ in range(100):  # all at once, before reading any answer
                ws.send('{"type": "ping"}')
            answers = [json.loads(ws.recv(timeout=30)) for _ in range(100)]
            assert answers == [{"type": "pong"}] * 100
            ws.send('{"type": "ping"}')
            assert json.loads(ws.recv(timeout=30)) == {"type": "pong"}  # still open
    finally:
        server.stop()


def test_a_client_that_does_not_read_is_closed_1013(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the ASGI boundary, where a client that stopped reading is a send that never
    returns (over TCP it takes megabytes of unread frames to fill the kernel's buffers)."""
    from cradle.server import hub as hub_module
    from cradle.server.seats import NewTable

    monkeypatch.setattr(hub_module, "SEND_PATIENCE", 0.5)

    async def run() -> list[Any]:
        app = create_app(db_url, bot_delay=0, limits=Limits(analyse_finished=False))
        sent: list[Any] = []
        closed = asyncio.Event()
        incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        incoming.put_nowait({"type": "websocket.connect"})
        for text in ["{}"] + ['{"type": "ping"}'] * 100:
            incoming.put_nowait({"type": "websocket.receive", "text": text})

        async def receive() -> dict[str, Any]:
            if closed.is_set() and incoming.empty():
                return {"type": "websocket.disconnect", "code": 1013}
            getting = asyncio.ensure_future(incoming.get())
            ending = asyncio.ensure_future(closed.wait())
            await asyncio.wait({getting, ending}, return_when=asyncio.FIRST_COMPLETED)
            ending.cancel()
            if getting.done():
                return getting.result()
            getting.cancel()
            return {"type": "websocket.disconnect", "code": 1013}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
            if message["type"] == "websocket.close":
                closed.set()
            elif message["type"] == "websocket.send" and len(sent) > 2:
                await asyncio.Event().wait()  # the view was read, then nothing more

        async with app.router.lifespan_context(app):
            created = await app.state.hub.create(
                NewTable(game="tigris", players=2, options={}, seats=["human", "human"]),
                "testclient",
            )
            scope = {
                "type": "websocket",
                "path": f"/ws/games/{created['id']}",
                "raw_path": f"/ws/games/{created['id']}".encode(),
                "query_string": b"",
                "headers": [(b"host", b"testserver")],
                "client": ("127.0.0.1", 50000),
                "server": ("testserver", 80),
                "scheme": "ws",
                "root_path": "",
                "subprotocols": [],
            }
            await asyncio.wait_for(app(scope, receive, send), 120)
        return sent

    sent = run_async(run)
    kinds = [message["type"] for message in sent]
    assert kinds[:2] == ["websocket.accept", "websocket.send"], kinds
    assert json.loads(sent[1]["text"])["type"] == "view"
    close = sent[-1]
    assert close["type"] == "websocket.close" and close["code"] == 1013, close
    assert "too slow" in close["reason"]
