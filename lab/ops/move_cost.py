"""The server CPU per move on SQLite and on PostgreSQL under the same load (issue 69 item 7).

Starts a throwaway PostgreSQL cluster, then, interleaved, ``--rounds`` times: a play server
(``python -m cradle.server``, the load test's own limits: no per-client limit reached, every
limit still counted) on a new SQLite file and on a new PostgreSQL database, each loaded by
``cradle loadtest --url`` with the same arguments. The server's CPU (user + system, from
/proc) and the PostgreSQL cluster's (every backend) are read before and after each load.

    nice -n 10 .venv/bin/python lab/ops/move_cost.py --rounds 3 -- --games 100 --duration 20 --think 0
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cradle.server.limits import UNLIMITED_CLIENTS
from lab.proc import read_stat

# The tests' throwaway PostgreSQL cluster and free ports (imported by name: not type-checked).
_helpers: Any = importlib.import_module("tests.helpers.server")
PostgresCluster, free_port = _helpers.PostgresCluster, _helpers.free_port


def cpu_of(pids: list[int]) -> float:
    return sum(stat.own for pid in pids if (stat := read_stat(pid)) is not None)


def postgres_pids() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in ("postgres", "postmaster"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def wait_up(port: int) -> None:
    import urllib.request

    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/meta", timeout=2)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not start")


def one(database: str, load: list[str], cluster_root: Path | None) -> dict[str, float]:
    port = free_port()
    settings = [f"{name}={value}" for name, value in UNLIMITED_CLIENTS.items()]
    server = subprocess.Popen(
        [sys.executable, "-m", "cradle.server", database, "127.0.0.1", str(port), "0", *settings],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_up(port)
        ours = [p for p in postgres_pids() if cluster_root is not None]
        before, pg_before = cpu_of([server.pid]), cpu_of(ours)
        run = subprocess.run(
            [sys.executable, "-m", "cradle.cli.main", "loadtest", "--url", f"http://127.0.0.1:{port}",
             *load],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        ours = [p for p in postgres_pids() if cluster_root is not None]
        after, pg_after = cpu_of([server.pid]), cpu_of(ours)
        report = json.loads(run.stdout)
    finally:
        server.terminate()
        server.wait(30)
    moves = report["moves"]
    return {
        "moves": moves,
        "moves_per_s": report.get("moves_per_s") or report.get("moves/s") or 0,
        "server_ms_per_move": 1000 * (after - before) / max(moves, 1),
        "postgres_ms_per_move": 1000 * (pg_after - pg_before) / max(moves, 1),
        "errors": report.get("errors", 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("load", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    load = [a for a in args.load if a != "--"]
    cluster = PostgresCluster().create()
    results: dict[str, list[dict[str, float]]] = {"sqlite": [], "postgresql": []}
    try:
        with tempfile.TemporaryDirectory(prefix="cradle-cost-") as folder:
            for number in range(args.rounds):
                sqlite = f"sqlite:///{Path(folder) / f'games{number}.sqlite3'}"
                results["sqlite"].append(one(sqlite, load, None))
                pg = cluster.url.rsplit("/", 1)[0] + f"/cost{number}"
                cluster._run(str(cluster.bin_dir / "createdb"), "-h", "127.0.0.1", "-p",
                             str(cluster.port), "-U", "cradle", f"cost{number}")  # fmt: skip
                results["postgresql"].append(one(pg, load, cluster.root))
                print(json.dumps({k: v[-1] for k, v in results.items()}), flush=True)
    finally:
        cluster.remove()
    summary: dict[str, Any] = {
        name: {
            key: round(statistics.median(r[key] for r in runs), 2)
            for key in ("moves", "moves_per_s", "server_ms_per_move", "postgres_ms_per_move")
        }
        for name, runs in results.items()
    }
    summary["load_average"] = list(os.getloadavg())
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
