"""Constants of the game, the action notation (text <-> :class:`Action`) and the typed shapes
of what the engine returns (events, results)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from itertools import product
from typing import Final, NamedTuple

from cradle.core import contract
from cradle.core.contract import JSON
from cradle.tigris.board import BOARDS, CELL_NAMES, CELLS, parse_cell

RED, BLUE, GREEN, BLACK = 0, 1, 2, 3
COLORS: Final = ("red", "blue", "green", "black")
COLOR_BY_NAME: Final = {name: i for i, name in enumerate(COLORS)}
# A leader's role is the colour it rules: priest red, farmer blue, trader green, king black.
ROLES: Final = ("priest", "farmer", "trader", "king")
ROLE_BY_NAME: Final = {name: i for i, name in enumerate(ROLES)}
DYNASTIES: Final = ("archer", "bull", "pot", "lion")
TILE_TOTALS: Final = (57, 36, 30, 30)
TOTAL_TILES: Final = sum(TILE_TOTALS)
HAND_SIZE: Final = 6
CATASTROPHES_PER_PLAYER: Final = 2
MONUMENTS: Final = (
    (RED, BLUE),
    (RED, GREEN),
    (RED, BLACK),
    (BLUE, GREEN),
    (BLUE, BLACK),
    (GREEN, BLACK),
)
MONUMENT_NAMES: Final = tuple(f"{COLORS[a]}-{COLORS[b]}" for a, b in MONUMENTS)
MONUMENT_BY_COLORS: Final = {frozenset(pair): i for i, pair in enumerate(MONUMENTS)}
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4


class IllegalAction(contract.IllegalAction):
    """An action that is malformed or not legal now; the state is left unchanged."""


class TigrisEvent(contract.Event, total=False):
    """An event of ``apply`` (docs/tigris.md lists the types): ``type`` and ``text``, then
    the fields of its type. Seats are ints, colours, roles and cells their names."""

    role: str
    cell: str
    color: str
    amount: int
    count: int
    moved_from: str | None
    attacker: int
    defender: int
    wars: list[str]
    winner: int
    loser: int
    attack: int
    defence: int
    removed: list[str]
    monument: str


class TigrisResult(contract.SeatResult):
    """A seat's line of ``result()``: victory points per colour, treasures, the points once
    the treasures lift the lowest colours (``final``); ``score`` is the lowest of those."""

    dynasty: str
    points: dict[str, int]
    treasures: int
    final: dict[str, int]


@dataclass(frozen=True)
class Options:
    """Table options: the board side and the variants of the rulebooks (all combinable)."""

    board: str = "standard"
    buildings: bool = False
    english: bool = False
    wonder: bool = False
    open_scoring: bool = False

    def __post_init__(self) -> None:
        if self.board not in BOARDS:
            raise ValueError(f"unknown board {self.board!r}: use 'standard' or 'advanced'")
        for f in fields(self):
            if f.name != "board" and not isinstance(getattr(self, f.name), bool):
                raise ValueError(f"option {f.name!r} must be true or false")


def options_to_dict(options: object) -> JSON:
    """The options as a JSON object (``options``: Options, such an object, or None)."""
    chosen = options_from_dict(options)
    return {f.name: getattr(chosen, f.name) for f in fields(chosen)}


def options_from_dict(data: object) -> Options:
    """Options from a JSON object (or Options, or None for the defaults); missing fields take
    their defaults, unknown ones are refused."""
    if data is None:
        return Options()
    if isinstance(data, Options):
        return data
    if not isinstance(data, Mapping):
        raise ValueError("options must be an object")
    known = {f.name for f in fields(Options)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(
            f"unknown option(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    return Options(**data)


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


def _color(word: str) -> int:
    try:
        return COLOR_BY_NAME[word]
    except KeyError:
        raise IllegalAction(f"{word!r} is not a colour (red, blue, green, black)") from None


def _cell(word: str) -> int:
    try:
        return parse_cell(word)
    except ValueError as exc:
        raise IllegalAction(str(exc)) from None


def _arity(words: list[str], n: int, usage: str) -> None:
    if len(words) != n:
        raise IllegalAction(f"expected '{usage}'")


def _parse_words(words: list[str]) -> Action:
    verb = words[0]
    if verb == "leader":
        _arity(words, 3, "leader <king|priest|farmer|trader> <cell>")
        role = ROLE_BY_NAME.get(words[1])
        if role is None:
            raise IllegalAction(f"{words[1]!r} is not a leader (king, priest, farmer, trader)")
        return Action(LEADER, role, _cell(words[2]))
    if verb == "withdraw":
        _arity(words, 2, "withdraw <king|priest|farmer|trader>")
        role = ROLE_BY_NAME.get(words[1])
        if role is None:
            raise IllegalAction(f"{words[1]!r} is not a leader (king, priest, farmer, trader)")
        return Action(WITHDRAW, role, -1)
    if verb == "tile":
        _arity(words, 3, "tile <colour> <cell>")
        return Action(TILE, _color(words[1]), _cell(words[2]))
    if verb == "catastrophe":
        _arity(words, 2, "catastrophe <cell>")
        return Action(CATASTROPHE, 0, _cell(words[1]))
    if verb == "swap":
        if not 2 <= len(words) <= 1 + HAND_SIZE:
            raise IllegalAction("expected 'swap <colour> ...' with 1 to 6 tiles")
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
            raise IllegalAction(f"{words[1]!r} is not a number of tiles")
        return Action(COMMIT, int(words[1]), -1)
    if verb == "war":
        _arity(words, 2, "war <colour>")
        return Action(WAR, _color(words[1]), -1)
    if verb == "monument":
        _arity(words, 3, "monument <colour>-<colour> <cell>")
        pair = words[1].split("-")
        if len(pair) != 2:
            raise IllegalAction(f"{words[1]!r} is not a monument: name two colours, e.g. red-blue")
        colours = frozenset(_color(w) for w in pair)
        if len(colours) != 2:
            raise IllegalAction("a monument has two different colours")
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
    raise IllegalAction(f"unknown action {verb!r}: expected one of {', '.join(VERBS)}")


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
    """The action written ``text``; IllegalAction with a reason when it is malformed."""
    parsed = _PARSED.get(text)
    if parsed is not None:
        return parsed
    if not isinstance(text, str):
        raise IllegalAction(f"an action must be a string, not {type(text).__name__}")
    words = text.lower().split()
    if not words:
        raise IllegalAction("empty action")
    return _PARSED.get(" ".join(words)) or _parse_words(words)


ACTIONS: Final = tuple(_canonical_actions())
ACTION_STRINGS: Final = tuple(format_action(a) for a in ACTIONS)
ACTION_IDS: Final = {action: i for i, action in enumerate(ACTIONS)}
_PARSED.update(zip(ACTION_STRINGS, ACTIONS, strict=True))
