"""A game's history as each seat may know it, and the board as it was after any move.

The history is worked out from the record (the actions that count) by replaying it: each step
is the mover, the action and the engine's events, plus the public *pieces* the step names (a
Gheos tile placed or replaced, by what is drawn on it), so that a client can say what happened
in the players' words without the board of that moment. What a viewer gets of each step goes
through :func:`cradle.server.redact.public_action` and :func:`~cradle.server.redact.public_events`,
like every frame: another seat's swap is ``swap 2`` here too.

Everything here is synchronous engine work: the hub runs it in its engine threads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cradle.core.contract import Event, GameState
from cradle.core.record import GameRecord
from cradle.gheos import GheosView, as_gheos
from cradle.server.redact import public_action, public_events

# What a client needs to describe a tile in words (which land, what is drawn on it).
REGION_KEYS = ("landmass", "wheat", "cup", "sword", "pyramid", "temple")


@dataclass(frozen=True)
class Step:
    """One action of the record, as it happened (full information: redact before sending)."""

    seat: int
    action: str
    events: list[Event]
    pieces: dict[str, Any] = field(default_factory=dict)


def _gheos_map_pieces(view: GheosView, cells: set[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for placed in view.get("map") or []:
        if placed.get("cell") in cells:
            found[str(placed["tile"])] = {
                "pyramid": bool(placed.get("pyramid")),
                "regions": [
                    {k: region.get(k) for k in REGION_KEYS} for region in placed["regions"]
                ],
            }
    return found


def gheos_step_pieces(
    before: GameState, after: GameState, events: Sequence[Event]
) -> dict[str, Any]:
    """The tiles a Gheos step put on the map or took off it, by what is drawn on them: all
    public (they lie on the table)."""
    placed = {str(e.get("cell")) for e in events if e.get("type") in ("place", "replace")}
    if not placed:
        return {}
    pieces = _gheos_map_pieces(as_gheos(after).view(None), placed)
    if any(e.get("type") == "replace" for e in events):
        pieces.update(_gheos_map_pieces(as_gheos(before).view(None), placed))
    return pieces


def gheos_hand_pieces(state: GameState, seat: int) -> dict[str, Any]:
    """The tiles in ``seat``'s hand, by what is drawn on them: for that seat (or once the game
    is over, for everyone: the analysis of a finished game names them)."""
    pieces: dict[str, Any] = {}
    for tile in as_gheos(state).view(seat)["hand"] or []:
        pieces[str(tile["tile"])] = {
            "pyramid": bool(tile.get("pyramid", False)),
            "regions": [{k: region.get(k) for k in REGION_KEYS} for region in tile["regions"]],
        }
    return pieces


StepPieces = Callable[[GameState, GameState, Sequence[Event]], dict[str, Any]]
HandPieces = Callable[[GameState, int], dict[str, Any]]
STEP_PIECES: dict[str, StepPieces] = {"gheos": gheos_step_pieces}
HAND_PIECES: dict[str, HandPieces] = {"gheos": gheos_hand_pieces}


def step_of(
    game: str, before: GameState, after: GameState, seat: int, action: str, events: Sequence[Event]
) -> Step:
    """The history step of ``action`` by ``seat`` that took ``before`` to ``after``."""
    pieces = STEP_PIECES[game](before, after, events) if game in STEP_PIECES else {}
    return Step(seat, action, list(events), pieces)


def replay_steps(record: GameRecord, seats: Sequence[int]) -> list[Step]:
    """Every step of ``record`` (``seats``: the mover of each action)."""
    state = record.start()
    steps = []
    for action, seat in zip(record.actions, seats, strict=True):
        before = state.clone() if record.game in STEP_PIECES else state
        events = list(state.apply(action) or [])
        steps.append(step_of(record.game, before, state, seat, action, events))
    return steps


def history_for(game: str, steps: Sequence[Step], viewer: int | None) -> dict[str, Any]:
    """The steps as ``viewer`` (None: spectators) may know them: ``steps`` numbered from 1
    (``ply``: the move it was), and the pieces they name."""
    shown = []
    pieces: dict[str, Any] = {}
    for ply, step in enumerate(steps, start=1):
        shown.append(
            {
                "ply": ply,
                "seat": step.seat,
                "action": public_action(game, step.action, step.seat, viewer),
                "events": public_events(game, step.events, viewer),
            }
        )
        pieces.update(step.pieces)
    return {"steps": shown, "pieces": pieces}


def board_at(
    record: GameRecord, seats: Sequence[int], ply: int, viewer: int | None
) -> dict[str, Any]:
    """The board (``viewer``'s view) after ``ply`` actions of ``record``, with that step."""
    state = record.start()
    step: Step | None = None
    for number, (action, seat) in enumerate(zip(record.actions[:ply], seats, strict=False)):
        before = state.clone() if number == ply - 1 and record.game in STEP_PIECES else state
        events = list(state.apply(action) or [])
        if number == ply - 1:
            step = step_of(record.game, before, state, seat, action, events)
    shown = history_for(record.game, [step], viewer)["steps"][0] if step is not None else None
    return {
        "ply": ply,
        "seat": viewer,
        "step": None if shown is None else {**shown, "ply": ply},
        "pieces": {} if step is None else step.pieces,
        "view": state.view(viewer),
        "to_move": None if state.is_over else int(state.to_move),
    }
