"""The ladder's opponent styles (red-keeper, turtle, warmonger) and the search's sure
commitment (``IsmctsParams.sure``)."""

from __future__ import annotations

import pytest

from cradle import tigris
from cradle.ai import make_bot
from cradle.ai.expert_rules.styles import STYLES
from cradle.ai.levels import make_bot_spec
from cradle.ai.search.conflicts import sure_commitment, unseen_tiles
from cradle.ai.tournament import GameTask, play_game
from cradle.core.contract import GameState
from cradle.tigris import Revolt, War, as_tigris
from cradle.tigris.types import TILE_TOTALS
from tests.helpers.ai import conflict_positions, decision_positions


def _sure(state: GameState) -> bool:
    return sure_commitment(state, state.to_move) is not None


@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_style_plays_legal_games_and_decides_the_same_for_a_seed(style: str) -> None:
    record = play_game(GameTask(0, "tigris", 3, (style, "random")))  # illegal raises
    assert not record["truncated"]
    for state in decision_positions("tigris", 2, seed=5, count=3):
        seat = state.to_move
        first, second = (make_bot(style, 4).choose(state, seat) for _ in range(2))
        assert first == second and first in state.legal_actions()


def test_the_red_keeper_and_the_warmonger_commit_everything() -> None:
    positions = conflict_positions(4, defending=False)
    assert positions
    for state in positions:
        most = max(int(a.split()[1]) for a in state.legal_actions())
        for style in ("red-keeper", "warmonger"):
            assert make_bot(style, 1).choose(state, state.to_move) == f"commit {most}"


def test_unseen_tiles_count_what_the_seat_cannot_see() -> None:
    state = tigris.new_game(2, 3)
    seat = state.to_move
    hand = as_tigris(state).dynasty(seat).hand
    # At the start the board shows the ten temples (red) and nothing else.
    assert unseen_tiles(state, seat, 0) == TILE_TOTALS[0] - 10 - hand[0]
    assert unseen_tiles(state, seat, 1) == TILE_TOTALS[1] - hand[1]


def test_a_sure_commitment_wins_against_every_answer_and_is_the_fewest() -> None:
    positions = conflict_positions(30, defending=False) + conflict_positions(
        4, defending=False, keep=_sure
    )
    sure_found = 0
    for state in positions:
        game = as_tigris(state)
        decision = game.decision()
        assert isinstance(decision, Revolt | War)
        action = sure_commitment(state, state.to_move)
        strengths = game.conflict_strengths()
        assert strengths is not None
        attack, defence = strengths
        colour = 0 if isinstance(decision, Revolt) else decision.color
        most = min(
            sum(game.dynasty(decision.defender).hand),
            unseen_tiles(state, state.to_move, colour),
        )
        options = sorted(int(a.split()[1]) for a in state.legal_actions())
        if action is None:
            assert all(attack + k <= defence + most for k in options)
            continue
        sure_found += 1
        count = int(action.split()[1])
        assert count in options
        assert all(attack + k <= defence + most for k in options if k < count)
        committed = state.clone()
        committed.apply(action)
        for answer in committed.legal_actions():
            after = as_tigris(committed.clone())
            after.apply(answer)
            # The defender's leader went back to its supply; the attacker's stayed.
            assert decision.color in after.dynasty(decision.defender).supply
            assert decision.color not in after.dynasty(decision.attacker).supply
    assert sure_found >= 4


def test_the_search_commits_what_is_sure_only_with_the_setting() -> None:
    state = conflict_positions(1, defending=False, keep=_sure)[0]
    bot = make_bot_spec("ismcts@20/sure=1", seed=1)
    assert bot.choose(state, state.to_move) == sure_commitment(state, state.to_move)
    assert sure_commitment(tigris.new_game(2, 1), 0) is None
