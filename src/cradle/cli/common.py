"""What the commands share: clean errors, game lookup, variant flags and game set-up."""

from __future__ import annotations

import secrets
from typing import Annotated, Any

import typer

from cradle.core.contract import GameState
from cradle.games import UnknownGame, game_names, get_game


class CliError(Exception):
    """A user-facing failure: printed as one line, then the command exits with ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


GameOpt = Annotated[
    str, typer.Option("--game", "-g", help=f"Which game: {' or '.join(game_names())}.")
]
SeedOpt = Annotated[
    int | None, typer.Option("--seed", "-s", help="Seed fixing the bag and the first player.")
]
# Tigris table options (rules spec "Variants"); they map onto tigris.Options fields.
BoardOpt = Annotated[
    str | None, typer.Option("--board", help="Tigris board side: standard or advanced.")
]
BuildingsOpt = Annotated[
    bool, typer.Option("--buildings", help="Tigris: civilization buildings variant.")
]
EnglishOpt = Annotated[
    bool, typer.Option("--english", help="Tigris: English conflict-support variant.")
]
WonderOpt = Annotated[bool, typer.Option("--wonder", help="Tigris: the wonder variant.")]
OpenScoringOpt = Annotated[
    bool, typer.Option("--open-scoring", help="Tigris: victory points are public.")
]


def load_game(name: str) -> Any:
    """The game module for ``name``; a CliError if it is unknown or not installed yet."""
    try:
        return get_game(name.strip().lower())
    except UnknownGame as exc:
        raise CliError(str(exc)) from None
    except ImportError as exc:
        raise CliError(f"the {name} engine cannot be loaded: {exc}") from None


def variant_dict(
    game: str,
    board: str | None,
    buildings: bool,
    english: bool,
    wonder: bool,
    open_scoring: bool,
) -> dict[str, Any]:
    """The options dict the variant flags ask for (only the flags actually given)."""
    chosen: dict[str, Any] = {}
    if board is not None:
        chosen["board"] = board.strip().lower()
    for key, on in (
        ("buildings", buildings),
        ("english", english),
        ("wonder", wonder),
        ("open_scoring", open_scoring),
    ):
        if on:
            chosen[key] = True
    if chosen and game.strip().lower() != "tigris":
        flags = ", ".join("--" + key.replace("_", "-") for key in chosen)
        raise CliError(f"{flags}: only Tigris has these variants, not {game}")
    return chosen


def make_options(module: Any, data: dict[str, Any] | None) -> Any:
    try:
        return module.options_from_dict(data or {})
    except (ValueError, TypeError) as exc:
        raise CliError(f"bad options: {exc}") from None


def new_state(
    module: Any,
    players: int,
    seed: int,
    options: Any,
    dynasties: list[str] | None = None,
) -> GameState:
    """A new game, with the engine's reason turned into a CliError when it refuses."""
    low, high = module.MIN_PLAYERS, module.MAX_PLAYERS
    if not low <= players <= high:
        raise CliError(f"{module.NAME} is for {low} to {high} players, not {players}")
    try:
        state: GameState = module.new_game(players, seed, options, dynasties=dynasties)
    except ValueError as exc:
        raise CliError(f"cannot set up the game: {exc}") from None
    return state


def fresh_seed() -> int:
    """A seed for a game started without --seed, so its record still replays exactly."""
    return secrets.randbelow(2**31)


def parse_counts(text: str, flag: str) -> list[int]:
    """'2,4' -> [2, 4] for flags that take a list of player counts."""
    counts: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise CliError(f"{flag}: expected numbers separated by commas, got {text!r}")
        counts.append(int(part))
    return counts


def seat_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """``state.view(seat)``; ``None`` gives the spectators' view, which the contract allows
    though the protocol types the seat as an int."""
    viewer: Any = state
    view: dict[str, Any] = viewer.view(seat)
    return view
