"""The answers the server declares: every route of the published schema names its answer's
model, the types the server builds its answers with name the same keys as those models, and
what a finished game's reading routes answer fits them (a misfit is a 500, caught here)."""

from __future__ import annotations

import time
import warnings
from typing import Any, get_args, is_typeddict

import pytest
from pydantic import BaseModel

from cradle.server import answers, archive, assist, history
from tests.helpers.server import GAMES, auth, create, token_of

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

GAME_ROUTES = {
    f"cradle.server.routes.{name}" for name in ("lobby", "play", "reading", "lessons", "common")
}
# What the server builds (TypedDicts), and the published model of each.
BUILT_AS: list[tuple[Any, type[BaseModel]]] = [
    (archive.KnownRecord, answers.Record),
    (archive.Replay, answers.Replay),
    (archive.ReplayStep, answers.ReplayStep),
    (archive.History, answers.History),
    (archive.BoardAfter, answers.BoardAfter),
    (archive.LobbyPage, answers.LobbyPage),
    (history.ShownStep, answers.HistoryStep),
    (assist.Explanation, answers.Explanation),
    (assist.Hints, answers.Hints),
    (assist.Hint, answers.Hint),
    (assist.AnalysisAnswer, answers.Analysis),
]


def test_every_route_of_the_games_declares_its_answer(client: TestClient) -> None:
    """The lobby's, play's and reading's routes (accounts' are their own module's)."""
    from fastapi.routing import APIRoute

    schema = client.get("/openapi.json").json()
    components = schema["components"]["schemas"]
    operations = 0
    for route in client.app.routes:  # type: ignore[attr-defined]
        if not isinstance(route, APIRoute) or route.endpoint.__module__ not in GAME_ROUTES:
            continue
        # A frame's route answers in the shape of the client's version of the API: a union.
        declared = get_args(route.response_model) or (route.response_model,)
        for model in declared:
            assert isinstance(model, type) and issubclass(model, BaseModel), (
                f"{route.path} declares no answer"
            )
        for method in route.methods:
            operation = schema["paths"][route.path][method.lower()]
            answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
            for shape in answer.get("anyOf", [answer]):
                name = shape["$ref"].rsplit("/", 1)[1]
                assert components[name]["properties"], f"{method} {route.path}: an empty model"
            operations += 1
    assert operations == 23  # 17 (/share among them), the three lesson routes, three of turns.py


@pytest.mark.parametrize(("built", "model"), BUILT_AS, ids=lambda x: getattr(x, "__name__", ""))
def test_the_server_builds_each_answer_with_the_keys_its_model_names(
    built: Any, model: type[BaseModel]
) -> None:
    assert is_typeddict(built)
    keys = set(built.__required_keys__) | set(built.__optional_keys__)
    assert keys == set(model.model_fields)
    # A key the server may leave out is one the model does not require, and the other way.
    optional = {name for name, field in model.model_fields.items() if not field.is_required()}
    assert set(built.__optional_keys__) <= optional


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_game_reads_as_its_models_say(client: TestClient, game: str) -> None:
    created = create(client, game, seats=["human", "bot:random"])
    game_id, token = created["id"], token_of(created, 0)
    moved = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
    deadline = time.monotonic() + 120
    while moved["table"]["status"] != "over":
        assert time.monotonic() < deadline, "the game did not end"
        if moved["legal_actions"]:
            # The longest swap empties a Tigris bag soonest, which ends the game.
            action = max(moved["legal_actions"], key=lambda a: (a.startswith("swap"), len(a)))
            answer = client.post(
                f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(token)
            )
            assert answer.status_code == 200, answer.text
            if answer.json()["table"]["status"] != "over":
                url = f"/api/games/{game_id}/record"
                known = client.get(url, headers=auth(token)).json()
                # Still running after the record was read, so it was then: no seed. (The bot
                # may have ended the game in between: its record has the seed, rightly.)
                if client.get(f"/api/games/{game_id}").json()["table"]["status"] != "over":
                    assert "seed" not in known and len(known["seats"]) == len(known["actions"])
        else:
            time.sleep(0.01)  # the bot decides
        moved = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
    record = client.get(f"/api/games/{game_id}/record").json()
    assert set(record) == {"format", "game", "players", "seed", "options", "actions"}
    replay = client.get(f"/api/games/{game_id}/replay?seat=1").json()
    assert len(replay["steps"]) == len(record["actions"]) + 1
    assert replay["result"] == moved["table"]["result"]
    shown = client.get(f"/api/games/{game_id}/history").json()
    assert shown["moves"] == len(shown["steps"]) == len(record["actions"])
    watched = client.get(f"/api/games/{game_id}/replay").json()
    board = client.get(f"/api/games/{game_id}/board?ply=1").json()
    assert board["step"] == shown["steps"][0]
    assert board["view"] == watched["steps"][1]["view"]
    analysis = client.get(f"/api/games/{game_id}/analysis")
    assert analysis.status_code == 200, analysis.text
    for path in ("/api/boards/tigris", "/api/games"):
        assert client.get(path).status_code == 200
