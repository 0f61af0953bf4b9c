"""Each limit answers 429 (or 4xx) with a reason and changes nothing; the defaults let people
and the other tests play."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.botpool import server_bot
from cradle.server.limits import Limits, RateLimiter
from tests.helpers.app import refused
from tests.helpers.server import GAMES, auth, create, token_of, watch

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


@pytest.fixture
def tight(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """An app whose limits the test names (``@pytest.mark.parametrize`` on ``limits``)."""
    limits: dict[str, Any] = request.param
    app = create_app(
        f"sqlite:///{tmp_path / 'games.sqlite3'}", bot_delay=0, limits=Limits(**limits)
    )
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize("tight", [{"create_burst": 3, "create_per_minute": 1}], indirect=True)
def test_creating_games_is_rate_limited_per_client(tight: TestClient) -> None:
    for _ in range(3):
        create(tight)
    answer = tight.post("/api/games", json={"game": "tigris"})
    assert "too many new games" in refused(answer)
    assert int(answer.headers["retry-after"]) >= 1
    assert len(tight.get("/api/games").json()["games"]) == 3


@pytest.mark.parametrize("tight", [{"moves_burst": 2, "moves_per_second": 0.01}], indirect=True)
def test_moves_are_rate_limited_over_http_and_websocket(tight: TestClient) -> None:
    created = create(tight)
    game_id = created["id"]
    tokens = [token_of(created, 0), token_of(created, 1)]

    def mover() -> str:
        return tokens[tight.get(f"/api/games/{game_id}").json()["to_move"]]

    for _ in range(2):
        url = f"/api/games/{game_id}/actions"
        assert tight.post(url, json={"action": "pass"}, headers=auth(mover())).status_code == 200
    answer = tight.post(
        f"/api/games/{game_id}/actions", json={"action": "pass"}, headers=auth(mover())
    )
    assert "too many moves" in refused(answer)
    with watch(tight, game_id, mover()) as ws:
        start = ws.receive_json()
        ws.send_json({"action": "pass"})
        reply = ws.receive_json()
        assert reply["type"] == "error" and reply["status"] == 429
        ws.send_json({"type": "ping"})  # the connection stays open
        assert ws.receive_json() == {"type": "pong"}
    assert (
        tight.get(f"/api/games/{game_id}").json()["table"]["version"] == start["table"]["version"]
    )


@pytest.mark.parametrize("tight", [{"max_live_games": 2}], indirect=True)
def test_live_games_are_capped(tight: TestClient) -> None:
    create(tight)
    create(tight)
    reason = refused(tight.post("/api/games", json={"game": "tigris"}))
    assert "maximum of 2 games" in reason
    assert len(tight.get("/api/games").json()["games"]) == 2


@pytest.mark.parametrize("tight", [{"max_bot_seats": 3}], indirect=True)
def test_bot_seats_are_capped(tight: TestClient) -> None:
    create(tight, seats=["human", "bot:greedy"])
    body = {"game": "tigris", "players": 4, "seats": ["bot:greedy"] * 3 + ["human"]}
    assert "too many bots" in refused(tight.post("/api/games", json=body))
    create(tight, players=3, seats=["human", "bot:greedy", "bot:greedy"])  # exactly the cap
    create(tight, players=4, seats=["human"] + ["bot:random"] * 3)  # the random bot is free


@pytest.mark.parametrize("tight", [{"bot_seconds": 0.25, "lobby_page": 2}], indirect=True)
def test_a_tables_bot_budget_is_capped_and_the_lobby_pages(tight: TestClient) -> None:
    asked = create(tight, seats=["human", "bot:random"], bot_seconds=30)
    assert asked["bot_seconds"] == 0.25
    assert tight.get("/api/meta").json()["max_bot_seconds"] == 0.25
    less = create(tight, seats=["human", "bot:random"], bot_seconds=0.1)
    assert less["bot_seconds"] == 0.1
    # A bot's move makes its table the most recently active: page once the bots have played
    # (a table that moves between two pages may change pages, as in any live lobby).
    for table in (asked, less):
        deadline = time.monotonic() + 120
        while tight.get(f"/api/games/{table['id']}").json()["to_move"] != 0:
            assert time.monotonic() < deadline, "the bot did not play its first move"
            time.sleep(0.05)
    create(tight)
    pages = []
    page = tight.get("/api/games").json()
    pages.append(page)
    while page["next"]:
        page = tight.get("/api/games", params={"before": page["next"]}).json()
        pages.append(page)
    assert [len(p["games"]) for p in pages] == [2, 1]
    assert len({g["id"] for p in pages for g in p["games"]}) == 3
    assert len(tight.get("/api/games?limit=1").json()["games"]) == 1
    assert refused(tight.get("/api/games?limit=abc"), 400).startswith("limit")
    assert refused(tight.get("/api/games?before=nonsense"), 400)


def test_a_level_that_searches_on_every_core_searches_on_one_within_the_cap() -> None:
    expert = server_bot("expert", 1, 0.2)
    assert expert.budget.seconds == 0.2 and expert.workers == 1  # type: ignore[attr-defined]
    quick = server_bot("medium", 1, 5.0)
    assert quick.budget.seconds == 0.3  # type: ignore[attr-defined]  (its own, under the cap)


def test_the_rate_limiter_refills_and_forgets_old_clients() -> None:
    bucket = RateLimiter(rate=2.0, burst=2, clients=2)
    assert bucket.allow("a", now=0.0) == 0.0
    assert bucket.allow("a", now=0.0) == 0.0
    assert bucket.allow("a", now=0.0) == pytest.approx(0.5)
    assert bucket.allow("a", now=0.5) == 0.0  # one token back after half a second
    bucket.allow("b", now=1.0)
    bucket.allow("c", now=1.0)
    assert set(bucket.buckets) == {"b", "c"}  # at most two clients remembered


def test_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="bot_seconds"):
        Limits(bot_seconds=0)
    with pytest.raises(ValueError, match="unknown limit"):
        Limits.from_dict({"speed": 1})
    with pytest.raises(ValueError, match="unplayed_minutes"):
        Limits(unplayed_minutes=0)
    with pytest.raises(ValueError, match="live_games_per_client"):
        Limits(live_games_per_client=0)
    with pytest.raises(ValueError, match="bot_seats_per_client"):
        Limits(bot_seats_per_client=-1)


def test_replays_are_cached(client: TestClient) -> None:
    created = create(client, seats=["bot:random", "bot:random"])
    hub = client.app.state.hub  # type: ignore[attr-defined]
    deadline = time.monotonic() + 120
    while client.get(f"/api/games/{created['id']}").json()["table"]["status"] != "over":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    first = client.get(f"/api/games/{created['id']}/replay?seat=1").json()
    assert (created["id"], 1) in hub.archive.replays
    cached = hub.archive.replays[(created["id"], 1)]
    assert client.get(f"/api/games/{created['id']}/replay?seat=1").json() == first
    assert hub.archive.replays[(created["id"], 1)] is cached
