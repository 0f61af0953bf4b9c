"""The contract every game exposes (see docs/contract.md), as typing protocols.

Everything outside a game's package (AI, adapters, server, CLI) programs against these
protocols and reaches a game through :mod:`cradle.games`, never through its internals.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

Event = dict[str, Any]
JSON = dict[str, Any]


@runtime_checkable
class GameState(Protocol):
    """A position of one game, with the operations of the contract."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def to_move(self) -> int: ...

    @property
    def is_over(self) -> bool: ...

    def legal_actions(self) -> list[str]: ...

    def apply(self, action: str) -> list[Event]: ...

    def result(self) -> list[JSON]: ...

    def view(self, seat: int) -> JSON: ...

    def clone(self) -> GameState: ...

    def to_position(self) -> JSON: ...

    def sample_hidden(self, seat: int, rng: random.Random) -> GameState: ...


class GameModule(Protocol):
    """What a game package exports."""

    NAME: str
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    IllegalAction: type[ValueError]

    def new_game(
        self,
        players: int = 2,
        seed: int | None = None,
        options: Any = None,
    ) -> GameState: ...

    def from_position(self, position: JSON, seed: int | None = None) -> GameState: ...

    def options_from_dict(self, data: JSON | None) -> Any: ...

    def options_to_dict(self, options: Any) -> JSON: ...
