"""The lab's reading of Linux's /proc: each live process's parent, niceness and CPU time."""

from __future__ import annotations

import collections
import os
from collections.abc import Iterator
from dataclasses import dataclass

TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Stat:
    parent: int
    nice: int
    own: float  # CPU-seconds of the process itself (user + system)
    reaped: float  # of its children it has waited for


def read_stat(pid: int) -> Stat | None:
    """``pid``'s line of /proc (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            # After the command's name, which may hold spaces and parentheses.
            fields = file.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return Stat(
        parent=int(fields[1]),
        nice=int(fields[16]),
        own=(int(fields[11]) + int(fields[12])) / TICK,
        reaped=(int(fields[13]) + int(fields[14])) / TICK,
    )


def every_process() -> dict[int, Stat]:
    found: dict[int, Stat] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := read_stat(int(name))) is not None:
            found[int(name)] = stat
    return found


def below(table: dict[int, Stat], root: int) -> Iterator[int]:
    """The processes of ``table`` below ``root``: its children, theirs, and so on."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    for pid, stat in table.items():
        children[stat.parent].append(pid)
    stack = list(children[root])
    while stack:
        pid = stack.pop()
        yield pid
        stack.extend(children[pid])
