"""Fixtures for the play server's tests: an app on a fresh SQLite file, games that exist."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the play server needs the 'server' extra")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from tests.helpers.app import started
from tests.helpers.mail import Inbox, mailing_app
from tests.helpers.server import new_database


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


@pytest.fixture(scope="session")
def sqlite_head(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file at the schema's head, made once per test process: each test's file is a
    copy (running every migration costs more than most tests)."""
    from cradle.server.store import Store

    path = tmp_path_factory.mktemp("head") / "games.sqlite3"
    Store(f"sqlite:///{path}").close()
    return path


@pytest.fixture
def db_url(tmp_path: Path, sqlite_head: Path) -> str:
    """A fresh SQLite file at the schema's head (test_migrations.py starts from empty ones)."""
    path = tmp_path / "games.sqlite3"
    shutil.copyfile(sqlite_head, path)
    return f"sqlite:///{path}"


@pytest.fixture
def empty_db_url(tmp_path: Path) -> str:
    """A SQLite file that does not exist yet: the server makes its schema."""
    return f"sqlite:///{tmp_path / 'games.sqlite3'}"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with started(db_url) as test_client:
        yield test_client


@pytest.fixture
def serve(any_db_url: str) -> Iterator[Callable[..., TestClient]]:
    """Start apps on one database, with the limits the test names (SQLite: a second one is the
    server started again; PostgreSQL: as many as asked, like processes)."""
    with ExitStack() as stack:

        def start(**limits: Any) -> TestClient:
            return stack.enter_context(started(any_db_url, **limits))

        yield start


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    """One throwaway PostgreSQL server per test process."""
    from tests.helpers.server import postgres_bin, postgres_server

    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (make test installs Debian's package)")
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="session")
def postgres_head(postgres_cluster: str) -> str:
    """A database at the schema's head, made once per cluster: the template of each test's."""
    from cradle.server.store import Store

    url = new_database(postgres_cluster)
    Store(url).close()  # no connection left open: a template must have none
    return url.rsplit("/", 1)[1]


@pytest.fixture
def postgres_url(postgres_cluster: str, postgres_head: str) -> str:
    """A fresh database at the schema's head in the throwaway cluster."""
    return new_database(postgres_cluster, template=postgres_head)


@pytest.fixture
def empty_postgres_url(postgres_cluster: str) -> str:
    """A fresh, empty database in the throwaway cluster: the server makes its schema."""
    return new_database(postgres_cluster)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_url(request: pytest.FixtureRequest) -> str:
    """Each storage test runs on SQLite and on a real PostgreSQL (a fresh database at the
    schema's head)."""
    url: str = request.getfixturevalue("db_url" if request.param == "sqlite" else "postgres_url")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def any_empty_db_url(request: pytest.FixtureRequest) -> str:
    """An empty database, on SQLite and on a real PostgreSQL: the server makes its schema."""
    name = "empty_db_url" if request.param == "sqlite" else "empty_postgres_url"
    url: str = request.getfixturevalue(name)
    return url


@pytest.fixture
def mailing(any_db_url: str) -> Iterator[tuple[Any, TestClient, Inbox]]:
    """An app on each storage that mails through a real SMTP server: the app, its client and
    the inbox."""
    with mailing_app(any_db_url) as found:
        yield found
