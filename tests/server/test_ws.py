"""The WebSocket API: pushed views, error frames that keep the connection, reconnection."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.server.conftest import GAMES, create, token_of

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def receive(ws: Any) -> dict[str, Any]:
    frame: dict[str, Any] = ws.receive_json()
    return frame


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
        client.websocket_connect(f"/ws/games/{game_id}?token={tokens[0]}") as ws0,
        client.websocket_connect(f"/ws/games/{game_id}?token={tokens[1]}") as ws1,
        client.websocket_connect(f"/ws/games/{game_id}") as watcher,
    ):
        sockets = [ws0, ws1]
        frames = [receive(ws0), receive(ws1)]
        first_watch = receive(watcher)
        assert first_watch["table"]["screen"] == "spectator" and not first_watch.get("hand")
        # Seat 1's arrival changed the table (its seat is now taken): everyone hears of it.
        frames[0] = receive(ws0)
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
    with client.websocket_connect(f"/ws/games/{game_id}?token={token}") as ws:
        start = receive(ws)
        bad: list[str] = [
            "{not json",
            json.dumps(["pass"]),
            json.dumps({"hello": 1}),
            json.dumps({"action": "tile purple Z99"}),
            json.dumps({"action": 7}),
            json.dumps({"action": "pass", "padding": "x" * 5000}),
            json.dumps({"undo": True}),
        ]
        for text in bad:
            ws.send_text(text)
            reply = receive(ws)
            assert reply["type"] == "error" and reply["error"], text
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
    with client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        receive(watcher)
        watcher.send_json({"action": "pass"})
        reply = receive(watcher)
        assert reply["type"] == "error" and reply["status"] == 403
    other = token_of(created, 1 - seat)
    with client.websocket_connect(f"/ws/games/{game_id}?token={other}") as ws:
        receive(ws)
        ws.send_json({"action": "pass"})
        reply = receive(ws)
        assert reply["type"] == "error" and reply["status"] == 403
    assert client.get(f"/api/games/{game_id}").json()["table"]["moves"] == 0


def test_a_wrong_token_is_refused(client: TestClient) -> None:
    created = create(client)
    with client.websocket_connect(f"/ws/games/{created['id']}?token=forged") as ws:
        reply = receive(ws)
        assert reply["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4403
    with client.websocket_connect("/ws/games/nosuchgame") as ws:
        assert receive(ws)["type"] == "error"


def test_reconnecting_resumes_where_the_game_is(client: TestClient) -> None:
    created = create(client, seats=["human", "bot:random"])
    game_id = created["id"]
    token = token_of(created, 0)
    with client.websocket_connect(f"/ws/games/{game_id}?token={token}") as ws:
        frame = receive(ws)
        while not frame["legal_actions"]:
            frame = receive(ws)
        ws.send_json({"action": "pass"})
        frame = receive(ws)
    # Gone for a while; the bot moves on meanwhile; back again.
    with client.websocket_connect(f"/ws/games/{game_id}?token={token}") as ws:
        again = receive(ws)
        current = client.get(f"/api/games/{game_id}?token={token}").json()
        assert again["table"]["seat"] == 0
        assert again["table"]["moves"] >= frame["table"]["moves"]
        assert again["hand"] == current["hand"]
