"""The information-set MCTS: statistics, widening, reward vectors, root parallelism, and the
PIMC bot's bookkeeping."""

from __future__ import annotations

import random

import pytest

from cradle import tigris
from cradle.ai.knowledge.gheos import GheosKnowledge, GheosSettings
from cradle.ai.knowledge.params import knowledge_for
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import Ismcts, IsmctsBot, search
from cradle.ai.search.native import NativeSettings
from cradle.ai.search.params import IsmctsParams
from cradle.ai.search.pimc import PimcBot
from cradle.core import native
from cradle.core.contract import GameState
from tests.helpers.ai import decision_positions, random_position, revolt_position


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 3)])
def test_root_visits_add_up_to_the_iterations(game: str, players: int) -> None:
    state = decision_positions(game, players, seed=2, count=2)[-1]
    result = search(state, state.to_move, Budget(iterations=60), seed=1)
    assert result.iterations == 60
    assert sum(row.visits for row in result.actions) == 60
    legal = set(state.legal_actions())
    assert {row.action for row in result.actions} <= legal
    assert all(0.0 <= row.reward <= 1.0 for row in result.actions)
    # Best first: the most visited children by mean reward, then the rest by visits.
    most = max(row.visits for row in result.actions)
    robust = [row for row in result.actions if row.visits == most]
    assert result.actions[: len(robust)] == robust
    assert [r.reward for r in robust] == sorted((r.reward for r in robust), reverse=True)
    rest = [row.visits for row in result.actions[len(robust) :]]
    assert rest == sorted(rest, reverse=True)


def test_progressive_widening_keeps_the_root_narrow() -> None:
    state = random_position("tigris", 2, seed=3, steps=6)
    assert len(state.legal_actions()) > 200
    params = IsmctsParams(widening=1.0, alpha=0.5)
    result = search(state, state.to_move, Budget(iterations=100), params, seed=2)
    # about widening * sqrt(visits) children, far fewer than the legal actions
    assert len(result.actions) <= 12


def test_each_node_keeps_the_reward_of_the_seat_that_chose_it() -> None:
    state = random_position("tigris", 3, seed=5, steps=9)
    seat = state.to_move
    tree = Ismcts(state, seat, knowledge_for("tigris"), IsmctsParams(), random.Random(1))
    tree.run(Budget(iterations=150))
    movers = set()
    stack = list(tree.root.children.values())
    while stack:
        node = stack.pop()
        movers.add(node.mover)
        assert 0.0 <= node.w <= node.n
        assert node.avail >= node.n
        stack.extend(node.children.values())
    assert seat in movers
    assert len(movers) >= 2  # opponents' decisions are in the tree with their own rewards


def test_search_defends_a_revolt_it_can_win() -> None:
    # Archer attacks bull's priest 3 against 2; bull's one temple in hand ties, and ties
    # defend: committing it keeps the priest and wins a red point.
    state = tigris.from_position(revolt_position(), seed=1)
    state.apply("leader priest K5")
    state.apply("commit 1")
    assert state.to_move == 1 and state.legal_actions() == ["commit 0", "commit 1"]
    result = search(state, 1, Budget(iterations=60), seed=3)
    assert result.best == "commit 1"
    assert result.actions[0].reward > result.actions[1].reward


def test_a_forced_decision_needs_no_search() -> None:
    state = tigris.from_position(revolt_position(attacker_reds=0), seed=1)
    state.apply("leader priest K5")
    assert state.legal_actions() == ["commit 0"]
    bot = IsmctsBot(1, Budget(seconds=30.0))
    assert bot.choose(state, 0) == "commit 0"  # returns at once, the budget is not spent


def test_bots_refuse_to_move_for_another_seat() -> None:
    state = tigris.new_game(2, 1)
    other = 1 - state.to_move
    with pytest.raises(ValueError, match="decision"):
        IsmctsBot(1, Budget(iterations=5)).choose(state, other)
    with pytest.raises(ValueError, match="decision"):
        PimcBot(1, Budget(iterations=5)).choose(state, other)


def test_root_parallel_search_adds_the_trees() -> None:
    state = decision_positions("gheos", 2, seed=6, count=2)[-1]
    bot = IsmctsBot(4, Budget(iterations=60), workers=2)
    result = bot.analyse(state, state.to_move)
    assert result.iterations == 60  # 30 in each worker
    assert sum(row.visits for row in result.actions) == 60
    assert result.best in state.legal_actions()


def test_pimc_tries_its_candidates_in_every_world() -> None:
    state = decision_positions("tigris", 2, seed=4, count=2)[-1]
    result = PimcBot(2, Budget(iterations=24), candidates=4, rollout=1).analyse(
        state, state.to_move
    )
    assert result.iterations == 24
    assert len(result.actions) == min(4, len(state.legal_actions()))
    assert all(row.visits == 6 for row in result.actions)
    rewards = [row.reward for row in result.actions]
    assert rewards == sorted(rewards, reverse=True)


@pytest.mark.long  # two whole searched games: make test-long (the revolt test above is quick)
def test_ismcts_beats_random() -> None:
    from tests.helpers.ai import play_out

    for seed, seating in ((1, ["ismcts@30", "random"]), (2, ["random", "ismcts@30"])):
        state = play_out("tigris", seating, seed, {})
        winner = seating[min(state.result(), key=lambda row: row["place"])["seat"]]
        assert winner == "ismcts@30"


def conflict_position(engine: str) -> GameState:
    """A two-player Gheos tile decision with at least three actions that start a conflict."""
    from cradle import gheos

    rng = random.Random(3)
    state = gheos.as_gheos(gheos.new_game(2, 3, engine=engine))
    while len(state.conflict_actions()) < 3:
        legal = state.legal_action_ids()
        state.apply(legal[1] if state.phase == "token" else rng.choice(legal))
    return state


@pytest.mark.parametrize("engine", ["python", "native"])
def test_urgent_actions_are_in_every_batch_below_the_root(engine: str) -> None:
    from cradle import gheos
    from cradle.ai.levels import make_bot_spec

    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    state = conflict_position(engine)
    urgent = gheos.as_gheos(state).conflict_actions()
    assert GheosKnowledge().urgent(state) == frozenset(urgent)
    legal = state.legal_actions()
    for batch in (len(urgent) + 2, 1):
        tree = Ismcts(state, 0, knowledge_for("gheos"), IsmctsParams(urgent=1), random.Random(2))
        drawn = tree.draw_batch(state, legal, batch)
        assert drawn[: len(urgent)] == urgent  # every urgent one, even past the batch
        assert len(drawn) == max(batch, len(urgent)) and len(set(drawn)) == len(drawn)
    plain = Ismcts(state, 0, knowledge_for("gheos"), IsmctsParams(urgent=0), random.Random(2))
    drawn = plain.draw_batch(state, legal, 4)
    assert len(drawn) == 4 and not set(urgent) <= set(drawn)  # at random, by this seed
    with pytest.raises(ValueError, match="urgent is 0 or 1"):
        IsmctsParams(urgent=2)
    with pytest.raises(ValueError, match="settle is 0 or 1"):
        IsmctsParams(settle=2)
    with pytest.raises(ValueError, match="settle is a setting of the Gheos priors"):
        search(tigris.new_game(2, 1), 0, Budget(iterations=5), IsmctsParams(settle=1))
    if engine == "native":
        # The setting reaches the native search: the root's conflict moves get other priors.
        from cradle import _native

        settings = NativeSettings(0.4, 1.5, 0.5, 0.3, 0, 8, 16, True, False)
        runs = [
            _native.search(
                state, state.to_move, 300, None, settings, GheosSettings(settle=s), [1], None
            )
            for s in (False, True, True)
        ]
        assert runs[1] == runs[2] != runs[0]
    for spec in (
        "ismcts@60/urgent=1",
        "ismcts@60/urgent=1/native=0",
        "ismcts@60/urgent=1/settle=1",
        "ismcts@60/settle=1/native=0",
    ):
        bot = make_bot_spec(spec, seed=1)
        assert bot.choose(state, state.to_move) in legal


def test_the_leaf_rollout_is_the_games_own_unless_the_settings_name_one() -> None:
    from cradle.ai.search.native import native_settings
    from cradle.ai.search.params import rollout_of

    gheos_knowledge = knowledge_for("gheos")
    assert rollout_of(IsmctsParams(), gheos_knowledge) == 4  # hard's Gheos setting
    assert rollout_of(IsmctsParams(), knowledge_for("tigris")) == 0
    assert rollout_of(IsmctsParams(rollout=0), gheos_knowledge) == 0
    assert rollout_of(IsmctsParams(rollout=7), knowledge_for("tigris")) == 7
    # The native search gets the resolved number, as the reference tree uses it.
    assert native_settings(IsmctsParams(), gheos_knowledge, trees=1).rollout == 4
    state = random_position("gheos", 2, seed=4, steps=12)
    tree = Ismcts(state, state.to_move, gheos_knowledge, IsmctsParams(), random.Random(1))
    assert tree.rollout == 4
    with pytest.raises(ValueError, match="rollout is a number of moves"):
        IsmctsParams(rollout=-1)
    with pytest.raises(ValueError, match="playout is a number of moves"):
        IsmctsParams(playout=-1)


def test_a_batch_in_the_settings_overrides_the_knowledges() -> None:
    from cradle.ai.search.params import batch_of

    gheos_knowledge = knowledge_for("gheos")
    assert batch_of(IsmctsParams(), gheos_knowledge) == 16  # the knowledge's own
    assert batch_of(IsmctsParams(), knowledge_for("tigris")) == 48
    assert batch_of(IsmctsParams(batch=3), gheos_knowledge) == 3
    with pytest.raises(ValueError, match="batch is at least 1"):
        IsmctsParams(batch=0)
    # Below the root, each expansion scores at most `batch` actions it has not scored yet.
    state = random_position("gheos", 2, seed=4, steps=12)
    sizes: dict[int, list[int]] = {}
    for batch in (3, 16):
        params = IsmctsParams(batch=batch, playout=0, urgent=0)  # urgent ones may go past it
        tree = Ismcts(state, state.to_move, gheos_knowledge, params, random.Random(1))
        tree.run(Budget(iterations=200))
        stack = list(tree.root.children.values())
        sizes[batch] = []
        while stack:
            node = stack.pop()
            if node.priors:
                assert len(node.priors) <= batch * len(node.children)
                sizes[batch].append(len(node.priors))
            stack.extend(node.children.values())
    assert max(sizes[16]) > 3 * 3
