"""The action notation (text <-> :class:`Action`) and the fixed action ids: action ``i`` of
``ACTIONS`` is id ``i`` (docs/tigris.md)."""

from __future__ import annotations

from itertools import product
from typing import Final, NamedTuple

from cradle.core.words import N_
from cradle.tigris.board import CELL_BY_NAME, CELL_NAMES, CELLS
from cradle.tigris.types import (
    COLOR_BY_NAME,
    COLORS,
    HAND_SIZE,
    MONUMENT_BY_COLORS,
    MONUMENT_NAMES,
    MONUMENTS,
    ROLE_BY_NAME,
    ROLES,
    MalformedAction,
)

# Action kinds.
LEADER, WITHDRAW, TILE, CATASTROPHE, SWAP, PASS, COMMIT, WAR = range(8)
MONUMENT, TREASURE, BUILDING, WONDER, WONDERPOINT, DECLINE = range(8, 14)


class Action(NamedTuple):
    """An action in the engine's own form (what ``parse_action`` gives and ``apply`` takes).

    ``value`` is the kind's number: a colour (tile, war, wonderpoint; a leader's colour for
    leader and withdraw), the tiles committed, a monument (index into MONUMENTS) or a swap
    (index into SWAP_COUNTS); 0 when the kind has none. ``cell`` is -1 when it has none."""

    kind: int
    value: int
    cell: int


VERBS: Final = (
    "leader",
    "withdraw",
    "tile",
    "catastrophe",
    "swap",
    "pass",
    "commit",
    "war",
    "monument",
    "treasure",
    "building",
    "wonder",
    "wonderpoint",
    "decline",
)


def swap_text(counts: tuple[int, ...]) -> str:
    return "swap " + " ".join(COLORS[c] for c in range(4) for _ in range(counts[c]))


def format_action(action: Action) -> str:
    kind, a, b = action
    if kind == LEADER:
        return f"leader {ROLES[a]} {CELL_NAMES[b]}"
    if kind == WITHDRAW:
        return f"withdraw {ROLES[a]}"
    if kind == TILE:
        return f"tile {COLORS[a]} {CELL_NAMES[b]}"
    if kind == CATASTROPHE:
        return f"catastrophe {CELL_NAMES[b]}"
    if kind == SWAP:
        return swap_text(SWAP_COUNTS[a])
    if kind == PASS:
        return "pass"
    if kind == COMMIT:
        return f"commit {a}"
    if kind == WAR:
        return f"war {COLORS[a]}"
    if kind == MONUMENT:
        return f"monument {MONUMENT_NAMES[a]} {CELL_NAMES[b]}"
    if kind == TREASURE:
        return f"treasure {CELL_NAMES[b]}"
    if kind == BUILDING:
        return f"building {CELL_NAMES[b]}"
    if kind == WONDER:
        return f"wonder {CELL_NAMES[b]}"
    if kind == WONDERPOINT:
        return f"wonderpoint {COLORS[a]}"
    return "decline"


NOT_A_LEADER = N_("{word} is not a leader (king, priest, farmer, trader)")
NOT_A_STRING = N_("an action must be a string, not {kind}")


def _color(word: str) -> int:
    try:
        return COLOR_BY_NAME[word]
    except KeyError:
        raise MalformedAction(
            N_("{word} is not a colour (red, blue, green, black)"), word=repr(word)
        ) from None


def _cell(word: str) -> int:
    cell = CELL_BY_NAME.get(word.strip().upper())
    if cell is None:
        raise MalformedAction(
            N_("{word} is not a cell: columns are A-P, rows 1-11 (e.g. K1)"), word=repr(word)
        )
    return cell


def _arity(words: list[str], n: int, usage: str) -> None:
    if len(words) != n:
        raise MalformedAction(N_("expected '{usage}'"), usage=usage)


def _parse_words(words: list[str]) -> Action:
    verb = words[0]
    if verb == "leader":
        _arity(words, 3, "leader <king|priest|farmer|trader> <cell>")
        role = ROLE_BY_NAME.get(words[1])
        if role is None:
            raise MalformedAction(NOT_A_LEADER, word=repr(words[1]))
        return Action(LEADER, role, _cell(words[2]))
    if verb == "withdraw":
        _arity(words, 2, "withdraw <king|priest|farmer|trader>")
        role = ROLE_BY_NAME.get(words[1])
        if role is None:
            raise MalformedAction(NOT_A_LEADER, word=repr(words[1]))
        return Action(WITHDRAW, role, -1)
    if verb == "tile":
        _arity(words, 3, "tile <colour> <cell>")
        return Action(TILE, _color(words[1]), _cell(words[2]))
    if verb == "catastrophe":
        _arity(words, 2, "catastrophe <cell>")
        return Action(CATASTROPHE, 0, _cell(words[1]))
    if verb == "swap":
        if not 2 <= len(words) <= 1 + HAND_SIZE:
            raise MalformedAction(N_("expected 'swap <colour> ...' with 1 to 6 tiles"))
        counts = [0, 0, 0, 0]
        for word in words[1:]:
            counts[_color(word)] += 1
        return Action(SWAP, SWAP_INDEX[tuple(counts)], -1)
    if verb == "pass":
        _arity(words, 1, "pass")
        return Action(PASS, 0, -1)
    if verb == "commit":
        _arity(words, 2, "commit <number>")
        if not words[1].isdigit():
            raise MalformedAction(N_("{word} is not a number of tiles"), word=repr(words[1]))
        try:
            count = int(words[1])
        except ValueError:  # a digit int() does not read, such as "²"
            raise MalformedAction(
                N_("{word} is not a number of tiles"), word=repr(words[1])
            ) from None
        return Action(COMMIT, count, -1)
    if verb == "war":
        _arity(words, 2, "war <colour>")
        return Action(WAR, _color(words[1]), -1)
    if verb == "monument":
        _arity(words, 3, "monument <colour>-<colour> <cell>")
        pair = words[1].split("-")
        if len(pair) != 2:
            raise MalformedAction(
                N_("{word} is not a monument: name two colours, e.g. red-blue"), word=repr(words[1])
            )
        colours = frozenset(_color(w) for w in pair)
        if len(colours) != 2:
            raise MalformedAction(N_("a monument has two different colours"))
        return Action(MONUMENT, MONUMENT_BY_COLORS[colours], _cell(words[2]))
    if verb == "treasure":
        _arity(words, 2, "treasure <cell>")
        return Action(TREASURE, 0, _cell(words[1]))
    if verb == "building":
        _arity(words, 2, "building <cell>")
        return Action(BUILDING, 0, _cell(words[1]))
    if verb == "wonder":
        _arity(words, 2, "wonder <cell>")
        return Action(WONDER, 0, _cell(words[1]))
    if verb == "wonderpoint":
        _arity(words, 2, "wonderpoint <colour>")
        return Action(WONDERPOINT, _color(words[1]), -1)
    if verb == "decline":
        _arity(words, 1, "decline")
        return Action(DECLINE, 0, -1)
    raise MalformedAction(
        N_("unknown action {verb}: expected one of {verbs}"),
        verb=repr(verb),
        verbs=", ".join(VERBS),
    )


_PARSED: dict[str, Action] = {}


def _canonical_actions() -> list[Action]:
    """Every action, laid out so that each legal list the engine makes is ascending."""
    cells = range(CELLS)
    actions: list[Action] = []
    for role in range(4):
        actions += [Action(LEADER, role, cell) for cell in cells]
    actions += [Action(WITHDRAW, role, -1) for role in range(4)]
    for color in range(4):
        actions += [Action(TILE, color, cell) for cell in cells]
    actions += [Action(CATASTROPHE, 0, cell) for cell in cells]
    actions += [Action(SWAP, index, -1) for index in range(len(SWAP_COUNTS))]
    actions.append(Action(PASS, 0, -1))
    actions += [Action(COMMIT, n, -1) for n in range(HAND_SIZE + 1)]
    actions += [Action(WAR, color, -1) for color in range(4)]
    actions += [Action(MONUMENT, m, cell) for cell in cells for m in range(len(MONUMENTS))]
    actions += [Action(WONDER, 0, cell) for cell in cells]
    actions += [Action(TREASURE, 0, cell) for cell in cells]
    actions += [Action(BUILDING, 0, cell) for cell in cells]
    actions += [Action(WONDERPOINT, color, -1) for color in range(4)]
    actions.append(Action(DECLINE, 0, -1))
    return actions


# Every swap, as tiles discarded per colour: a swap action's value indexes this.
SWAP_COUNTS: Final = tuple(
    counts for counts in product(range(HAND_SIZE + 1), repeat=4) if 1 <= sum(counts) <= HAND_SIZE
)
SWAP_INDEX: Final = {counts: index for index, counts in enumerate(SWAP_COUNTS)}


def all_action_strings() -> list[str]:
    """Every string the notation can produce, in a fixed order: action ``i`` of this list is
    action id ``i`` (``state.legal_action_ids()``, ``state.apply(i)``)."""
    return list(ACTION_STRINGS)


def parse_action(text: str) -> Action:
    """The action written ``text``; MalformedAction with a reason when it is not one."""
    parsed = _PARSED.get(text)
    if parsed is not None:
        return parsed
    if not isinstance(text, str):
        raise MalformedAction(NOT_A_STRING, kind=type(text).__name__)
    words = text.lower().split()
    if not words:
        raise MalformedAction(N_("empty action"))
    return _PARSED.get(" ".join(words)) or _parse_words(words)


ACTIONS: Final = tuple(_canonical_actions())
ACTION_STRINGS: Final = tuple(format_action(a) for a in ACTIONS)
ACTION_IDS: Final = {action: i for i, action in enumerate(ACTIONS)}
_PARSED.update(zip(ACTION_STRINGS, ACTIONS, strict=True))


def known_action(action: object) -> Action:
    """``action`` as an :class:`Action`: one itself, or a tuple equal to an action of the
    notation; MalformedAction for anything else (both engines' ``apply`` refuse with this)."""
    if isinstance(action, Action):
        return action
    if isinstance(action, tuple) and len(action) == 3:
        try:
            index = ACTION_IDS.get(Action(*action))
        except TypeError:  # unhashable parts
            index = None
        if index is None:
            raise MalformedAction(
                N_("{action} is not an action of the notation"), action=repr(action)
            )
        return ACTIONS[index]
    raise MalformedAction(NOT_A_STRING, kind=type(action).__name__)
