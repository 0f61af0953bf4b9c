"""The play server's app in a test: started on a database with the tests' settings, its hub, a
settable clock, and a table as a client reads it."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from tests.helpers.server import auth

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

    from cradle.server.hub import Hub

# FastAPI, Starlette's TestClient and the server's modules are imported where they are used:
# every pytest worker collects this module, and the modules of a run that needs none of them
# (tests/e2e, tests/web) then need not import them.


def client_of(app: Any, **options: Any) -> TestClient:
    """Starlette's TestClient of ``app`` (enter it to start the app)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient

    return TestClient(app, **options)


def started(url: str, **limits: Any) -> TestClient:
    """A client of the app on ``url`` (enter it to start the app): bots move at once, finished
    games are not analysed (tests/server/test_assist.py tests that), passwords are hashed at
    test cost (argon2id with 64 KiB), other ``limits`` as named."""
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    settings = Limits(**{"analyse_finished": False, "password_kib": 64, **limits})
    return client_of(create_app(url, bot_delay=0, limits=settings))


def hub_of(client: TestClient) -> Hub:
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    return hub


def set_clock(client: TestClient, now: float) -> None:
    """The app's clock stops at ``now`` (deadlines and clocks are read from it)."""
    hub_of(client).clock = lambda: now  # type: ignore[method-assign]


def view(client: TestClient, game_id: str, token: str | None = None) -> dict[str, Any]:
    """The table as ``token``'s seat (None: a spectator) reads it."""
    answer = client.get(f"/api/games/{game_id}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def move(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    """``token``'s seat makes its first legal action; the answer (the frame after it)."""
    legal = view(client, game_id, token)["legal_actions"]
    assert legal, "not this seat's decision"
    answer = client.post(f"/api/games/{game_id}/actions", json={"action": legal[0]},
                         headers=auth(token))  # fmt: skip
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def random_move(client: TestClient, game_id: str, tokens: Any, rng: random.Random) -> None:
    """The seat deciding (its token from ``tokens``, by seat) makes a random legal action."""
    token = tokens[view(client, game_id)["to_move"]]
    legal = view(client, game_id, token)["legal_actions"]
    moved = client.post(
        f"/api/games/{game_id}/actions", json={"action": rng.choice(legal)}, headers=auth(token)
    )
    assert moved.status_code == 200, moved.text


def refused(answer: Any, status: int = 429) -> str:
    """The reason of a refusal answered with ``status`` (it has one)."""
    assert answer.status_code == status, answer.text
    reason: str = answer.json()["error"]
    assert reason
    return reason


@contextmanager
def two_processes(url: str, **limits: Any) -> Iterator[tuple[TestClient, TestClient]]:
    """Two apps on one PostgreSQL database at ``url``, as two server processes are, each
    started as :func:`started` does."""
    with started(url, **limits) as one, started(url, **limits) as two:
        yield one, two


OTHER_HOSTS = ("10.1.2.3", "10.9.8.7")  # the addresses of a test's other browsers


@contextmanager
def browsers_on(url: str, count: int) -> Iterator[list[TestClient]]:
    """``count`` browsers (each its own cookies and address, at most three) on one app on
    ``url``, started as :func:`started` does."""
    with started(url) as first:
        others = [client_of(first.app, client=(host, 5000)) for host in OTHER_HOSTS]
        yield [first, *others[: count - 1]]


class Player:
    """A browser of a signed-in player: its own cookies, its CSRF token on every write."""

    def __init__(self, client: TestClient, name: str, password: str = "correct horse") -> None:
        self.client = client
        self.name = name
        answer = client.post("/api/accounts", json={"name": name, "password": password})
        assert answer.status_code == 200, answer.text
        self.csrf = answer.json()["csrf"]

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **auth(token)}
        return self.client.post(path, json=body, headers=headers)
