"""Hypothesis drives Gheos games action by action (a rule-based state machine): each rule picks
a legal action by its index in ``legal_actions()``, so a failing game shrinks to the shortest
run of the earliest actions that still fails. The invariants of the property tests, the views'
redaction and the action ids are checked after every action; other rules rebuild the game from
its position and play on, and redeal or set the hidden tiles.

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

from cradle import gheos
from cradle.gheos.actions import ACTION_COUNT
from cradle.gheos.state import GheosState
from tests.gheos.test_gheos_properties import check_invariants

EXAMPLES = int(os.environ.get("CRADLE_STATEFUL_EXAMPLES", "40"))
STEPS = int(os.environ.get("CRADLE_STATEFUL_STEPS", "60"))
# A burst plays up to this many actions in one rule (a whole game is 30-100 actions).
BURST = 30


def hidden_of(position: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    """The hands (seat order) and the stack (first drawn first) of a position."""
    return [list(position["hands"][p]) for p in position["players"]], list(position["stack"])


def without_hidden(position: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in position.items() if k not in ("hands", "stack")}


def check_view(s: GheosState, seat: int, position: dict[str, Any]) -> None:
    """``seat``'s view shows its own hand and only the sizes of the others and the stack."""
    view = s.view(seat)
    assert [t["tile"] for t in view["hand"]] == s.hand(seat)
    assert s.hand(seat) == position["hands"][s.players[seat]]
    assert view["hand_sizes"] == {p: len(h) for p, h in position["hands"].items()}
    assert view["stack_size"] == len(position["stack"])
    assert view["stack_epochs"] == position["stack"].count("epoch")


class GheosGame(RuleBasedStateMachine):
    state: GheosState

    @initialize(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
    def start(self, seed: int, players: int) -> None:
        self.state = gheos.new_game(players, seed, engine="python")
        self.points = list(self.state.points)
        self.actions = 0
        self.check()

    def step(self, data: st.DataObject) -> None:
        legal = self.state.legal_actions()
        assert len(set(legal)) == len(legal), "no duplicate legal actions"
        self.state.apply(legal[data.draw(st.integers(0, len(legal) - 1), label="action")])
        self.actions += 1
        self.check()

    def check(self) -> None:
        """After every action: the invariants, and what the player to move is shown."""
        s = self.state
        check_invariants(s, self.points)
        self.points = list(s.points)
        if s.is_over:
            assert s.legal_actions() == [] and s.legal_action_ids() == []
            assert min(r["place"] for r in s.result()) == 1
            return
        assert [s.action_string(i) for i in s.legal_action_ids()] == s.legal_actions()
        check_view(s, s.to_move, s.to_position())

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
        again = gheos.from_position(position, engine="python")
        assert again.to_position() == position
        assert again.legal_actions() == self.state.legal_actions()
        assert again.legal_action_ids() == self.state.legal_action_ids()
        for seat in [*range(len(self.state.players)), None]:
            assert again.view(seat) == self.state.view(seat)
        self.state = again
        self.check()

    @rule(seat=st.integers(0, 3), seed=st.integers(0, 2**31))
    def redeal_what_a_seat_cannot_see(self, seat: int, seed: int) -> None:
        """sample_hidden changes nothing that ``seat`` may see, nor the tiles in the game."""
        s = self.state
        seat %= len(s.players)
        before = s.to_position()
        sample = s.sample_hidden(seat, random.Random(seed))
        assert s.to_position() == before, "sampling leaves the game as it was"
        check_view(s, seat, before)
        assert sample.view(seat) == s.view(seat)
        assert sample.view(None) == s.view(None)
        check_invariants(sample, list(s.points))
        if s.to_move == seat:
            assert sample.legal_actions() == s.legal_actions()

    @rule(seed=st.integers(0, 2**31))
    def set_the_hidden_tiles(self, seed: int) -> None:
        """with_hidden puts exactly the given hands and stack; anything else is refused."""
        s = self.state
        before = s.to_position()
        hands, stack = hidden_of(before)
        assert s.with_hidden(hands, stack).to_position() == before
        tiles = [t for hand in hands for t in hand] + [t for t in stack if t != "epoch"]
        random.Random(seed).shuffle(tiles)
        new_hands = []
        for hand in hands:
            new_hands.append(sorted(tiles[: len(hand)], key=lambda t: int(t[1:])))
            del tiles[: len(hand)]
        # The epoch tiles stay in the stack, wherever the shuffle puts them.
        pile = tiles + ["epoch"] * stack.count("epoch")
        random.Random(seed + 1).shuffle(pile)
        other = s.with_hidden(new_hands, pile)
        after = other.to_position()
        assert hidden_of(after) == (new_hands, pile)
        assert without_hidden(after) == without_hidden(before)
        assert other.view(None) == s.view(None)
        check_invariants(other, list(s.points))
        if pile:
            with pytest.raises(ValueError):
                s.with_hidden(new_hands, pile[1:])
        if "epoch" in pile and any(new_hands):
            swapped = [list(h) for h in new_hands]
            seat = next(i for i, h in enumerate(swapped) if h)
            swapped[seat][0], pile[pile.index("epoch")] = "epoch", swapped[seat][0]
            with pytest.raises(ValueError, match="epoch"):
                s.with_hidden(swapped, pile)
        assert s.to_position() == before, "a refused or a granted with_hidden changes nothing"

    @precondition(lambda self: not self.state.is_over)
    @rule(pick=st.integers(0, 2**16))
    def refuse_an_illegal_action(self, pick: int) -> None:
        """An action id that is not legal now is refused, and the game stays as it was."""
        legal = set(self.state.legal_action_ids())
        illegal = [i for i in range(pick % 97, ACTION_COUNT, 97) if i not in legal]
        before = self.state.to_position()
        for action in illegal[:3]:
            with pytest.raises(gheos.IllegalAction):
                self.state.apply(action)
            assert self.state.to_position() == before

    def teardown(self) -> None:
        # Shown by --hypothesis-show-statistics: how far the games got.
        if hasattr(self, "state"):
            event("game over" if self.state.is_over else "game not over")
            event(f"actions played: {self.actions // 25 * 25}+")


GheosGame.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
test_gheos_games_driven_action_by_action = GheosGame.TestCase
