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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict

from cradle.core.contract import Event, GameState, View
from cradle.core.record import GameRecord
from cradle.gheos import GheosView, as_gheos
from cradle.server.redact import public_action, public_events


class Region(TypedDict):
    """What a client needs to describe one region of a tile in words: which land, what is
    drawn on it (the counts of wheat, cups, swords and pyramids; the temple's kind or None)."""

    landmass: bool | None
    wheat: int | None
    cup: int | None
    sword: int | None
    pyramid: int | None
    temple: str | None


class Piece(TypedDict):
    """A tile a step names, by what is drawn on it."""

    pyramid: bool
    regions: list[Region]


Pieces = dict[str, Piece]  # by the tile's id


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


def _region(drawn: Mapping[str, object]) -> Region:
    def count(key: str) -> int | None:
        value = drawn.get(key)
        return value if isinstance(value, int) else None

    landmass, temple = drawn.get("landmass"), drawn.get("temple")
    return Region(
        landmass=landmass if isinstance(landmass, bool) else None,
        wheat=count("wheat"),
        cup=count("cup"),
        sword=count("sword"),
        pyramid=count("pyramid"),
        temple=temple if isinstance(temple, str) else None,
    )


def _piece(tile: Mapping[str, object]) -> Piece:
    regions = tile.get("regions")
    drawn = regions if isinstance(regions, list) else []
    return Piece(
        pyramid=bool(tile.get("pyramid", False)),
        regions=[_region(region) for region in drawn if isinstance(region, dict)],
    )


def _gheos_map_pieces(view: GheosView, cells: set[str]) -> Pieces:
    found: Pieces = {}
    for placed in view["map"]:
        if placed["cell"] in cells:
            found[placed["tile"]] = _piece(placed)
    return found


def gheos_step_pieces(before: GameState, after: GameState, events: Sequence[Event]) -> Pieces:
    """The tiles a Gheos step put on the map or took off it, by what is drawn on them: all
    public (they lie on the table)."""
    placed = {str(e.get("cell")) for e in events if e.get("type") in ("place", "replace")}
    if not placed:
        return {}
    pieces = _gheos_map_pieces(as_gheos(after).view(None), placed)
    if any(e.get("type") == "replace" for e in events):
        pieces.update(_gheos_map_pieces(as_gheos(before).view(None), placed))
    return pieces


def gheos_hand_pieces(state: GameState, seat: int) -> Pieces:
    """The tiles in ``seat``'s hand, by what is drawn on them: for that seat (or once the game
    is over, for everyone: the analysis of a finished game names them)."""
    hand = as_gheos(state).view(seat)["hand"] or []
    return {tile["tile"]: _piece(tile) for tile in hand}


StepPieces = Callable[[GameState, GameState, Sequence[Event]], Pieces]
HandPieces = Callable[[GameState, int], Pieces]
STEP_PIECES: dict[str, StepPieces] = {"gheos": gheos_step_pieces}
HAND_PIECES: dict[str, HandPieces] = {"gheos": gheos_hand_pieces}


def step_of(
    game: str, before: GameState, after: GameState, seat: int, action: str, events: Sequence[Event]
) -> Step:
    """The history step of ``action`` by ``seat`` that took ``before`` to ``after``."""
    pieces = STEP_PIECES[game](before, after, events) if game in STEP_PIECES else {}
    return Step(seat, action, list(events), pieces)


def replay_steps(
    record: GameRecord, seats: Sequence[int], standins: Sequence[str | None] = ()
) -> list[Step]:
    """Every step of ``record`` (``seats``: the mover of each action; ``standins``: the
    stand-in that made it, if any)."""
    state = record.start()
    steps = []
    for number, (action, seat) in enumerate(zip(record.actions, seats, strict=True)):
        before = state.clone() if record.game in STEP_PIECES else state
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
    for number, (action, seat) in enumerate(zip(record.actions[:ply], seats, strict=False)):
        before = state.clone() if number == ply - 1 and record.game in STEP_PIECES else state
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
