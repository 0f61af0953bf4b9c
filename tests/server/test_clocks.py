"""Clocks for live tables: a base time and an increment per person, shown for every seat,
running only for the person deciding (and not before an invited seat's person opened the
invite), stored with each change so a restart finds them as they were; a clock that runs out
is one stored change, after which the others let a stand-in bot play or end the game without
that seat (a rated game rates it a loss). On SQLite and PostgreSQL, with a settable clock."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from tests.helpers.app import hub_of, move, set_clock, started, view
from tests.helpers.server import GAMES, auth, create, token_of, wait_for, watch

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

BASE, INCREMENT = 300, 5
LIVE = {"players": 2, "seats": ["human", "human"], "clock": {"base_s": BASE, "increment_s": 5}}
PASSWORD = "correct horse battery"


def seated(client: TestClient, created: dict[str, Any]) -> str:
    """Seat 1's person opens its invite; their token."""
    invite = created["seats"][1]["invite"]
    answer = client.post(f"/api/games/{created['id']}/join", json={"invite": invite})
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["token"]
    return token


def live_table(client: TestClient) -> tuple[str, int, str, str]:
    """A clocked live table of two people, both seated: its id, the seat whose clock runs
    first (``late`` in the tests: the one that decides), its token and the other seat's."""
    created = create(client, **LIVE)
    game_id = created["id"]
    tokens = {0: token_of(created, 0), 1: seated(client, created)}
    late = view(client, game_id)["to_move"]
    return game_id, late, tokens[late], tokens[1 - late]


def lapse(client: TestClient, game_id: str) -> dict[str, Any]:
    """Time passes beyond the running clock's end; the clock's lapse is stored (by this call
    or by the server's own watch, whichever comes first)."""
    deadline = view(client, game_id)["table"]["deadline"]
    set_clock(client, deadline + 1)
    assert client.portal is not None
    client.portal.call(hub_of(client).turns.clocks_lapsed, deadline + 1)
    wait_for(lambda: view(client, game_id)["table"]["deadline"] is None, 30)
    return view(client, game_id)["table"]


def test_the_clock_runs_for_the_person_deciding_once_everyone_is_seated(any_db_url: str) -> None:
    with started(any_db_url) as client:
        game_id, clock, deadline = clock_runs(client)
    # Stored: a server started again on the database finds the clocks as they were.
    with started(any_db_url) as again:
        assert view(again, game_id)["table"]["clock"] == clock
        assert view(again, game_id)["table"]["deadline"] == deadline


def clock_runs(client: TestClient) -> tuple[str, dict[str, Any], float]:
    """A clocked table played up to the second person's turn: its id, clocks and deadline."""
    created = create(client, **LIVE)
    game_id = created["id"]
    table = view(client, game_id)["table"]
    # Shown for every seat; the invited seat's person has not opened the invite: none runs.
    assert table["clock"] == {"base_s": BASE, "increment_s": INCREMENT, "left": [BASE, BASE],
                              "running": None, "gone": [None, None], "absent_s": 60}  # fmt: skip
    assert table["deadline"] is None
    began = time.time()
    second = seated(client, created)
    table = view(client, game_id)["table"]
    mover = table["to_move"]
    tokens = {0: token_of(created, 0), 1: second}
    assert table["clock"]["running"] == mover
    assert began + BASE <= table["deadline"] <= time.time() + BASE
    # A Tigris turn is two actions: the first leaves the clock running as it was.
    first = move(client, game_id, tokens[mover])["table"]
    assert first["to_move"] == mover and first["deadline"] == table["deadline"]
    done = time.time()
    second_action = move(client, game_id, tokens[mover])["table"]
    other = 1 - mover
    assert second_action["to_move"] == other
    clock = second_action["clock"]
    assert clock["running"] == other and clock["left"][other] == BASE
    # The mover's clock stopped with what it had left, plus the increment.
    assert began + BASE - table["deadline"] <= 0
    assert BASE - (time.time() - began) + INCREMENT <= clock["left"][mover] <= BASE + INCREMENT
    assert done <= second_action["deadline"] - BASE <= time.time()
    return game_id, clock, second_action["deadline"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({**LIVE, "mode": "turn"}, "live tables"),
        ({**LIVE, "hotseat": True}, "live tables"),
        ({**LIVE, "clock": {"base_s": 0}}, "base_s"),
        ({**LIVE, "clock": {"base_s": 3 * 3600 + 1}}, "base_s"),
        ({**LIVE, "clock": {"base_s": 60, "increment_s": 601}}, "increment_s"),
        ({**LIVE, "clock": {"base_s": 60.5}}, "base_s"),
        ({**LIVE, "clock": {"increment_s": 5}}, "base_s"),
    ],
)
def test_a_clock_is_checked(serve: Callable[..., TestClient], body: Any, words: str) -> None:
    answer = serve().post("/api/games", json={"game": "tigris", **body})
    assert answer.status_code == 400 and words in answer.json()["error"], answer.text


def test_a_clock_that_runs_out_lets_the_others_choose_a_stand_in(
    serve: Callable[..., TestClient],
) -> None:
    client = serve()
    game_id, late, late_token, other = live_table(client)
    before = view(client, game_id)["table"]
    timeout = f"/api/games/{game_id}/timeout"
    answer = client.post(timeout, json={"choice": "bot"}, headers=auth(other))
    assert answer.status_code == 403 and "has not run out" in answer.json()["error"]
    # The lapse is one stored change (the version moves on once): the clock shows nothing left.
    table = lapse(client, game_id)
    assert table["version"] == before["version"] + 1
    assert table["clock"]["left"][late] == 0 and table["clock"]["running"] is None
    # Real time again: the frozen time lies past this clock's end, and past the next clock's
    # end too when it starts within a second of this one's start (the watch would lapse it).
    del hub_of(client).clock
    answer = client.post(timeout, json={"choice": "bot"}, headers=auth(late_token))
    assert answer.status_code == 403 and "your own turn" in answer.json()["error"]
    answer = client.post(timeout, json={"choice": "bot"}, headers=auth(other))
    assert answer.status_code == 200, answer.text
    assert answer.json()["table"]["standin"] == late and answer.json()["table"]["away"] == [late]
    # The stand-in plays the turn; then the other person's clock runs.
    wait_for(lambda: view(client, game_id)["to_move"] == 1 - late, 120)
    table = view(client, game_id)["table"]
    assert table["clock"]["running"] == 1 - late and table["clock"]["left"][late] == 0
    steps = client.get(f"/api/games/{game_id}/history").json()["steps"]
    assert {step["standin"] for step in steps} == {"easy"}
    # Its person comes back: their clock starts again at the base time.
    answer = client.post(f"/api/games/{game_id}/return", json={}, headers=auth(late_token))
    assert answer.status_code == 200, answer.text
    assert answer.json()["table"]["clock"]["left"][late] == BASE


def test_a_rated_game_whose_clock_ran_out_ends_with_that_seat_s_loss(
    serve: Callable[..., TestClient],
) -> None:
    client = serve()
    people = []
    for name in ("Clockann", "Clockbob"):
        person = TestClient(client.app)
        answer = person.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        person.headers["X-CSRF-Token"] = answer.json()["csrf"]
        people.append(person)
    ann, bob = people
    created = create(ann, **LIVE, rated=True)
    game_id = created["id"]
    invite = created["seats"][1]["invite"]
    joined = bob.post(f"/api/games/{game_id}/join", json={"invite": invite})
    assert joined.status_code == 200, joined.text
    tokens = {0: token_of(created, 0), 1: joined.json()["token"]}
    late = view(client, game_id)["to_move"]
    lapse(client, game_id)
    answer = client.post(f"/api/games/{game_id}/timeout", json={"choice": "end"},
                         headers=auth(tokens[1 - late]))  # fmt: skip
    assert answer.status_code == 200, answer.text
    table = answer.json()["table"]
    assert table["status"] == "over" and table["ended_by"] == "timeout"
    places = {line["seat"]: line["place"] for line in table["result"]}
    assert places[late] == 2 and places[1 - late] == 1
    board = client.get("/api/ratings?game=tigris&players=2").json()["ratings"]
    rows = {row["name"]: row for row in board}
    assert set(rows) == {"Clockann", "Clockbob"} and all(row["games"] == 1 for row in board)
    assert board[0]["name"] == ("Clockann", "Clockbob")[1 - late]  # the one who stayed leads


def test_a_person_gone_a_minute_may_be_stood_in_for_or_left(
    serve: Callable[..., TestClient],
) -> None:
    client = serve()
    game_id, late, late_token, other = live_table(client)

    def gone() -> Any:
        return view(client, game_id)["table"]["clock"]["gone"][late]

    # The deciding person's page closes: stored (one change); it opens again: back.
    for _ in range(2):
        with watch(client, game_id, late_token) as socket:
            socket.receive_json()
            wait_for(lambda: gone() is None, 30)
        wait_for(lambda: gone() is not None, 30)
    since = gone()
    timeout = f"/api/games/{game_id}/timeout"
    answer = client.post(timeout, json={"choice": "end"}, headers=auth(other))
    assert answer.status_code == 403 and "away long" in answer.json()["error"]
    set_clock(client, since + 61)  # a minute gone (their clock has minutes left)
    assert view(client, game_id)["table"]["clock"]["running"] == late
    answer = client.post(timeout, json={"choice": "end"}, headers=auth(late_token))
    assert answer.status_code == 403
    answer = client.post(timeout, json={"choice": "end"}, headers=auth(other))
    assert answer.status_code == 200, answer.text
    table = answer.json()["table"]
    assert table["status"] == "over" and table["ended_by"] == "timeout"
    assert {line["seat"]: line["place"] for line in table["result"]}[late] == 2
