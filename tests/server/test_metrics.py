"""The operator's metrics and log (docs/server.md, "Metrics and logs"): /metrics answers only
the operator's token, counts moves, sign-ins refused, mails and database failures, times the
answers by route, reads the bots' queue; with several workers it adds up all of them; the log
is one JSON object a line when asked."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.errors import unavailable
from cradle.server.limits import Limits
from cradle.server.store.errors import StorageError
from tests.helpers.app import move, view
from tests.helpers.server import GAMES, PlayServer, create, http, token_of

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

TOKEN = "metrics-token-0123456789"
SCRAPE = {"Authorization": f"Bearer {TOKEN}"}


def value(text: str, name: str, **labels: str) -> float:
    """A sample's value in an exposition (0.0 when it is not there yet)."""
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        found, _, number = line.rpartition(" ")
        head, _, inside = found.partition("{")
        if head != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', inside))
        if all(have.get(k) == v for k, v in labels.items()):
            return float(number)
    return 0.0


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    limits = Limits(analyse_finished=False, password_kib=64)
    app = create_app(db_url, bot_delay=0, limits=limits, metrics_token=TOKEN)
    with TestClient(app) as test_client:
        yield test_client


def test_metrics_answer_only_the_operators_token(client: TestClient, db_url: str) -> None:
    assert client.get("/metrics").status_code == 401
    wrong = client.get("/metrics", headers={"Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 401 and "metrics token" in wrong.json()["error"]
    assert client.get("/metrics", headers=SCRAPE).status_code == 200
    with TestClient(create_app(db_url.replace(".sqlite3", "2.sqlite3"), bot_delay=0)) as off:
        answer = off.get("/metrics", headers=SCRAPE)
        assert answer.status_code == 404 and "--metrics-token" in answer.json()["error"]
    assert "/metrics" not in client.get("/openapi.json").text


def test_moves_signins_database_failures_and_latency_are_counted(client: TestClient) -> None:
    before = client.get("/metrics", headers=SCRAPE).text
    created = create(client, seats=["human", "human"])
    game_id, tokens = created["id"], [token_of(created, 0), token_of(created, 1)]
    for _ in range(3):
        move(client, game_id, tokens[view(client, game_id)["to_move"]])
    guesser = TestClient(client.app, client=("203.0.113.9", 1))
    for n in range(11):
        guesser.post("/api/session", json={"name": "nobody", "password": f"guess {n}"})
    unavailable(StorageError("disk full", "the disk is full"))
    after = client.get("/metrics", headers=SCRAPE).text
    moves = value(after, "cradle_moves_total", game="tigris", by="person")
    assert moves - value(before, "cradle_moves_total", game="tigris", by="person") == 3
    assert value(after, "cradle_move_seconds_count", game="tigris") >= 3
    wrong = value(after, "cradle_signins_total", result="wrong")
    assert wrong - value(before, "cradle_signins_total", result="wrong") == 10
    refused = value(after, "cradle_signins_refused_total", reason="address")
    assert refused - value(before, "cradle_signins_refused_total", reason="address") == 1
    failures = value(after, "cradle_database_errors_total", kind="StorageError")
    assert failures - value(before, "cradle_database_errors_total", kind="StorageError") == 1
    route = "/api/games/{game_id}/actions"
    assert value(after, "cradle_http_request_seconds_count", route=route, status="2xx") >= 3
    assert value(after, "cradle_bot_queue", state="waiting") == 0
    assert "cradle_bot_queue_wait_seconds" in after and "# HELP cradle_mails_total" in after


def test_the_bots_queue_is_read_from_the_database(db_url: str) -> None:
    limits = Limits(analyse_finished=False, run_bots=False, password_kib=64)
    app = create_app(db_url, bot_delay=0, limits=limits, metrics_token=TOKEN)
    with TestClient(app) as client:
        for _ in range(2):
            create(client, seats=["bot:easy", "bot:easy"])  # no worker here: the turns wait
        text = client.get("/metrics", headers=SCRAPE).text
    assert value(text, "cradle_bot_queue", state="waiting") == 2
    assert value(text, "cradle_bot_queue", state="thinking") == 0


def test_every_worker_is_counted_and_the_log_is_json_lines(
    postgres_url: str, tmp_path: Path
) -> None:
    server = PlayServer(
        postgres_url,
        settings=(
            "workers=2",
            f"metrics_token={TOKEN}",
            "log_format=json",
            "log_level=info",
            "analyse_finished=false",
            "password_kib=64",
        ),
    )
    log = (tmp_path / "server.log").open("wb")
    server.process = subprocess.Popen(server.command(), stderr=log)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                http("GET", server.base + "/api/meta")
                break
            except OSError:
                assert time.monotonic() < deadline and server.process.poll() is None
                time.sleep(0.1)
        made = [
            http("POST", server.base + "/api/games", {"game": "tigris", "players": 2})
            for _ in range(8)
        ]
        moves = 0
        for created in made:
            tokens = [s["token"] for s in created["seats"]]
            frame = http("GET", f"{server.base}/api/games/{created['id']}")
            mine = http(
                "GET", f"{server.base}/api/games/{created['id']}", token=tokens[frame["to_move"]]
            )
            http("POST", f"{server.base}/api/games/{created['id']}/actions", {"action": mine["legal_actions"][0]}, tokens[frame["to_move"]])  # fmt: skip
            moves += 1
        request = urllib.request.Request(
            server.base + "/api/session",
            data=json.dumps({"name": "nobody", "password": "not it at all"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(request, timeout=30)
        texts = []
        for _ in range(4):  # whichever worker answers, it counts both
            scrape = urllib.request.Request(server.base + "/metrics", headers=SCRAPE)
            with urllib.request.urlopen(scrape, timeout=30) as answer:
                texts.append(answer.read().decode())
        assert {value(t, "cradle_moves_total", game="tigris", by="person") for t in texts} == {
            moves
        }
    finally:
        server.stop()
        log.close()
    lines = [
        json.loads(line)
        for line in (tmp_path / "server.log").read_text().splitlines()
        if line.startswith("{")
    ]
    failed = [line for line in lines if line["message"] == "sign-in failed"]
    assert failed and failed[0]["level"] == "info" and failed[0]["client"] == "127.0.0.1"
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
