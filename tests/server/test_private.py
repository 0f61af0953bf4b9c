"""Private stays private (docs/server.md, "Private tables"): a private table's finished game
(its record with the seed, replays, past boards, history, analysis) answers its players and
those they share it with, never anyone else holding its address; a public profile never names
it. At the API, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits
from tests.helpers.server import GAMES, auth, token_of

pytestmark = pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")


class Person:
    """A browser of a signed-in player: its own cookies, its CSRF token on every write."""

    def __init__(self, client: TestClient, name: str) -> None:
        self.client = client
        answer = client.post("/api/accounts", json={"name": name, "password": "correct horse"})
        assert answer.status_code == 200, answer.text
        self.csrf = answer.json()["csrf"]

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **auth(token)}
        return self.client.post(path, json=body, headers=headers)


@pytest.fixture
def browsers(any_db_url: str) -> Iterator[list[TestClient]]:
    """Three browsers (their own cookies and addresses) on one server."""
    app = create_app(
        any_db_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64)
    )
    with TestClient(app) as first:
        yield [
            first,
            TestClient(app, client=("10.1.2.3", 5000)),
            TestClient(app, client=("10.9.8.7", 5000)),
        ]


def finished(alice: Person, bob: Person, **body: Any) -> tuple[str, list[str]]:
    """A two-player Gheos table of Alice and Bob, a few moves played, then Bob concedes."""
    answer = alice.post("/api/games", {"game": "gheos", "seats": ["human", "human"], **body})
    assert answer.status_code == 200, answer.text
    created = answer.json()
    game_id = created["id"]
    joined = bob.post(f"/api/games/{game_id}/join", {"invite": created["seats"][1]["invite"]})
    assert joined.status_code == 200, joined.text
    tokens = [token_of(created, 0), joined.json()["token"]]
    play = random.Random(5)
    client = alice.client
    for _ in range(3):
        token = tokens[client.get(f"/api/games/{game_id}").json()["to_move"]]
        legal = client.get(f"/api/games/{game_id}", headers=auth(token)).json()["legal_actions"]
        moved = client.post(
            f"/api/games/{game_id}/actions",
            json={"action": play.choice(legal)},
            headers=auth(token),
        )
        assert moved.status_code == 200, moved.text
    conceded = bob.post(f"/api/games/{game_id}/concede", {}, tokens[1])
    assert conceded.status_code == 200, conceded.text
    return game_id, tokens


def reads(game_id: str) -> list[str]:
    """Every read of a finished game that says more than its last frame."""
    return [
        f"/api/games/{game_id}/record",
        f"/api/games/{game_id}/replay",
        f"/api/games/{game_id}/replay?seat=1",
        f"/api/games/{game_id}/board?ply=1",
        f"/api/games/{game_id}/board?ply=2&seat=0",
        f"/api/games/{game_id}/history",
        f"/api/games/{game_id}/analysis",
    ]


def test_a_private_finished_game_answers_its_players_and_whom_they_share_it_with(
    browsers: list[TestClient],
) -> None:
    first, second, stranger = browsers
    alice, bob = Person(first, "Alice"), Person(second, "Bob")
    carol = Person(stranger, "Carol")
    game_id, tokens = finished(alice, bob, private=True, rated=True)
    for path in reads(game_id):
        # A stranger with its address, signed in or not, learns nothing more of it.
        refused = stranger.get(path)
        assert refused.status_code == 403, (path, refused.text)
        assert "private" in refused.json()["error"]
        assert carol.client.get(path).status_code == 403
        # Its players: by a seat's token, or by the session of an account holding a seat.
        assert stranger.get(path, headers=auth(tokens[1])).status_code == 200, path
        assert first.get(path).status_code == 200, path  # Alice's cookie
    assert stranger.post(f"/api/games/{game_id}/analysis", json={}).status_code == 403
    record = first.get(f"/api/games/{game_id}/record").json()
    assert isinstance(record["seed"], int)
    # The replay says the game is private: its players' screens offer to share it.
    assert first.get(f"/api/games/{game_id}/replay").json()["private"] is True
    # Sharing: a player asks for its key and gives it to whom they choose.
    assert stranger.get(f"/api/games/{game_id}/share").status_code == 403
    key = second.get(f"/api/games/{game_id}/share", headers=auth(tokens[1])).json()["key"]
    assert first.get(f"/api/games/{game_id}/share").json()["key"] == key
    for path in reads(game_id):
        shared = stranger.get(path, headers={"Cradle-Share": key})
        assert shared.status_code == 200, (path, shared.text)
        wrong = stranger.get(path, headers={"Cradle-Share": key[:-1] + "x"})
        assert wrong.status_code == 403, path
    # A public page (the profile) never names it, not even by its rating change.
    for name in ("Alice", "Bob"):
        profile = stranger.get(f"/api/players/{name}").json()
        assert game_id not in str(profile)
        assert [change["game_id"] for change in profile["history"]] == [None]
        assert profile["ratings"][0]["games"] == 1


def test_a_public_finished_game_answers_anyone_and_a_private_one_is_watched_while_in_play(
    browsers: list[TestClient],
) -> None:
    first, second, stranger = browsers
    alice, bob = Person(first, "Alice"), Person(second, "Bob")
    game_id, _tokens = finished(alice, bob)
    for path in reads(game_id):
        assert stranger.get(path).status_code == 200, path
    assert stranger.get(f"/api/games/{game_id}/replay").json()["private"] is False
    profile = stranger.get("/api/players/Alice").json()
    assert [game["id"] for game in profile["games"]] == [game_id]
    # In play, a private table's address is how its watchers follow it (as spectators).
    answer = alice.post("/api/games", {"game": "gheos", "seats": ["human", "human"],
                                       "private": True})  # fmt: skip
    playing = answer.json()["id"]
    assert stranger.get(f"/api/games/{playing}/history").status_code == 200
    record = stranger.get(f"/api/games/{playing}/record").json()
    assert "seed" not in record
