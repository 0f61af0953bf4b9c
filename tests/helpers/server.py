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
import atexit
import glob
import http.client
import importlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

import pytest

from cradle.ai import make_bot
from cradle.core.record import GameRecord
from cradle.games import game_names, get_game
from cradle.server.botpool import bot_seed
from cradle.server.store import Store
from cradle.server.store.games import StoredGame
from cradle.server.store.plays import MoveChange
from cradle.server.tokens import hash_token, new_token
from tests.helpers import waiting


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


def http_from(
    source: str, method: str, url: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    """(status, JSON answer) of a request sent from the loopback address ``source`` (any
    127.x.y.z: the server sees a different client for each)."""
    import http.client

    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1", parts.port, timeout=30, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        data = None if body is None else json.dumps(body)
        connection.request(method, parts.path or "/", body=data, headers=headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        connection.close()


def stop_process(process: subprocess.Popen[Any] | ForkedServer, seconds: float) -> None:
    """End ``process`` if it still runs: asked to stop (SIGTERM), killed if it has not
    within ``seconds``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# Modules a bare server imports by its first answer, imported once by a fork server per test
# process: each PlayServer is then forked from it (about a tenth of a CPU-second) instead of a
# new interpreter importing them all again (about one). None of them starts a thread. The
# routes every server makes once are made there too (tests/helpers/server_routes.py).
SERVER_PRELOAD = [
    "cradle.server.__main__",
    "tests.helpers.server_routes",
    "cradle.server.logs",
    "cradle.tigris",
    "cradle.gheos",
    "uvicorn.lifespan.on",
    "uvicorn.loops.uvloop",
    "pydantic.v1",
    "sqlalchemy.dialects.sqlite",
    "sqlalchemy.dialects.postgresql.psycopg",
    "psycopg",
]
_forked: list[ForkedServer] = []


class ForkedServer:
    """A server forked from the fork server, with the part of ``subprocess.Popen``'s interface
    the tests use (pid, poll, wait, send_signal, terminate, kill, returncode)."""

    def __init__(self, argv: list[str], log: str | None) -> None:
        import multiprocessing

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(SERVER_PRELOAD)
        self.process = context.Process(
            target=_serve, args=(argv, log, dict(os.environ), os.getcwd()), name="PlayServer"
        )
        self.process.start()
        assert self.process.pid is not None
        self.pid: int = self.process.pid
        _forked.append(self)

    @property
    def returncode(self) -> int | None:
        return self.process.exitcode

    def poll(self) -> int | None:
        return self.process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self.process.join(timeout)
        if self.process.exitcode is None:
            raise subprocess.TimeoutExpired(["PlayServer"], timeout or 0.0)
        return self.process.exitcode

    def send_signal(self, number: int) -> None:
        if self.process.exitcode is None:
            os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _serve(argv: list[str], log: str | None, environ: dict[str, str], cwd: str) -> None:
    """In the forked process: the test process's environment and folder as they are now (the
    fork server's are from when it started), the log where a Popen's stderr would go, then
    ``python -m cradle.server``'s own main."""
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    # multiprocessing gave this process a stdin of its own; `--workers` hands stdin's number on
    # to workers it spawns, which keep only descriptors 0-2.
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    if log is not None:
        descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(descriptor, 2)
        os.close(descriptor)
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    from cradle.server.__main__ import main

    main(argv)


@atexit.register
def stop_fork_server() -> None:
    """End any server a test left running (multiprocessing would wait for it at exit), then
    the fork server, and wait for it: what it and the servers it reaped used is then counted
    with this process's children (`/usr/bin/time`), as a subprocess's would be, not lost with
    an orphan. tests/conftest.py calls it as the session finishes."""
    import multiprocessing.forkserver

    for server in _forked:
        if server.process.exitcode is None:
            server.kill()
            server.process.join(10)
    _forked.clear()
    forkserver = multiprocessing.forkserver._forkserver  # type: ignore[attr-defined]
    if getattr(forkserver, "_forkserver_pid", None) is not None:
        forkserver._stop()


class PlayServer:
    """``python -m cradle.server`` on a free port, killed (SIGKILL) or stopped at the end
    (forked from the test process's fork server, which has imported the server already;
    subclasses that start another command start it as a new process)."""

    def __init__(
        self,
        database_url: str,
        bot_delay: float = 0.0,
        settings: tuple[str, ...] = (),
        port: int | None = None,
    ) -> None:
        self.database_url = database_url
        self.bot_delay = bot_delay
        self.settings = settings  # NAME=VALUE: limits, origins, workers (cradle.server.__main__)
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | ForkedServer | None = None

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "cradle.server",
            self.database_url,
            "127.0.0.1",
            str(self.port),
            str(self.bot_delay),
            *self.settings,
        ]

    def start(self, stderr: IO[bytes] | None = None) -> PlayServer:
        """Start it and wait for its answers (``stderr``: where its log goes): a page of the
        lobby, which reads the database (the meta would make every bot for its menu, and so
        import every search, a tenth of a start, in servers that may never run a bot)."""
        command = self.command()
        log = None if stderr is None else getattr(stderr, "name", None)
        forkable = command[:3] == [sys.executable, "-m", "cradle.server"]
        if forkable and (stderr is None or isinstance(log, str)):
            self.process = ForkedServer(command[3:], log)
        else:
            self.process = subprocess.Popen(command, stderr=stderr)
        deadline = time.monotonic() + 120
        pause = waiting.pauses()
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                http("GET", self.base + "/api/games?limit=1")
                return self
            except (urllib.error.URLError, OSError):
                time.sleep(next(pause))
        # Stopped, not left behind: a server (with --workers, a supervisor and its workers)
        # that outlives its test holds its port and its database for good.
        self.stop()
        raise RuntimeError("the server did not come up within 120 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, 10)

    def get(self, path: str, token: str | None = None) -> Any:
        return http("GET", self.base + path, token=token)

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        return http("POST", self.base + path, body, token)


# A server for walks through the lessons: hints and analyses think briefly (the tests check what
# they show, not how well they play), and one client may make a table per step, more than the
# creation rate a client gets in a minute (which a person, reading each step, never reaches).
WALKING = (
    "hint_seconds=0.1",
    "analysis_seconds=0.02",
    "create_per_minute=1000",
    "live_games_per_client=1000",
    "hints_per_minute=1000",
)


@contextmanager
def play_server(db: Path, *settings: str) -> Iterator[PlayServer]:
    """A PlayServer on the SQLite file ``db`` whose bots answer at once, with ``settings``
    (NAME=VALUE), stopped at the end."""
    play = PlayServer(f"sqlite:///{db}", bot_delay=0.02, settings=settings).start()
    try:
        yield play
    finally:
        play.stop()


class CradleServe(PlayServer):
    """`cradle serve --database URL --port N OPTION...` as a person starts it (the CLI, with its
    own defaults), on a free port."""

    def __init__(self, database_url: str, *options: str) -> None:
        super().__init__(database_url)
        self.options = options

    def command(self) -> list[str]:
        return [*CRADLE, "serve", "--database", self.database_url, "--port", str(self.port),
                *self.options]  # fmt: skip


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresCluster:
    """A fresh PostgreSQL cluster of its own (``url``: its database ``cradle``), which a test
    may stop and start again (a database server going down under the play server)."""

    def __init__(self) -> None:
        bin_dir = postgres_bin()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed (make test installs Debian's package)")
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="cradle-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.root.chmod(0o700)
        self.url = f"postgresql+psycopg://cradle@127.0.0.1:{self.port}/cradle"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def create(self) -> PostgresCluster:
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-A", "trust", "-U",
                  "cradle", "-E", "UTF8")  # fmt: skip
        self.start()
        self._run(str(self.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                  "cradle", "cradle")  # fmt: skip
        return self

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=on"
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
                  str(self.root / "log"), "-w", "-t", "60", "start")  # fmt: skip

    def stop(self) -> None:
        """Stop at once, as a crash would (every connection is cut)."""
        subprocess.run(
            [*self.as_user, str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m",
             "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )  # fmt: skip

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A fresh PostgreSQL cluster; yields a URL for a database ``cradle`` in it."""
    cluster = PostgresCluster()
    try:
        yield cluster.create().url
    finally:
        cluster.remove()


def new_database(cluster: str, template: str | None = None) -> str:
    """The URL of a new database in the throwaway cluster (a copy of ``template``'s)."""
    import secrets

    import psycopg

    name = "t_" + secrets.token_hex(6)
    admin = cluster.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(
            f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else "")
        )
    return cluster.rsplit("/", 1)[0] + "/" + name


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


def wait_for(predicate: Any, seconds: float = 180) -> None:
    """Wait until ``predicate()`` holds: generously (a loaded machine does what is waited for
    slowly, and the wait ends as soon as it holds), else AssertionError."""
    waiting.wait(predicate, seconds)


def check_bots_played_as_if_never_stopped(record: GameRecord, seats: list[str]) -> None:
    """Every bot move is the one that bot makes at that point: nothing was lost or redone."""
    state = record.start()
    for ply, action in enumerate(record.actions):
        seat = state.to_move
        kind = seats[seat]
        if kind.startswith("bot:"):
            bot = make_bot(kind[4:], bot_seed(record.seed, ply, seat))
            assert bot.choose(state.clone(), seat) == action, f"ply {ply}"
        state.apply(action)


CRADLE = [sys.executable, "-c", "from cradle.cli.main import main; main()"]


def serving(port: int, db: Path) -> subprocess.Popen[str]:
    """``cradle serve`` on ``port`` and the SQLite file ``db``, its output read line by line."""
    return subprocess.Popen(
        [*CRADLE, "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CRADLE, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def new_stored(
    game_id: str,
    game: str,
    players: list[str],
    seed: int,
    seats: list[str],
    status: str = "running",
    options: dict[str, object] | None = None,
    **more: Any,
) -> StoredGame:
    """A new game as a server stores one: not hot-seat, listed, no table token, created now
    (``more``: :class:`StoredGame`'s other fields, these among them)."""
    now = time.time()
    made: dict[str, Any] = {
        "hotseat": False, "listed": True, "table_token": None, "created": now, "updated": now,
    }  # fmt: skip
    return StoredGame(
        game_id, game, players, seed, options or {}, seats, status=status, **(made | more)
    )


def stored_game(storage: Store, game_id: str, seed: int, moves: int | None, hotseat: bool) -> None:
    """A real game of two people, written as the server writes one: ``moves`` random moves, or
    to the end (then with its analysis done)."""
    module = get_game("tigris")
    options = dict(module.options_to_dict(module.options_from_dict({})))
    state = module.new_game(2, seed, module.options_from_dict(options))
    storage.new_games.create(
        new_stored(
            game_id, "tigris", list(state.players), seed, ["human", "human"], options=options,
            hotseat=hotseat, table_token=hash_token(new_token()) if hotseat else None,
            tokens={0: hash_token(new_token()), 1: hash_token(new_token())},
            claimed={0: True, 1: True},
            invites={} if hotseat else {0: hash_token(new_token()), 1: hash_token(new_token())},
        )
    )  # fmt: skip
    rng = random.Random(seed)
    ply = 0
    while not state.is_over and (moves is None or ply < moves):
        seat = int(state.to_move)
        action = rng.choice(list(state.legal_actions()))
        state.apply(action)
        over = bool(state.is_over)
        status, result = ("over", state.result()) if over else ("running", None)
        stored_move(storage, game_id, ply, ply, seat, action, status, result, False, analyse=over)
        ply += 1
    if state.is_over:  # its last move queued the analysis: it is done now
        assert storage.analyses.claim(game_id, storage.origin, time.time()) is not None
        data = {
            "format": 1,
            "seconds": 0.25,
            "reviewed": [0, 1],
            "chances": [[0.5, 0.5]],
            "plies": [0],
            "reviews": [],
        }
        assert storage.analyses.save(game_id, storage.origin, "done", 1, 1, data)


def stored_move(
    store: Store,
    game_id: str,
    ply: int,
    version: int,
    seat: int,
    action: str,
    status: str = "running",
    result: Any = None,
    bot_turn: bool = False,
    **more: Any,
) -> float:
    """Store move number ``ply`` of a game at ``version`` as a server does (``MoveChange``'s
    other fields in ``more``); the time it stored."""
    change = MoveChange(
        game_id=game_id, ply=ply, version=version, seat=seat, action=action, status=status,
        result=result, bot_turn=bot_turn, **more,
    )  # fmt: skip
    return store.plays.move(change)


def before_alembic(db: Any) -> None:
    """Make the SQLite file a current server made (``db``: a sqlite3 connection) look like one
    made before Alembic: no revision, none of the tables and columns the revisions since added
    (accounts, turn-based tables and their mail, chat, ratings, owed notices, seats away, the
    moves' stand-ins, name skeletons and devices, checked addresses, reset codes, friends,
    blocks and invitations, clocks, notice retries, moderation)."""
    db.execute("DROP TABLE alembic_version")
    for table in ("reports", "moderation_log"):
        db.execute(f"DROP TABLE {table}")
    for column in ("clock_base_s", "clock_increment_s", "clock_left"):
        db.execute(f"ALTER TABLE games DROP COLUMN {column}")
    db.execute("ALTER TABLE seats DROP COLUMN gone")
    for table in ("invitations", "blocks", "friendships", "email_checks", "password_resets"):
        db.execute(f"DROP TABLE {table}")
    db.execute("ALTER TABLE sessions DROP COLUMN ended")
    for column in ("email_verified", "invite_mail", "seen"):
        db.execute(f"ALTER TABLE accounts DROP COLUMN {column}")
    db.execute("ALTER TABLE actions DROP COLUMN standin")
    for table in ("name_skeletons", "devices"):
        db.execute(f"DROP TABLE {table}")
    db.execute("DROP TABLE due_notices")
    db.execute("ALTER TABLE games DROP COLUMN away")
    for table in ("chat_lines", "chat_mutes", "rating_changes", "ratings"):
        db.execute(f"DROP TABLE {table}")
    for column in ("spectator_chat", "rated"):
        db.execute(f"ALTER TABLE games DROP COLUMN {column}")
    for table in ("sessions", "accounts", "transfers", "turn_notices", "mail_stops"):
        db.execute(f"DROP TABLE {table}")
    db.execute("DROP INDEX ix_seats_account_id")
    for column in ("account_id", "name", "standin"):
        db.execute(f"ALTER TABLE seats DROP COLUMN {column}")
    for column in ("mode", "deadline_s", "deadline", "standin", "ended_by", "creator"):
        db.execute(f"ALTER TABLE games DROP COLUMN {column}")


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` read-only for everybody, root included, while in the block."""
    if os.geteuid() != 0:
        pytest.skip("a read-only mount needs root (permissions do not stop root)")
    steps = (["mount", "--bind", str(folder), str(folder)],
             ["mount", "-o", "remount,bind,ro", str(folder)])  # fmt: skip
    for number, step in enumerate(steps):
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            if number:
                subprocess.run(["umount", str(folder)], capture_output=True, check=False)
            pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()}")
    try:
        yield
    finally:
        for _ in range(50):  # the server's files may close a moment after it ends
            if subprocess.run(["umount", str(folder)], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)
