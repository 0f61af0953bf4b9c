"""Waiting for what another process does: poll often at first (most waits end in well under a
second), then less and less often (a long wait on a loaded machine would otherwise spend its
CPU time asking: every poll is a request a server or a browser answers)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

FIRST = 0.02  # seconds before the second look
MOST = 0.25  # the longest pause: what is waited for is seen at most this late


def pauses(first: float = FIRST, most: float = MOST) -> Iterator[float]:
    pause = first
    while True:
        yield pause
        pause = min(most, pause * 1.5)


def wait(predicate: Callable[[], T], seconds: float, what: str = "timed out") -> T:
    """Until ``predicate()`` holds (what it returned then), else AssertionError(what) after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    for pause in pauses():
        found = predicate()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(pause)
    raise AssertionError(what)  # not reached: pauses() never ends
