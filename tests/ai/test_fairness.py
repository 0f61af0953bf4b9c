"""Bots never use hidden information: re-sampling what the seat cannot see (other hands, the
bag or stacks) leaves the decision unchanged, given the same random seed."""

from __future__ import annotations

import pytest

from cradle.ai.bots import Bot
from cradle.ai.expert_rules import ExpertRulesBot
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import IsmctsBot
from cradle.ai.search.params import IsmctsParams
from cradle.ai.search.pimc import PimcBot
from cradle.core.contract import GameState
from tests.helpers.ai import BotMaker, decision_positions, decisions_differ

BOTS: dict[str, BotMaker] = {
    "pimc": lambda seed: PimcBot(seed, Budget(iterations=12), candidates=4, rollout=2),
    "ismcts": lambda seed: IsmctsBot(seed, Budget(iterations=40)),
    # The learned evaluation reads a world as the hand-set one does: the seat's information.
    "ismcts-learned": lambda seed: IsmctsBot(seed, Budget(iterations=40), IsmctsParams(learned=1)),
    "expert-rules": ExpertRulesBot,
}


@pytest.mark.parametrize("bot", sorted(BOTS))
@pytest.mark.parametrize(
    ("game", "players"), [("tigris", 2), ("tigris", 3), ("gheos", 2), ("gheos", 4)]
)
def test_decisions_ignore_hidden_information(bot: str, game: str, players: int) -> None:
    for state in decision_positions(game, players, seed=players * 11, count=3):
        answers = decisions_differ(BOTS[bot], state)
        assert len(set(answers)) == 1, (state.view(state.to_move)["players"], answers)


def test_root_parallel_search_ignores_hidden_information_too() -> None:
    def make(seed: int) -> Bot:
        return IsmctsBot(seed, Budget(iterations=40), workers=2)

    state = decision_positions("tigris", 2, seed=3, count=2)[-1]
    assert len(set(decisions_differ(make, state, resamples=1))) == 1


class PeekingBot:
    """A cheat for the control test: it reads the opponents' hands from the full position."""

    name = "peeking"

    def choose(self, state: GameState, seat: int) -> str:
        position = state.to_position()
        secret = sorted(
            (name, tuple(hand))
            for name, hand in (position.get("hands") or {}).items()
            if name != state.players[seat]
        )
        secret.append(("bag", tuple(position.get("bag") or position.get("stack") or ())))
        actions = state.legal_actions()
        return actions[hash(repr(secret)) % len(actions)]


def test_the_check_catches_a_bot_that_peeks() -> None:
    caught = 0
    for state in decision_positions("tigris", 2, seed=5, count=4):
        if len(state.legal_actions()) > 10:
            caught += len(set(decisions_differ(lambda seed: PeekingBot(), state))) > 1
    assert caught >= 1
