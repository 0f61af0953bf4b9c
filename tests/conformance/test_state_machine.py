"""Hypothesis drives games of each game action by action (a rule-based state machine), on each
engine: each rule picks a legal action by its index in ``legal_actions()``, so a failing game
shrinks to the shortest run of the earliest actions that still fails. One machine serves every
game; what is each game's own (its deals, invariants, what a seat is shown, its hidden tiles,
its illegal actions) is in a ``Rules`` per game.

After every action the game's invariants, the view of the seat to move and the action ids are
checked; other rules rebuild the game from its position and play on, redeal what a seat cannot
see, set the hidden tiles, and try illegal actions.

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
    run_state_machine_as_test,
)

from cradle import gheos, tigris
from cradle.gheos.actions import ACTION_COUNT
from tests.helpers import gheos as gheos_helpers
from tests.helpers import tigris as tigris_helpers
from tests.helpers.tigris import ALL_OPTIONS

EXAMPLES = int(os.environ.get("CRADLE_STATEFUL_EXAMPLES", "40"))
STEPS = int(os.environ.get("CRADLE_STATEFUL_STEPS", "60"))

Position = dict[str, Any]


class Rules:
    """What the machine needs to know of one game. ``burst``: the most actions one rule plays
    (long enough to reach the game's late phases within the steps); ``bins``: the width of the
    "actions played" statistics."""

    module: Any
    burst: int
    bins: int
    pile: str  # the position's key of the hidden pile drawn from

    def deals(self) -> st.SearchStrategy[dict[str, Any]]:
        """The keyword arguments of ``new_game``."""
        raise NotImplementedError

    def check(self, state: Any, points: Any) -> Any:
        """The game's invariants after an action, given the points before it; the points now."""
        raise NotImplementedError

    def names(self, state: Any, ids: list[int]) -> list[str]:
        """The notation of these action ids now."""
        raise NotImplementedError

    def check_view(self, state: Any, seat: int, position: Position) -> None:
        """``seat``'s view shows its own hand and only the sizes of the others and the pile."""
        view = state.view(seat)
        assert state.hand(seat) == position["hands"][state.players[seat]]
        assert view["hand_sizes"] == {p: len(h) for p, h in position["hands"].items()}

    def check_redealt(self, state: Any, seat: int, before: Position, sample: Any) -> None:
        """What a redeal for ``seat`` must keep beyond its view."""

    def shuffled(
        self, hands: list[list[str]], pile: list[str], seed: int
    ) -> tuple[list[list[str]], list[str]]:
        """The same hidden tiles dealt again at random: hands as ``hand()`` spells them."""
        raise NotImplementedError

    def refused(self, hands: list[list[str]], pile: list[str]) -> list[tuple[Any, Any]]:
        """Hands and piles that ``with_hidden`` must refuse (ValueError)."""
        return [(hands, pile[1:])] if pile else []

    def illegal(self, state: Any, pick: int) -> list[Any]:
        """A few actions that are not legal now."""
        raise NotImplementedError


class TigrisRules(Rules):
    module = tigris
    burst = 80
    bins = 100
    pile = "bag"
    ACTION_STRINGS = tuple(tigris.all_action_strings())
    OPTIONS = tuple(ALL_OPTIONS)

    def deals(self) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {
                "seed": st.integers(0, 2**31),
                "players": st.integers(2, 4),
                "options": st.sampled_from(self.OPTIONS),
            }
        )

    def check(self, state: Any, points: Any) -> Any:
        position = state.to_position()
        tigris_helpers.check_invariants(position)
        now = position["points"]
        for name, colours in now.items():
            if points is not None:
                assert all(colours[c] >= points[name][c] for c in colours), "points never fall"
        return now

    def names(self, state: Any, ids: list[int]) -> list[str]:
        return [self.ACTION_STRINGS[i] for i in ids]

    def check_view(self, state: Any, seat: int, position: Position) -> None:
        super().check_view(state, seat, position)
        view = state.view(seat)
        assert view["hand"] == state.hand(seat)
        assert view["bag_size"] == len(position["bag"])
        everyone = state.options.open_scoring or state.is_over
        assert set(view["points"]) == (set(state.players) if everyone else {state.players[seat]})
        for name, points in view["points"].items():
            assert points == position["points"][name]

    def check_redealt(self, state: Any, seat: int, before: Position, sample: Any) -> None:
        tigris_helpers.check_invariants(sample.to_position())
        redealt, name = sample.to_position(), state.players[seat]
        assert redealt["hands"][name] == before["hands"][name]
        assert redealt["discards"][name] == before["discards"][name]

    def shuffled(
        self, hands: list[list[str]], pile: list[str], seed: int
    ) -> tuple[list[list[str]], list[str]]:
        pool = [t for hand in hands for t in hand] + pile
        random.Random(seed).shuffle(pool)
        new_hands = []
        for hand in hands:
            new_hands.append(sorted(pool[: len(hand)], key=tigris.COLOURS.index))  # as positions
            del pool[: len(hand)]
        return new_hands, pool

    def refused(self, hands: list[list[str]], pile: list[str]) -> list[tuple[Any, Any]]:
        return [(hands, pile[1:]), (hands, [*pile, pile[0]])] if pile else []

    def illegal(self, state: Any, pick: int) -> list[Any]:
        legal = set(state.legal_actions())
        return [a for a in self.ACTION_STRINGS[pick % 64 :: 64] if a not in legal][:3]


class GheosRules(Rules):
    module = gheos
    burst = 30  # a whole game is 30-100 actions
    bins = 25
    pile = "stack"

    def deals(self) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {"seed": st.integers(0, 2**32 - 1), "players": st.integers(2, 4)}
        )

    def check(self, state: Any, points: Any) -> Any:
        if points is None:
            points = gheos_helpers.points_of(state.to_position())
        return gheos_helpers.points_of(gheos_helpers.check_invariants(state, points))

    def names(self, state: Any, ids: list[int]) -> list[str]:
        return [state.action_string(i) for i in ids]

    def check_view(self, state: Any, seat: int, position: Position) -> None:
        super().check_view(state, seat, position)
        view = state.view(seat)
        assert [t["tile"] for t in view["hand"]] == state.hand(seat)
        assert view["stack_size"] == len(position["stack"])
        assert view["stack_epochs"] == position["stack"].count("epoch")

    def check_redealt(self, state: Any, seat: int, before: Position, sample: Any) -> None:
        gheos_helpers.check_invariants(sample, gheos_helpers.points_of(before))

    def shuffled(
        self, hands: list[list[str]], pile: list[str], seed: int
    ) -> tuple[list[list[str]], list[str]]:
        tiles = [t for hand in hands for t in hand] + [t for t in pile if t != "epoch"]
        random.Random(seed).shuffle(tiles)
        new_hands = []
        for hand in hands:
            new_hands.append(sorted(tiles[: len(hand)], key=lambda t: int(t[1:])))
            del tiles[: len(hand)]
        # The epoch tiles stay in the stack, wherever the shuffle puts them.
        new_pile = tiles + ["epoch"] * pile.count("epoch")
        random.Random(seed + 1).shuffle(new_pile)
        return new_hands, new_pile

    def refused(self, hands: list[list[str]], pile: list[str]) -> list[tuple[Any, Any]]:
        out = super().refused(hands, pile)
        if "epoch" in pile and any(hands):
            # an epoch tile in a hand, a hand's tile in the stack in its place
            swapped, stack = [list(h) for h in hands], list(pile)
            seat = next(i for i, h in enumerate(swapped) if h)
            swapped[seat][0], stack[stack.index("epoch")] = "epoch", swapped[seat][0]
            out.append((swapped, stack))
        return out

    def illegal(self, state: Any, pick: int) -> list[Any]:
        legal = set(state.legal_action_ids())
        return [i for i in range(pick % 97, ACTION_COUNT, 97) if i not in legal][:3]


GAMES = {"tigris": TigrisRules(), "gheos": GheosRules()}


class GameMachine(RuleBasedStateMachine):
    """One game of ``rules``' game on ``engine``, driven rule by rule."""

    def __init__(self, rules: Rules, engine: str) -> None:
        super().__init__()
        self.rules = rules
        self.engine = engine
        self.state: Any = None
        self.actions = 0

    @initialize(data=st.data())
    def start(self, data: st.DataObject) -> None:
        deal = data.draw(self.rules.deals(), label="deal")
        self.state = self.rules.module.new_game(engine=self.engine, **deal)
        self.points = None
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
        self.points = self.rules.check(s, self.points)
        if s.is_over:
            assert s.legal_actions() == [] and s.legal_action_ids() == []
            assert min(r["place"] for r in s.result()) == 1
            return
        assert self.rules.names(s, s.legal_action_ids()) == s.legal_actions()
        self.rules.check_view(s, s.to_move, s.to_position())

    @precondition(lambda self: not self.state.is_over)
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        self.step(data)

    @precondition(lambda self: not self.state.is_over)
    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        """Several actions in one rule, so that games reach their end within the budget; the
        count is drawn first, so that it shrinks too."""
        for _ in range(data.draw(st.integers(1, self.rules.burst), label="burst")):
            if self.state.is_over:
                break
            self.step(data)

    @rule()
    def rebuild_from_position(self) -> None:
        """The game rebuilt from its position is the same game, and plays on from there."""
        position = self.state.to_position()
        again = self.rules.module.from_position(position, engine=self.engine)
        assert again.to_position() == position
        assert again.legal_actions() == self.state.legal_actions()
        assert again.legal_action_ids() == self.state.legal_action_ids()
        assert again.to_move == self.state.to_move
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
        self.rules.check_view(s, seat, before)
        assert sample.view(seat) == s.view(seat)
        assert sample.view(None) == s.view(None)
        self.rules.check_redealt(s, seat, before, sample)
        if s.to_move == seat:
            assert sample.legal_actions() == s.legal_actions()

    @rule(seed=st.integers(0, 2**31))
    def set_the_hidden_tiles(self, seed: int) -> None:
        """with_hidden puts exactly the given hands and pile; anything else is refused."""
        s, pile = self.state, self.rules.pile
        before = s.to_position()
        hands = [list(before["hands"][p]) for p in before["players"]]
        assert s.with_hidden(hands, before[pile]).to_position() == before
        new_hands, new_pile = self.rules.shuffled(hands, list(before[pile]), seed)
        other = s.with_hidden(new_hands, new_pile)
        after = other.to_position()
        assert [after["hands"][p] for p in after["players"]] == new_hands
        assert after[pile] == new_pile
        hidden = ("hands", pile)
        assert {k: v for k, v in after.items() if k not in hidden} == {
            k: v for k, v in before.items() if k not in hidden
        }
        assert other.view(None) == s.view(None)
        self.rules.check(other, self.points)
        for bad_hands, bad_pile in self.rules.refused(new_hands, new_pile):
            with pytest.raises(ValueError):
                s.with_hidden(bad_hands, bad_pile)
        assert s.to_position() == before, "a refused or a granted with_hidden changes nothing"

    @precondition(lambda self: not self.state.is_over)
    @rule(pick=st.integers(0, 2**16))
    def refuse_an_illegal_action(self, pick: int) -> None:
        """An action that is not legal now is refused, and the game stays as it was."""
        before = self.state.to_position()
        for action in self.rules.illegal(self.state, pick):
            with pytest.raises(self.rules.module.IllegalAction):
                self.state.apply(action)
            assert self.state.to_position() == before

    def teardown(self) -> None:
        # Shown by --hypothesis-show-statistics: how far the games got.
        if self.state is not None:
            event("game over" if self.state.is_over else "game not over")
            bins = self.rules.bins
            event(f"actions played: {self.actions // bins * bins}+")


SETTINGS = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_games_driven_action_by_action(game: str, engine: str) -> None:
    run_state_machine_as_test(lambda: GameMachine(GAMES[game], engine), settings=SETTINGS)
