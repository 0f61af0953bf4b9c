"""The server's bot pool: workers handed out in turn, so no table's bots starve the others', in
two lanes, so no decision nobody waits for stands between a person and its bot."""

from __future__ import annotations

import asyncio
import os

import pytest

from cradle.server.botpool import BACKGROUND_NICE, BotAsk, BotPool
from cradle.server.limits import BACKGROUND, WAITED
from tests.helpers.server import GAMES, run_async

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


def test_a_table_of_slow_bots_takes_its_turn_like_the_others() -> None:
    from cradle import tigris

    state = tigris.new_game(2, seed=5)
    seat = int(state.to_move)

    async def table(pool: BotPool, name: str, bot: str, decisions: int) -> list[str]:
        chosen = []
        for number in range(decisions):
            # Like a table of bots: the next decision is asked for as soon as one is made.
            chosen.append(await pool.decide(name, BotAsk(state.clone(), seat, bot, number, 0.3)))
        return chosen

    async def run() -> tuple[list[str], list[list[str]]]:
        pool = BotPool(processes=1)
        try:
            # "slow" thinks 0.3 s a decision (pimc); the others take a moment (greedy).
            found = await asyncio.gather(
                table(pool, "slow", "pimc", 3),
                table(pool, "quick", "greedy", 3),
                table(pool, "other", "greedy", 3),
            )
            return pool.served, list(found)
        finally:
            pool.close()

    served, found = run_async(run)
    # One worker, served in turn: never the same table twice while another one waited.
    assert served == ["slow", "quick", "other"] * 3
    legal = set(state.legal_actions())
    assert all(action in legal for actions in found for action in actions)


def test_a_table_has_one_decision_in_the_pool_at_a_time() -> None:
    from cradle import tigris

    state = tigris.new_game(2, seed=5)
    seat = int(state.to_move)

    async def run() -> None:
        pool = BotPool(processes=1)
        try:
            first = asyncio.ensure_future(
                pool.decide("t", BotAsk(state.clone(), seat, "greedy", 1, 0.1))
            )
            await asyncio.sleep(0)
            with pytest.raises(RuntimeError, match="already has a bot decision"):
                await pool.decide("t", BotAsk(state.clone(), seat, "greedy", 2, 0.1))
            assert await first in state.legal_actions()
        finally:
            pool.close()

    run_async(run)


def test_a_person_waited_decision_takes_its_own_worker_while_the_others_queue() -> None:
    """Issue 69 item 2: the turns nobody waits for have workers of their own; however many
    of them are queued or in hand, a decision a person waits for goes to a worker of its lane
    at once. (The background lane's one slot is held here by the test: nothing depends on how
    long a decision takes.)"""
    from cradle import tigris

    state = tigris.new_game(2, seed=5)
    seat = int(state.to_move)

    async def run() -> tuple[list[tuple[str, str]], bool]:
        pool = BotPool(processes=1, background=1)
        try:
            background = pool.lanes[BACKGROUND]
            await background.slot(0)  # a decision nobody waits for, in hand
            queued = [
                asyncio.ensure_future(
                    pool.decide(
                        f"bots{n}", BotAsk(state.clone(), seat, "greedy", n, 0.1), BACKGROUND
                    )
                )
                for n in range(3)
            ]
            await asyncio.sleep(0)
            person = await pool.decide("person", BotAsk(state.clone(), seat, "greedy", 9, 0.1))
            assert person in state.legal_actions()
            waited_alone = not any(task.done() for task in queued)
            background.release()  # the decision in hand ends: the queued ones go in turn
            assert all(a in state.legal_actions() for a in await asyncio.gather(*queued))
            return list(pool.served_lanes), waited_alone
        finally:
            pool.close()

    served, waited_alone = run_async(run)
    assert waited_alone  # none of those queued before it had a worker yet
    assert served == [
        (WAITED, "person"),
        (BACKGROUND, "bots0"),
        (BACKGROUND, "bots1"),
        (BACKGROUND, "bots2"),
    ]


def test_a_hard_seat_thinks_within_its_turn_allowance(client: object) -> None:
    """Each bot seat keeps a turn clock, stored with its moves (so that a turn whose decisions
    different workers make keeps it): ``hard`` gets its turn allowance however many decisions
    the turn holds (issue 15: what players wait for)."""
    import random
    import time

    from fastapi.testclient import TestClient

    from cradle.ai import LEVELS
    from cradle.server.botpool import turn_clock
    from cradle.server.hub import Hub
    from tests.helpers.server import auth, create, token_of

    assert isinstance(client, TestClient)
    created = create(client, seats=["human", "bot:hard"], bot_seconds=0.05)
    game_id = created["id"]
    token = token_of(created, 0)
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    rng = random.Random(3)
    deadline = time.monotonic() + 120
    moves = 0

    def thought_in_its_turn() -> bool:
        return hub.store.bot_jobs.clocks(game_id).get(1, 0.0) > 0.0

    while moves < 6 or not thought_in_its_turn():
        assert time.monotonic() < deadline, "the game stopped moving"
        mine = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        if mine["to_move"] != 0:
            time.sleep(0.02)  # the bot decides
            continue
        action = rng.choice(mine["legal_actions"])
        answer = client.post(
            f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(token)
        )
        assert answer.status_code == 200, answer.text
        moves += 1
    assert turn_clock("hard").turn_seconds == LEVELS["hard"].turn_seconds


def _imported_knowledge() -> bool:
    import sys

    return (
        "cradle.ai.knowledge.tigris" in sys.modules and "cradle.ai.knowledge.gheos" in sys.modules
    )


def test_a_started_pool_has_its_workers_ready_with_the_bots_imported() -> None:
    pool = BotPool(2, background=1)
    try:
        assert pool.worker_pids() == []
        ready = [future.result(timeout=120) for future in pool.start()]
        assert set(ready) <= set(pool.worker_pids())
        assert len(pool.worker_pids(WAITED)) == 2 and len(pool.worker_pids(BACKGROUND)) == 1
        # The first decision of a worker waits for no import (cradle.ai.search.budget.warm_up).
        assert pool.pool is not None
        assert pool.pool.submit(_imported_knowledge).result(timeout=60)
        # A person's bot decides at the server's priority; the bots nobody waits for behind
        # it, by BACKGROUND_NICE as far as niceness goes (it stops at 19).
        server = os.getpriority(os.PRIO_PROCESS, 0)
        assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in pool.worker_pids(WAITED)} == {
            server
        }
        (background,) = pool.worker_pids(BACKGROUND)
        assert os.getpriority(os.PRIO_PROCESS, background) == min(server + BACKGROUND_NICE, 19)
    finally:
        pool.close()


def test_cradle_serve_starts_its_bot_workers_with_the_server(db_url: str) -> None:
    import time

    from fastapi.testclient import TestClient

    from cradle.server.app import create_app
    from cradle.server.cli import SERVE_LIMITS
    from cradle.server.hub import Hub
    from cradle.server.limits import Limits

    assert SERVE_LIMITS.prestart_bots
    for prestart in (False, True):
        limits = Limits(bot_processes=1, prestart_bots=prestart, analyse_finished=False)
        with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
            hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
            if not prestart:
                assert hub.bots.pool is None  # started at the first bot decision
                continue
            deadline = time.monotonic() + 120
            while not hub.bots.worker_pids():
                assert time.monotonic() < deadline, "the bot workers did not start"
                time.sleep(0.05)


def test_the_bot_seats_remember_the_public_belief_over_the_hands(client: object) -> None:
    """A bot seat reads the opponents from the public history (cradle.ai.memory: the Tigris
    bots' belief over the hands). The bot side keeps it per table, not the table: worked out
    from the record for the bot's first decision, then taken on from where it was before each
    later one, so it is always the belief of the table's record."""
    import random
    import time

    from fastapi.testclient import TestClient

    from cradle.ai.knowledge.belief import HandBelief
    from cradle.ai.knowledge.tigris import UNSEEN_SHARE
    from cradle.ai.memory import remembered
    from cradle.server.hub import Hub
    from tests.helpers.server import auth, create, token_of

    assert isinstance(client, TestClient)
    created = create(client, seats=["human", "bot:greedy"])
    game_id = created["id"]
    token = token_of(created, 0)
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    table = hub.tables[game_id]
    assert not hasattr(table, "belief")  # the table knows nothing of bots' beliefs
    rng = random.Random(11)
    deadline = time.monotonic() + 120
    moves = 0
    while moves < 8 or table.to_move() != 0:
        assert time.monotonic() < deadline, "the game stopped moving"
        mine = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        if mine["to_move"] != 0:
            time.sleep(0.02)  # the bot decides
            continue
        tiles = [a for a in mine["legal_actions"] if a.startswith("tile ")]
        action = rng.choice(tiles or mine["legal_actions"])
        answer = client.post(
            f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(token)
        )
        assert answer.status_code == 200, answer.text
        moves += 1
    kept = hub.bot_seats.memories[game_id]
    record = table.record
    # Up to the bot's last decision, and replayed from the start for its first one only.
    assert kept.actions == tuple(record.actions[: len(kept.actions)])
    assert len(kept.actions) >= moves
    assert hub.bot_seats.replays == 1
    expected_memory = remembered(record.start(), kept.actions)
    assert isinstance(kept.memory, HandBelief) and isinstance(expected_memory, HandBelief)
    expected = expected_memory.shares(kept.state)
    assert kept.memory.shares(kept.state) == expected
    assert expected is not None and any(row != UNSEEN_SHARE for row in expected)  # it read


def test_a_decision_that_starts_late_thinks_what_is_left_of_its_turns_deadline() -> None:
    """A turn's decision ends by its deadline, counted from the turn (due + its budget, less
    what storing and pushing take), not from whenever a worker starts it: its own budget
    while it fits, what is left once late, and the level's floor of iterations past it."""
    from cradle import tigris
    from cradle.ai.search.budget import LEAST_SECONDS
    from cradle.server.botpool import SHOWING_SECONDS, deadline, decide, thinking_seconds

    assert deadline(100.0, 1.0) == pytest.approx(101.0 - SHOWING_SECONDS)
    assert thinking_seconds(1.0, None, 100.0) == 1.0
    assert thinking_seconds(1.0, 103.0, 100.0) == 1.0  # on time: the same budget, the same bot
    assert thinking_seconds(1.0, 100.4, 100.0) == pytest.approx(0.4)
    assert thinking_seconds(1.0, 95.0, 100.0) == LEAST_SECONDS
    # A `hard` decision whose deadline passed before it started still answers (its floor).
    import time

    state = tigris.new_game(2, seed=5)
    seat = int(state.to_move)
    action = decide(BotAsk(state.clone(), seat, "hard", 7, 1.0, until=time.time() - 10))
    assert action in set(state.legal_actions())


def test_a_bot_thinks_through_the_delay_and_its_move_is_shown_when_due(db_url: str) -> None:
    """The bot delay spaces the moves people see; the bot thinks meanwhile. A worker claims a
    bot's turn as it comes (at most AHEAD_SECONDS before it is due), decides by the turn's
    deadline when a person waits for it, and the move waits for the turn to be due without
    holding the worker: with one worker, a second table's turn is decided while the first's
    move waits."""
    import time

    from fastapi.testclient import TestClient

    from cradle.server.app import create_app
    from cradle.server.botpool import deadline
    from cradle.server.hub import Hub
    from cradle.server.limits import Limits
    from tests.helpers.server import create

    delay = 4.0
    # The tables the deal lets the person begin stay open: however many it takes, the bot
    # seats they hold must not reach the client's share.
    limits = Limits(
        bot_processes=1, prestart_bots=True, analyse_finished=False, bot_seats_per_client=100
    )
    with TestClient(create_app(db_url, bot_delay=delay, limits=limits)) as client:
        hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
        ready = hub.bots.lanes[WAITED].executor().submit(os.getpid)
        assert ready.result(timeout=120)  # its worker started, its imports done
        games: list[str] = []
        while len(games) < 2:  # two tables where the bot begins (the deal says who does)
            game_id = create(client, seats=["bot:greedy", "human"])["id"]
            if game_id in {job["game_id"] for job in hub.store.bot_jobs.jobs()}:
                games.append(game_id)
        alone = create(client, seats=["bot:greedy", "bot:greedy"])["id"]  # nobody waits
        limit = time.monotonic() + 120
        while {times.game_id for times in hub.bot_seats.times} != {*games, alone}:
            assert time.monotonic() < limit, "the bots did not move"
            time.sleep(0.05)
        made = list(hub.bot_seats.times)
    # Each table's first bot move (a Tigris turn has two).
    first, second = sorted(
        (min((t for t in made if t.game_id == game), key=lambda t: t.claimed) for game in games),
        key=lambda t: t.claimed,
    )
    # Nobody waits at a table of bots alone: however late, its decisions keep their budget.
    assert {t.until for t in made if t.game_id == alone} == {None}
    for times in (first, second):
        assert times.until == deadline(times.ready, times.seconds)
        assert times.claimed < times.ready  # claimed as it came, `delay` before it was due
        assert times.stored >= times.ready  # shown when due, however soon it was decided
    if first.decided < first.ready:  # decided early (a loaded machine may take longer)
        assert second.claimed < first.stored  # its worker was free while its move waited
