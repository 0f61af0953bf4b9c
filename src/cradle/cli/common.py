"""What the commands share: clean errors, game lookup, game options (-o) and game set-up."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from typing import Annotated

import typer

from cradle.core.contract import JSON, GameModule, GameState, View
from cradle.core.errors import CliError as CliError
from cradle.games import UnknownGame, game_names, get_game

GameOpt = Annotated[
    str, typer.Option("--game", "-g", help=f"Which game: {' or '.join(game_names())}.")
]
SeedOpt = Annotated[
    int | None, typer.Option("--seed", "-s", help="Seed fixing the bag and the first player.")
]
# A game's table options, whatever the game (the game checks them: docs/cli.md).
OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-o",
        metavar="KEY=VALUE",
        help="A game option, repeatable: -o board=advanced -o wonder=true (Tigris); "
        "the game refuses a key or value it does not know.",
    ),
]

_NUMBER = re.compile(r"-?\d+")


def _option_value(text: str) -> object:
    """A value of -o: true, false, null and whole numbers as such, anything else as text."""
    word = text.strip()
    lowered = word.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "none"):
        return None
    if _NUMBER.fullmatch(word):
        return int(word)
    return word


def option_dict(pairs: Sequence[str] | None) -> JSON:
    """The options asked for with ``-o key=value`` (a key's dashes read as underscores:
    ``-o open-scoring=true`` is ``open_scoring``); the game's ``options_from_dict`` then
    checks keys and values (see :func:`make_options`)."""
    chosen: JSON = {}
    for pair in pairs or []:
        key, equals, value = pair.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not equals or not key:
            raise CliError(f"-o {pair!r}: write KEY=VALUE, e.g. -o board=advanced")
        if key in chosen:
            raise CliError(f"-o {key}: given twice")
        chosen[key] = _option_value(value)
    return chosen


def load_game(name: str) -> GameModule:
    """The game module for ``name``; a CliError if it is unknown or not installed yet."""
    try:
        return get_game(name.strip().lower())
    except UnknownGame as exc:
        raise CliError(str(exc)) from None
    except ImportError as exc:
        raise CliError(f"the {name} engine cannot be loaded: {exc}") from None


def make_options(module: GameModule, data: JSON | None) -> object:
    """The game's options from ``data``; a CliError with the game's reason when it refuses a
    key or a value."""
    try:
        return module.options_from_dict(data or {})
    except (ValueError, TypeError) as exc:
        raise CliError(f"bad options for {module.NAME}: {exc}") from None


def new_state(
    module: GameModule,
    players: int,
    seed: int,
    options: object,
    dynasties: list[str] | None = None,
) -> GameState:
    """A new game, with the engine's reason turned into a CliError when it refuses."""
    low, high = module.MIN_PLAYERS, module.MAX_PLAYERS
    if not low <= players <= high:
        raise CliError(f"{module.NAME} is for {low} to {high} players, not {players}")
    try:
        state = module.new_game(players, seed, options, dynasties=dynasties)
    except ValueError as exc:
        raise CliError(f"cannot set up the game: {exc}") from None
    return state


def fresh_seed() -> int:
    """A seed for a game started without --seed, so its record still replays exactly."""
    return secrets.randbelow(2**31)


def check_budget(seconds: float | None, iterations: int | None) -> None:
    """Refuse a search budget of --seconds or --iterations that is not a budget."""
    if seconds is not None and not seconds > 0:
        raise CliError("--seconds must be more than 0")
    if iterations is not None and iterations < 1:
        raise CliError("--iterations must be at least 1")


def parse_counts(text: str, flag: str) -> list[int]:
    """'2,4' -> [2, 4] for flags that take a list of player counts."""
    counts: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise CliError(f"{flag}: expected numbers separated by commas, got {text!r}")
        counts.append(int(part))
    return counts


def seat_view(state: GameState, seat: int | None) -> View:
    """``state.view(seat)``; ``None`` gives the spectators' view."""
    return state.view(seat)
