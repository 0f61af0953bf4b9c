"""The engines a test can run on: both where the native one is built (make test requires it)."""

from __future__ import annotations

from cradle.core import native

ENGINES = ("python", "native")


def engines() -> list[str]:
    """The engines a parametrized test runs on: both, native only where it is built."""
    return [e for e in ENGINES if e == "python" or native.available()]
