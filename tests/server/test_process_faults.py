"""Servers as processes an operator starts and kills: the one-server lock on a SQLite file
cannot be got around through a link, and the workers of `--workers N` end with their
supervisor, however it ends."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.helpers.server import GAMES, PlayServer, alive, children_of, free_port, run, wait_for

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def test_a_link_to_a_sqlite_file_meets_the_same_lock(tmp_path: Path) -> None:
    real = tmp_path / "data" / "games.sqlite3"
    real.parent.mkdir()
    first = PlayServer(f"sqlite:///{real}").start()
    try:
        (tmp_path / "b.sqlite3").symlink_to(real)
        (tmp_path / "linked").symlink_to(real.parent, target_is_directory=True)
        for link in (tmp_path / "b.sqlite3", tmp_path / "linked" / "games.sqlite3"):
            answer = run("serve", "--port", str(free_port()), "--db", str(link), timeout=60)
            assert answer.returncode == 2, answer.stderr
            assert "another cradle server (pid" in answer.stderr, answer.stderr
            assert str(real) in answer.stderr  # the file it really is
        # A server process started on the link directly stops at its start-up too.
        second = PlayServer(f"sqlite:///{tmp_path / 'b.sqlite3'}")
        with pytest.raises(RuntimeError, match="exited"):
            second.start()
        created = first.post("/api/games", {"game": "tigris"})
        assert first.get(f"/api/games/{created['id']}")["table"]["version"] == 0
    finally:
        first.stop()
    # Once the first has stopped, the link takes a server.
    again = PlayServer(f"sqlite:///{tmp_path / 'b.sqlite3'}").start()
    try:
        assert again.get(f"/api/games/{created['id']}")["table"]["version"] == 0
    finally:
        again.stop()


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    parents = [pid]
    while parents:
        children = children_of(parents.pop())
        found |= children
        parents.extend(children)
    return found


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_workers_end_when_their_supervisor_is_killed(postgres_url: str) -> None:
    settings = ("workers=2", "bot_processes=1", "prestart_bots=1", "assist_processes=1")
    server = PlayServer(postgres_url, settings=settings).start()
    supervisor = server.process
    assert supervisor is not None
    family: set[int] = set()
    try:
        server.post("/api/games", {"game": "tigris", "seats": ["bot:greedy", "bot:greedy"]})
        # Two workers, each with its bot worker (started with it) under it.
        wait_for(lambda: len(descendants(supervisor.pid)) >= 4, 120)
        family = descendants(supervisor.pid)
    finally:
        server.kill()  # SIGKILL: the supervisor can stop nothing
    try:
        deadline = time.monotonic() + 120
        while answers(server.port) or any(alive(pid) for pid in family):
            left = sorted(pid for pid in family if alive(pid))
            assert time.monotonic() < deadline, f"still there after the supervisor: {left}"
            time.sleep(0.2)
        # The port is free for the next server.
        again = PlayServer(postgres_url, port=server.port).start()
        try:
            assert again.get("/api/meta")["games"]
        finally:
            again.stop()
    finally:
        for pid in family:  # what this test started and left behind, if anything
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
