"""What the web client asks besides moves: the history (game log) per seat, the board after any
move, why an action is not legal, hints, and the analysis of a finished game (stored with it,
computed in niced worker processes of their own, hints served before analysis steps)."""

from __future__ import annotations

import asyncio
import os
import random
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from cradle.server.app import create_app
from cradle.server.assist import ANALYSIS, ASSIST_NICE, HINT, AssistPool
from cradle.server.limits import Limits
from tests.helpers.app import hub_of
from tests.helpers.server import GAMES, auth, create, run_async, token_of

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

TINY = Limits(analysis_seconds=0.01, hint_seconds=0.05, bot_processes=1)


@pytest.fixture
def tiny(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, bot_delay=0, limits=TINY)) as test_client:
        yield test_client


def play(client: TestClient, game_id: str, tokens: dict[int, str], moves: int, seed: int) -> None:
    """``moves`` random moves by the people of the table (a bot's turn is waited for)."""
    rng = random.Random(seed)
    made = 0
    deadline = time.monotonic() + 120
    while made < moves:
        assert time.monotonic() < deadline, "the game stopped moving"
        view = client.get(f"/api/games/{game_id}").json()
        if view["table"]["status"] == "over":
            return
        seat = view["to_move"]
        if seat not in tokens:
            time.sleep(0.01)  # a bot decides
            continue
        mine = client.get(f"/api/games/{game_id}", headers=auth(tokens[seat])).json()
        action = rng.choice(mine["legal_actions"])
        answer = client.post(
            f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(tokens[seat])
        )
        assert answer.status_code == 200, answer.text
        made += 1


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_history_is_the_whole_record_each_seat_as_it_may_know_it(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    tokens = {s: token_of(created, s) for s in (0, 1)}
    table = hub_of(client).tables[game_id]
    mover = table.to_move()
    assert mover is not None
    swap = next(a for a in table.state.legal_actions() if a.startswith("swap "))
    client.post(f"/api/games/{game_id}/actions", json={"action": swap}, headers=auth(tokens[mover]))
    play(client, game_id, tokens, 12, seed=1)
    record = table.record
    histories = {
        seat: client.get(f"/api/games/{game_id}/history", headers=auth(tokens.get(seat))).json()
        for seat in (0, 1, None)
    }
    for seat, history in histories.items():
        steps = history["steps"]
        assert history["seat"] == seat and history["moves"] == len(record.actions) == len(steps)
        assert [s["ply"] for s in steps] == list(range(1, len(steps) + 1))
        assert [s["seat"] for s in steps] == table.action_seats
        # the swap: its tiles to the swapper only, "swap N" to the other seat and spectators
        shown = steps[0]["action"]
        assert shown == (swap if seat == mover else f"swap {len(swap.split()) - 1}")
        assert all(s["events"] for s in steps)  # the engine's events of every step
        for step, action, mover_of_step in zip(
            steps, record.actions, table.action_seats, strict=True
        ):
            hidden = action.startswith("swap") and seat != mover_of_step
            assert step["action"] == (f"swap {len(action.split()) - 1}" if hidden else action)
    # An undone move leaves the history with the record.
    before = histories[None]["moves"]
    for _ in range(20):
        seat = table.to_move()
        if seat is not None and hub_of(client).play.can_undo(table, seat):
            break
        play(client, game_id, tokens, 1, seed=len(table.record.actions))
    else:
        pytest.skip("no undoable move came up")
    before = len(table.record.actions)
    undone = client.post(f"/api/games/{game_id}/undo", headers=auth(tokens[seat]))
    assert undone.status_code == 200
    after = client.get(f"/api/games/{game_id}/history").json()
    assert after["moves"] == before - 1 == len(table.record.actions)


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_the_board_after_any_move(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    tokens = {s: token_of(created, s) for s in (0, 1)}
    start = {s: client.get(f"/api/games/{game_id}", headers=auth(tokens[s])).json() for s in (0, 1)}
    play(client, game_id, tokens, 6, seed=2)
    table = hub_of(client).tables[game_id]
    for seat in (0, 1):
        past = client.get(f"/api/games/{game_id}/board?ply=0", headers=auth(tokens[seat])).json()
        assert past["ply"] == 0 and past["step"] is None and past["seat"] == seat
        assert past["view"]["hand"] == start[seat]["hand"]  # its own hand as it was
    now = client.get(f"/api/games/{game_id}/board?ply={table.ply}", headers=auth(tokens[0]))
    assert now.json()["view"] == table.state.view(0)
    assert now.json()["step"]["ply"] == table.ply
    spectator = client.get(f"/api/games/{game_id}/board?ply=3").json()
    assert spectator["seat"] is None and spectator["view"]["hand"] is None
    too_far = client.get(f"/api/games/{game_id}/board?ply={table.ply + 1}")
    assert too_far.status_code == 400 and "between 0 and" in too_far.json()["error"]
    other = client.get(f"/api/games/{game_id}/board?ply=1&seat=1")
    assert other.status_code == 403  # other seats' views open once the game is over
    wrong = client.get(f"/api/games/{game_id}/board?ply=1", headers=auth("nobody"))
    assert wrong.status_code == 403


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_explain_says_why_an_action_is_not_legal_and_changes_nothing(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    table = hub_of(client).tables[game_id]
    mover = table.to_move()
    assert mover is not None
    token = token_of(created, mover)
    version = table.version
    url = f"/api/games/{game_id}/explain"
    hand = client.get(f"/api/games/{game_id}", headers=auth(token)).json()["hand"]
    river = client.get("/api/boards/tigris").json()["river"]
    # A land tile on the river (or a farm off it): the engine's reason names the river.
    others = [c for c in hand if c != "blue"]
    dry = next(
        f"{c}{r}" for c in "ABCDEFGHIJKLMNOP" for r in range(1, 12) if f"{c}{r}" not in river
    )
    wrong = f"tile {others[0]} {river[0]}" if others else f"tile blue {dry}"
    answer = client.post(url, json={"action": wrong}, headers=auth(token)).json()
    assert answer["legal"] is False and "river" in answer["reason"]
    legal = table.state.legal_actions()[0]
    assert client.post(url, json={"action": legal}, headers=auth(token)).json()["legal"] is True
    other = client.post(url, json={"action": legal}, headers=auth(token_of(created, 1 - mover)))
    assert other.status_code == 403
    assert client.post(url, json={"action": legal}).status_code == 403
    assert client.post(url, json={"action": 3}, headers=auth(token)).status_code == 400
    assert table.version == version and table.ply == 0


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_hints_against_bots_and_in_hot_seat_never_between_people(db_url: str) -> None:
    limits = Limits(hint_seconds=0.05, hints_burst=2, hints_per_minute=0.5)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        people = create(client)
        game_id = people["id"]
        mover = hub_of(client).tables[game_id].to_move()
        assert mover is not None
        refused = client.post(f"/api/games/{game_id}/hint", headers=auth(token_of(people, mover)))
        assert refused.status_code == 403 and "between people" in refused.json()["error"]
        assert client.get(f"/api/games/{game_id}").json()["table"]["hints"] is False

        against = create(client, seats=["human", "bot:random"])
        game_id = against["id"]
        token = token_of(against, 0)
        table = hub_of(client).tables[game_id]
        deadline = time.monotonic() + 120
        while table.to_move() != 0:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        version = table.version
        view = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        assert view["table"]["hints"] is True
        answer = client.post(f"/api/games/{game_id}/hint", headers=auth(token))
        assert answer.status_code == 200, answer.text
        hints = answer.json()["hints"]
        assert 1 <= len(hints) <= 3
        assert all(h["action"] in view["legal_actions"] and h["reason"] for h in hints)
        assert all(0.0 <= h["win_chance"] <= 1.0 for h in hints)
        assert table.version == version  # a hint changes nothing
        assert client.post(f"/api/games/{game_id}/hint").status_code == 403  # a spectator
        second = client.post(f"/api/games/{game_id}/hint", headers=auth(token))
        assert second.status_code == 200  # the burst of two
        over = client.post(f"/api/games/{game_id}/hint", headers=auth(token))
        assert over.status_code == 429 and "hints" in over.json()["error"]
        assert over.headers["Retry-After"]

        hotseat = create(client, seats=["human", "human"], hotseat=True)
        view = client.get(
            f"/api/games/{hotseat['id']}", headers=auth(hotseat["table_token"])
        ).json()
        assert view["table"]["hints"] is True


def wait_for_analysis(client: TestClient, game_id: str, seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        answer = client.get(f"/api/games/{game_id}/analysis")
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        if found["status"] in ("done", "failed"):
            return found
        assert time.monotonic() < deadline, f"the analysis is still {found['status']}"
        time.sleep(0.1)


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
def test_a_finished_game_is_analysed_in_the_background_and_stored(db_url: str) -> None:
    with TestClient(create_app(db_url, bot_delay=0, limits=TINY)) as client:
        created = create(client, "gheos", seats=["human", "bot:random"])
        game_id = created["id"]
        early = client.get(f"/api/games/{game_id}/analysis")
        assert early.status_code == 403  # not before the end
        play(client, game_id, {0: token_of(created, 0)}, 10_000, seed=3)
        table = hub_of(client).tables[game_id]
        assert table.is_over
        found = wait_for_analysis(client, game_id)
        assert found["status"] == "done" and found["done"] == found["total"] > 0
        analysis = found["analysis"]
        chances = analysis["chances"]
        assert len(chances) == table.ply + 1  # the start, then after every move
        assert all(len(c) == 2 and abs(sum(c) - 1.0) < 0.01 for c in chances)
        assert chances[-1] in ([1.0, 0.0], [0.0, 1.0], [0.5, 0.5])  # exact at the end
        reviews = analysis["reviews"]
        assert {r["seat"] for r in reviews} == {0}  # the person's moves, not the bot's
        assert sorted(r["ply"] for r in reviews) == analysis["plies"]
        for review in reviews:
            assert review["seat"] == table.action_seats[review["ply"] - 1]
            assert review["played"] == table.record.actions[review["ply"] - 1]
            assert review["loss"] >= 0 and review["why"]
            cost = max(0.0, review["best_chance"] - review["played_chance"])
            assert abs(review["loss"] - cost) < 0.002
        by_ply = {r["ply"]: r for r in reviews}
        assert all(by_ply[p]["loss"] >= 0.03 for p in analysis["costly"])
    # Stored with the game: a new server on the same database answers it at once.
    with TestClient(create_app(db_url, bot_delay=0, limits=TINY)) as again:
        assert again.get(f"/api/games/{game_id}/analysis").json() == found


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
def test_a_game_of_bots_is_analysed_on_request(tiny: TestClient) -> None:
    created = create(tiny, "gheos", seats=["bot:random", "bot:random"])
    game_id = created["id"]
    table = hub_of(tiny).tables[game_id]
    deadline = time.monotonic() + 120
    while not table.is_over:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert tiny.get(f"/api/games/{game_id}/analysis").json()["status"] == "none"
    asked = tiny.post(f"/api/games/{game_id}/analysis")
    assert asked.status_code == 200 and asked.json()["status"] in ("queued", "running", "done")
    found = wait_for_analysis(tiny, game_id)
    assert {r["seat"] for r in found["analysis"]["reviews"]} <= {0, 1}
    bad = tiny.post(f"/api/games/{game_id}/analysis", json={"budget": 100})
    assert bad.status_code == 400  # nothing from the network sets the analysis's cost


def test_hints_are_served_before_analysis_steps() -> None:
    """One worker: while it works, an analysis step and then a hint wait; the hint goes first."""

    async def scenario() -> list[int]:
        pool = AssistPool(1)
        try:
            jobs = [pool.run(ANALYSIS, os.getpid) for _ in range(3)]
            jobs.append(pool.run(HINT, os.getpid))
            await asyncio.gather(*jobs)
            return list(pool.served)
        finally:
            pool.close()

    assert run_async(scenario) == [ANALYSIS, HINT, ANALYSIS, ANALYSIS]


def test_assist_workers_are_niced_below_the_bots() -> None:
    async def scenario() -> tuple[int, list[int], int]:
        pool = AssistPool(1)
        try:
            worker = await pool.run(HINT, os.getpid)
            return worker, pool.worker_pids(), os.getpriority(os.PRIO_PROCESS, worker)
        finally:
            pool.close()

    worker, pids, niceness = run_async(scenario)
    assert pids == [worker]  # its own process, not one of the bots' workers
    # Behind the server (whose niceness the bots keep) by ASSIST_NICE, as far as niceness
    # goes: it stops at 19, so a server already run under `nice` gets a smaller step.
    server = os.getpriority(os.PRIO_PROCESS, 0)
    assert niceness == min(server + ASSIST_NICE, 19)
    assert niceness > server or server == 19


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
def test_an_operator_may_turn_the_analyses_off(client: TestClient) -> None:
    """`client` runs with Limits(analyse_finished=False) (`cradle serve --no-analyse`)."""
    created = create(client, "gheos", seats=["human", "bot:random"])
    game_id = created["id"]
    play(client, game_id, {0: token_of(created, 0)}, 10_000, seed=5)
    assert hub_of(client).tables[game_id].is_over
    assert client.get(f"/api/games/{game_id}/analysis").json()["status"] == "none"
    assert hub_of(client).assist.pool is None  # no worker was even started
