"""Every test of this directory runs on each engine (``CRADLE_ENGINE`` set per module), except
in modules that set ``ENGINES_INSIDE = True`` and choose engines themselves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.engines import engines


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "tigris_engine" in metafunc.fixturenames and not getattr(
        metafunc.module, "ENGINES_INSIDE", False
    ):
        metafunc.parametrize("tigris_engine", engines(), indirect=True, scope="module")


@pytest.fixture(autouse=True, scope="module")
def tigris_engine(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The engine ``tigris.new_game`` and ``tigris.from_position`` give by default here."""
    engine: str | None = getattr(request, "param", None)
    if engine is None:
        yield None
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CRADLE_ENGINE", engine)
        yield engine
