"""Lockstep: the native Tigris knowledge (native/src/tigris/knowledge.rs) against the Python
reference (cradle.ai.knowledge.tigris) after every step of random games.

Rewards (hand-set, the final-lowest-colour evaluation ``value=2`` and learned), the
learned features of every seat, priors and commitments (of both evaluations), the settling
test must agree to
1e-9; the first divergence fails with the position, so it can be replayed. The games mix
player counts and options and pass through revolts and wars (the commitments are checked there).
With a belief over the hands (cradle.ai.knowledge.belief, read from the game's own actions) the same
numbers and the worlds dealt by it must agree too.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from cradle import tigris
from cradle.ai.knowledge.belief import HandBelief
from cradle.ai.knowledge.tigris import Shares, TigrisKnowledge, TigrisSettings, commit_options
from cradle.ai.search.native import NativeSettings
from cradle.ai.search.worlds import believed_world

_native = pytest.importorskip("cradle._native")

TOLERANCE = 1e-9
HAND_SET = TigrisKnowledge()
LOWEST = TigrisKnowledge(value=2)  # the final lowest colour (IsmctsParams.value)
LEARNED = TigrisKnowledge(learned=True)


def differs(a: list[float], b: list[float]) -> int:
    """The first index where ``a`` and ``b`` differ by more than the tolerance (-1: none)."""
    if len(a) != len(b):
        return 0
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=True)) if abs(x - y) > TOLERANCE), -1
    )


def divergence(what: str, state: Any, step: int, detail: str) -> str:
    position = json.dumps(state.to_position(), sort_keys=True)
    return f"{what} diverge at step {step} ({detail}); position: {position}"


def check_step(
    state: Any, step: int, rng: random.Random, priors_per_step: int, shares: Shares | None = None
) -> bool:
    """Compare everything on ``state`` for both evaluations (with the belief ``shares`` if
    given, and then the worlds dealt by it too); True when a revolt or war is being decided."""
    belief = None if shares is None else [list(row) for row in shares]
    hand_set, lowest = (
        (HAND_SET, LOWEST)
        if shares is None
        else (TigrisKnowledge(tilts=shares), TigrisKnowledge(tilts=shares, value=2))
    )
    for knowledge in (hand_set, lowest):
        ours = _native.tigris_ai_rewards(state, belief, knowledge.value)
        theirs = knowledge.rewards(state)
        assert differs(ours, theirs) < 0, divergence(
            "rewards", state, step, f"{knowledge.value=}: {ours} != {theirs}"
        )
    # The learned evaluation: every seat's features, and the model's rewards.
    board = read_board(state)
    ours_rows = _native.tigris_ai_features(state)
    for seat, row in enumerate(ours_rows):
        theirs = board.learned_features(seat)
        at = differs(row, theirs)
        assert at < 0, divergence("features", state, step, f"seat {seat} [{at}]: {row} != {theirs}")
    theirs = LEARNED.rewards(state)  # reads the model file, and hands it to the native side
    ours = _native.tigris_ai_rewards(state, learned=True)
    assert differs(ours, theirs) < 0, divergence(
        "rewards", state, step, f"learned: {ours} != {theirs}"
    )
    ids = state.legal_action_ids()
    actions = [state.action_string(i) for i in ids]
    assert _native.tigris_ai_unsettled(state) == HAND_SET.unsettled(state), divergence(
        "unsettled", state, step, actions[0]
    )
    picked = list(range(len(ids)))
    if len(picked) > priors_per_step:
        picked = rng.sample(picked, priors_per_step)  # a random batch, as below the root
    for knowledge in (hand_set, lowest):
        ours = _native.tigris_ai_priors(state, [ids[i] for i in picked], belief, knowledge.value)
        theirs = knowledge.priors(state, [actions[i] for i in picked])
        at = differs(ours, theirs)
        assert at < 0, divergence(
            "priors",
            state,
            step,
            f"value={knowledge.value} {actions[picked[at]]}: {ours[at]} != {theirs[at]}",
        )
    commits = commit_options(actions)
    if commits:
        seat = state.to_move
        for value in (1, 2):
            native = _native.tigris_ai_best_commit(state, seat, commits, belief, value)
            assert native == read_best(state, commits, shares, value), divergence(
                "commitments", state, step, f"value={value}"
            )
    if shares is not None and not state.is_over:
        observer, seed = rng.randrange(state.num_players), rng.getrandbits(64)
        ours_world = _native.tigris_ai_world(state, observer, seed, belief)
        theirs_world = believed_world(state, observer, shares, seed)
        assert ours_world.to_position() == theirs_world.to_position(), divergence(
            "worlds", state, step, f"observer {observer}, seed {seed}, belief {belief}"
        )
    return bool(commits)


def read_board(state: Any) -> Any:
    """The reading the learned features come from (always value=2)."""
    from cradle.ai.knowledge.tigris import read

    return read(state, None, 2)


def read_best(state: Any, commits: list[int], shares: Shares | None = None, value: int = 1) -> int:
    from cradle.ai.knowledge.tigris import read

    return read(state, shares, value).best_commit(state.to_move, commits)


def play_in_lockstep(
    games: list[tuple[int, int, dict[str, Any]]], priors_per_step: int, believe: bool = False
) -> int:
    """Play each (players, seed, options) game at random, checking every step (``believe``:
    with the belief its actions so far give); the number of steps inside a revolt or war."""
    conflicts = 0
    for players, seed, options in games:
        state = tigris.new_game(players, seed, tigris.Options(**options), engine="native")
        rng = random.Random(seed)
        belief = HandBelief()
        step = 0
        while not state.is_over:
            shares = belief.tilts(state) if believe else None
            conflicts += check_step(state, step, rng, priors_per_step, shares)
            action = state.action_string(rng.choice(state.legal_action_ids()))
            belief.observe(state, action)
            state.apply(action)
            step += 1
        check_step(state, step, rng, priors_per_step, belief.tilts(state) if believe else None)
    return conflicts


BOARDS = ("standard", "advanced")


def table(seed: int) -> tuple[int, int, dict[str, Any]]:
    """Players, seed and options of the lockstep game ``seed``: 2 to 4 players, both boards,
    the variants in turn."""
    options = {
        "board": BOARDS[seed % 2],
        "buildings": seed % 3 == 0,
        "wonder": seed % 4 == 1,
        "english": seed % 5 == 2,
        "open_scoring": seed % 7 == 3,
    }
    return 2 + seed % 3, seed, options


def test_native_knowledge_follows_the_reference() -> None:
    # 2, 3 and 4 players, both boards, each variant: the reference's lines and branches that
    # ten games reached (lab/notebook/test-cpu.md); the long run plays a hundred
    games = [table(seed) for seed in range(1, 4)]
    assert play_in_lockstep(games, priors_per_step=32) > 0  # conflicts were checked too


def test_native_knowledge_follows_the_reference_with_a_belief() -> None:
    games = [table(seed) for seed in range(11, 15)]
    assert play_in_lockstep(games, priors_per_step=16, believe=True) > 0


@pytest.mark.long
def test_native_knowledge_follows_the_reference_with_a_belief_long() -> None:
    games = [table(seed) for seed in range(200, 240)]
    assert play_in_lockstep(games, priors_per_step=200, believe=True) > 0


@pytest.mark.long
def test_native_knowledge_follows_the_reference_long() -> None:
    games = [table(seed) for seed in range(100, 200)]
    assert play_in_lockstep(games, priors_per_step=1000) > 0


def test_the_hooks_refuse_bad_input() -> None:
    state = tigris.new_game(2, 1, engine="native")
    illegal = next(i for i in range(2000) if i not in set(state.legal_action_ids()))
    with pytest.raises(ValueError, match="not legal"):
        _native.tigris_ai_priors(state, [illegal])
    with pytest.raises(ValueError, match="seat"):
        _native.tigris_ai_best_commit(state, 5, [0, 1])
    with pytest.raises(ValueError, match="value is 1 or 2"):
        _native.tigris_ai_rewards(state, value=3)
    assert _native.tigris_ai_best_commit(state, 0, [0, 1]) is None  # no conflict now
    with pytest.raises(ValueError, match="belief of 1 seats"):
        _native.tigris_ai_world(state, 0, 1, [[0.25] * 4])
    with pytest.raises(ValueError, match="positive colour odds"):
        settings = NativeSettings(0.4, 1.5, 0.5, 0.3, 0, 0, 48, True, False)
        bad = [[0.25] * 4, [0.5, 0.5, 0.0, 0.0]]
        seat = state.to_move
        _native.search(state, seat, 10, None, settings, TigrisSettings(), [1], belief=bad)
    with pytest.raises(ValueError, match="no seat"):
        _native.tigris_ai_world(state, 2, 1, None)


def test_native_knowledge_follows_the_reference_inside_a_revolt() -> None:
    # Positions read back mid-conflict: the attacker's and then the defender's commitment.
    from tests.helpers.ai import revolt_position

    for reds in (0, 1, 2):
        state = tigris.from_position(revolt_position(reds), seed=1, engine="native")
        state.apply("leader priest K5")
        rng = random.Random(reds)
        assert check_step(tigris.from_position(state.to_position(), engine="native"), 0, rng, 99)
        state.apply(state.legal_actions()[-1])
        assert check_step(tigris.from_position(state.to_position(), engine="native"), 1, rng, 99)
