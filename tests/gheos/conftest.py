"""Engine-level Gheos tests run on both engines: a module that marks itself with
``pytest.mark.usefixtures("engine")`` runs each test on the Python reference and on the
native core (``CRADLE_ENGINE`` picks the engine of ``gheos.new_game`` / ``from_position``)."""

from __future__ import annotations

import pytest

from cradle.core import native

ENGINES = ("python", "native")


def engines() -> list[str]:
    """The engines a parametrized test runs on: both, native only where it is built."""
    return [e for e in ENGINES if e == "python" or native.available()]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    name: str = request.param
    if name == "native" and not native.available():
        pytest.skip("the native engine is not built")
    monkeypatch.setenv("CRADLE_ENGINE", name)
    return name
