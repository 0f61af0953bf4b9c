"""How well the public belief over the Tigris hands (``cradle.ai.knowledge.belief.HandBelief``) reads
them: before every decision of some games, the error of the expected tiles per colour in each
hand against the true hands, for the belief and for today's uniform share::

    python -m lab belief --bots expert-rules,ismcts@100 --games 20 --seed 1000
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from cradle.ai.knowledge.belief import HandBelief
from cradle.ai.knowledge.tigris import UNSEEN_SHARE
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import play
from cradle.core.contract import GameState
from cradle.tigris import COLOURS, new_game
from lab.command import run_command


def calibration(bots: Sequence[str], games: int, seed: int) -> dict[str, Any]:
    """Plays ``games`` 2-player Tigris games of the bot specs ``bots`` (seeds ``seed``,
    ``seed + 1``, ...) and measures, before every decision and for every hand, the error of
    the expected tiles per colour (summed over the colours): the belief's shares against
    today's uniform share. The truth is read from the game's record, never by a bot."""
    if len(bots) != 2:
        raise ValueError("two bot specs are needed, one per seat")
    errors = {"belief": [0.0, 0.0], "uniform": [0.0, 0.0]}
    hands = 0

    def measure_before(state: GameState, _seat: int, belief: HandBelief) -> None:
        nonlocal hands
        shares = belief.shares(state)
        if shares is None:
            return
        position = state.to_position()
        for seat, name in enumerate(position["players"]):
            hand = position["hands"][name]
            for c, colour in enumerate(COLOURS):
                held = hand.count(colour)
                errors["belief"][seat] += abs(len(hand) * shares[seat][c] - held)
                errors["uniform"][seat] += abs(len(hand) * UNSEEN_SHARE[c] - held)
        hands += 1

    for game in range(games):
        state = new_game(2, seed + game)
        players = [make_bot_spec(spec, 2 * (seed + game) + i) for i, spec in enumerate(bots)]
        belief = HandBelief()
        play(
            state,
            players,
            observers=[belief],
            before=functools.partial(measure_before, belief=belief),
        )
    per_hand = {k: [round(x / max(1, hands), 3) for x in v] for k, v in errors.items()}
    return {"bots": list(bots), "games": games, "seed": seed, "hands": hands, **per_hand}


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def belief(
    bots: Annotated[str, typer.Option(help="Two bot specs, comma-separated.")] = (
        "expert-rules,ismcts@100"
    ),
    games: Annotated[int, typer.Option(min=1)] = 6,
    seed: Annotated[int, typer.Option()] = 300,
) -> None:
    """Print, as one JSON line, the error per hand of the belief and of the uniform share."""
    print(json.dumps(calibration(bots.split(","), games, seed)))


def main(argv: list[str] | None = None) -> None:
    """``python -m lab belief``."""
    run_command(app, "lab.belief", argv)


if __name__ == "__main__":
    main()
