"""`cradle loadtest`: many concurrent games played over the WebSocket API, on loopback only.

Each game has only human seats; one client per seat connects its WebSocket, sends its token as
the first message and, whenever its frame lists legal actions, answers with a random one. The
latency of a move is the time from sending it to receiving the frame that shows it applied (the
server has validated it, stored it in the database and pushed every seat its new view by then).
A finished game is replaced by a new one until the time is up, so the number of games in play
stays at ``--games``. A client that waits longer than ``--timeout`` for an answer counts a
timeout and starts a new game: the run goes on and still reports.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cradle.games import game_names
from cradle.server.limits import UNLIMITED_CLIENTS

SETUP_TIMEOUT = 120.0  # seconds for the server to come up (a loaded machine starts it slowly)
MEMORY_EVERY = 1.0  # seconds between readings of the server's memory


class LoadtestError(ValueError):
    pass


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    timeouts: int = 0
    refused: int = 0  # HTTP or WebSocket answers with an error status (429 included)
    games_started: int = 0
    games_finished: int = 0
    frames: int = 0
    frame_bytes: int = 0
    rss_kib: list[int] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _loopback_only(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise LoadtestError(f"--url must look like http://127.0.0.1:8000, not {url!r}")
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise LoadtestError("the load test only targets a server on this machine (loopback)")
    return url.rstrip("/")


def _http(method: str, url: str, body: Any = None, timeout: float = 30.0) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.loads(answer.read())


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time process ``pid`` has used (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kib(pid: int) -> tuple[int, int] | None:
    """(resident, peak resident) KiB of process ``pid`` (Linux /proc; None elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    values = {}
    for line in status.splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0])
    if len(values) != 2:
        return None
    return values["VmRSS"], values["VmHWM"]


def _wait_for(base: str, server: subprocess.Popen[bytes] | None) -> None:
    deadline = time.monotonic() + SETUP_TIMEOUT
    while time.monotonic() < deadline:
        if server is not None and server.poll() is not None:
            raise LoadtestError(f"the server stopped at start-up (exit code {server.returncode})")
        try:
            _http("GET", base + "/api/meta")
            return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    raise LoadtestError(f"no server answered at {base} within {SETUP_TIMEOUT:.0f} s")


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def _play_seat(
    ws_url: str,
    token: str,
    tally: Tally,
    rng: random.Random,
    deadline: float,
    think: float,
    timeout: float,
) -> None:
    from websockets.asyncio.client import connect

    sent_at: float | None = None
    sent_ply = -1
    async with connect(ws_url, max_size=2**22, open_timeout=timeout) as ws:
        await ws.send(json.dumps({"token": token}))  # the token never goes in the URL
        while True:
            # Past the deadline the other seats stop moving: wait for them 2 s more at most.
            wait = min(timeout, max(0.0, deadline - time.monotonic()) + 2.0)
            try:
                text = await asyncio.wait_for(ws.recv(), wait)
            except TimeoutError:
                if time.monotonic() >= deadline:
                    return
                raise
            tally.frames += 1
            tally.frame_bytes += len(text)
            frame = json.loads(text)
            if frame.get("type") == "error":
                tally.errors += 1
                sent_at = None  # the move was refused: choose again on the next frame
                continue
            if frame.get("type") != "view":
                continue
            table = frame["table"]
            if sent_at is not None and table["moves"] > sent_ply:
                tally.latencies.append(time.perf_counter() - sent_at)
                tally.moves += 1
                sent_at = None
            if table["status"] == "over":
                return
            actions = frame["legal_actions"]
            if actions and sent_at is None:
                if time.monotonic() >= deadline:
                    return
                if think > 0:
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                sent_ply = table["moves"]
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"action": rng.choice(actions)}))


async def _play_games(
    base: str,
    slot: int,
    game: str,
    players: int,
    deadline: float,
    think: float,
    seed: int,
    timeout: float,
    tally: Tally,
) -> None:
    from websockets.exceptions import WebSocketException

    rng = random.Random(f"{seed}:{slot}")
    ws_base = "ws" + base[4:]
    while time.monotonic() < deadline:
        body = {"game": game, "players": players, "seats": ["human"] * players, "listed": False}
        try:
            created = await asyncio.to_thread(_http, "POST", base + "/api/games", body, timeout)
            tally.games_started += 1
            seats = [
                _play_seat(
                    f"{ws_base}/ws/games/{created['id']}",
                    seat["token"],
                    tally,
                    random.Random(rng.random()),
                    deadline,
                    think,
                    timeout,
                )
                for seat in created["seats"]
            ]
            await asyncio.gather(*seats)
            final = await asyncio.to_thread(
                _http, "GET", f"{base}/api/games/{created['id']}", None, timeout
            )
            if final["table"]["status"] == "over":
                tally.games_finished += 1
        except TimeoutError:
            tally.timeouts += 1  # counted; this slot starts a new game
        except urllib.error.HTTPError as exc:
            tally.refused += 1
            await asyncio.sleep(1.0 if exc.code == 429 else 0.1)
        except (OSError, WebSocketException, ValueError, KeyError):
            tally.errors += 1  # a dropped connection or a garbled answer: start again
            await asyncio.sleep(0.1)


async def _watch_memory(pid: int, tally: Tally, deadline: float) -> None:
    while time.monotonic() < deadline:
        found = memory_kib(pid)
        if found is not None:
            tally.rss_kib.append(found[0])
        await asyncio.sleep(MEMORY_EVERY)


async def _drive(
    base: str,
    games: int,
    game: str,
    players: int,
    duration: float,
    think: float,
    seed: int,
    timeout: float,
    server_pid: int | None,
) -> tuple[Tally, float]:
    tally = Tally()
    start = time.monotonic()
    deadline = start + duration
    clients = [
        _play_games(base, slot, game, players, deadline, think, seed, timeout, tally)
        for slot in range(games)
    ]
    if server_pid is not None:
        clients.append(_watch_memory(server_pid, tally, deadline))
    await asyncio.gather(*clients)
    return tally, time.monotonic() - start


def run_loadtest(
    games: int = 100,
    game: str | None = None,
    players: int = 2,
    duration: float = 30.0,
    think: float = 0.0,
    seed: int = 1,
    url: str | None = None,
    timeout: float = 30.0,
) -> dict[str, Any]:
    """Run the benchmark and return its report (moves/s, latency percentiles, errors, the
    server's memory)."""
    game = game or game_names()[0]
    if not 1 <= games <= 2000:
        raise LoadtestError("--games must be between 1 and 2000")
    if not 0 < duration <= 3600:
        raise LoadtestError("--duration must be between 0 and 3600 seconds")
    if not 0 <= think <= 60:
        raise LoadtestError("--think must be between 0 and 60 seconds")
    if not 0 < timeout <= 600:
        raise LoadtestError("--timeout must be between 0 and 600 seconds")
    server: subprocess.Popen[bytes] | None = None
    final_memory: tuple[int, int] | None = None
    server_cpu: float | None = None
    start_cpu: float | None = None
    workdir = None
    if url is None:
        workdir = tempfile.TemporaryDirectory(prefix="cradle-loadtest-")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        database = f"sqlite:///{Path(workdir.name) / 'loadtest.sqlite3'}"
        # All clients share one address: the server's per-client limits would measure themselves.
        settings = [f"{name}={value}" for name, value in UNLIMITED_CLIENTS.items()]
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cradle.server",
                database,
                "127.0.0.1",
                str(port),
                "0",
                *settings,
            ],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    else:
        base = _loopback_only(url)
    try:
        _wait_for(base, server)
        meta = _http("GET", base + "/api/meta")
        known = {g["name"]: g for g in meta["games"]}
        if game not in known:
            raise LoadtestError(f"the server has no game {game!r} (it has {', '.join(known)})")
        if not known[game]["min_players"] <= players <= known[game]["max_players"]:
            raise LoadtestError(
                f"{game} takes {known[game]['min_players']} to {known[game]['max_players']} players"
            )
        pid = server.pid if server is not None else None
        start_cpu = cpu_seconds(pid) if pid is not None else None
        tally, elapsed = asyncio.run(
            _drive(base, games, game, players, duration, think, seed, timeout, pid)
        )
        if server is not None:
            final_memory = memory_kib(server.pid)
            used = cpu_seconds(server.pid)
            if used is not None and start_cpu is not None:
                server_cpu = used - start_cpu
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        if workdir is not None:
            workdir.cleanup()
    ms = [1000 * x for x in tally.latencies]
    return {
        "game": game,
        "players": players,
        "concurrent_games": games,
        "think_s": think,
        "seconds": round(elapsed, 2),
        "moves": tally.moves,
        "moves_per_s": round(tally.moves / elapsed, 1) if elapsed else 0.0,
        "latency_ms": {
            "p50": round(percentile(ms, 0.50), 2),
            "p90": round(percentile(ms, 0.90), 2),
            "p99": round(percentile(ms, 0.99), 2),
            "max": round(max(ms), 2) if ms else 0.0,
            "mean": round(statistics.fmean(ms), 2) if ms else 0.0,
        },
        "games_started": tally.games_started,
        "games_finished": tally.games_finished,
        "errors": tally.errors,
        "timeouts": tally.timeouts,
        "refused": tally.refused,
        "frames": tally.frames,
        "mean_frame_bytes": round(tally.frame_bytes / tally.frames) if tally.frames else 0,
        # Only for a server the load test started itself (its process is known): its CPU time
        # per move measures the server's cost even on a machine busy with other work.
        "server_cpu_ms_per_move": (
            round(1000 * server_cpu / tally.moves, 2) if server_cpu and tally.moves else None
        ),
        "server_memory_mb": (
            {
                "rss_end": round(final_memory[0] / 1024, 1),
                "rss_peak": round(final_memory[1] / 1024, 1),
                "rss_median": round(percentile(tally.rss_kib, 0.5) / 1024, 1),
            }
            if final_memory is not None
            else None
        ),
    }
