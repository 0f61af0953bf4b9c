"""Real servers for tests: the play server in its own process, and a throwaway PostgreSQL.

PostgreSQL comes from Debian's packages (``make test`` installs them). As root, the cluster is
created and run as the ``postgres`` user (initdb refuses root), in a temporary directory, on a
free loopback port; it is stopped and removed at the end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

import asyncio
import glob
import importlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from cradle.ai import make_bot
from cradle.core.record import GameRecord
from cradle.games import game_names
from cradle.server.hub import bot_seed


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def http(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


class PlayServer:
    """``python -m cradle.server`` on a free port, killed (SIGKILL) or stopped at the end."""

    def __init__(
        self, database_url: str, bot_delay: float = 0.0, settings: tuple[str, ...] = ()
    ) -> None:
        self.database_url = database_url
        self.bot_delay = bot_delay
        self.settings = settings  # NAME=VALUE: limits, origins, workers (cradle.server.__main__)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> PlayServer:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cradle.server",
                self.database_url,
                "127.0.0.1",
                str(self.port),
                str(self.bot_delay),
                *self.settings,
            ],
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                http("GET", self.base + "/api/meta")
                return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.05)
        raise RuntimeError("the server did not come up within 30 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def get(self, path: str, token: str | None = None) -> Any:
        return http("GET", self.base + path, token=token)

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        return http("POST", self.base + path, body, token)


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


@contextmanager
def postgres_server() -> Iterator[str]:
    """A fresh PostgreSQL cluster; yields a URL for a database ``cradle`` in it."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (make test installs Debian's package)")
    root = Path(tempfile.mkdtemp(prefix="cradle-pg-"))
    data = root / "data"
    port = free_port()
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    root.chmod(0o700)

    def run(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, capture_output=True, timeout=120)

    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "cradle", "-E", "UTF8")
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=on"
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"),
            "-w", "-t", "60", "start")  # fmt: skip
        run(str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "cradle", "cradle")
        yield f"postgresql+psycopg://cradle@127.0.0.1:{port}/cradle"
    finally:
        subprocess.run(
            [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


def playable_games() -> list[str]:
    """The games whose engine is importable (both, once both packages are complete)."""
    names = []
    for name in game_names():
        try:
            module = importlib.import_module(f"cradle.{name}")
        except ImportError:
            continue
        if hasattr(module, "new_game"):
            names.append(name)
    return names


GAMES = playable_games()


T = TypeVar("T")


def create(client: TestClient, game: str = "tigris", **body: Any) -> dict[str, Any]:
    body.setdefault("players", 2)
    body.setdefault("seats", ["human"] * body["players"])
    answer = client.post("/api/games", json={"game": game, **body})
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def run_async(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run`` in a thread of its own: the test process's main thread may already run
    a loop (Playwright's sync API keeps one going for the browser tests)."""
    found: list[T] = []
    failed: list[BaseException] = []

    def target() -> None:
        try:
            found.append(asyncio.run(factory()))
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return found[0]


def auth(token: str | None) -> dict[str, str]:
    """The header that carries a seat's token (tokens never go in URLs)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


@contextmanager
def watch(client: TestClient, game_id: str, token: str | None = None) -> Iterator[Any]:
    """A WebSocket to the game that has sent its first message (the token, or none)."""
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"token": token} if token else {})
        yield ws


def token_of(created: dict[str, Any], seat: int) -> str:
    for entry in created["seats"]:
        if entry["seat"] == seat:
            token: str = entry["token"]
            return token
    raise KeyError(seat)


def wait_for(predicate: Any, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def check_bots_played_as_if_never_stopped(record: GameRecord, seats: list[str]) -> None:
    """Every bot move is the one that bot makes at that point: nothing was lost or redone."""
    from cradle.games import get_game

    module = get_game(record.game)
    state = module.new_game(
        len(record.players),
        record.seed,
        module.options_from_dict(record.options),
        dynasties=record.players,
    )
    for ply, action in enumerate(record.actions):
        seat = state.to_move
        kind = seats[seat]
        if kind.startswith("bot:"):
            bot = make_bot(kind[4:], bot_seed(record.seed, ply, seat))
            assert bot.choose(state.clone(), seat) == action, f"ply {ply}"
        state.apply(action)
