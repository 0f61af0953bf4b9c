"""A person's `hard` bot's decisions under a crowd of other addresses (issue 69 item 2), timed.

Starts ``python -m cradle.server`` on a new SQLite file with the server's default limits and
bot delay (0.6 s), its bot workers started with it (as `cradle serve` starts them), then a crowd of ``--addresses`` loopback addresses (127.0.x.y: the server
sees a client of its own in each), all at once:

- ``--crowd bots``: each address holds ``--tables`` tables of ``hard`` bots alone (the probe's
  "40 addresses each holding one table of `hard` bots": nobody waits for those moves);
- ``--crowd players``: each address plays ``--tables`` tables of its own against a ``hard``
  bot, moving as soon as its turn comes (polling every 0.1 s).

After ``--warm`` seconds, one person (another address) plays a table against a ``hard`` bot,
thinking ``--think`` seconds before each move, for ``--turns`` of the bot's decisions (a Tigris
turn is two). A decision's time is from the person's move answered (or the bot's previous
action seen) to the view that shows the bot's action (polled every 0.05 s): each waits the bot
delay, then at most `hard`'s 1 s a decision (docs/ai.md). Prints one JSON object: the person's
decision times (median, p95, max, each), the bound (the bot delay plus `hard`'s 1 s), the
crowd's answers, the server's CPU seconds and the load average before and after.

Where a decision's time goes, read from the server's own queue (``bot_jobs``, the SQLite file
opened read-only, at each poll): ``queued``, from the turn due (its ``ready``) to a worker
seen holding it (its ``owner``), and ``thinking``, from then to the view that shows the
action (loading, the search, storing; each up to a poll late). ``workers`` gives each of the
server's child processes its niceness and the CPU seconds it used while the person played.

    .venv/bin/python lab/ops/bot_time.py --crowd players --addresses 40

Run it at the server's own priority (not under ``nice``): the niced workers are the server's
own, for the turns nobody waits for, and the person's bot competes as a real server's would.

``--trace`` runs the server at log level debug (its access log too: a few lines a second
from the person, but every poll of a crowd of players) and splits each of the person's
decisions further, from the server's line for each bot move (:mod:`cradle.server.botseats`):
``due`` → ``claimed`` (a worker took the turn) → ``sent`` (the table loaded, the bots' memory
brought up to date: the decision goes to a worker process) → ``decided`` (its answer back:
waiting for the process and thinking) → ``stored`` (ruled on, written, applied) → ``seen`` (the
person's poll shows it: pushing, answering, the poll's own period).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from lab.ops.move_cost import free_port, wait_up
from lab.proc import every_process, read_stat

BOT_DELAY = 0.6
HARD_DECISION = 1.0  # hard's most per decision (docs/ai.md)
PERSON = "127.250.0.1"


def request(
    port: int, source: str, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=60, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    except OSError:
        return 0, None
    finally:
        connection.close()


def address(number: int) -> str:
    return f"127.0.{1 + number // 250}.{1 + number % 250}"


def cpu(pid: int) -> float:
    stat = read_stat(pid)
    if stat is None:
        raise ProcessLookupError(pid)
    return stat.own


def children(pid: int) -> dict[int, tuple[int, float]]:
    """The processes whose parent is ``pid``: their niceness and CPU seconds."""
    return {
        child: (stat.nice, stat.own)
        for child, stat in every_process().items()
        if stat.parent == pid
    }


def crowd(port: int, source: str, kind: str, tables: int, stop: threading.Event,
          counts: Counter[str]) -> None:  # fmt: skip
    seats = ["bot:hard", "bot:hard"] if kind == "bots" else ["human", "bot:hard"]
    games: list[tuple[str, str | None]] = []
    for _ in range(tables):
        status, made = request(port, source, "POST", "/api/games",
                               {"game": "tigris", "players": 2, "seats": seats})  # fmt: skip
        counts[f"create {status}"] += 1
        if status == 200:
            human = [s.get("token") for s in made["seats"] if s.get("token")]
            games.append((made["id"], human[0] if human else None))
    while not stop.is_set():
        if kind == "bots":
            time.sleep(0.5)
            continue
        for game_id, token in games:
            status, view = request(port, source, "GET", f"/api/games/{game_id}", token=token)
            if status != 200:
                counts[f"read {status}"] += 1
                continue
            if view.get("legal_actions"):
                status, _ = request(port, source, "POST", f"/api/games/{game_id}/actions",
                                    {"action": view["legal_actions"][0]}, token)  # fmt: skip
                counts[f"move {status}"] += 1
        time.sleep(0.1)


class Queue:
    """The server's queue of bots' turns, read-only: when a game's turn was due and when a
    worker was first seen holding it."""

    def __init__(self, path: str) -> None:
        self.connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)

    def turn(self, game_id: str) -> tuple[float, bool] | None:
        try:
            row = self.connection.execute(
                "SELECT ready, owner FROM bot_jobs WHERE game_id = ?", (game_id,)
            ).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else (float(row[0]), row[1] is not None)


TRACED = re.compile(
    r"bot turn (\S+) \d+: claimed ([\d.]+) sent ([\d.]+) decided ([\d.]+) stored ([\d.]+)"
)


def traced(log: Path, game_id: str, seen: list[tuple[float, float]]) -> list[dict[str, float]]:
    """Each decision's steps (seconds), from the server's lines for ``game_id``'s bot moves:
    ``seen`` holds when each decision was due (epoch; NaN when never read) and seen."""
    lines = [
        tuple(float(x) for x in found.groups()[1:])
        for found in map(TRACED.search, log.read_text(errors="replace").splitlines())
        if found is not None and found.group(1) == game_id
    ]
    steps: list[dict[str, float]] = []
    for due, shown in seen:
        before = [line for line in lines if line[3] <= shown]
        if not before:
            continue
        claimed, sent, decided, stored = before[-1]
        steps.append({
            "due_claimed": claimed - due, "claimed_sent": sent - claimed,
            "sent_decided": decided - sent, "decided_stored": stored - decided,
            "stored_seen": shown - stored,
        })  # fmt: skip
    return steps


def person(
    port: int,
    turns: int,
    think: float,
    queue: Queue,
    shown: list[tuple[float, float]] | None = None,
) -> tuple[str, list[tuple[float, float, float]]]:
    """The person's game and each bot decision's (time, queued, thinking) in seconds;
    ``shown`` gets when each was due and seen (epoch)."""
    status, made = request(port, PERSON, "POST", "/api/games",
                           {"game": "tigris", "players": 2, "seats": ["human", "bot:hard"]})  # fmt: skip
    assert status == 200, made
    game_id, token = made["id"], made["seats"][0]["token"]
    times: list[tuple[float, float, float]] = []
    asked = time.monotonic()  # a bot may begin
    seen = -1
    # The turn in hand: when it was due and when a worker was first seen holding it (epoch).
    due: float | None = None
    claimed: float | None = None

    def split() -> tuple[float, float]:
        if due is None or claimed is None:
            return float("nan"), float("nan")
        return claimed - due, time.time() - claimed

    while len(times) < turns:
        status, view = request(port, PERSON, "GET", f"/api/games/{game_id}", token=token)
        assert status == 200, view
        table = view["table"]
        if table["status"] != "running":
            return game_id, times
        if seen >= 0 and table["moves"] > seen and table["last"]["seat"] == 1:
            # a bot decision (a turn may hold two)
            times.append((time.monotonic() - asked, *split()))
            if shown is not None:
                shown.append((float("nan") if due is None else due, time.time()))
            asked = time.monotonic()  # its next one, if its turn goes on
            due = claimed = None
        seen = table["moves"]
        if view.get("legal_actions"):
            time.sleep(think)
            status, moved = request(port, PERSON, "POST", f"/api/games/{game_id}/actions",
                                    {"action": view["legal_actions"][0]}, token)  # fmt: skip
            assert status == 200, moved
            seen = moved["table"]["moves"]
            asked = time.monotonic()
            due = claimed = None
            continue
        turn = queue.turn(game_id)
        if turn is not None and claimed is None:
            due = turn[0]
            if turn[1]:
                claimed = time.time()
        if time.monotonic() - asked > 600:
            raise RuntimeError("the bot did not move in 10 minutes")
        time.sleep(0.05)
    return game_id, times


def spread(values: list[float]) -> dict[str, float]:
    values = sorted(v for v in values if v == v)  # NaN: a turn never seen held
    if not values:
        return {}
    return {
        "median_s": round(statistics.median(values), 2),
        "p95_s": round(values[min(len(values) - 1, int(0.95 * len(values)))], 2),
        "max_s": round(values[-1], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crowd", choices=("bots", "players"), default="players")
    parser.add_argument("--addresses", type=int, default=40)
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--warm", type=float, default=20.0)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()
    shown: list[tuple[float, float]] = []
    steps: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="cradle-bot-time-") as folder:
        log = Path(folder) / "server.log"
        log_file = log.open("wb")
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "cradle.server", f"sqlite:///{folder}/games.sqlite3",
             "127.0.0.1", str(port), str(BOT_DELAY), "analyse_finished=false",
             "prestart_bots=true", *(["log_level=debug"] if args.trace else [])],
            stdout=subprocess.DEVNULL, stderr=log_file,
        )  # fmt: skip
        stop = threading.Event()
        counts: Counter[str] = Counter()
        try:
            wait_up(port)
            start_cpu = cpu(server.pid)
            threads = [
                threading.Thread(target=crowd, daemon=True,
                                 args=(port, address(n), args.crowd, args.tables, stop, counts))
                for n in range(args.addresses)
            ]  # fmt: skip
            for thread in threads:
                thread.start()
            time.sleep(args.warm)
            workers_before = children(server.pid)
            queue = Queue(f"{folder}/games.sqlite3")
            game_id, decisions = person(port, args.turns, args.think, queue, shown)
            workers_after = children(server.pid)
            server_cpu = cpu(server.pid) - start_cpu
        finally:
            stop.set()
            server.terminate()
            server.wait(30)
            log_file.close()
        if args.trace:
            steps = traced(log, game_id, shown)
    times = sorted(t for t, _queued, _thinking in decisions)
    workers = {
        str(pid): {"nice": nice, "cpu_s": round(used - workers_before.get(pid, (nice, 0.0))[1], 1)}
        for pid, (nice, used) in sorted(workers_after.items())
    }
    print(json.dumps({
        "crowd": args.crowd, "addresses": args.addresses, "tables": args.tables,
        "turns": len(times), **spread(times),
        "bound_s": BOT_DELAY + HARD_DECISION,
        "within_bound": sum(t <= BOT_DELAY + HARD_DECISION for t in times),
        "times_s": [round(t, 2) for t in times],
        "queued": spread([q for _t, q, _thinking in decisions]),
        "thinking": spread([th for _t, _q, th in decisions]),
        "decisions_s": [[round(x, 2) for x in d] for d in decisions],
        **({"steps": {name: spread([s[name] for s in steps]) for name in steps[0]},
            "steps_over_bound": [
                {name: round(value, 2) for name, value in s.items()}
                for (t, _q, _th), s in zip(decisions, steps, strict=False)
                if t > BOT_DELAY + HARD_DECISION
            ]} if steps else {}),
        "workers": workers,
        "crowd_answers": dict(counts), "server_cpu_s": round(server_cpu, 1),
        "load_before": [round(x, 1) for x in load_before],
        "load_after": [round(x, 1) for x in os.getloadavg()],
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
