"""Several server processes on one PostgreSQL database: clients alternate between them, one is
killed with SIGKILL mid-game, and nothing acknowledged is lost while every view converges.

Process A is ``uvicorn --workers 2`` (two processes behind one port), process B a single one:
three processes serve the same games. A SQLite file, by contrast, takes one server only.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cradle.core.record import GameRecord
from cradle.server.store import Store
from tests.helpers.server import (
    GAMES,
    PlayServer,
    check_bots_played_as_if_never_stopped,
    new_database,
    wait_for,
)

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def move(reader: PlayServer, writer: PlayServer, game_id: str, token: str) -> dict[str, Any] | None:
    """One legal move of the seat holding ``token``, seen on one process and sent to another
    at once (None when the seat does not decide now)."""
    seen = reader.get(f"/api/games/{game_id}", token)
    actions = seen["legal_actions"]
    if not actions:
        return None
    # Few swaps: a tile or leader keeps the game going and varied.
    choice = next((a for a in actions if a.startswith(("tile", "leader"))), actions[0])
    moved: dict[str, Any] = writer.post(f"/api/games/{game_id}/actions", {"action": choice}, token)
    return moved


class Watcher(threading.Thread):
    """A WebSocket spectator on one process, collecting the versions it is pushed."""

    def __init__(self, server: PlayServer, game_id: str) -> None:
        super().__init__(daemon=True)
        self.url = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
        self.versions: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        with connect(self.url) as ws:
            ws.send(json.dumps({}))
            while not self.stop.is_set():
                try:
                    frame = json.loads(ws.recv(timeout=0.2))
                except TimeoutError:
                    continue
                except ConnectionClosed:
                    return  # its server was killed
                if frame.get("type") == "view":
                    self.versions.append(frame["table"]["version"])


def test_processes_share_games_and_survive_a_kill(postgres_url: str) -> None:
    a = PlayServer(postgres_url, bot_delay=0.02, settings=("workers=2",)).start()
    b = PlayServer(postgres_url, bot_delay=0.02).start()
    servers = [a, b]
    b_restarted: PlayServer | None = None
    try:
        people = a.post("/api/games", {"game": "tigris", "seats": ["human", "human"]})
        tokens = {s["seat"]: s["token"] for s in people["seats"]}
        game_id = people["id"]
        bots = b.post("/api/games", {"game": "tigris", "players": 3, "seats": ["bot:random"] * 3})
        watcher = Watcher(b, game_id)  # pushes for moves made on the other processes
        watcher.start()
        acknowledged: list[int] = []  # the version each acknowledged move answered with
        turn = 0
        while len(acknowledged) < 16:
            # Clients alternate between the processes, reading on one and moving on the other.
            reader, writer = servers[turn % 2], servers[(turn + 1) % 2]
            for token in tokens.values():
                moved = move(reader, writer, game_id, token)
                if moved is not None:
                    acknowledged.append(moved["table"]["version"])
                    assert moved["table"]["moves"] == len(acknowledged)
                    break
            turn += 1
        # Reads on either process see the latest move at once.
        assert a.get(f"/api/games/{game_id}")["table"]["version"] == acknowledged[-1]
        assert b.get(f"/api/games/{game_id}")["table"]["version"] == acknowledged[-1]
        wait_for(lambda: bool(watcher.versions) and watcher.versions[-1] == acknowledged[-1], 120)
        assert watcher.versions == sorted(watcher.versions)
        record = a.get(f"/api/games/{game_id}/record", tokens[0])["actions"]
        # A seat joined on one process is known at once on the other.
        lobby = b.post("/api/games", {"game": "gheos", "seats": ["human", "open"]})
        joined = a.post(f"/api/games/{lobby['id']}/join", {})
        assert b.get(f"/api/games/{lobby['id']}", joined["token"])["table"]["seat"] == 1
        wait_for(lambda: a.get(f"/api/games/{bots['id']}")["table"]["moves"] >= 10, 120)

        b.kill()  # mid-game, with a bot game running and a spectator connected
        watcher.stop.set()
        before_kill = a.get(f"/api/games/{bots['id']}")["table"]["moves"]
        for _ in range(6):
            for token in tokens.values():
                moved = move(a, a, game_id, token)
                if moved is not None:
                    acknowledged.append(moved["table"]["version"])
                    break
        # The bots' game goes on by itself on the surviving processes.
        wait_for(lambda: a.get(f"/api/games/{bots['id']}")["table"]["moves"] > before_kill + 5, 120)

        b_restarted = PlayServer(postgres_url, bot_delay=0.02).start()
        views = [s.get(f"/api/games/{game_id}", tokens[0]) for s in (a, b_restarted)]
        assert views[0] == views[1]
        assert views[0]["table"]["version"] == acknowledged[-1]
        assert views[0]["table"]["moves"] == len(acknowledged)
        final = b_restarted.get(f"/api/games/{game_id}/record", tokens[0])["actions"]
        assert final[: len(record)] == record and len(final) == len(acknowledged)
        # Every bot move is the one its seeded bot makes there: made once, by one process.
        storage = Store(postgres_url)
        try:
            stored = storage.games.load(bots["id"])
        finally:
            storage.close()
        assert stored is not None and len(stored.actions) > before_kill + 5
        played = GameRecord(
            game="tigris", players=stored.players, seed=stored.seed, actions=stored.actions
        )
        check_bots_played_as_if_never_stopped(played, ["bot:random"] * 3)
    finally:
        for server in (a, b, b_restarted):
            if server is not None:
                server.stop()


SECOND = "from cradle.server.store import Store; import sys; Store(sys.argv[1]).database.claim()"


def test_a_second_server_on_a_sqlite_file_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    first = PlayServer(url).start()
    try:
        # What every server does on start-up (`cradle serve` turns it into one line, exit 2).
        answer = subprocess.run(
            [sys.executable, "-c", SECOND, url],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert answer.returncode != 0
        assert "another cradle server (pid" in answer.stderr and "PostgreSQL" in answer.stderr
        # The first one serves on, untouched.
        created = first.post("/api/games", {"game": "tigris"})
        assert first.get(f"/api/games/{created['id']}")["table"]["version"] == 0
    finally:
        first.stop()
    # Once it has stopped, the file takes a server again.
    assert subprocess.run([sys.executable, "-c", SECOND, url], timeout=60).returncode == 0


KILLS = 12


@pytest.mark.long
def test_repeated_kills_under_load(postgres_url: str) -> None:
    """Two processes, clients moving on both all the time, one of them killed and restarted
    again and again: after each kill every acknowledged move is stored, in its place."""
    import random

    servers = [PlayServer(postgres_url, bot_delay=0.01).start() for _ in range(2)]
    created = servers[0].post("/api/games", {"game": "tigris", "seats": ["human", "human"]})
    bots = servers[1].post(
        "/api/games", {"game": "tigris", "players": 4, "seats": ["bot:random"] * 4}
    )
    tokens = [s["token"] for s in created["seats"]]
    acknowledged: dict[int, str] = {}  # ply -> action, from the answers the clients got
    stop = threading.Event()
    rng = random.Random(7)

    def client() -> None:
        while not stop.is_set():
            reader, writer = rng.sample(servers, 2)
            try:
                for token in tokens:
                    seen = reader.get(f"/api/games/{created['id']}", token)
                    if seen["legal_actions"]:
                        action = rng.choice(seen["legal_actions"])
                        moved = writer.post(
                            f"/api/games/{created['id']}/actions", {"action": action}, token
                        )
                        acknowledged[moved["table"]["moves"] - 1] = action
            except (OSError, urllib.error.HTTPError):
                continue  # that process is down, or the move went stale: not acknowledged

    worker = threading.Thread(target=client, daemon=True)
    worker.start()
    storage = Store(postgres_url)
    try:
        for kill in range(KILLS):
            time.sleep(rng.uniform(0.3, 1.0))
            victim = servers[kill % 2]
            victim.kill()
            stored = storage.games.load(created["id"])
            assert stored is not None
            known = dict(acknowledged)
            for ply, action in known.items():
                assert stored.actions[ply] == action, f"kill {kill}: move {ply} lost"
            servers[kill % 2] = PlayServer(postgres_url, bot_delay=0.01).start()
        stop.set()
        worker.join(timeout=30)
        assert len(acknowledged) > 40
        views = [s.get(f"/api/games/{created['id']}", tokens[0]) for s in servers]
        assert views[0] == views[1]
        played = storage.games.load(bots["id"])
        assert played is not None and len(played.actions) > 50
        check_bots_played_as_if_never_stopped(
            GameRecord(
                game="tigris", players=played.players, seed=played.seed, actions=played.actions
            ),
            ["bot:random"] * 4,
        )
        print(f"\n{KILLS} kills survived, {len(acknowledged)} acknowledged moves kept")
    finally:
        stop.set()
        storage.close()
        for server in servers:
            server.stop()


# The rates of the two tests below, each for clients of its own: one pair of processes serves
# both (a process's start costs a CPU-second).
RATES = (
    "create_burst=3", "create_per_minute=1", "reads_burst=80", "reads_per_second=0.001",
    "analyse_finished=0",
)  # fmt: skip


@pytest.fixture(scope="module")
def rated_pair(
    postgres_cluster: str, postgres_head: str
) -> Iterator[tuple[str, PlayServer, PlayServer]]:
    """Two processes with RATES on one database of their own: its URL and the two."""
    url = new_database(postgres_cluster, template=postgres_head)
    first = PlayServer(url, settings=RATES).start()
    try:
        second = PlayServer(url, settings=RATES).start()
        try:
            yield url, first, second
        finally:
            second.stop()
    finally:
        first.stop()


def test_processes_count_a_clients_rates_together(
    rated_pair: tuple[str, PlayServer, PlayServer],
) -> None:
    """Two processes on one database allow a client the rate once, not once each: the
    buckets are counted in the database (and a second client still has its own)."""
    from sqlalchemy import func, select

    from cradle.server.store.database import client_hash
    from cradle.server.store.schema import RateRow
    from tests.helpers.server import http_from

    url, first, second = rated_pair
    answers = []
    for server in (first, second, first, second, first, second):
        status, body = http_from(
            "127.0.0.7", "POST", server.base + "/api/games", {"game": "tigris"}
        )
        answers.append(status)
        if status == 429:
            assert "too many new games" in body["error"], body
    assert answers == [200, 200, 200, 429, 429, 429], answers  # 3 in all, not 3 each
    status, _body = http_from("127.0.0.8", "POST", second.base + "/api/games", {"game": "tigris"})
    assert status == 200  # another client's bucket is its own
    storage = Store(url)
    try:
        clients = RateRow.client.in_([client_hash("127.0.0.7"), client_hash("127.0.0.8")])

        def buckets() -> int:
            with storage.database.engine.connect() as connection:
                query = select(func.count()).select_from(RateRow).where(clients)
                return int(connection.execute(query).scalar_one())

        assert buckets() == 2  # one bucket each, both processes' requests in it
        everyone = storage.rates.forget(time.time() + 1)
        assert buckets() == 0
        assert everyone >= 2  # both clients' buckets (and any other client's)
    finally:
        storage.close()


def test_processes_lease_a_clients_shared_requests_and_never_allow_more(
    rated_pair: tuple[str, PlayServer, PlayServer],
) -> None:
    """A process takes a client's shared requests from the database a lease at a time (an
    eighth of the burst, 16 at most: one write per lease, not per request), and two processes
    together still allow no more than the shared bucket holds."""
    from tests.helpers.server import http_from

    _url, first, second = rated_pair
    _status, game = http_from("127.0.0.9", "POST", first.base + "/api/games", {"game": "tigris"})
    allowed = 0
    for number in range(120):
        server = (first, second)[number % 2]
        status, body = http_from(
            "127.0.0.9", "GET", server.base + f"/api/games/{game['id']}/history"
        )
        assert status in (200, 429), body
        allowed += status == 200
    # 80 at most; each process may hold the rest of its last lease (10 each) unused.
    assert 60 <= allowed <= 80, allowed


def test_requests_at_once_wait_for_one_lease_instead_of_taking_one_each(
    postgres_url: str,
) -> None:
    """Forty requests of one client at once, and its lease spent: one of them takes a new
    lease from the shared bucket and the others wait for it (three leases of 16 for 40
    requests), instead of each taking a lease that replaces the last (a write each, and the
    shared bucket emptied 16 times as fast)."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient

    from cradle.server.app import create_app
    from cradle.server.limits import Limits, RateLimiter
    from cradle.server.store.database import client_hash
    from cradle.server.store.schema import RateRow

    limits = Limits(analyse_finished=False)
    with TestClient(create_app(postgres_url, limits=limits)) as client:
        app: Any = client.app
        ctx, hub = app.state.context, app.state.hub
        bucket = RateLimiter(0.001, 1000, name="at-once")

        async def at_once() -> list[float]:
            return list(
                await asyncio.gather(*(ctx.shared_take(hub, bucket, "k") for _ in range(40)))
            )

        assert client.portal is not None
        assert client.portal.call(at_once) == [0.0] * 40
        with hub.store.database.engine.connect() as connection:
            tokens = (
                connection.execute(
                    RateRow.__table__.select().where(RateRow.client == client_hash("k"))
                )
                .one()
                .tokens
            )
        assert 1000 - tokens == pytest.approx(48, abs=0.5)  # three leases of 16
