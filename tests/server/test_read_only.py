"""A SQLite file on a read-only file system is served read-only: every stored game can be
watched, replayed and read; whatever would write answers 503 saying the server is read-only.

The folder is made read-only by a read-only bind mount (as root, permissions alone stop
nothing), so the kernel itself refuses every write, as on a read-only disk."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits
from cradle.server.store import Store
from tests.helpers.server import CRADLE, GAMES, auth, create, free_port, read_only, stored_game

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """(status, JSON answer, headers) of a request, errors included."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **auth(token)}
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read()), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


def test_a_read_only_file_is_served_read_only(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    db = folder / "games.sqlite3"
    url = f"sqlite:///{db}"
    with TestClient(create_app(url, bot_delay=30, limits=Limits(analyse_finished=False))) as client:
        live = create(client)
        tokens = {entry["seat"]: entry["token"] for entry in live["seats"]}
        invite = live["seats"][1]["invite"]
        seat = client.get(f"/api/games/{live['id']}").json()["to_move"]
        legal = client.get(f"/api/games/{live['id']}", headers=auth(tokens[seat])).json()
        action = next(a for a in legal["legal_actions"] if a.startswith("tile"))
        moved = client.post(
            f"/api/games/{live['id']}/actions", json={"action": action}, headers=auth(tokens[seat])
        ).json()
        assert moved["table"]["can_undo"] and moved["to_move"] == seat
        bots = create(client, seats=["bot:random", "bot:random"])  # a bot decides: not yet
    storage = Store(url)
    try:
        stored_game(storage, "finished", 5, None, hotseat=False)  # to its end, analysis done
    finally:
        storage.close()
    assert not Path(f"{db}-wal").exists()  # stopped in order: the file holds everything

    with read_only(folder):
        port = free_port()
        process = subprocess.Popen(
            [*CRADLE, "serve", "--port", str(port), "--db", str(db)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert process.stdout is not None
            lines = [process.stdout.readline(), process.stdout.readline()]
            assert "read-only" not in lines[0] and f"http://127.0.0.1:{port}/" in lines[0]
            assert lines[1].startswith("serving read-only:") and str(db) in lines[1]
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while True:
                try:
                    call(base, "GET", "/api/meta")
                    break
                except OSError:
                    assert process.poll() is None and time.monotonic() < deadline
                    time.sleep(0.05)

            # Everything stored can be read.
            status, lobby, _ = call(base, "GET", "/api/games")
            assert status == 200
            assert {live["id"], bots["id"], "finished"} <= {g["id"] for g in lobby["games"]}
            status, view, _ = call(base, "GET", f"/api/games/{live['id']}", token=tokens[seat])
            assert status == 200 and view["table"]["moves"] == 1 and view["legal_actions"]
            for path in ("", "/record", "/replay", "/history", "/board?ply=0&seat=1"):
                status, found, _ = call(base, "GET", f"/api/games/finished{path}")
                assert status == 200, (path, found)
            status, analysis, _ = call(base, "GET", "/api/games/finished/analysis")
            assert status == 200 and analysis["status"] == "done"
            status, history, _ = call(base, "GET", f"/api/games/{live['id']}/history")
            assert status == 200 and history["moves"] == 1

            # Whatever would write answers 503, saying why (and not to try again soon).
            game = f"/api/games/{live['id']}"
            writes = [
                ("POST", "/api/games", {"game": "tigris"}, None),
                ("POST", f"{game}/join", {"invite": invite}, None),
                ("POST", f"{game}/actions", {"action": legal["legal_actions"][0]}, tokens[seat]),
                ("POST", f"{game}/undo", None, tokens[seat]),
                ("POST", "/api/games/finished/analysis", None, None),
            ]
            for method, path, body, token in writes:
                status, refused, headers = call(base, method, path, body, token)
                assert status == 503, (path, refused)
                assert "read-only" in refused["error"], refused
                assert "Retry-After" not in headers
            # The bots do not move, and nothing changed.
            time.sleep(1.0)
            assert call(base, "GET", f"/api/games/{bots['id']}")[1]["table"]["moves"] == 0
            status, view, _ = call(base, "GET", game, token=tokens[seat])
            assert (
                view["table"]["moves"] == 1
                and view["table"]["version"] == moved["table"]["version"]
            )
            assert process.poll() is None
        finally:
            process.terminate()
            process.wait(timeout=30)
