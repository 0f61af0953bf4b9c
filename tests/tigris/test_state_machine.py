"""Hypothesis drives Tigris games action by action (a rule-based state machine): each rule picks
a legal action by its index in ``legal_actions()``, so a failing game shrinks to the shortest
run of the earliest actions that still fails. The invariants of tests/tigris/invariants.py, the
views' redaction and the action ids are checked after every action; other rules rebuild the
game from its position and play on, and redeal or set the hidden tiles.

Sized by CRADLE_STATEFUL_EXAMPLES (games) and CRADLE_STATEFUL_STEPS (rules per game);
docs/testing.md has the tiers.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
)

from cradle import tigris
from cradle.tigris import TigrisState
from tests.tigris.invariants import check_invariants

# The machine plays the reference engine itself (its game is built with engine="python").
ENGINES_INSIDE = True
EXAMPLES = int(os.environ.get("CRADLE_STATEFUL_EXAMPLES", "40"))
STEPS = int(os.environ.get("CRADLE_STATEFUL_STEPS", "60"))
# A burst plays up to this many actions in one rule: long enough to reach wars, monuments and
# the end of the game within STEPS rules, each action still chosen (and shrunk) by Hypothesis.
BURST = 80
ACTION_STRINGS = tigris.all_action_strings()

OPTIONS = [
    tigris.Options(board=board, buildings=b, english=e, wonder=w, open_scoring=o)
    for board in ("standard", "advanced")
    for b in (False, True)
    for e in (False, True)
    for w in (False, True)
    for o in (False, True)
]


def hidden_of(position: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    """The hands (seat order) and the bag (first drawn first) of a position."""
    return [list(position["hands"][p]) for p in position["players"]], list(position["bag"])


def without_hidden(position: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in position.items() if k not in ("hands", "bag")}


def check_view(s: TigrisState, seat: int, position: dict[str, Any]) -> None:
    """``seat``'s view shows its own hand, the others' sizes and only the points it may see."""
    view = s.view(seat)
    assert view["hand"] == s.hand(seat) == position["hands"][s.players[seat]]
    assert view["hand_sizes"] == {p: len(h) for p, h in position["hands"].items()}
    assert view["bag_size"] == len(position["bag"])
    everyone = s.options.open_scoring or s.is_over
    assert set(view["points"]) == (set(s.players) if everyone else {s.players[seat]})
    for name, points in view["points"].items():
        assert points == position["points"][name]


class TigrisGame(RuleBasedStateMachine):
    state: TigrisState

    @initialize(
        seed=st.integers(0, 2**31),
        players=st.integers(2, 4),
        options=st.sampled_from(OPTIONS),
    )
    def start(self, seed: int, players: int, options: tigris.Options) -> None:
        self.state = tigris.new_game(players, seed, options, engine="python")
        self.points = self.state.to_position()["points"]
        self.actions = 0
        self.check()

    def step(self, data: st.DataObject) -> None:
        legal = self.state.legal_actions()
        assert legal, "a game that is not over always has a legal action"
        assert len(set(legal)) == len(legal), "no duplicate legal actions"
        self.state.apply(legal[data.draw(st.integers(0, len(legal) - 1), label="action")])
        self.actions += 1
        assert self.actions < 3000, "the game must end"
        self.check()

    def check(self) -> None:
        """After every action: the invariants, and what the player to move is shown."""
        s = self.state
        position = s.to_position()
        check_invariants(position)
        for name, now in position["points"].items():
            before = self.points[name]
            assert all(now[c] >= before[c] for c in now), "points never decrease"
        self.points = position["points"]
        if s.is_over:
            assert s.legal_actions() == [] and s.legal_action_ids() == []
            assert min(r["place"] for r in s.result()) == 1
            return
        assert [ACTION_STRINGS[i] for i in s.legal_action_ids()] == s.legal_actions()
        check_view(s, s.to_move, position)

    @precondition(lambda self: not self.state.is_over)
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        self.step(data)

    @precondition(lambda self: not self.state.is_over)
    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        """Several actions in one rule, so that games reach their end within the budget; the
        count is drawn first, so that it shrinks too."""
        for _ in range(data.draw(st.integers(1, BURST), label="burst")):
            if self.state.is_over:
                break
            self.step(data)

    @rule()
    def rebuild_from_position(self) -> None:
        """The game rebuilt from its position is the same game, and plays on from there."""
        position = self.state.to_position()
        again = tigris.from_position(position, engine="python")
        assert again.to_position() == position
        assert again.legal_actions() == self.state.legal_actions()
        assert again.to_move == self.state.to_move
        for seat in [*range(self.state.num_players), None]:
            assert again.view(seat) == self.state.view(seat)
        self.state = again
        self.check()

    @rule(seat=st.integers(0, 3), seed=st.integers(0, 2**31))
    def redeal_what_a_seat_cannot_see(self, seat: int, seed: int) -> None:
        """sample_hidden changes nothing that ``seat`` may see, nor the tiles in the game."""
        s = self.state
        seat %= s.num_players
        before = s.to_position()
        sample = s.sample_hidden(seat, random.Random(seed))
        assert s.to_position() == before, "sampling leaves the game as it was"
        check_view(s, seat, before)
        assert sample.view(seat) == s.view(seat)
        assert sample.view(None) == s.view(None)
        check_invariants(sample.to_position())
        if s.to_move == seat:
            assert sample.legal_actions() == s.legal_actions()
        redealt = sample.to_position()
        assert redealt["hands"][s.players[seat]] == before["hands"][s.players[seat]]
        assert redealt["discards"][s.players[seat]] == before["discards"][s.players[seat]]

    @rule(seed=st.integers(0, 2**31))
    def set_the_hidden_tiles(self, seed: int) -> None:
        """with_hidden puts exactly the given hands and bag; anything else is refused."""
        s = self.state
        before = s.to_position()
        hands, bag = hidden_of(before)
        assert s.with_hidden(hands, bag).to_position() == before
        pool = [t for hand in hands for t in hand] + bag
        random.Random(seed).shuffle(pool)
        new_hands = []
        for hand in hands:
            new_hands.append(sorted(pool[: len(hand)]))
            del pool[: len(hand)]
        other = s.with_hidden(new_hands, pool)
        after = other.to_position()
        hands_after, bag_after = hidden_of(after)
        assert [sorted(h) for h in hands_after] == new_hands and bag_after == pool
        assert without_hidden(after) == without_hidden(before)
        assert other.view(None) == s.view(None)
        check_invariants(after)
        if pool:
            with pytest.raises(ValueError):
                s.with_hidden(new_hands, pool[1:])
            with pytest.raises(ValueError):
                s.with_hidden(new_hands, [*pool, pool[0]])
        assert s.to_position() == before, "a refused or a granted with_hidden changes nothing"

    @precondition(lambda self: not self.state.is_over)
    @rule(pick=st.integers(0, 2**16))
    def refuse_an_illegal_action(self, pick: int) -> None:
        """An action string that is not legal now is refused, and the game stays as it was."""
        legal = set(self.state.legal_actions())
        illegal = [a for a in ACTION_STRINGS[pick % 64 :: 64] if a not in legal]
        before = self.state.to_position()
        for action in illegal[:3]:
            with pytest.raises(tigris.IllegalAction):
                self.state.apply(action)
            assert self.state.to_position() == before

    def teardown(self) -> None:
        # Shown by --hypothesis-show-statistics: how far the games got.
        if hasattr(self, "state"):
            event("game over" if self.state.is_over else "game not over")
            event(f"actions played: {self.actions // 100 * 100}+")


TigrisGame.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
test_tigris_games_driven_action_by_action = TigrisGame.TestCase
