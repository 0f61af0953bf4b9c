"""Where a command's CPU goes, by kind of process: ``python -m lab.procsplit -- COMMAND...``.

Every 0.25 s it reads /proc for the processes below the command and keeps each one's own CPU
time (user + system) as last seen; at the end it sums them by kind (the play server, its bot and
assist workers, Chromium's browser, renderer, GPU and utility processes, Playwright's node
driver, tsc, pytest, PostgreSQL). A process that lives less than a sample is missed, and one
that leaves the tree (a daemon) is counted only while it was below it: the sums are a split,
not a total (``python -m lab.testcpu run`` gives the total). Used for the browser tests'
split in lab/notebook/test-cpu.md."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def kind(command: str) -> str:
    """The kind of a process, from its command line."""
    if "chrom" in command or "headless_shell" in command:
        for part in ("renderer", "gpu-process", "utility", "zygote"):
            if f"--type={part}" in command:
                return f"chromium {part}"
        return "chromium browser"
    if "/tsc " in command or command.startswith("tsc "):
        return "tsc"
    if command.split(" ")[0].endswith("node") or "playwright" in command:
        return "playwright's node driver"
    if "cradle.server" in command or " serve " in command:
        return "play server"
    if "spawn_main" in command or "forkserver" in command:
        return "server's bot and assist workers"
    if "postgres" in command:
        return "postgresql"
    if "pytest" in command or "xdist" in command:
        return "pytest"
    return "other"


def processes() -> dict[int, tuple[int, int, str]]:
    """Every process: its parent, its own CPU ticks, its command line."""
    found: dict[int, tuple[int, int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{name}/cmdline") as cmdline:
                command = cmdline.read().replace("\0", " ").strip()
        except OSError:
            continue
        found[int(name)] = (int(fields[1]), int(fields[11]) + int(fields[12]), command)
    return found


def split(command: list[str]) -> dict[str, float]:
    """Run ``command``; its processes' CPU-seconds by kind."""
    child = subprocess.Popen(command)
    seen: dict[int, tuple[int, str]] = {}
    while child.poll() is None:
        table = processes()
        below: dict[int, list[int]] = collections.defaultdict(list)
        for pid, (parent, _ticks, _command) in table.items():
            below[parent].append(pid)
        stack = [child.pid]
        while stack:
            pid = stack.pop()
            if pid in table:
                _parent, ticks, line = table[pid]
                seen[pid] = (ticks, line or seen.get(pid, (0, ""))[1])
            stack.extend(below[pid])
        time.sleep(0.25)
    sums: dict[str, float] = collections.defaultdict(float)
    for ticks, line in seen.values():
        sums[kind(line)] += ticks / TICK
    return dict(sums)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    sums = split(args)
    for name, cpu in sorted(sums.items(), key=lambda item: -item[1]):
        print(f"{cpu:7.1f}  {name}", file=sys.stderr)
    print(f"{sum(sums.values()):7.1f}  in all (sampled)", file=sys.stderr)


if __name__ == "__main__":
    main()
