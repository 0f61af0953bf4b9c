"""A game's history as each seat may know it, and the board as it was after any move.

The history is worked out from the record (the actions that count) by replaying it: each step
is the mover, the action and the engine's events, plus the public *pieces* the step names (as
the game's ``Presentation.step_pieces`` describes them: a tile placed or replaced, by what is
drawn on it), so that a client can say what happened in the players' words without the board
of that moment. What a viewer gets of each step goes
through :func:`cradle.server.redact.public_action` and :func:`~cradle.server.redact.public_events`,
like every frame: another seat's swap is ``swap 2`` here too.

Everything here is synchronous engine work: the hub runs it in its engine threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict

from cradle.core.contract import Event, GameState, Pieces, View
from cradle.core.record import GameRecord
from cradle.games import get_game
from cradle.server.redact import public_action, public_events


class ShownStep(TypedDict):
    """One step of the history as a viewer may know it; ``standin``: the stand-in bot level
    that made the move for its seat's person (None: the seat's own player)."""

    ply: int
    seat: int
    action: str
    events: list[Event]
    standin: str | None


class Shown(TypedDict):
    """The history as a viewer may know it: its steps and the pieces they name."""

    steps: list[ShownStep]
    pieces: Pieces


class PastBoard(TypedDict):
    """The board after some moves as a viewer saw it, with the step that led there."""

    ply: int
    seat: int | None
    step: ShownStep | None
    pieces: Pieces
    view: View
    to_move: int | None


@dataclass(frozen=True)
class Step:
    """One action of the record, as it happened (full information: redact before sending)."""

    seat: int
    action: str
    events: list[Event]
    pieces: Pieces = field(default_factory=dict)
    standin: str | None = None  # the stand-in bot level that made it for the seat's person


def names_pieces(game: str) -> bool:
    """Whether ``game``'s moves name pieces (its ``Presentation.step_pieces``)."""
    return get_game(game).PRESENTATION.step_pieces is not None


def hand_pieces(state: GameState, seat: int) -> Pieces:
    """The pieces in ``seat``'s hand, as the game describes them (none for most games)."""
    found = get_game(state.game).PRESENTATION.hand_pieces
    return {} if found is None else found(state, seat)


def step_of(
    game: str, before: GameState, after: GameState, seat: int, action: str, events: Sequence[Event]
) -> Step:
    """The history step of ``action`` by ``seat`` that took ``before`` to ``after``."""
    found = get_game(game).PRESENTATION.step_pieces
    pieces = {} if found is None else found(before, after, events)
    return Step(seat, action, list(events), pieces)


def replay_steps(
    record: GameRecord, seats: Sequence[int], standins: Sequence[str | None] = ()
) -> list[Step]:
    """Every step of ``record`` (``seats``: the mover of each action; ``standins``: the
    stand-in that made it, if any)."""
    state = record.start()
    steps = []
    cloned = names_pieces(record.game)
    for number, (action, seat) in enumerate(zip(record.actions, seats, strict=True)):
        before = state.clone() if cloned else state
        events = list(state.apply(action) or [])
        step = step_of(record.game, before, state, seat, action, events)
        standin = standins[number] if number < len(standins) else None
        steps.append(replace(step, standin=standin) if standin is not None else step)
    return steps


def history_for(game: str, steps: Sequence[Step], viewer: int | None) -> Shown:
    """The steps as ``viewer`` (None: spectators) may know them: ``steps`` numbered from 1
    (``ply``: the move it was), and the pieces they name."""
    shown: list[ShownStep] = []
    pieces: Pieces = {}
    for ply, step in enumerate(steps, start=1):
        shown.append(
            ShownStep(
                ply=ply,
                seat=step.seat,
                action=public_action(game, step.action, step.seat, viewer),
                events=public_events(game, step.events, viewer),
                standin=step.standin,
            )
        )
        pieces.update(step.pieces)
    return Shown(steps=shown, pieces=pieces)


def board_at(
    record: GameRecord,
    seats: Sequence[int],
    ply: int,
    viewer: int | None,
    standins: Sequence[str | None] = (),
) -> PastBoard:
    """The board (``viewer``'s view) after ``ply`` actions of ``record``, with that step
    (``standins``: the stand-in that made each action, if any)."""
    state = record.start()
    step: Step | None = None
    cloned = names_pieces(record.game)
    for number, (action, seat) in enumerate(zip(record.actions[:ply], seats, strict=False)):
        before = state.clone() if number == ply - 1 and cloned else state
        events = list(state.apply(action) or [])
        if number == ply - 1:
            step = step_of(record.game, before, state, seat, action, events)
            if number < len(standins):
                step = replace(step, standin=standins[number])
    shown = history_for(record.game, [step], viewer)["steps"][0] if step is not None else None
    return PastBoard(
        ply=ply,
        seat=viewer,
        step=None if shown is None else {**shown, "ply": ply},
        pieces={} if step is None else step.pieces,
        view=state.view(viewer),
        to_move=None if state.is_over else int(state.to_move),
    )
