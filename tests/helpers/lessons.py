"""What every game's lessons must hold, whatever the game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from cradle.core.contract import GameState


def every_lesson_starts_once(
    lessons: Sequence[Any], lesson_start: Callable[[str], GameState], foreign: str
) -> None:
    """Each of a game's ``lessons`` has a name of its own and starts with the learner (seat 0)
    to move; ``foreign``, no lesson's name, starts none."""
    names = [lesson.name for lesson in lessons]
    assert len(set(names)) == len(names)
    for lesson in lessons:
        assert lesson_start(lesson.name).to_move == 0
    with pytest.raises(ValueError, match="no lesson"):
        lesson_start(foreign)


def refuses_the_wrong_moves(lesson: Any, start: GameState) -> None:
    """A lesson shows wrong moves exactly when it names moves for its ``start`` to refuse,
    and the start refuses each of them."""
    assert bool(lesson.refused) == bool(lesson.wrong)
    for action in lesson.refused:
        with pytest.raises(ValueError):
            start.clone().apply(action)
