"""Who moves first in the research interfaces (docs/research.md, "First player").

The engines draw the first player from the game's seed. OpenSpiel's games always start with
seat 0; the PettingZoo env, the vector env and the single-agent envs draw it, or, given
``first_player``, deal the first game of the seed's stream whose first player is that seat.
Rejecting the other deals keeps every deal with that first player as likely as before (the
deal and the first player are drawn independently), and ``first_player=0`` gives OpenSpiel's
order everywhere.
"""

from __future__ import annotations

import random

from cradle.core.contract import GameModule, GameState


def check_first_player(first_player: int | None, players: int) -> int | None:
    if first_player is None:
        return None
    if isinstance(first_player, bool) or not isinstance(first_player, int):
        raise ValueError(f"first_player must be None (drawn) or a seat, not {first_player!r}")
    if not 0 <= first_player < players:
        raise ValueError(f"first_player must be None (drawn) or 0..{players - 1}")
    return first_player


def new_game(
    module: GameModule,
    players: int,
    seed: int,
    options: object,
    first_player: int | None,
    engine: str | None = None,
) -> GameState:
    """``module.new_game(players, seed, options)``, or with ``first_player`` the first game of
    ``random.Random(seed)``'s stream of seeds that this seat starts."""
    if first_player is None:
        return module.new_game(players, seed, options, engine=engine)
    seeds = random.Random(seed)
    while True:
        state = module.new_game(players, seeds.randrange(2**63), options, engine=engine)
        if state.to_move == first_player:
            return state
