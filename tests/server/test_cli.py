"""`cradle serve` and `cradle loadtest` as a person runs them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.server import CRADLE, GAMES, free_port, run, serving


def test_serve_prints_its_url_and_serves_the_client(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "games.sqlite3"
    process = serving(port, db)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line and str(db) in line
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    assert b"<script" in page.read()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert db.exists()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_refuses_a_busy_port_and_bad_databases(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        answer = run("serve", "--port", str(busy.getsockname()[1]), "--db", str(tmp_path / "x"))
    assert answer.returncode == 2 and "cannot listen" in answer.stderr
    assert "--port" in answer.stderr and "CRADLE_PORT" in answer.stderr  # the way out
    assert "Traceback" not in answer.stderr
    port = str(free_port())
    answer = run("serve", "--port", port, "--database", "postgresql://nobody@127.0.0.1:1/none")
    assert answer.returncode == 2 and "cannot open the database" in answer.stderr
    answer = run("serve", "--db", "a", "--database", "sqlite:///b")
    assert answer.returncode == 2 and "not both" in answer.stderr
    # A SQLite file in use by another server (here: this test process holds its lock).
    from cradle.server.store import Store

    held = Store(f"sqlite:///{tmp_path / 'used.sqlite3'}")
    held.database.claim()
    try:
        answer = run("serve", "--port", str(free_port()), "--db", str(tmp_path / "used.sqlite3"))
    finally:
        held.close()
    assert answer.returncode == 2 and "another cradle server" in answer.stderr
    assert "Traceback" not in answer.stderr


def test_serve_without_port_takes_cradle_port(tmp_path: Path, default_port_is_busy: int) -> None:
    """The tests hold the default port ($CRADLE_PORT): a test that starts `cradle serve`
    without --port fails here every time, not only while `make play` holds port 8000."""
    answer = run("serve", "--db", str(tmp_path / "games.sqlite3"))
    assert answer.returncode == 2
    assert f"cannot listen on 127.0.0.1:{default_port_is_busy}" in answer.stderr


def test_bots_run_beside_postgresql_servers_only(tmp_path: Path) -> None:
    """`cradle bots` serves a PostgreSQL database; a SQLite file's bots are its server's own,
    so `cradle serve --no-bots` needs PostgreSQL too."""
    db = tmp_path / "games.sqlite3"
    answer = run("bots", "--database", f"sqlite:///{db}")
    assert answer.returncode == 2 and "needs PostgreSQL" in answer.stderr
    answer = run("bots", "--database", "postgresql://x@127.0.0.1:1/y", "--workers", "0")
    assert answer.returncode == 2 and "--workers" in answer.stderr
    answer = run("serve", "--port", str(free_port()), "--db", str(db), "--no-bots")
    assert answer.returncode == 2 and "--no-bots needs PostgreSQL" in answer.stderr
    assert "Traceback" not in answer.stderr


def test_loadtest_refuses_other_hosts_and_bad_counts() -> None:
    answer = run("loadtest", "--url", "http://192.168.1.10:8000")
    assert answer.returncode == 2 and "loopback" in answer.stderr
    answer = run("loadtest", "--games", "0")
    assert answer.returncode == 2 and "--games" in answer.stderr


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_loadtest_smoke() -> None:
    answer = run("loadtest", "--games", "2", "--duration", "2", "--think", "0")
    assert answer.returncode == 0, answer.stderr
    report = json.loads(answer.stdout)
    # Some moves, not how many: at load 20 two seconds hold few (the figure is what it measures).
    assert report["moves"] > 0 and report["errors"] == report["timeouts"] == 0
    assert report["latency_ms"]["p50"] <= report["latency_ms"]["p99"] <= report["latency_ms"]["max"]
    assert report["moves_per_s"] > 0
    memory = report["server_memory_mb"]
    assert 0 < memory["rss_end"] <= memory["rss_peak"]


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_loadtest_counts_client_timeouts_and_still_reports() -> None:
    # Each client waits 0.1 s at most while the other seat thinks half a second: timeouts.
    answer = run(
        "loadtest", "--games", "2", "--duration", "2", "--think", "0.5", "--timeout", "0.1"
    )
    assert answer.returncode == 0, answer.stderr
    report = json.loads(answer.stdout)
    # The slots went on after their timeouts: more than two tries each. A loaded server may
    # not answer even a new table in 0.1 s (a timeout, no game started).
    assert report["timeouts"] > 0 and report["games_started"] + report["timeouts"] > 2 * 2


def test_serve_help_keeps_every_option_name_whole_at_80_columns() -> None:
    """An 80-column terminal: every line fits, and no option's name is cut short (rich's boxed
    table once showed "--live-games-per-c…")."""
    from cradle.server.cli import serve

    answer = subprocess.run(
        [*CRADLE, "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "COLUMNS": "80", "TERM": "xterm"},
    )
    assert answer.returncode == 0, answer.stderr
    lines = answer.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in answer.stdout
    names = [
        "--" + name.replace("_", "-")
        for name in serve.__code__.co_varnames[: serve.__code__.co_argcount]
    ]
    assert len(names) > 20
    for name in names:
        assert any(line.split()[:1] == [name] or f" {name} " in line for line in lines), name
