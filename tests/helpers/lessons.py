"""What every game's lessons must hold, whatever the game."""

from __future__ import annotations

from typing import Any

import pytest

from cradle.core.contract import GameState


def refuses_the_wrong_moves(lesson: Any, start: GameState) -> None:
    """A lesson shows wrong moves exactly when it names moves for its ``start`` to refuse,
    and the start refuses each of them."""
    assert bool(lesson.refused) == bool(lesson.wrong)
    for action in lesson.refused:
        with pytest.raises(ValueError):
            start.clone().apply(action)
