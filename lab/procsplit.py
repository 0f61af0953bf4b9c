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
import subprocess
import sys
import time

from lab.proc import below, every_process


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


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline") as cmdline:
            return cmdline.read().replace("\0", " ").strip()
    except OSError:
        return ""


def split(command: list[str]) -> dict[str, float]:
    """Run ``command``; its processes' CPU-seconds by kind."""
    child = subprocess.Popen(command)
    seen: dict[int, tuple[float, str]] = {}
    while child.poll() is None:
        table = every_process()
        for pid in (child.pid, *below(table, child.pid)):
            if pid in table:
                line = command_line(pid) or seen.get(pid, (0.0, ""))[1]
                seen[pid] = (table[pid].own, line)
        time.sleep(0.25)
    sums: dict[str, float] = collections.defaultdict(float)
    for seconds, line in seen.values():
        sums[kind(line)] += seconds
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
