"""`cradle loadtest`: many concurrent games played over the WebSocket API, on loopback only.

Each game has only human seats; one client per seat connects its WebSocket and, whenever its
frame lists legal actions, answers with a random one. The latency of a move is the time from
sending it to receiving the frame that shows it applied (the server has validated it, stored it
in the database and pushed every seat its new view by then). A finished game is replaced by a new
one until the time is up, so the number of games in play stays at ``--games``.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SETUP_TIMEOUT = 30.0  # seconds for the server to come up
STALL_TIMEOUT = 30.0  # seconds without a frame before a client gives up


class LoadtestError(ValueError):
    pass


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    games_started: int = 0
    games_finished: int = 0
    frames: int = 0
    frame_bytes: int = 0


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


def _http(method: str, url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


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


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def _play_seat(
    ws_url: str, tally: Tally, rng: random.Random, deadline: float, think: float
) -> None:
    from websockets.asyncio.client import connect

    sent_at: float | None = None
    sent_ply = -1
    async with connect(ws_url, max_size=2**22, open_timeout=SETUP_TIMEOUT) as ws:
        while True:
            late = time.monotonic() >= deadline
            try:
                text = await asyncio.wait_for(ws.recv(), 2.0 if late else STALL_TIMEOUT)
            except TimeoutError:
                if late:  # time is up and the other seats have stopped answering
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
    tally: Tally,
) -> None:
    rng = random.Random(f"{seed}:{slot}")
    ws_base = "ws" + base[4:]
    while time.monotonic() < deadline:
        body = {"game": game, "players": players, "seats": ["human"] * players, "listed": False}
        created = await asyncio.to_thread(_http, "POST", base + "/api/games", body)
        tally.games_started += 1
        tokens = [seat["token"] for seat in created["seats"]]
        # Claim every seat first, so that no seat's arrival looks like a move to another.
        for token in tokens:
            await asyncio.to_thread(_http, "GET", f"{base}/api/games/{created['id']}?token={token}")
        seats = [
            _play_seat(
                f"{ws_base}/ws/games/{created['id']}?token={token}",
                tally,
                random.Random(rng.random()),
                deadline,
                think,
            )
            for token in tokens
        ]
        await asyncio.gather(*seats)
        final = await asyncio.to_thread(_http, "GET", f"{base}/api/games/{created['id']}")
        if final["table"]["status"] == "over":
            tally.games_finished += 1


async def _drive(
    base: str, games: int, game: str, players: int, duration: float, think: float, seed: int
) -> tuple[Tally, float]:
    tally = Tally()
    start = time.monotonic()
    deadline = start + duration
    await asyncio.gather(
        *(
            _play_games(base, slot, game, players, deadline, think, seed, tally)
            for slot in range(games)
        )
    )
    return tally, time.monotonic() - start


def run_loadtest(
    games: int = 100,
    game: str = "tigris",
    players: int = 2,
    duration: float = 30.0,
    think: float = 0.0,
    seed: int = 1,
    url: str | None = None,
) -> dict[str, Any]:
    """Run the benchmark and return its report (moves/s and latency percentiles)."""
    if not 1 <= games <= 2000:
        raise LoadtestError("--games must be between 1 and 2000")
    if not 0 < duration <= 3600:
        raise LoadtestError("--duration must be between 0 and 3600 seconds")
    if not 0 <= think <= 60:
        raise LoadtestError("--think must be between 0 and 60 seconds")
    server: subprocess.Popen[bytes] | None = None
    workdir = None
    if url is None:
        workdir = tempfile.TemporaryDirectory(prefix="cradle-loadtest-")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        database = f"sqlite:///{Path(workdir.name) / 'loadtest.sqlite3'}"
        server = subprocess.Popen(
            [sys.executable, "-m", "cradle.server", database, "127.0.0.1", str(port), "0"],
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
        tally, elapsed = asyncio.run(_drive(base, games, game, players, duration, think, seed))
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
        "frames": tally.frames,
        "mean_frame_bytes": round(tally.frame_bytes / tally.frames) if tally.frames else 0,
    }
