"""The ``expert-rules`` bot: legal, deterministic, ends its games, follows its conflict rules,
and (long) beats ``random`` and ``greedy``."""

from __future__ import annotations

import random

import pytest

from cradle.ai import LEVELS, make_bot
from cradle.ai.expert_rules import ExpertRulesBot
from cradle.ai.tournament import GameTask, play_game
from cradle.tigris import Revolt, TigrisGame, War, as_tigris
from tests.helpers.ai import conflict_positions, decision_positions


def test_it_is_a_bot_and_a_level() -> None:
    assert isinstance(make_bot("expert-rules", 1), ExpertRulesBot)
    assert LEVELS["expert-rules"].budget is None
    from cradle.ai.levels import level_bot

    assert isinstance(level_bot("expert-rules", 2), ExpertRulesBot)


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 2), ("gheos", 4)])
def test_it_plays_legal_games_to_the_end(game: str, players: int) -> None:
    seating = tuple("expert-rules" if seat % 2 == 0 else "random" for seat in range(players))
    record = play_game(GameTask(0, game, 5, seating))  # an illegal action raises
    assert not record["truncated"]


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_it_decides_the_same_for_a_seed(game: str) -> None:
    for state in decision_positions(game, 2, seed=21, count=3):
        seat = state.to_move
        first = [ExpertRulesBot(9).choose(state, seat) for _ in range(2)]
        assert first[0] == first[1]
        assert first[0] in state.legal_actions()


def _conflicts(
    count: int, defending: bool
) -> list[tuple[TigrisGame, Revolt | War, tuple[int, int]]]:
    """``count`` positions where a revolt or war waits for the defender's (``defending``) or
    the attacker's commitment: each game, its decision and the two sides' strengths."""
    positions = conflict_positions(count, defending=defending)
    assert positions
    found = []
    for state in positions:
        game = as_tigris(state)
        decision = game.decision()
        assert isinstance(decision, Revolt | War)
        strengths = game.conflict_strengths()
        assert strengths is not None
        found.append((game, decision, strengths))
    return found


def test_a_defender_commits_exactly_what_ties_or_nothing() -> None:
    for game, decision, strengths in _conflicts(4, defending=True):
        assert decision.attacker_commit is not None
        need = strengths[0] + decision.attacker_commit - strengths[1]
        options = [int(a.split()[1]) for a in game.legal_actions()]
        chosen = int(ExpertRulesBot(1).choose(game, game.to_move).split()[1])
        assert chosen == (need if need > 0 and need in options else min(options))


def test_an_attacker_commits_nothing_to_a_conflict_it_cannot_win() -> None:
    from cradle.ai.expert_rules.tigris import TigrisRules

    for game, decision, strengths in _conflicts(6, defending=False):
        colour = 0 if isinstance(decision, Revolt) else decision.color
        hand = game.dynasty(game.to_move).hand[colour]
        defender_hand = sum(game.dynasty(decision.defender).hand)
        chosen = int(
            TigrisRules(random.Random(1))
            .choose(game, game.to_move, game.legal_actions())
            .split()[1]
        )
        if strengths[0] + hand <= strengths[1] and defender_hand > 0:
            # Even all its tiles do not beat what stands against it: keep them.
            assert chosen == 0
        else:
            assert 0 <= chosen <= hand


@pytest.mark.long
@pytest.mark.parametrize(
    ("game", "opponent", "seeds", "share"),
    [
        ("tigris", "random", 5, 0.9),
        ("tigris", "greedy", 5, 0.7),
        ("gheos", "random", 5, 0.9),
        # Gheos has much luck in its draws, and greedy's one ply is close to the rules here.
        ("gheos", "greedy", 10, 0.55),
    ],
)
def test_it_beats_random_and_greedy(game: str, opponent: str, seeds: int, share: float) -> None:
    won = 0.0
    games = 0
    for seed in range(11, 11 + seeds):
        for seating in (("expert-rules", opponent), (opponent, "expert-rules")):
            record = play_game(GameTask(0, game, seed, seating))
            won += record["rewards"][seating.index("expert-rules")]
            games += 1
    assert won / games >= share, (won, games)
