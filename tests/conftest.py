"""Suite-wide: `make test` requires the native engines (CRADLE_REQUIRE_NATIVE=1), and the
``engine`` fixture runs a test on each engine of the games."""

from __future__ import annotations

import os
import sys

import pytest

from cradle.core import native
from tests.helpers.engines import ENGINES

if os.environ.get("CRADLE_REQUIRE_NATIVE") == "1" and not native.available():
    raise RuntimeError(
        "CRADLE_REQUIRE_NATIVE=1 but cradle._native is not built (make native builds it)"
    )


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each engine in turn ("python", then "native", skipped where it is not built): the one
    ``new_game`` and ``from_position`` of both games give (``CRADLE_ENGINE``)."""
    name: str = request.param
    if name == "native" and not native.available():
        pytest.skip("the native engine is not built")
    monkeypatch.setenv("CRADLE_ENGINE", name)
    return name


def pytest_sessionfinish() -> None:
    # The tests' fork server (tests/helpers/server.py), waited for, where this process made one.
    servers = sys.modules.get("tests.helpers.server")
    if servers is not None:
        servers.stop_fork_server()
