"""Reading the notation (docs/gheos.md): an action's words as a :class:`Reading`, before the
rules are asked. What cannot be read is a :class:`MalformedAction` whatever the position; the
state then decides whether the reading is allowed now (a :class:`DisallowedAction` if not)."""

from __future__ import annotations

from typing import NamedTuple

from cradle.core import contract
from cradle.core.words import N_
from cradle.gheos.geometry import parse_cell, parse_edge
from cradle.gheos.tiles import TILE_COUNT
from cradle.gheos.types import COLOURS, MalformedAction

# The words that must follow each verb, said when they are missing or too many.
_USAGE = {
    "place": N_("write '{verb} <tile> <cell> <rotation>', e.g. '{verb} t12 0,1 r0'"),
    "replace": N_("write '{verb} <tile> <cell> <rotation>', e.g. '{verb} t12 0,1 r0'"),
    "start": N_("write 'start <colour> <cell>:<edge>', e.g. 'start red 0,1:n'"),
    "migrate": N_("write 'migrate <colour> <cell>:<edge>', e.g. 'migrate red 0,1:n'"),
    "token": N_("write just 'token'"),
    "pass": N_("write just 'pass'"),
}


class Reading(NamedTuple):
    """An action as read: its verb and the parts it names (-1 or None: not named)."""

    verb: str
    tile: int = -1  # place, replace: the tile's number
    cell: int = -1  # place, replace: where; start, migrate: the cell of the area named
    rotation: int = 0  # place, replace
    colour: int = -1  # pay, take, winner, start, migrate
    edge: int | None = None  # start, migrate: the edge named after the cell, if any
    area: str = ""  # start, migrate: the area as written ("cell" or "cell:edge")


def _usage(verb: str) -> MalformedAction:
    return MalformedAction(_USAGE[verb], verb=verb)


def _cell(text: str) -> int:
    try:
        return parse_cell(text)
    except contract.IllegalAction as exc:
        raise MalformedAction(exc.template, **exc.params) from None


def _colour(words: list[str], form: str) -> int:
    if len(words) != 2:
        raise MalformedAction(N_("write '{form}'"), form=form)
    if words[1] not in COLOURS:
        raise MalformedAction(
            N_("{text} is not a colour (one of {colours})"),
            text=repr(words[1]),
            colours=", ".join(COLOURS),
        )
    return COLOURS.index(words[1])


def _tile(text: str) -> int:
    refused = MalformedAction(
        N_("{text} is not a tile: tiles are named t0 to t51"), text=repr(text)
    )
    if not (text.startswith("t") and text[1:].isdigit()):
        raise refused
    try:
        number = int(text[1:])
    except ValueError:  # a digit int() does not read, such as "²"
        raise refused from None
    if number >= TILE_COUNT:
        raise refused
    return number


def read_action(words: list[str]) -> Reading:
    """The action ``words`` (``action.strip().lower().split()``, at least one) name;
    MalformedAction with a reason when they name none."""
    verb = words[0]
    if verb in ("place", "replace"):
        if len(words) != 4:
            raise _usage(verb)
        number = _tile(words[1])
        cell = _cell(words[2])
        if words[3] not in ("r0", "r1", "r2"):
            raise MalformedAction(
                N_("{text} is not a rotation: write r0, r1 or r2"), text=repr(words[3])
            )
        return Reading(verb, tile=number, cell=cell, rotation=int(words[3][1]))
    if verb in ("pay", "take", "winner"):
        return Reading(verb, colour=_colour(words, f"{verb} <colour>"))
    if verb in ("start", "migrate"):
        if len(words) != 3:
            raise _usage(verb)
        colour = _colour(words[:2], f"{verb} <colour> <cell>:<edge>")
        cell_text, colon, edge_text = words[2].partition(":")
        cell = _cell(cell_text)
        edge = None
        if colon:
            try:
                edge = parse_edge(cell, edge_text)
            except contract.IllegalAction as exc:
                raise MalformedAction(exc.template, **exc.params) from None
        return Reading(verb, cell=cell, colour=colour, edge=edge, area=words[2])
    if verb in ("token", "pass"):
        if len(words) != 1:
            raise _usage(verb)
        return Reading(verb)
    raise MalformedAction(
        N_(
            "unknown action {verb}: the actions are place, replace, pay, migrate, "
            "winner, start, take, token and pass"
        ),
        verb=repr(verb),
    )
