"""A search bot keeps its tree from one decision to its next when nothing was learnt in between
(``IsmctsParams.reuse``), and a timed search stops once its move is settled
(``IsmctsParams.stop``): in both searches, the native one and its Python reference."""

from __future__ import annotations

import random

import pytest

from cradle import gheos, tigris
from cradle.ai.search.budget import Budget, Clock, settled
from cradle.ai.search.ismcts import IsmctsBot, PythonTrees, search
from cradle.ai.search.native import NativeTrees
from cradle.ai.search.params import IsmctsParams
from cradle.core.contract import GameState

_native = pytest.importorskip("cradle._native")

REUSE = IsmctsParams(reuse=1)


def test_a_move_is_settled_when_no_iteration_left_could_overtake_it() -> None:
    assert settled([10, 3, 2], 6.9)
    assert not settled([10, 3, 2], 7.0)
    assert settled([3, 10], 6.0)
    assert settled([4], 3.0)  # an action not tried yet has no visits
    assert not settled([5, 5], 0.0)
    assert not settled([], 0.0)


def test_a_clock_tells_the_iterations_left_at_its_pace() -> None:
    assert Clock(Budget(iterations=100)).left() is None  # no seconds: to the end
    clock = Clock(Budget(iterations=100, seconds=60.0, floor=40))
    clock.count = 15
    assert clock.left() is None  # no pace yet
    clock.count = 30
    assert clock.left() is None  # the floor is searched in full
    clock.count = 60
    assert clock.left() == 40.0  # the pace would go far past the iterations
    spent = Clock(Budget(seconds=1e-9))
    spent.count = 50
    assert spent.left() == 0.0


def tile_decision(module: object, engine: str, seed: int) -> GameState:
    """A Gheos position where the seat to move places a tile (its turn goes on after it)."""
    state: GameState = module.new_game(2, seed, engine=engine)  # type: ignore[attr-defined]
    rng = random.Random(seed)
    for _ in range(12):
        state.apply(rng.choice(state.legal_actions()))
    while not state.legal_actions()[0].startswith(("place", "replace")):
        state.apply(rng.choice(state.legal_actions()))
    return state


def visits(bot: IsmctsBot) -> int:
    trees = bot.trees
    if isinstance(trees, NativeTrees):
        return trees.handle.visits()
    assert isinstance(trees, PythonTrees)
    return trees.tree.root.n


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_bot_goes_on_from_its_tree_within_its_turn(engine: str) -> None:
    state = tile_decision(gheos, engine, seed=4)
    seat = state.to_move
    budget = Budget(iterations=300)
    bot = IsmctsBot(5, budget, REUSE)
    twin = IsmctsBot(5, budget, REUSE)  # the same seed: the same first tree
    action = bot.choose(state, seat)
    first = twin.analyse(state, seat)
    assert first.best == action
    carried = next(row.visits for row in first.actions if row.action == action)
    assert visits(bot) == 300
    state.apply(action)
    # The turn goes on (here the civilization step, a real choice): the tree follows.
    assert state.to_move == seat and len(state.legal_actions()) > 1
    state.apply(bot.choose(state, seat))
    assert visits(bot) == carried + 300
    # Another seat moves, and the turn ended with a draw: the next decision starts afresh.
    while state.to_move == seat:
        state.apply(bot.choose(state, seat))
    while state.to_move != seat:
        state.apply(state.legal_actions()[0])
    bot.choose(state, seat)
    assert visits(bot) == 300


@pytest.mark.parametrize("engine", ["native", "python"])
def test_reuse_keeps_a_bot_fair(engine: str) -> None:
    # A whole turn, decided on the true state and on one whose hidden parts were dealt again:
    # what the bot carries from decision to decision is what its seat knew.
    state = tile_decision(gheos, engine, seed=9)
    seat = state.to_move
    other = state.sample_hidden(seat, random.Random(3))
    assert other.view(seat) == state.view(seat)
    bots = [IsmctsBot(7, Budget(iterations=120), REUSE) for _ in range(2)]
    played = 0
    while state.to_move == seat and not state.is_over:
        answers = [bot.choose(s, seat) for bot, s in zip(bots, (state, other), strict=True)]
        assert answers[0] == answers[1]
        state.apply(answers[0])
        other.apply(answers[1])
        played += 1
    assert played >= 2


def test_the_native_trees_follow_only_the_seats_own_tried_moves() -> None:
    state = tile_decision(gheos, "native", seed=4)
    seat = state.to_move
    settings = ((0.4, 1.5, 0.5, 0.3, 0.0), (0, 8, 16, 0, 0, 1, 0, 0, 0, 0))
    trees = _native.gheos_trees(state, seat, settings, [1, 2], value=4, settle=True)
    iterations, rows = trees.run(400, None)
    assert iterations == 400 and trees.visits() == 400
    tried = {i: n for i, n, _ in rows}
    untried = [i for i in state.legal_action_ids() if i not in tried]
    best = max(tried, key=tried.__getitem__)
    after = state.clone()
    after.apply(best)
    if untried:
        assert not trees.advance(after, untried[0])
    assert trees.visits() == 400  # nothing changed
    assert trees.advance(after, best)
    assert trees.visits() == tried[best]
    iterations, rows = trees.run(200, None)
    assert iterations == 200
    assert trees.visits() == tried[best] + 200
    # Each tree's root was judged once as a leaf, with no move below it.
    assert sum(n for _, n, _ in rows) == tried[best] + 200 - 2
    # Once another seat is to move, there is nothing to follow.
    while after.to_move == seat and not after.is_over:
        move = after.legal_action_ids()[0]
        after.apply(move)
    assert not trees.advance(after, 0)


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("module", [tigris, gheos])
def test_a_settled_search_stops_with_the_move_it_would_have_played(
    module: object, engine: str
) -> None:
    # An iteration cap and a minute: the iterations left are the cap's, so where the stop
    # falls does not depend on the machine's speed.
    budget = Budget(iterations=600, seconds=60.0)
    stopped = 0
    state: GameState = module.new_game(2, 5, engine=engine)  # type: ignore[attr-defined]
    rng = random.Random(5)
    positions = 0
    while positions < 4 and not state.is_over:
        if 1 < len(state.legal_actions()) <= 8:  # few actions: one may soon lead
            positions += 1
            seat = state.to_move
            full = search(state, seat, budget, IsmctsParams(stop=0), seed=3)
            early = search(state, seat, budget, IsmctsParams(stop=1), seed=3)
            assert full.iterations == 600
            assert early.best == full.best
            assert early.iterations <= 600
            stopped += early.iterations < 600
        state.apply(rng.choice(state.legal_actions()))
    assert stopped >= 1
