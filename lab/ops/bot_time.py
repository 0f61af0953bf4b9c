"""A person's `hard` bot's decisions under a crowd of other addresses (issue 69 item 2), timed.

Starts ``python -m cradle.server`` on a new SQLite file with the server's default limits and
bot delay (0.6 s), then a crowd of ``--addresses`` loopback addresses (127.0.x.y: the server
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

    nice -n 10 .venv/bin/python lab/ops/bot_time.py --crowd players --addresses 40
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
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

from lab.ops.move_cost import TICK, free_port, wait_up

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
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


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


def person(port: int, turns: int, think: float) -> list[float]:
    status, made = request(port, PERSON, "POST", "/api/games",
                           {"game": "tigris", "players": 2, "seats": ["human", "bot:hard"]})  # fmt: skip
    assert status == 200, made
    game_id, token = made["id"], made["seats"][0]["token"]
    times: list[float] = []
    asked = time.monotonic()  # a bot may begin
    seen = -1
    while len(times) < turns:
        status, view = request(port, PERSON, "GET", f"/api/games/{game_id}", token=token)
        assert status == 200, view
        table = view["table"]
        if table["status"] != "running":
            return times
        if seen >= 0 and table["moves"] > seen and table["last"]["seat"] == 1:
            times.append(time.monotonic() - asked)  # a bot decision (a turn may hold two)
            asked = time.monotonic()  # its next one, if its turn goes on
        seen = table["moves"]
        if view.get("legal_actions"):
            time.sleep(think)
            status, moved = request(port, PERSON, "POST", f"/api/games/{game_id}/actions",
                                    {"action": view["legal_actions"][0]}, token)  # fmt: skip
            assert status == 200, moved
            seen = moved["table"]["moves"]
            asked = time.monotonic()
            continue
        if time.monotonic() - asked > 600:
            raise RuntimeError("the bot did not move in 10 minutes")
        time.sleep(0.05)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crowd", choices=("bots", "players"), default="players")
    parser.add_argument("--addresses", type=int, default=40)
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--warm", type=float, default=20.0)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--think", type=float, default=1.0)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cradle-bot-time-") as folder:
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "cradle.server", f"sqlite:///{folder}/games.sqlite3",
             "127.0.0.1", str(port), str(BOT_DELAY), "analyse_finished=false"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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
            times = person(port, args.turns, args.think)
            server_cpu = cpu(server.pid) - start_cpu
        finally:
            stop.set()
            server.terminate()
            server.wait(30)
    times.sort()
    print(json.dumps({
        "crowd": args.crowd, "addresses": args.addresses, "tables": args.tables,
        "turns": len(times),
        "median_s": round(statistics.median(times), 2),
        "p95_s": round(times[min(len(times) - 1, int(0.95 * len(times)))], 2),
        "max_s": round(times[-1], 2),
        "bound_s": BOT_DELAY + HARD_DECISION,
        "within_bound": sum(t <= BOT_DELAY + HARD_DECISION for t in times),
        "times_s": [round(t, 2) for t in times],
        "crowd_answers": dict(counts), "server_cpu_s": round(server_cpu, 1),
        "load_before": [round(x, 1) for x in load_before],
        "load_after": [round(x, 1) for x in os.getloadavg()],
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
