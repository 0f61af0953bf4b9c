"""The server as an operator meets it: corrupt rows at start-up, a real uvicorn in front of
hostile bodies, and bot worker processes that must end with the server, however it ends."""

from __future__ import annotations

import http.client
import json
import logging
import signal
import sqlite3
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from tests.helpers.server import GAMES, PlayServer, alive, auth, children_of, create, wait_for

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

CORRUPTIONS = {
    "unknown": ("UPDATE games SET game = 'chess' WHERE id = ?", "unknown game 'chess'"),
    "players": ("UPDATE games SET players = '{\"bad' WHERE id = ?", "players are not valid JSON"),
    "options": ("UPDATE games SET options = '[1, 2' WHERE id = ?", "options are not valid JSON"),
    "seats": ("UPDATE games SET seats = '[\"human\"]' WHERE id = ?", "1 seats for 2 players"),
    "moves": ("UPDATE actions SET action = 'tile red Z99' WHERE game_id = ?", "does not replay"),
    "numbers": ("UPDATE actions SET ply = 7 WHERE game_id = ?", "not numbered"),
}


def test_corrupt_games_are_set_aside_and_the_others_serve(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    ids: dict[str, str] = {}
    with TestClient(create_app(url, bot_delay=0.5)) as client:
        for name in CORRUPTIONS:
            created = create(client)
            seat = client.get(f"/api/games/{created['id']}").json()["to_move"]
            token = next(s["token"] for s in created["seats"] if s["seat"] == seat)
            client.post(
                f"/api/games/{created['id']}/actions", json={"action": "pass"}, headers=auth(token)
            )
            ids[name] = created["id"]
        healthy = create(client, seats=["human", "human"])
        bots = create(client, players=3, seats=["bot:random"] * 3)
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        for name, (statement, _reason) in CORRUPTIONS.items():
            db.execute(statement, (ids[name],))

    caplog.set_level(logging.ERROR, logger="cradle.server")
    with TestClient(create_app(url, bot_delay=0)) as client:
        for name, (_statement, reason) in CORRUPTIONS.items():
            answer = client.get(f"/api/games/{ids[name]}")
            assert answer.status_code == 503, name  # the server cannot serve it; not a 500
            assert reason in answer.json()["error"], name
            assert ids[name] in caplog.text and reason in caplog.text
        # Its own URL answers why; everything else serves as before.
        assert client.get(f"/api/games/{healthy['id']}").json()["table"]["moves"] == 0
        wait_for(lambda: client.get(f"/api/games/{bots['id']}").json()["table"]["moves"] > 5)
        lobby = client.get("/api/games").json()["games"]
        assert healthy["id"] in {g["id"] for g in lobby}
        assert create(client)["id"]


def request(server: PlayServer, method: str, path: str, body: bytes, **headers: str) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


def test_a_real_server_answers_hostile_bodies_with_json(tmp_path: Path) -> None:
    server = PlayServer(f"sqlite:///{tmp_path / 'games.sqlite3'}").start()
    try:
        kind = {"Content-Type": "application/json"}
        status, _headers, content = request(server, "POST", "/api/games", b"x" * 100_000, **kind)
        assert status == 413 and "larger than" in json.loads(content)["error"]
        status, _headers, content = request(server, "POST", "/api/games", b"[" * 1500, **kind)
        assert status == 400 and "nests deeper" in json.loads(content)["error"]
        status, _headers, content = request(
            server, "POST", "/api/games", b'{"game": "tigris"}', **{"Content-Type": "text/plain"}
        )
        assert status == 415
        for path in ("/", "/static/app.js", "/api/meta", "/api/games/none"):
            status, headers, _content = request(server, "GET", path, b"")
            lowered = {k.lower(): v for k, v in headers.items()}
            assert "frame-ancestors 'none'" in lowered["content-security-policy"], path
            assert lowered["x-content-type-options"] == "nosniff"
            assert lowered["referrer-policy"] == "no-referrer"
        status, _headers, content = request(server, "GET", "/api/nothing/here", b"")
        assert status == 404 and json.loads(content)["error"]
    finally:
        server.stop()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("ending", ["terminate", "kill"])
def test_bot_workers_end_with_the_server(tmp_path: Path, ending: str) -> None:
    server = PlayServer(
        f"sqlite:///{tmp_path / 'games.sqlite3'}", bot_delay=0, settings=("bot_processes=1",)
    ).start()
    assert server.process is not None
    try:
        server.post("/api/games", {"game": "tigris", "seats": ["bot:greedy", "bot:greedy"]})
        wait_for(lambda: bool(children_of(server.process.pid)), 120)  # type: ignore[union-attr]
        workers = children_of(server.process.pid)
    finally:
        if ending == "kill":
            server.kill()  # SIGKILL: no shutdown code runs; the workers notice on their own
        else:
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(timeout=30)
    deadline = time.monotonic() + 120
    while any(alive(pid) for pid in workers):
        assert time.monotonic() < deadline, f"bot workers outlived the server: {workers}"
        time.sleep(0.1)
