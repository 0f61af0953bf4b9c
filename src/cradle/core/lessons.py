"""Lessons: the guided first game's steps, each a small position on the real engine.

A game package lists its lessons (``LESSONS``, in teaching order). A step says what to try,
which moves of the learner it expects (in order; the opponent's forced replies come in between),
which moves the engine refuses there and why that matters, and what happened once it is done.
The tests play every step from its position and check each claim against the engine; the web
client plays the same steps on a server table made from the lesson's name (``lesson`` in the
table's stored options, checked against ``LESSONS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LESSON_OPTION = "lesson"  # the key of a table's stored options naming its lesson
LESSON_SEED = 56  # a lesson's bag (or stack) is shuffled with this seed: every table the same


@dataclass(frozen=True)
class Lesson:
    """One step of a guided first game.

    ``tries``: the learner's moves, in order; one ending in ``*`` accepts any legal move that
    starts with the rest (``commit *``: any commitment). ``refused``: moves the engine refuses
    in the position, which the text uses to show a rule (``wrong`` says what to try).
    ``cells``: where to look (highlighted). ``position``: the game at the start of the step,
    seat 0 (the learner) to move.
    """

    name: str
    title: str
    intro: str
    tries: tuple[str, ...]
    done: str
    position: dict[str, Any]
    cells: tuple[str, ...] = ()
    wrong: str = ""
    refused: tuple[str, ...] = ()
    hints: tuple[str, ...] = field(default=())  # one line per try, shown with its highlight

    def public(self) -> dict[str, Any]:
        """What the web client is told of the step (no position: the table holds it)."""
        return {
            "name": self.name,
            "title": self.title,
            "intro": self.intro,
            "tries": list(self.tries),
            "hints": list(self.hints),
            "done": self.done,
            "cells": list(self.cells),
            "wrong": self.wrong,
        }


def matches(pattern: str, action: str) -> bool:
    """Whether ``action`` is what a step's try ``pattern`` asks for (case and spaces aside)."""
    want = " ".join(pattern.lower().split())
    got = " ".join(action.lower().split())
    if want.endswith("*"):
        return got.startswith(want[:-1].rstrip())
    return got == want


def play(lesson: Lesson, state: Any, tries: int | None = None) -> list[Any]:
    """Play the first ``tries`` of ``lesson`` (all by default) on ``state``, its start, in
    place: for each, the first legal move it matches, then any forced reply of another seat (a
    decision with one legal move, such as a commitment from an empty hand). The events."""
    events: list[Any] = []
    for pattern in lesson.tries[: len(lesson.tries) if tries is None else tries]:
        found = [a for a in state.legal_actions() if matches(pattern, a)]
        if state.is_over or state.to_move != 0 or not found:
            raise ValueError(f"lesson {lesson.name!r}: {pattern!r} cannot be played here")
        events += state.apply(found[0]) or []
        while not state.is_over and state.to_move != 0 and len(state.legal_actions()) == 1:
            events += state.apply(state.legal_actions()[0]) or []
    return events


def find(lessons: tuple[Lesson, ...], name: str) -> Lesson:
    """The lesson called ``name``; ValueError naming the known ones otherwise."""
    for lesson in lessons:
        if lesson.name == name:
            return lesson
    known = ", ".join(lesson.name for lesson in lessons)
    raise ValueError(f"no lesson {name[:40]!r} (known: {known})")
