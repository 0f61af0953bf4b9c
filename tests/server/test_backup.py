"""`cradle db backup` and `cradle db restore` (docs/server.md, "Backups"): a backup taken while a
server serves and moves are being made restores into a new server that serves every game the
same; what cannot be done is refused with a reason (PostgreSQL: pg_dump, whose round trip is
checked too)."""

from __future__ import annotations

import shutil
import subprocess
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits
from tests.helpers.server import (
    GAMES,
    auth,
    create,
    new_database,
    postgres_bin,
    run,
    token_of,
    wait_for,
)

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

PASSWORD = "correct horse battery"
LIMITS = Limits(analyse_finished=False, password_kib=64, moves_per_second=1e6, moves_burst=10**6)


def move(client: TestClient, game_id: str, tokens: list[str]) -> bool:
    """One legal move by whoever decides (False once the game is over)."""
    view = client.get(f"/api/games/{game_id}").json()
    seat = view["to_move"]
    if seat is None:
        return False
    mine = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat])).json()
    action = mine["legal_actions"][0]
    answer = client.post(
        f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(tokens[seat])
    )
    assert answer.status_code == 200, answer.text
    return True


def seen(client: TestClient, games: dict[str, list[str]]) -> dict[str, Any]:
    """Everything the server shows of ``games`` (id -> seat tokens): each seat's view and the
    spectators', the history, the chat, the record once over; and the lobby."""
    shown: dict[str, Any] = {}
    for game_id, tokens in games.items():
        views = [client.get(f"/api/games/{game_id}", headers=auth(t)).json() for t in tokens]
        spectators = client.get(f"/api/games/{game_id}").json()
        shown[game_id] = {
            "views": views,
            "spectators": spectators,
            "history": client.get(f"/api/games/{game_id}/history").json(),
        }
        if tokens:
            chat = client.get(f"/api/games/{game_id}/chat", headers=auth(tokens[0]))
            shown[game_id]["chat"] = chat.json()["lines"]
        if spectators["table"]["status"] == "over":
            shown[game_id]["record"] = client.get(f"/api/games/{game_id}/record").json()
    shown["lobby"] = client.get("/api/games").json()  # (the tables loaded: as a server in use)
    return shown


def test_a_backup_taken_while_serving_restores_into_a_server_that_serves_the_same(
    tmp_path: Path,
) -> None:
    source = tmp_path / "games.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    restored = tmp_path / "restored" / "games.sqlite3"
    restored.parent.mkdir()
    with TestClient(create_app(f"sqlite:///{source}", bot_delay=0, limits=LIMITS)) as client:
        keeper = TestClient(client.app)  # a browser of its own, signed in
        account = keeper.post("/api/accounts", json={"name": "Keeper", "password": PASSWORD})
        csrf = {"X-CSRF-Token": account.json()["csrf"]}
        made = keeper.post(
            "/api/games", json={"game": "tigris", "players": 2, "seats": ["human", "human"]},
            headers=csrf,
        )  # fmt: skip
        assert made.status_code == 200, made.text
        running = made.json()
        tokens = [token_of(running, 0), token_of(running, 1)]
        for _ in range(6):
            move(client, running["id"], tokens)
        said = client.post(
            f"/api/games/{running['id']}/chat", json={"text": "kept?"}, headers=auth(tokens[0])
        )
        assert said.status_code == 200
        ended = create(client, seats=["bot:random", "bot:random"])
        wait_for(lambda: client.get(f"/api/games/{ended['id']}").json()["to_move"] is None)
        busy = create(client, seats=["human", "human"])
        busy_tokens = [token_of(busy, 0), token_of(busy, 1)]
        games = {running["id"]: tokens, ended["id"]: [], busy["id"]: busy_tokens}
        before = seen(client, {k: v for k, v in games.items() if k != busy["id"]})
        # Moves go on at one table while the backup is taken.
        stop = threading.Event()
        played: list[int] = []

        def keep_moving() -> None:
            while not stop.is_set() and move(client, busy["id"], busy_tokens):
                played.append(1)

        mover = threading.Thread(target=keep_moving)
        mover.start()
        try:
            wait_for(lambda: len(played) >= 3)
            done = run("db", "backup", "--db", str(source), str(backup))
        finally:
            stop.set()
            mover.join()
        assert done.returncode == 0, done.stderr
        assert "3 games, 1 accounts" in done.stdout, done.stdout
        busy_after = client.get(f"/api/games/{busy['id']}/history").json()["steps"]
        move(client, running["id"], tokens)  # after the backup: not in it
    restored_run = run("db", "restore", "--db", str(restored), str(backup))
    assert restored_run.returncode == 0, restored_run.stderr
    with TestClient(create_app(f"sqlite:///{restored}", bot_delay=0, limits=LIMITS)) as again:
        after = seen(again, {k: v for k, v in games.items() if k != busy["id"]})
        assert after[running["id"]] == before[running["id"]]
        assert after[ended["id"]] == before[ended["id"]]
        listed = {row["id"]: row for row in after["lobby"]["games"]}
        for row in before["lobby"]["games"]:
            if row["id"] != busy["id"]:
                assert listed[row["id"]] == row
        # The table that was moving: one consistent state, some prefix of its moves.
        steps = again.get(f"/api/games/{busy['id']}/history").json()["steps"]
        assert 3 <= len(steps) <= len(busy_after) and steps == busy_after[: len(steps)]
        assert move(again, busy["id"], busy_tokens)  # and it plays on
        keeper = TestClient(again.app)
        signed = keeper.post("/api/session", json={"name": "Keeper", "password": PASSWORD})
        assert signed.status_code == 200
        mine = keeper.get("/api/me/games").json()["games"]
        assert [g["id"] for g in mine] == [running["id"]]


def test_what_backup_and_restore_refuse(tmp_path: Path) -> None:
    source = tmp_path / "games.sqlite3"
    with TestClient(create_app(f"sqlite:///{source}", bot_delay=0, limits=LIMITS)):
        pass
    taken = tmp_path / "taken.sqlite3"
    taken.write_bytes(b"")
    refused = run("db", "backup", "--db", str(source), str(taken))
    assert refused.returncode == 2 and "exists: a backup goes to a new file" in refused.stderr
    assert run("db", "backup", "--db", str(source), str(tmp_path / "b.sqlite3")).returncode == 0
    refused = run("db", "restore", "--db", str(source), str(tmp_path / "b.sqlite3"))
    assert refused.returncode == 2 and "--replace" in refused.stderr
    replaced = run("db", "restore", "--replace", "--db", str(source), str(tmp_path / "b.sqlite3"))
    assert replaced.returncode == 0, replaced.stderr
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    refused = run("db", "restore", "--db", str(tmp_path / "new.sqlite3"), str(junk))
    assert refused.returncode == 2 and "not a SQLite database" in refused.stderr
    assert not (tmp_path / "new.sqlite3").exists()
    refused = run("db", "backup", "--database", "postgresql://u:secret@db/cradle", "x.dump")
    assert refused.returncode == 2 and "pg_dump --format=custom" in refused.stderr
    assert "secret" not in refused.stderr


def test_a_running_server_file_is_not_replaced(tmp_path: Path) -> None:
    from tests.helpers.server import PlayServer

    source = tmp_path / "games.sqlite3"
    server = PlayServer(f"sqlite:///{source}").start()
    try:
        assert run("db", "backup", "--db", str(source), str(tmp_path / "b.sqlite3")).returncode == 0
        refused = run(
            "db", "restore", "--replace", "--db", str(source), str(tmp_path / "b.sqlite3")
        )
        assert refused.returncode == 2 and "is using" in refused.stderr, refused.stderr
    finally:
        server.stop()


def test_pg_dump_as_documented_restores_a_server_that_serves_the_same(
    postgres_url: str, postgres_cluster: str, tmp_path: Path
) -> None:
    """docs/server.md's PostgreSQL backup: pg_dump's custom format, pg_restore into a new
    database; the new server serves every game the same."""
    folder = postgres_bin()
    assert folder is not None
    if shutil.which(str(folder / "pg_dump")) is None:
        pytest.skip("no pg_dump beside the PostgreSQL server")
    with TestClient(create_app(postgres_url, bot_delay=0, limits=LIMITS)) as client:
        running = create(client, seats=["human", "human"])
        tokens = [token_of(running, 0), token_of(running, 1)]
        for _ in range(4):
            move(client, running["id"], tokens)
        before = seen(client, {running["id"]: tokens})
    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    dump = tmp_path / "cradle.dump"
    url = new_database(postgres_cluster)
    target = url.replace("postgresql+psycopg://", "postgresql://")
    try:
        subprocess.run(
            [str(folder / "pg_dump"), "--format=custom", "--file", str(dump), plain],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        subprocess.run(
            [str(folder / "pg_restore"), "--no-owner", "--dbname", target, str(dump)],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    except subprocess.CalledProcessError as exc:
        raise AssertionError(exc.stderr.decode()) from None
    with TestClient(create_app(url, bot_delay=0, limits=LIMITS)) as again:
        assert seen(again, {running["id"]: tokens}) == before
