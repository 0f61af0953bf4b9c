"""Schemathesis against the schema the server publishes (``/openapi.json``), bodies included:
inputs that fit it and inputs that do not, on every route of a real server. No answer is a 5xx,
each conforms to the schema (status, content type, body), and what breaks the schema is refused.

``make test`` sends a few hundred inputs; ``make test-long`` (``-m long``) over 10,000.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig

from cradle.server.app import create_app
from cradle.server.limits import UNLIMITED_CLIENTS
from tests.helpers.server import GAMES, PlayServer, http

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

SHORT, LONG = 200, 10_000
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            # Input that breaks the schema may be refused for its size first (413).
            "negative_data_rejection": {"expected-statuses": [400, 403, 404, 413, 415, 429]},
            # Input that fits the schema may still name no game, or an illegal move.
            "positive_data_acceptance": {"enabled": False},
        }
    }
)


def static_schema(tmp_path: Path) -> dict[str, Any]:
    schema: dict[str, Any] = create_app(f"sqlite:///{tmp_path / 'unused.sqlite3'}").openapi()
    return schema


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlayServer]:
    db = tmp_path_factory.mktemp("schema") / "games.sqlite3"
    # One client sends everything; bots are slow to move so that games stay as they are.
    cheap = {**UNLIMITED_CLIENTS, "password_kib": 64}  # argon2id, with little memory
    settings_ = tuple(f"{name}={value}" for name, value in cheap.items())
    running = PlayServer(f"sqlite:///{db}", bot_delay=600, settings=settings_).start()
    try:
        yield running
    finally:
        running.stop()


def test_the_published_schema_declares_every_body(server: PlayServer, tmp_path: Path) -> None:
    published = http("GET", server.base + "/openapi.json")
    assert published == static_schema(tmp_path)
    posts = [
        operations["post"] for operations in published["paths"].values() if "post" in operations
    ]
    assert (
        len(posts) == 30
    )  # /return and the two reports among them; the friends', blocks' and resets' too
    for operation in posts:
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert body["type"] == "object" and body["additionalProperties"] is False


@pytest.mark.parametrize("examples", [SHORT, pytest.param(LONG, marks=pytest.mark.long)])
def test_every_route_answers_generated_inputs_by_its_schema(
    server: PlayServer, examples: int
) -> None:
    schema = schemathesis.openapi.from_url(server.base + "/openapi.json", config=CONFIG)
    game = http("POST", server.base + "/api/games", {"game": "tigris", "seats": ["human"] * 2})
    # Each route is drawn as often as any other, whatever its number of strategies.
    by_label: dict[str, list[Any]] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        strategies = by_label.setdefault(operation.label, [])
        strategies.append(operation.as_strategy(GenerationMode.POSITIVE))
        strategies.append(operation.as_strategy(GenerationMode.NEGATIVE))
        if "{game_id}" in operation.path:  # and the same on a game that exists
            real = {"game_id": game["id"]}
            strategies.append(operation.as_strategy(GenerationMode.POSITIVE, path_parameters=real))
            strategies.append(operation.as_strategy(GenerationMode.NEGATIVE, path_parameters=real))
    labels = set(by_label)
    assert (
        len(labels) == 57
    )  # 40; the reports' and the share key's; the friends', blocks', invitations' and resets'
    seen: dict[str, int] = {}
    # Each route gets its share of the examples (a route with fewer strategies, or one drawn
    # less often, is still tried).
    share = max(3, -(-examples // len(labels)))

    def check(label: str) -> None:
        @settings(
            max_examples=share,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=examples == SHORT,
            database=None,
        )
        @given(case=st.one_of(by_label[label]))
        def inner(case: Any) -> None:
            seen[case.operation.label] = seen.get(case.operation.label, 0) + 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.call_and_validate(base_url=server.base, timeout=30)

        inner()

    for label in sorted(labels):
        check(label)
    print(f"\nschemathesis inputs per route: {seen}")
    assert sum(seen.values()) >= examples * 0.9
    assert set(seen) == labels  # every route was tried
