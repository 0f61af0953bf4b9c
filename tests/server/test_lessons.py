"""The guided first games' routes: the lessons listed, a table made from a lesson's named
position (only names from the game's own list), played, and the same after a restart."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from cradle.core.lessons import matches
from cradle.games import get_game
from cradle.server.app import create_app
from cradle.server.limits import Limits
from tests.helpers.server import GAMES, auth, wait_for

pytestmark = pytest.mark.skipif(not {"tigris", "gheos"} <= set(GAMES), reason="needs both engines")


def lesson_table(client: TestClient, game: str, lesson: str) -> dict[str, Any]:
    answer = client.post("/api/lessons", json={"game": game, "lesson": lesson})
    assert answer.status_code == 200, answer.text
    created: dict[str, Any] = answer.json()
    return created


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_the_lessons_are_listed_without_their_positions(client: TestClient, game: str) -> None:
    answer = client.get(f"/api/lessons/{game}").json()
    names = [step.name for step in get_game(game).LESSONS]
    assert [step["name"] for step in answer["lessons"]] == names
    first = answer["lessons"][0]
    assert first["intro"] and first["done"] and first["tries"]
    assert "position" not in first
    assert client.get("/api/lessons/chess").status_code == 404


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"game": "tigris", "lesson": "../../etc/passwd"}, "no lesson"),
        ({"game": "tigris", "lesson": "continent"}, "no lesson"),  # Gheos's
        ({"game": "chess", "lesson": "tiles"}, "unknown game"),
        ({"game": "tigris", "lesson": "x" * 41}, "lesson: String should have at most 40"),
        ({"game": "tigris", "lesson": 3}, "lesson: Input should be a valid string"),
        ({"game": "tigris"}, "lesson: Field required"),
        ({"game": "tigris", "lesson": "tiles", "seed": 1}, "seed: Extra inputs"),
    ],
)
def test_a_bad_lesson_is_refused_and_stores_nothing(
    client: TestClient, body: Any, reason: str
) -> None:
    answer = client.post("/api/lessons", json=body)
    assert answer.status_code == 400, answer.text
    assert reason in answer.json()["error"]
    assert client.get("/api/games").json()["games"] == []


def test_a_lesson_option_cannot_be_smuggled_into_a_normal_table(client: TestClient) -> None:
    body = {"game": "tigris", "players": 2, "options": {"lesson": "tiles"}}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 400 and "bad options" in answer.json()["error"]


def test_a_lesson_table_starts_at_its_position_plays_and_survives_a_restart(
    db_url: str,
) -> None:
    limits = Limits(analyse_finished=False)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        created = lesson_table(client, "tigris", "revolt")
        game_id, token = created["id"], created["seats"][0]["token"]
        assert client.get("/api/games").json()["games"] == []  # unlisted
        frame = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        assert frame["to_move"] == 0 and frame["table"]["seats"] == ["human", "bot:random"]
        lesson = get_game("tigris").LESSONS[2]
        assert lesson.name == "revolt"
        for pattern in lesson.tries:
            legal = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
            action = next(a for a in legal["legal_actions"] if matches(pattern, a))
            answer = client.post(
                f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(token)
            )
            assert answer.status_code == 200, answer.text

        # The bull (the random bot) commits its 0 tiles; the revolt is the learner's.
        def seen() -> dict[str, Any]:
            frame: dict[str, Any] = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
            return frame

        wait_for(lambda: seen()["to_move"] == 0)
        assert seen()["to_move"] == 0
        before = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        after = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        assert after["board"] == before["board"]
        assert after["table"]["version"] == before["table"]["version"]


def test_a_picture_is_the_public_view_after_a_lessons_first_moves(client: TestClient) -> None:
    before = client.get("/api/lessons/tigris/revolt/picture").json()["view"]
    assert "G6" not in before["board"] and before["hand"] is None  # nobody's hand
    during = client.get("/api/lessons/tigris/revolt/picture?after=1").json()["view"]
    assert during["board"]["G6"] == "leader:archer:priest"
    assert during["pending"]["kind"] == "revolt"
    assert (during["pending"]["attacker_strength"], during["pending"]["defender_strength"]) == (
        2,
        1,
    )
    war = client.get("/api/lessons/gheos/war/picture?after=2").json()["view"]
    assert [civ for civ in war["civilizations"]] == ["blue"]


@pytest.mark.parametrize(
    ("path", "status", "reason"),
    [
        ("/api/lessons/tigris/nothing/picture", 404, "no lesson"),
        ("/api/lessons/chess/tiles/picture", 404, "unknown game"),
        ("/api/lessons/tigris/revolt/picture?after=3", 400, "has 2 moves"),
        ("/api/lessons/tigris/revolt/picture?after=-1", 400, "after"),
        ("/api/lessons/tigris/revolt/picture?after=99", 400, "after"),
    ],
)
def test_a_bad_picture_is_refused(client: TestClient, path: str, status: int, reason: str) -> None:
    answer = client.get(path)
    assert answer.status_code == status, answer.text
    assert reason in answer.json()["error"]


def test_a_whole_guided_game_leaves_room_for_the_game_against_easy(client: TestClient) -> None:
    for lesson in get_game("tigris").LESSONS:
        lesson_table(client, "tigris", lesson.name)
    body = {"game": "tigris", "players": 2, "seats": ["human", "bot:easy"]}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 200, answer.text


def test_restarting_lessons_again_and_again_keeps_room_for_real_games(db_url: str) -> None:
    """A client keeps its newest lesson tables live (storage.LESSON_TABLES); an older one
    ends as reclaimed, so lessons never use up the per-client cap of live games."""
    from cradle.server.store.new_games import LESSON_TABLES

    app = create_app(db_url, bot_delay=0, limits=Limits(live_games_per_client=4))
    with TestClient(app) as client:
        first = get_game("tigris").LESSONS[0].name
        made = [lesson_table(client, "tigris", first)["id"] for _ in range(3 * 4)]
        for game_id in made[:-LESSON_TABLES]:
            gone = client.get(f"/api/games/{game_id}")
            assert gone.status_code == 410, gone.text
            assert "newer lessons" in gone.json()["error"]
        for game_id in made[-LESSON_TABLES:]:
            assert client.get(f"/api/games/{game_id}").status_code == 200
        body = {"game": "tigris", "players": 2, "seats": ["human", "bot:easy"]}
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 200, answer.text
