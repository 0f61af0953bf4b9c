"""CPU-seconds of the test suite, per test and in all (docs/testing.md, "Measured").

As a pytest plugin (``-p lab.testcpu``), each test's CPU time is appended to ``$CPU_LOG``
(JSON lines): the pytest process's own, its reaped children's and that of every live process
below it (servers, ``cradle bots`` workers, the browser), setup and teardown included; daemons
that leave the tree (PostgreSQL's postmaster) are left out. As a command,
``python -m lab.testcpu run -- make test`` runs a command as a child subreaper, so that every
process it starts, daemons included, is counted when it ends, and prints the CPU-seconds, the
wall time and the load average; ``python -m lab.testcpu top LOG`` sums a log per module; ``python -m lab.testcpu starts N``
measures what one start of the server, of ``cradle serve`` and of the CLI costs (the medians of
N, interleaved)."""

from __future__ import annotations

import collections
import ctypes
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lab.proc import below, every_process

LOG = os.environ.get("CPU_LOG", "test-cpu.jsonl")
PR_SET_CHILD_SUBREAPER = 36


def _below(root: int) -> float:
    """CPU-seconds of the live processes below ``root`` (each with its reaped children's)."""
    table = every_process()
    return sum(table[pid].own + table[pid].reaped for pid in below(table, root))


def tree_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + _below(os.getpid())


def _write(row: dict[str, Any]) -> None:
    with open(LOG, "a") as log:
        log.write(json.dumps(row) + "\n")


def pytest_collection_finish(session: pytest.Session) -> None:
    _write({"id": "<collection>", "cpu": tree_cpu(), "wall": 0.0})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    before, began = tree_cpu(), time.monotonic()
    yield
    _write({"id": item.nodeid, "cpu": tree_cpu() - before, "wall": time.monotonic() - began})


def run(command: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    load, began = os.getloadavg()[0], time.monotonic()
    child = subprocess.Popen(command)
    status = 1
    while True:
        try:
            pid, waited = os.wait()
        except ChildProcessError:
            break
        if pid == child.pid:
            status = os.waitstatus_to_exitcode(waited)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"CPU {used.ru_utime + used.ru_stime:.0f} s (user {used.ru_utime:.0f}, sys "
        f"{used.ru_stime:.0f}); wall {time.monotonic() - began:.0f} s; load average "
        f"{load:.1f} before, {os.getloadavg()[0]:.1f} after; exit {status}",
        file=sys.stderr,
    )
    return status


def top(path: str, count: int = 30) -> None:
    with open(path) as log:
        rows = [json.loads(line) for line in log]
    tests = [row for row in rows if not row["id"].startswith("<")]
    collection = sum(row["cpu"] for row in rows if row["id"] == "<collection>")
    print(
        f"{len(tests)} tests: {sum(r['cpu'] for r in tests):.0f} CPU-s; collection {collection:.0f}"
    )
    modules: collections.Counter[str] = collections.Counter()
    for row in tests:
        modules[row["id"].split("::")[0]] += row["cpu"]
    for module, cpu in modules.most_common(count):
        print(f"{cpu:7.1f}  {module}")
    for row in sorted(tests, key=lambda r: -r["cpu"])[:count]:
        print(f"{row['cpu']:7.1f}  {row['wall']:6.1f} s wall  {row['id']}")


def _start_cpu(command: list[str], url: str | None) -> float:
    """CPU-seconds of ``command`` (and of the children it reaps): until it ends, or, for a
    server (``url``: its first answer's address), until it answers and then stops."""
    import urllib.request

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if url is not None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            try:
                urllib.request.urlopen(url, timeout=10).read()
                break
            except OSError:
                time.sleep(0.02)
        child.terminate()
    child.wait(timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def starts(count: int) -> None:
    """The medians of ``count`` starts of each (interleaved): the bare server until it answers
    (the lobby's meta, which makes every bot once for its menu, or a page of the lobby) and
    stops, ``cradle serve`` the same way, ``cradle --help`` and ``cradle bots --help``."""
    import shutil
    import socket
    import statistics
    import tempfile

    def port() -> int:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])

    cradle = [sys.executable, "-c", "from cradle.cli.main import main; main()"]
    with tempfile.TemporaryDirectory(prefix="startcpu-") as folder:
        head = os.path.join(folder, "head.sqlite3")
        subprocess.run([*cradle, "db", "upgrade", "--db", head], check=True, capture_output=True)

        def fresh() -> str:
            path = os.path.join(folder, "games.sqlite3")
            shutil.copyfile(head, path)
            return path

        def server(path: str = "/api/meta") -> float:
            free = port()
            command = [sys.executable, "-m", "cradle.server", f"sqlite:///{fresh()}",
                       "127.0.0.1", str(free), "0"]  # fmt: skip
            return _start_cpu(command, f"http://127.0.0.1:{free}{path}")

        def serve() -> float:
            free = port()
            command = [*cradle, "serve", "--db", fresh(), "--port", str(free)]
            return _start_cpu(command, f"http://127.0.0.1:{free}/api/meta")

        kinds: dict[str, Callable[[], float]] = {
            "python -m cradle.server (to its first answer, /api/meta, stopped)": server,
            "python -m cradle.server (the same, /api/games?limit=1)": lambda: server(
                "/api/games?limit=1"
            ),
            "cradle serve (the same)": serve,
            "cradle --help": lambda: _start_cpu([*cradle, "--help"], None),
            "cradle bots --help": lambda: _start_cpu([*cradle, "bots", "--help"], None),
        }
        found: dict[str, list[float]] = {name: [] for name in kinds}
        load = os.getloadavg()[0]
        for _ in range(count):
            for name, measure in kinds.items():
                found[name].append(measure())
    print(f"medians of {count}, load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    for name, values in found.items():
        shown = " ".join(f"{v:.2f}" for v in values)
        print(f"{statistics.median(values):6.2f} CPU-s  {name}  ({shown})")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["run"]:
        sys.exit(run(args[2:] if args[1:2] == ["--"] else args[1:]))
    if args[:1] == ["starts"]:
        starts(int(args[1]) if len(args) > 1 else 5)
        return
    if args[:1] == ["top"] and len(args) >= 2:
        top(args[1], int(args[2]) if len(args) > 2 else 30)
        return
    print(__doc__)
    sys.exit(0 if args[:1] in (["-h"], ["--help"]) else 2)


if __name__ == "__main__":
    main()
