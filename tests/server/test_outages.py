"""The database fails under a running server: a full disk (SQLite on a tiny tmpfs), a
PostgreSQL server that stops. Whatever needs the database answers 503 with a reason and
Retry-After, games in memory keep being shown, and everything works again once the database
is back."""

from __future__ import annotations

import contextlib
import os
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits
from cradle.server.store import Store
from tests.helpers.server import GAMES, PostgresCluster, auth, create, postgres_bin, watch

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

# Enough new games and moves for the test, whatever the defaults.
LIMITS = Limits(analyse_finished=False, create_per_minute=6000, create_burst=1000)


@contextlib.contextmanager
def mounted(where: Path, *options: str) -> Iterator[Path]:
    """A tmpfs mounted at ``where`` for the test (skipped where this process may not mount)."""
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    mount = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mount.stderr.strip()}")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def assert_unavailable(answer: Any, *words: str) -> str:
    """A 503 that says why, and when to try again; nothing of the database's own text."""
    assert answer.status_code == 503, answer.text
    reason: str = answer.json()["error"]
    assert all(word in reason for word in words), reason
    assert int(answer.headers["Retry-After"]) >= 1
    assert "INSERT" not in reason and "sqlite" not in reason.lower() and "@" not in reason
    return reason


def move(client: TestClient, game_id: str, tokens: dict[int, str]) -> Any:
    """One legal move of whoever decides in the game (two people at their screens)."""
    seen = client.get(f"/api/games/{game_id}").json()
    seat = seen["to_move"]
    view = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat])).json()
    action = view["legal_actions"][0]
    return client.post(
        f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(tokens[seat])
    )


def tokens_of(created: dict[str, Any]) -> dict[int, str]:
    return {entry["seat"]: entry["token"] for entry in created["seats"]}


def test_a_full_disk_answers_503_and_the_server_recovers(tmp_path: Path) -> None:
    with mounted(tmp_path / "disk", "size=1m") as disk:
        url = f"sqlite:///{disk / 'games.sqlite3'}"
        with TestClient(create_app(url, bot_delay=0, limits=LIMITS)) as client:
            game = create(client)
            tokens = tokens_of(game)
            assert move(client, game["id"], tokens).status_code == 200
            filler = disk / "filler"
            with contextlib.suppress(OSError), open(filler, "wb") as handle:
                while True:  # until the disk is full
                    handle.write(b"\0" * 4096)
                    handle.flush()
            # SQLite reuses the room its log already has, so a few writes may still fit.
            for _ in range(300):
                answer = client.post("/api/games", json={"game": "tigris"})
                if answer.status_code != 200:
                    break
            assert_unavailable(answer, "the game could not be stored", "disk is full")
            answer = move(client, game["id"], tokens)
            assert_unavailable(answer, "the move could not be stored", "disk is full")
            # The game is shown as it was, from memory and from the file.
            seen = client.get(f"/api/games/{game['id']}", headers=auth(tokens[0]))
            assert seen.status_code == 200 and seen.json()["table"]["moves"] == 1
            assert client.get("/api/games").status_code == 200
            with watch(client, game["id"]) as ws:
                assert ws.receive_json()["table"]["moves"] == 1
            filler.unlink()  # room again: writes work again, in the same server
            assert move(client, game["id"], tokens).status_code == 200
            assert client.post("/api/games", json={"game": "tigris"}).status_code == 200
        storage = Store(url)
        try:
            stored = storage.games.load(game["id"])
            assert stored is not None and len(stored.actions) == 2
        finally:
            storage.close()


@pytest.mark.skipif(postgres_bin() is None, reason="PostgreSQL is not installed")
def test_a_stopped_postgresql_answers_503_and_games_in_memory_are_shown() -> None:
    cluster = PostgresCluster()
    try:
        cluster.create()
        with TestClient(create_app(cluster.url, bot_delay=0, limits=LIMITS)) as client:
            game = create(client)
            tokens = tokens_of(game)
            assert move(client, game["id"], tokens).status_code == 200
            unloaded = create(client)["id"]
            client.app.state.hub.tables.pop(unloaded)  # only in the database now

            cluster.stop()
            # Games in memory are shown; what needs the database answers 503, and why.
            seen = client.get(f"/api/games/{game['id']}", headers=auth(tokens[0]))
            assert seen.status_code == 200 and seen.json()["table"]["moves"] == 1
            assert client.get(f"/api/games/{game['id']}/history").status_code == 200
            with watch(client, game["id"], tokens[0]) as ws:
                assert ws.receive_json()["table"]["moves"] == 1
            assert_unavailable(client.get("/api/games"), "database")
            assert_unavailable(client.post("/api/games", json={"game": "tigris"}), "database")
            assert_unavailable(move(client, game["id"], tokens), "the move could not be stored")
            assert_unavailable(client.get(f"/api/games/{unloaded}"), "database")
            seat = client.get(f"/api/games/{game['id']}").json()["to_move"]
            legal = client.get(f"/api/games/{game['id']}", headers=auth(tokens[seat])).json()
            with watch(client, game["id"], tokens[seat]) as ws:
                ws.receive_json()
                ws.send_json({"action": legal["legal_actions"][0]})
                frame = ws.receive_json()
                assert frame["type"] == "error" and frame["status"] == 503, frame
                assert "the move could not be stored" in frame["error"]

            cluster.start()  # back: the same server works again
            assert move(client, game["id"], tokens).status_code == 200
            assert client.get("/api/games").status_code == 200
            assert client.get(f"/api/games/{unloaded}").status_code == 200
            assert client.post("/api/games", json={"game": "tigris"}).status_code == 200
    finally:
        cluster.remove()
