"""Fixtures for the play server's tests: an app on a fresh SQLite file, games that exist."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the play server needs the 'server' extra")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits


@pytest.fixture(scope="session", autouse=True)
def default_port_is_busy() -> Iterator[int]:
    """`cradle serve` without --port listens on $CRADLE_PORT: here a port this process holds,
    so a test that forgets --port fails every time, not only while `make play` runs."""
    import os
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = int(held.getsockname()[1])
        before = os.environ.get("CRADLE_PORT")
        os.environ["CRADLE_PORT"] = str(port)
        try:
            yield port
        finally:
            if before is None:
                del os.environ["CRADLE_PORT"]
            else:
                os.environ["CRADLE_PORT"] = before


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'games.sqlite3'}"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    # Finished games are not analysed here: test_assist.py tests that, with tiny budgets.
    limits = Limits(analyse_finished=False, password_kib=64)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    """One throwaway PostgreSQL server per test process."""
    from tests.helpers.server import postgres_bin, postgres_server

    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (make test installs Debian's package)")
    with postgres_server() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_cluster: str) -> str:
    """A fresh, empty database in the throwaway cluster."""
    import secrets

    import psycopg

    name = "t_" + secrets.token_hex(6)
    admin = postgres_cluster.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return postgres_cluster.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each storage test runs on SQLite and on a real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url
