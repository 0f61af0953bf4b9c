"""What a seat can be sure of in a Tigris revolt or war, from what it sees.

The defender answers an attacker's commitment with tiles of the conflict's colour from its
hand: at most as many as it holds, and at most as many of that colour as the seat cannot see
(the tiles of the colour neither on the board nor in the seat's own hand; tiles gone to the box
count as unseen, which only makes the bound safer). An attacker's commitment that beats that
bound wins whatever the defender holds.
"""

from __future__ import annotations

import random

from cradle.ai.knowledge.tigris import RED
from cradle.ai.search.worlds import sample_world
from cradle.core.contract import GameState
from cradle.tigris import Revolt, TigrisGame, War, as_tigris
from cradle.tigris.types import TILE_TOTALS


def unseen_tiles(state: GameState, seat: int, colour: int) -> int:
    """The tiles of ``colour`` that ``seat`` sees neither on the board nor in its hand."""
    return _unseen(_seen_by(state, seat), seat, colour)


def _seen_by(state: GameState, seat: int) -> TigrisGame:
    """A world ``seat`` cannot tell from ``state``: only what the seat sees is read from it."""
    return as_tigris(sample_world(state, seat, random.Random(0)))


def _unseen(world: TigrisGame, seat: int, colour: int) -> int:
    on_board = sum(
        1
        for content in world.contents()
        if content is not None and content.colour == colour and content.seat < 0
    )
    return max(0, TILE_TOTALS[colour] - on_board - world.dynasty(seat).hand[colour])


def sure_commitment(state: GameState, seat: int) -> str | None:
    """The fewest tiles the attacker ``seat`` may commit that win the pending revolt or war
    against every hand the defender can hold, as an action (None: not the attacker's
    commitment, or no commitment is sure to win)."""
    if state.game != "tigris" or state.to_move != seat:
        return None
    world = _seen_by(state, seat)
    decision = world.decision()
    strengths = world.conflict_strengths()
    if not isinstance(decision, Revolt | War) or strengths is None:
        return None
    if decision.attacker != seat or decision.attacker_commit is not None:
        return None
    attack, defence = strengths
    colour = RED if isinstance(decision, Revolt) else decision.color
    most = min(sum(world.dynasty(decision.defender).hand), _unseen(world, seat, colour))
    options = sorted(int(action.split()[1]) for action in state.legal_actions())
    for count in options:
        if attack + count > defence + most:  # ties go to the defender
            return f"commit {count}"
    return None
