"""The server names no game: a third game added to the registry (tests/helpers/toygame.py, the
race to ten) is offered, created, played, refused, replayed and read back like the others,
and no server module names a game of the registry."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cradle.core.registry import GAME_MODULES, game_names
from tests.helpers.server import auth, create, token_of, watch

SERVER = Path(__file__).resolve().parents[2] / "src" / "cradle" / "server"


@pytest.fixture
def race(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setitem(GAME_MODULES, "race", "tests.helpers.toygame")
    yield "race"


def test_a_third_game_is_offered_played_and_replayed(race: str, client: TestClient) -> None:
    offered = {game["name"]: game for game in client.get("/api/meta").json()["games"]}
    assert offered[race] == {
        "name": "race",
        "title": "Race to ten",
        "seat_names": ["hare", "tortoise", "snail"],
        "min_players": 2,
        "max_players": 3,
        "options": {"goal": 10},
    }
    created = create(client, race, options={"goal": 5})
    game_id = created["id"]
    tokens = [token_of(created, seat) for seat in (0, 1)]
    frame = client.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()
    assert frame["count"] == 0 and frame["legal_actions"] == ["add 1", "add 2"]
    # The two kinds of refusal, each with its status and kind (Cradle-Api 2; 1: 400 for both).
    for seat, action, status, kind in ((0, "jump", 400, "malformed"), (1, "add 1", 403, None)):
        refused = client.post(
            f"/api/games/{game_id}/actions",
            json={"action": action},
            headers={**auth(tokens[seat]), "Cradle-Api": "2"},
        )
        assert refused.status_code == status, refused.text
        assert refused.json().get("kind") == kind
    with watch(client, game_id, tokens[1]) as ws:
        assert ws.receive_json()["count"] == 0
        moves = ["add 2", "add 1", "add 1"]
        for ply, action in enumerate(moves):
            answer = client.post(
                f"/api/games/{game_id}/actions",
                json={"action": action},
                headers=auth(tokens[ply % 2]),
            )
            assert answer.status_code == 200, answer.text
            assert ws.receive_json()["count"] == answer.json()["count"]
        past = client.post(
            f"/api/games/{game_id}/actions",
            json={"action": "add 2"},
            headers={**auth(tokens[1]), "Cradle-Api": "2"},
        )
        assert past.status_code == 409, past.text  # read, and not allowed now (5 at most)
        assert past.json() == {
            "error": "the count may not pass 5",
            "kind": "disallowed",
            "message": "the count may not pass 5",  # a toy game's, no message of the catalogues
            "params": {},
        }
        first = client.post(  # version 1 of the API: 400 for both kinds, as it always was
            f"/api/games/{game_id}/actions", json={"action": "add 2"}, headers=auth(tokens[1])
        )
        assert first.status_code == 400 and first.json()["kind"] == "disallowed"
        last = client.post(
            f"/api/games/{game_id}/actions", json={"action": "add 1"}, headers=auth(tokens[1])
        ).json()
        assert last["table"]["status"] == "over"
        assert [line["place"] for line in last["table"]["result"]] == [2, 1]
    replay: dict[str, Any] = client.get(f"/api/games/{game_id}/replay").json()
    assert [step["action"] for step in replay["steps"]] == [None, *moves, "add 1"]
    assert [step["view"]["count"] for step in replay["steps"]] == [0, 2, 3, 4, 5]
    history = client.get(f"/api/games/{game_id}/history").json()
    assert [step["events"][0]["count"] for step in history["steps"]] == [2, 3, 4, 5]
    assert history["pieces"] == {"count": {"value": 5}}  # the game's own pieces
    board = client.get(f"/api/games/{game_id}/board?ply=2").json()
    assert board["view"]["count"] == 3 and board["pieces"] == {"count": {"value": 3}}
    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["game"] == race and record["actions"] == [*moves, "add 1"]


def test_no_server_module_names_a_game() -> None:
    """Titles, seats, replay pieces, what bots remember: each game declares them (its
    ``PRESENTATION``; cradle.ai.memory for the bots), and the server reads the registry."""
    names = "|".join(map(re.escape, game_names()))
    named = re.compile(rf"[\"']({names})[\"']")
    found = [
        f"{path.relative_to(SERVER)}:{number}"
        for path in sorted(SERVER.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if named.search(line)
    ]
    assert found == []
