"""The Tigris & Euphrates game state and every rule of the game.

The board is a set of bitboards (see :mod:`cradle.tigris.board`): one per colour of face-up
tile, one per colour of face-down tile, treasures, catastrophes, leaders. Regions and kingdoms
are connected components of the connecting cells, computed by flood fill and cached until
something is removed (a placement only merges components).

A decision that interrupts an action (commitments, war order, monument, treasures, variant
choices) is ``pending``: a frozen dataclass per kind (cradle.tigris.decisions) of plain values,
so positions round-trip through JSON.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Generic, TypeVar

from cradle.core.contract import JSON
from cradle.core.fast import ReferenceFastPaths
from cradle.core.hidden import read_hidden, viewer_seat
from cradle.core.results import places
from cradle.core.words import N_
from cradle.tigris import analysis
from cradle.tigris.actions import (
    ACTION_IDS,
    ACTION_STRINGS,
    ACTIONS,
    BUILDING,
    CATASTROPHE,
    COMMIT,
    DECLINE,
    LEADER,
    MONUMENT,
    PASS,
    SWAP,
    SWAP_COUNTS,
    TILE,
    TREASURE,
    WAR,
    WITHDRAW,
    WONDER,
    WONDERPOINT,
    Action,
    format_action,
    known_action,
    parse_action,
)
from cradle.tigris.analysis import GEOMETRIES, Content, Dynasty, Geometry, Leader, Monument, Region
from cradle.tigris.board import (
    BOARDS,
    CELL_NAMES,
    CELLS,
    COLUMNS,
    FULL,
    NEIGHBOURS,
    SQUARE_MASK,
    BoardMap,
    CellTable,
    cells_of,
    components,
    dilate,
    flood,
)
from cradle.tigris.decisions import (
    BuildingChoice,
    Conflict,
    Decision,
    MonumentChoice,
    Revolt,
    TreasureChoice,
    War,
    WarOrder,
    WonderPoint,
)
from cradle.tigris.position import to_position
from cradle.tigris.types import (
    BLACK,
    CATASTROPHES_PER_PLAYER,
    COLOR_BY_NAME,
    COLOURS,
    GREEN,
    HAND_SIZE,
    MONUMENT_NAMES,
    MONUMENTS,
    RED,
    ROLES,
    DisallowedAction,
    MalformedAction,
    Options,
    TigrisEvent,
    TigrisResult,
    TigrisView,
)
from cradle.tigris.view import public_action, view

T = TypeVar("T")


class _Vocabulary(Generic[T]):
    """The items legal actions are made of: the notation's strings, or the fixed action ids."""

    def __init__(self, item: Callable[[Action], T]) -> None:
        cells = range(176)
        self.item = item
        self.leader = tuple(
            CellTable([item(Action(LEADER, r, c)) for c in cells]) for r in range(4)
        )
        self.tile = tuple(CellTable([item(Action(TILE, k, c)) for c in cells]) for k in range(4))
        self.catastrophe = CellTable([item(Action(CATASTROPHE, 0, c)) for c in cells])
        self.treasure = CellTable([item(Action(TREASURE, 0, c)) for c in cells])
        self.building = CellTable([item(Action(BUILDING, 0, c)) for c in cells])
        self.wonder = CellTable([item(Action(WONDER, 0, c)) for c in cells])
        self.withdraw = tuple(item(Action(WITHDRAW, r, -1)) for r in range(4))
        self.commit = tuple(item(Action(COMMIT, n, -1)) for n in range(HAND_SIZE + 1))
        self.war = tuple(item(Action(WAR, k, -1)) for k in range(4))
        self.wonderpoint = tuple(item(Action(WONDERPOINT, k, -1)) for k in range(4))
        self.pass_ = item(Action(PASS, 0, -1))
        self.decline = item(Action(DECLINE, 0, -1))
        self._swaps: dict[tuple[int, ...], list[T]] = {}

    def swaps(self, hand: list[int]) -> list[T]:
        key = tuple(hand)
        found = self._swaps.get(key)
        if found is None:
            found = self._swaps[key] = [
                self.item(Action(SWAP, index, -1))
                for index, counts in enumerate(SWAP_COUNTS)
                if all(counts[c] <= hand[c] for c in range(4))
            ]
        return found


_STRINGS = _Vocabulary(format_action)
_IDS = _Vocabulary(ACTION_IDS.__getitem__)

# The four 2x2 squares holding a cell, by their top-left cell.
_SQUARES = tuple(
    tuple(
        top_left
        for top_left in (cell, cell - 1, cell - COLUMNS, cell - COLUMNS - 1)
        if top_left >= 0
        and top_left % COLUMNS < COLUMNS - 1
        and top_left // COLUMNS < 10
        and cell in (top_left, top_left + 1, top_left + COLUMNS, top_left + COLUMNS + 1)
    )
    for cell in range(176)
)
# The plus-shaped cross of 5 cells centred on a cell (0 where it would leave the board).
_PLUS = tuple((1 << c) | NEIGHBOURS[c] if NEIGHBOURS[c].bit_count() == 4 else 0 for c in range(176))


def _popcount(mask: int) -> int:
    return mask.bit_count()


def _cells(mask: int) -> tuple[int, ...]:
    """The cells of ``mask``, ascending (a lone cell, the common case, without a scan)."""
    if mask & (mask - 1) == 0:
        return (mask.bit_length() - 1,) if mask else ()
    return tuple(cells_of(mask))


def _commit_color(p: Conflict) -> int:
    """Revolts are fought with temples (red) whatever the leaders; wars with their colour."""
    return RED if isinstance(p, Revolt) else p.color


_WAITING_FOR = {
    "war_order": N_("{player} must first choose which war to resolve (e.g. 'war red')"),
    "monument": N_("{player} must first build a monument (or the wonder) or 'decline'"),
    "treasure": N_("{player} must first take a treasure (e.g. 'treasure K1')"),
    "building": N_("{player} must first place the building or 'decline'"),
    "wonderpoint": N_("{player} must first choose the colour of the wonder's point"),
}
# What stands on a cell for good, as far as placements go: why nothing goes there, and why no
# catastrophe does.
_FIXTURES = {
    "leader": (
        N_("{cell} holds a leader"),
        N_("{cell} holds a leader: a catastrophe goes on an empty cell or a tile"),
    ),
    "catastrophe": (
        N_("{cell} holds a catastrophe"),
        N_("{cell} holds a catastrophe: a catastrophe goes on an empty cell or a tile"),
    ),
    "wonder": (
        N_("{cell} is under the wonder"),
        N_("{cell} is under the wonder: a catastrophe goes on an empty cell or a tile"),
    ),
    "monument": (
        N_("{cell} is under a monument"),
        N_("{cell} is under a monument: a catastrophe goes on an empty cell or a tile"),
    ),
}
OUTSIDE_IDS = N_("action id {id} is outside 0..{last}")


# Decisions without fields are alike: one instance each.
_MONUMENT_CHOICE = MonumentChoice()
_BUILDING_CHOICE = BuildingChoice()
_WONDER_POINT = WonderPoint()

# What a cell can hold, one shared instance per kind (analysis: ``contents()``).
_TILE_CONTENT = tuple(
    (Content(analysis.TILE, c), Content(analysis.TILE, c, treasure=True)) for c in range(4)
)
_DOWN_CONTENT = tuple(
    (Content(analysis.DOWN, c), Content(analysis.DOWN, c, treasure=True)) for c in range(4)
)
_LEADER_CONTENT = tuple(Content(analysis.LEADER, i % 4, i // 4) for i in range(16))
_CATASTROPHE_CONTENT = Content(analysis.CATASTROPHE)
_WONDER_CONTENT = (Content(analysis.WONDER), Content(analysis.WONDER, treasure=True))


class TigrisState(ReferenceFastPaths):
    """A complete game position with its rules (see docs/contract.md for the contract), and
    the fast paths of every engine (``cradle.core.contract.FastState``)."""

    MALFORMED = MalformedAction

    __slots__ = (
        "_comps",
        "_contents",
        "_legal",
        "_legal_ids",
        "_region_map",
        "_regions",
        "actions_left",
        "active",
        "bag",
        "board",
        "buildings",
        "cata",
        "catastrophes",
        "discards",
        "down",
        "ending",
        "hands",
        "leader_cell",
        "leaders",
        "monuments",
        "n",
        "options",
        "over",
        "pending",
        "placed",
        "players",
        "points",
        "removed",
        "treasure",
        "treasures",
        "unification",
        "up",
        "wonder",
    )

    options: Options
    board: BoardMap
    players: tuple[str, ...]
    n: int
    up: list[int]
    down: list[int]
    treasure: int
    cata: int
    leader_cell: list[int]
    leaders: int
    monuments: list[tuple[int, int]]
    unification: int
    hands: list[list[int]]
    bag: list[int]
    points: list[list[int]]
    treasures: list[int]
    catastrophes: list[int]
    discards: list[list[int]]
    removed: list[int]
    active: int
    actions_left: int
    pending: Decision | None
    placed: int
    ending: bool
    over: bool
    buildings: list[int]
    wonder: int
    _comps: list[int] | None
    _legal: list[str] | None
    _legal_ids: list[int] | None
    # The analysis of the board (not of hands or bag), until the board changes.
    _regions: tuple[Region, ...] | None
    _region_map: tuple[int, ...] | None
    _contents: tuple[Content | None, ...] | None

    game = "tigris"

    # ----------------------------------------------------------------- creation

    @classmethod
    def blank(cls, players: tuple[str, ...], options: Options) -> TigrisState:
        s = cls.__new__(cls)
        s.options = options
        s.board = BOARDS[options.board]
        s.players = players
        s.n = len(players)
        s.up = [0, 0, 0, 0]
        s.down = [0, 0, 0, 0]
        s.treasure = 0
        s.cata = 0
        s.leader_cell = [-1] * (4 * s.n)
        s.leaders = 0
        s.monuments = []
        s.unification = -1
        s.hands = [[0, 0, 0, 0] for _ in players]
        s.bag = []
        s.points = [[0, 0, 0, 0] for _ in players]
        s.treasures = [0] * s.n
        s.catastrophes = [CATASTROPHES_PER_PLAYER] * s.n
        s.discards = [[0, 0, 0, 0] for _ in players]
        s.removed = [0, 0, 0, 0]
        s.active = 0
        s.actions_left = 2
        s.pending = None
        s.placed = -1
        s.ending = False
        s.over = False
        s.buildings = [-1, -1, -1, -1]
        s.wonder = -1
        s._comps = None
        s._legal = None
        s._legal_ids = None
        s._regions = s._region_map = s._contents = None
        return s

    def clone(self) -> TigrisState:
        s = TigrisState.__new__(TigrisState)
        s.options = self.options
        s.board = self.board
        s.players = self.players
        s.n = self.n
        s.up = self.up[:]
        s.down = self.down[:]
        s.treasure = self.treasure
        s.cata = self.cata
        s.leader_cell = self.leader_cell[:]
        s.leaders = self.leaders
        s.monuments = self.monuments[:]
        s.unification = self.unification
        s.hands = [h[:] for h in self.hands]
        s.bag = self.bag[:]
        s.points = [p[:] for p in self.points]
        s.treasures = self.treasures[:]
        s.catastrophes = self.catastrophes[:]
        s.discards = [d[:] for d in self.discards]
        s.removed = self.removed[:]
        s.active = self.active
        s.actions_left = self.actions_left
        s.pending = self.pending  # decisions are frozen
        s.placed = self.placed
        s.ending = self.ending
        s.over = self.over
        s.buildings = self.buildings[:]
        s.wonder = self.wonder
        s._comps = self._comps  # lists of ints are never mutated in place
        s._legal = self._legal
        s._legal_ids = self._legal_ids
        s._regions = self._regions  # immutable
        s._region_map = self._region_map
        s._contents = self._contents
        return s

    # ----------------------------------------------------------------- basic queries

    @property
    def to_move(self) -> int:
        p = self.pending
        if p is None:
            return self.active
        if isinstance(p, Revolt | War):
            return p.attacker if p.attacker_commit is None else p.defender
        if isinstance(p, TreasureChoice):
            return p.seat
        return self.active

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def num_players(self) -> int:
        return self.n

    def hand(self, seat: int) -> list[str]:
        """The tiles in ``seat``'s hand (what ``view(seat)["hand"]`` shows), cheaply."""
        counts = self.hands[seat]
        return [COLOURS[c] for c in range(4) for _ in range(counts[c])]

    def tiles_up(self) -> int:
        u = self.up
        return u[0] | u[1] | u[2] | u[3]

    def tiles_down(self) -> int:
        d = self.down
        return d[0] | d[1] | d[2] | d[3]

    def wonder_mask(self) -> int:
        w = self.wonder
        return 0 if w < 0 else (1 << w) | NEIGHBOURS[w]

    def connectors(self) -> int:
        """Cells that connect: tiles face up or down, leaders and the wonder."""
        u, d = self.up, self.down
        return (
            u[0]
            | u[1]
            | u[2]
            | u[3]
            | d[0]
            | d[1]
            | d[2]
            | d[3]
            | self.leaders
            | self.wonder_mask()
        )

    def occupied(self) -> int:
        return self.connectors() | self.cata

    def empty(self) -> int:
        return FULL & ~self.occupied()

    def components(self) -> list[int]:
        comps = self._comps
        if comps is None:
            comps = self._comps = components(self.connectors())
        return comps

    def kingdoms(self) -> list[int]:
        leaders = self.leaders
        return [c for c in self.components() if c & leaders]

    def component_of(self, cell: int) -> int:
        bit = 1 << cell
        for comp in self.components():
            if comp & bit:
                return comp
        return 0

    def leader_at(self, cell: int) -> int:
        """The leader index (seat * 4 + colour) on ``cell``, or -1."""
        try:
            return self.leader_cell.index(cell)
        except ValueError:
            return -1

    def adjacent_temples(self, cell: int) -> int:
        return _popcount(NEIGHBOURS[cell] & self.up[RED])

    def _owner_in(self, kingdom: int, color: int) -> int:
        """The seat whose leader of ``color`` stands in ``kingdom``, or -1."""
        lc = self.leader_cell
        for seat in range(self.n):
            cell = lc[4 * seat + color]
            if cell >= 0 and kingdom >> cell & 1:
                return seat
        return -1

    # ----------------------------------------------------------------- board changes

    def _merge_at(self, cell: int) -> None:
        """A connector was added on ``cell``: merge the cached components it touches."""
        comps = self._comps
        if comps is None:
            return
        bit = 1 << cell
        reach = NEIGHBOURS[cell] | bit
        merged = bit
        kept = []
        for comp in comps:
            if comp & reach:
                merged |= comp
            else:
                kept.append(comp)
        kept.append(merged)
        self._comps = kept

    def _put_leader(self, index: int, cell: int) -> None:
        self.leader_cell[index] = cell
        self.leaders |= 1 << cell
        self._merge_at(cell)

    def _take_leader(self, index: int) -> None:
        cell = self.leader_cell[index]
        self.leader_cell[index] = -1
        self.leaders &= ~(1 << cell)
        self._comps = None

    def _return_stranded_leaders(self, events: list[TigrisEvent]) -> None:
        """Leaders without an adjacent face-up temple go back to their owners."""
        temples = self.up[RED]
        for index, cell in enumerate(self.leader_cell):
            if cell >= 0 and not NEIGHBOURS[cell] & temples:
                self._take_leader(index)
                seat, color = divmod(index, 4)
                events.append(
                    {
                        "type": "leader_returned",
                        "text": f"{self.players[seat]}'s {ROLES[color]} on {CELL_NAMES[cell]} "
                        "lost its last temple and returns",
                        "seat": seat,
                        "role": ROLES[color],
                        "cell": CELL_NAMES[cell],
                    }
                )

    def _draw(self, seat: int, count: int) -> int:
        """Draw up to ``count`` tiles; a short bag means the game ends after this turn."""
        bag = self.bag
        hand = self.hands[seat]
        if count > len(bag):
            self.ending = True
            count = len(bag)
        for _ in range(count):
            hand[bag.pop()] += 1
        return count

    def _score(
        self, seat: int, color: int, amount: int, why: str, events: list[TigrisEvent]
    ) -> None:
        self.points[seat][color] += amount
        events.append(
            {
                "type": "score",
                "text": f"{self.players[seat]} scores {amount} {COLOURS[color]} ({why})",
                "seat": seat,
                "color": COLOURS[color],
                "amount": amount,
            }
        )

    # ----------------------------------------------------------------- legal actions

    def legal_actions(self) -> list[str]:
        """Every legal action of the seat to move, in the contract's notation."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate(_STRINGS)
        return legal[:]

    def action_string(self, action_id: int) -> str:
        """The notation of the fixed id ``action_id`` (``all_action_strings()[action_id]``)."""
        if isinstance(action_id, bool) or not isinstance(action_id, int):
            raise MalformedAction(
                N_("an action id is an integer, not {kind}"), kind=type(action_id).__name__
            )
        if not 0 <= action_id < len(ACTIONS):
            raise MalformedAction(OUTSIDE_IDS, id=action_id, last=len(ACTIONS) - 1)
        return ACTION_STRINGS[action_id]

    def legal_action_ids(self) -> list[int]:
        """The legal actions as ids: positions in ``all_action_strings()``, in the same order
        as ``legal_actions()``. ``apply`` takes an id too (for fixed-size action spaces)."""
        legal = self._legal_ids
        if legal is None:
            legal = self._legal_ids = self._generate(_IDS)
        return legal[:]

    def _generate(self, vocab: _Vocabulary[T]) -> list[T]:
        if self.over:
            return []
        p = self.pending
        if p is not None:
            return self._pending_actions(p, vocab)
        out: list[T] = []
        seat = self.active
        empty = self.empty()
        land = self.board.land
        land_empty = empty & land
        kingdoms = self.kingdoms()
        one = two = three = 0
        for k in kingdoms:
            d = dilate(k)
            three |= two & d
            two |= one & d
            one |= d
        temples_near = dilate(self.up[RED])
        lc = self.leader_cell
        for color in range(4):
            index = 4 * seat + color
            cell = lc[index]
            if cell < 0:
                targets = temples_near & land_empty & ~two
            else:
                targets = self._move_targets(cell, temples_near, land_empty, kingdoms)
            if targets:
                vocab.leader[color].extend(targets, out)
        for color in range(4):
            if lc[4 * seat + color] >= 0:
                out.append(vocab.withdraw[color])
        hand = self.hands[seat]
        land_ok = land_empty & ~three
        for color in range(4):
            if hand[color]:
                if color == 1:
                    vocab.tile[1].extend(empty & ~land & ~three, out)
                else:
                    vocab.tile[color].extend(land_ok, out)
        if self.catastrophes[seat]:
            targets = empty | (self.tiles_up() & ~self.treasure & ~self._building_mask())
            vocab.catastrophe.extend(targets, out)
        if sum(hand):
            out += vocab.swaps(hand)
        out.append(vocab.pass_)
        return out

    def _move_targets(
        self, cell: int, temples_near: int, land_empty: int, kingdoms: list[int]
    ) -> int:
        """Cells where the leader on ``cell`` may move: as placed anew once lifted off."""
        one = two = 0
        for k in self._kingdoms_lifting(cell, kingdoms):
            d = dilate(k)
            two |= one & d
            one |= d
        return temples_near & land_empty & ~two

    def _kingdoms_lifting(self, cell: int, kingdoms: list[int]) -> list[int]:
        """The kingdoms once the leader on ``cell`` is lifted off: only its own may split."""
        bit = 1 << cell
        own = self.component_of(cell)
        leaders = self.leaders & ~bit
        lifted = [k for k in kingdoms if k != own]
        lifted += [part for part in components(own & ~bit) if part & leaders]
        return lifted

    def _pending_actions(self, p: Decision, vocab: _Vocabulary[T]) -> list[T]:
        if isinstance(p, Revolt | War):
            return [vocab.commit[n] for n in self._commit_options(p)]
        if isinstance(p, WarOrder):
            return [vocab.war[c] for c in p.colors]
        out: list[T] = []
        if isinstance(p, MonumentChoice):
            out += [vocab.item(a) for a in self._monument_options()]
            vocab.wonder.extend(sum(1 << c for c in self._wonder_options()), out)
            return [*out, vocab.decline]
        if isinstance(p, TreasureChoice):
            vocab.treasure.extend(sum(1 << c for c in p.cells), out)
            return out
        if isinstance(p, BuildingChoice):
            vocab.building.extend(self._building_options(), out)
            return [*out, vocab.decline]
        return list(vocab.wonderpoint)

    # ----------------------------------------------------------------- apply

    def apply(self, action: str | int | Action) -> list[TigrisEvent]:
        """Apply ``action`` (its notation, its id or an :class:`Action`) for the seat to move;
        MalformedAction or DisallowedAction leave the state unchanged (an input is read
        before the rules are asked, so a malformed one is that even when the game is over)."""
        if isinstance(action, str):
            parsed = parse_action(action)
        elif isinstance(action, int) and not isinstance(action, bool):
            if not 0 <= action < len(ACTIONS):
                raise MalformedAction(OUTSIDE_IDS, id=action, last=len(ACTIONS) - 1)
            parsed = ACTIONS[action]
        else:
            parsed = known_action(action)
        if self.over:
            raise DisallowedAction(N_("the game is over"))
        if self.over:
            raise DisallowedAction("the game is over")
        events: list[TigrisEvent] = []
        p = self.pending
        if p is None:
            self._check_turn_action(parsed)
            self._board_changes()
            self._apply_turn_action(parsed, events)
        else:
            self._check_pending_action(p, parsed)
            self._board_changes()
            self._apply_pending_action(p, parsed, events)
        return events

    def _board_changes(self) -> None:
        """Forget what was worked out from the board: an action is about to change it."""
        self._legal = self._legal_ids = None
        self._regions = self._region_map = self._contents = None

    # --- validation (raises before anything changes)

    def _check_turn_action(self, action: Action) -> None:
        kind, a, cell = action
        seat = self.active
        if kind == LEADER:
            self._check_leader(seat, a, cell)
        elif kind == WITHDRAW:
            if self.leader_cell[4 * seat + a] < 0:
                raise DisallowedAction(N_("your {leader} is not on the board"), leader=ROLES[a])
        elif kind == TILE:
            self._check_tile(seat, a, cell)
        elif kind == CATASTROPHE:
            self._check_catastrophe(seat, cell)
        elif kind == SWAP:
            hand = self.hands[seat]
            counts = SWAP_COUNTS[a]
            for color in range(4):
                if counts[color] > hand[color]:
                    raise DisallowedAction(
                        N_("you cannot discard {count} {colour} tile(s): your hand holds {held}"),
                        count=counts[color],
                        colour=COLOURS[color],
                        held=hand[color],
                    )
        elif kind == PASS:
            pass
        else:
            raise DisallowedAction(
                N_("'{action}' is not possible now: it is {player}'s turn to take an action"),
                action=format_action(action),
                player=self.players[seat],
            )

    def _check_leader(self, seat: int, color: int, cell: int) -> None:
        name = CELL_NAMES[cell]
        index = 4 * seat + color
        current = self.leader_cell[index]
        if current == cell:
            raise DisallowedAction(
                N_("your {leader} already stands on {cell}"), leader=ROLES[color], cell=name
            )
        self._check_empty(cell)
        if not self.board.land >> cell & 1:
            raise DisallowedAction(
                N_("{cell} is a river cell: leaders may not stand on the river"), cell=name
            )
        if not NEIGHBOURS[cell] & self.up[RED]:
            raise DisallowedAction(N_("{cell} is not next to a face-up temple"), cell=name)
        kingdoms = self.kingdoms()
        if current >= 0:
            kingdoms = self._kingdoms_lifting(current, kingdoms)
        touching = sum(1 for k in kingdoms if k & NEIGHBOURS[cell])
        if touching > 1:
            raise DisallowedAction(N_("a leader on {cell} would join two kingdoms"), cell=name)

    def _fixture_on(self, cell: int) -> str | None:
        """What stands on ``cell`` for good as far as placements go (a key of _FIXTURES)."""
        bit = 1 << cell
        if self.leaders & bit:
            return "leader"
        if self.cata & bit:
            return "catastrophe"
        if self.wonder_mask() & bit:
            return "wonder"
        if self.tiles_down() & bit:
            return "monument"
        return None

    def _check_empty(self, cell: int) -> None:
        name = CELL_NAMES[cell]
        fixture = self._fixture_on(cell)
        if fixture is not None:
            raise DisallowedAction(_FIXTURES[fixture][0], cell=name)
        if self.tiles_up() & 1 << cell:
            raise DisallowedAction(N_("{cell} holds a tile"), cell=name)

    def _check_tile(self, seat: int, color: int, cell: int) -> None:
        name = CELL_NAMES[cell]
        if not self.hands[seat][color]:
            raise DisallowedAction(N_("you have no {colour} tile in hand"), colour=COLOURS[color])
        self._check_empty(cell)
        river = not self.board.land >> cell & 1
        if color == 1 and not river:
            raise DisallowedAction(
                N_("{cell} is not a river cell: blue tiles (farms) go on the river"), cell=name
            )
        if color != 1 and river:
            raise DisallowedAction(
                N_("{cell} is a river cell: only blue tiles (farms) go there"), cell=name
            )
        touching = sum(1 for k in self.kingdoms() if k & NEIGHBOURS[cell])
        if touching > 2:
            raise DisallowedAction(
                N_("a tile on {cell} would join {count} kingdoms (at most two)"),
                cell=name,
                count=touching,
            )

    def _building_mask(self) -> int:
        mask = 0
        for cell in self.buildings:
            if cell >= 0:
                mask |= 1 << cell
        return mask

    def _check_catastrophe(self, seat: int, cell: int) -> None:
        name = CELL_NAMES[cell]
        bit = 1 << cell
        if not self.catastrophes[seat]:
            raise DisallowedAction(N_("you have no catastrophe tile left"))
        fixture = self._fixture_on(cell)
        if fixture is not None:
            raise DisallowedAction(_FIXTURES[fixture][1], cell=name)
        if self.treasure & bit:
            raise DisallowedAction(N_("{cell} carries a treasure"), cell=name)
        if self._building_mask() & bit:
            raise DisallowedAction(N_("{cell} carries a civilization building"), cell=name)

    def _check_pending_action(self, p: Decision, action: Action) -> None:
        kind, a, cell = action
        if isinstance(p, Revolt | War):
            if kind != COMMIT:
                raise self._waiting_for(p)
            options = self._commit_options(p)
            if a not in options:
                color = COLOURS[_commit_color(p)]
                have = self.hands[self.to_move][_commit_color(p)]
                if a > have:
                    raise DisallowedAction(
                        N_("you hold only {count} {colour} tile(s)"), count=have, colour=color
                    )
                raise DisallowedAction(
                    N_("commit {count} is not allowed: you may commit {counts}"),
                    count=a,
                    counts=", ".join(str(n) for n in options),
                )
        elif isinstance(p, WarOrder):
            if kind != WAR:
                raise self._waiting_for(p)
            if a not in p.colors:
                raise DisallowedAction(N_("there is no {colour} war to resolve"), colour=COLOURS[a])
        elif isinstance(p, TreasureChoice):
            if kind != TREASURE:
                raise self._waiting_for(p)
            if cell not in p.cells:
                names = ", ".join(CELL_NAMES[c] for c in p.cells)
                raise DisallowedAction(N_("you may take a treasure on {cells}"), cells=names)
        elif isinstance(p, WonderPoint):
            if kind != WONDERPOINT:
                raise self._waiting_for(p)
        elif isinstance(p, MonumentChoice):
            if kind == DECLINE:
                return
            if kind == WONDER:
                if cell not in self._wonder_options():
                    raise DisallowedAction(
                        N_("no wonder can be built centred on {cell}"), cell=CELL_NAMES[cell]
                    )
                return
            if kind != MONUMENT:
                raise self._waiting_for(p)
            if action not in self._monument_options():
                raise self._why_no_monument(a, cell)
        else:  # BuildingChoice
            if kind == DECLINE:
                return
            if kind != BUILDING:
                raise self._waiting_for(p)
            if not self._building_options() >> cell & 1:
                raise DisallowedAction(
                    N_("the building cannot go on {cell}"), cell=CELL_NAMES[cell]
                )

    def _waiting_for(self, p: Decision) -> DisallowedAction:
        """The refusal of any other action while ``p`` waits for its answer."""
        who = self.players[self.to_move]
        if isinstance(p, Revolt | War):
            return DisallowedAction(
                N_("{player} must commit {colour} tiles first (e.g. 'commit 0')"),
                player=who,
                colour=COLOURS[_commit_color(p)],
            )
        return DisallowedAction(_WAITING_FOR[p.kind], player=who)

    # --- turn actions

    def _apply_turn_action(self, action: Action, events: list[TigrisEvent]) -> None:
        kind, a, cell = action
        seat = self.active
        who = self.players[seat]
        if kind == PASS:
            events.append({"type": "pass", "text": f"{who} passes", "seat": seat})
            self.actions_left = 0
            self._end_turn(events)
            return
        if kind == LEADER:
            self._place_leader(seat, a, cell, events)
            return
        if kind == WITHDRAW:
            cell = self.leader_cell[4 * seat + a]
            self._take_leader(4 * seat + a)
            events.append(
                {
                    "type": "withdraw",
                    "text": f"{who} withdraws the {ROLES[a]} from {CELL_NAMES[cell]}",
                    "seat": seat,
                    "role": ROLES[a],
                    "cell": CELL_NAMES[cell],
                }
            )
        elif kind == TILE:
            self._place_tile(seat, a, cell, events)
            return
        elif kind == CATASTROPHE:
            self._place_catastrophe(seat, cell, events)
        elif kind == SWAP:
            hand, discards = self.hands[seat], self.discards[seat]
            counts = SWAP_COUNTS[a]
            for color in range(4):
                hand[color] -= counts[color]
                discards[color] += counts[color]
            count = sum(counts)
            drawn = self._draw(seat, count)
            events.append(
                {
                    "type": "swap",
                    "text": f"{who} discards {count} tile(s) and draws {drawn}",
                    "seat": seat,
                    "count": count,
                }
            )
        self._treasure_step(events)

    def _place_leader(self, seat: int, color: int, cell: int, events: list[TigrisEvent]) -> None:
        index = 4 * seat + color
        moved_from = self.leader_cell[index]
        if moved_from >= 0:
            self._take_leader(index)
        self._put_leader(index, cell)
        verb = (
            f"moves the {ROLES[color]} to" if moved_from >= 0 else f"places the {ROLES[color]} on"
        )
        events.append(
            {
                "type": "leader",
                "text": f"{self.players[seat]} {verb} {CELL_NAMES[cell]}",
                "seat": seat,
                "role": ROLES[color],
                "cell": CELL_NAMES[cell],
                "moved_from": CELL_NAMES[moved_from] if moved_from >= 0 else None,
            }
        )
        kingdom = self.component_of(cell)
        lc = self.leader_cell
        for other in range(self.n):
            other_cell = lc[4 * other + color]
            if other != seat and other_cell >= 0 and kingdom >> other_cell & 1:
                self.pending = Revolt(color, seat, other)
                events.append(
                    {
                        "type": "revolt",
                        "text": f"revolt: {self.players[seat]}'s {ROLES[color]} against "
                        f"{self.players[other]}'s on {CELL_NAMES[other_cell]}",
                        "attacker": seat,
                        "defender": other,
                        "role": ROLES[color],
                    }
                )
                return
        self._treasure_step(events)

    def _place_tile(self, seat: int, color: int, cell: int, events: list[TigrisEvent]) -> None:
        touching = [k for k in self.kingdoms() if k & NEIGHBOURS[cell]]
        self.hands[seat][color] -= 1
        self.up[color] |= 1 << cell
        self._merge_at(cell)
        self.placed = cell
        who = self.players[seat]
        events.append(
            {
                "type": "tile",
                "text": f"{who} places a {COLOURS[color]} tile on {CELL_NAMES[cell]}",
                "seat": seat,
                "color": COLOURS[color],
                "cell": CELL_NAMES[cell],
            }
        )
        if len(touching) == 2:
            self.unification = cell
            kingdom = self.component_of(cell)
            wars = [c for c in range(4) if self._war_pair(c, kingdom) is not None]
            events.append(
                {
                    "type": "unification",
                    "text": f"the tile on {CELL_NAMES[cell]} joins two kingdoms"
                    + (f": war of {', '.join(COLOURS[c] for c in wars)}" if wars else ""),
                    "cell": CELL_NAMES[cell],
                    "wars": [COLOURS[c] for c in wars],
                }
            )
            self._next_war(wars, events)
            return
        if touching:
            kingdom = self.component_of(cell)
            owner = self._owner_in(kingdom, color)
            why = f"{COLOURS[color]} tile on {CELL_NAMES[cell]}"
            if owner < 0:
                owner = self._owner_in(kingdom, BLACK)
                why += ", by the king"
            if owner >= 0:
                amount = (
                    2 if self.buildings[color] >= 0 and kingdom >> self.buildings[color] & 1 else 1
                )
                self._score(owner, color, amount, why, events)
        self._after_conflicts(events)

    def _place_catastrophe(self, seat: int, cell: int, events: list[TigrisEvent]) -> None:
        bit = 1 << cell
        hit = ""
        for color in range(4):
            if self.up[color] & bit:
                self.up[color] &= ~bit
                self.removed[color] += 1
                hit = f", destroying a {COLOURS[color]} tile"
        self.cata |= bit
        self.catastrophes[seat] -= 1
        self._comps = None
        events.append(
            {
                "type": "catastrophe",
                "text": f"{self.players[seat]} places a catastrophe on {CELL_NAMES[cell]}{hit}",
                "seat": seat,
                "cell": CELL_NAMES[cell],
            }
        )
        self._return_stranded_leaders(events)

    # --- conflicts

    def _war_pair(self, color: int, kingdom: int) -> tuple[int, int] | None:
        """The two seats with a leader of ``color`` in ``kingdom``, if there are two."""
        lc = self.leader_cell
        seats = [
            s for s in range(self.n) if lc[4 * s + color] >= 0 and kingdom >> lc[4 * s + color] & 1
        ]
        if len(seats) == 2:
            return seats[0], seats[1]
        return None

    def _next_war(self, colors: list[int], events: list[TigrisEvent]) -> None:
        """Start the next war among ``colors`` (asking for the order if needed) or finish."""
        if self.unification >= 0:
            kingdom = self.component_of(self.unification)
            colors = [c for c in colors if self._war_pair(c, kingdom) is not None]
        if len(colors) > 1:
            self.pending = WarOrder(tuple(colors))
            return
        if colors:
            self._start_war(colors[0], (), events)
            return
        if self.unification >= 0:
            events.append(
                {
                    "type": "unification_removed",
                    "text": f"the unification tile leaves {CELL_NAMES[self.unification]}",
                }
            )
        self.unification = -1
        self.pending = None
        self._after_conflicts(events)

    def _start_war(self, color: int, queue: tuple[int, ...], events: list[TigrisEvent]) -> None:
        kingdom = self.component_of(self.unification)
        pair = self._war_pair(color, kingdom)
        assert pair is not None
        active = self.active
        if active in pair:
            attacker = active
        else:
            attacker = min(pair, key=lambda s: (s - active) % self.n)
        defender = pair[0] if pair[1] == attacker else pair[1]
        self.pending = War(color, attacker, defender, None, tuple(queue))
        events.append(
            {
                "type": "war",
                "text": f"{COLOURS[color]} war: {self.players[attacker]} attacks {self.players[defender]}",
                "color": COLOURS[color],
                "attacker": attacker,
                "defender": defender,
            }
        )

    def side(self, cell: int) -> int:
        """The part of the joined kingdom connected to ``cell`` without the unification tile."""
        within = self.connectors() & ~(1 << self.unification)
        return flood(1 << cell, within)

    def base_strength(self, p: Conflict, seat: int) -> int:
        """Strength before commitments: temples next to the leader (revolt) or supporters (war)."""
        color = p.color
        cell = self.leader_cell[4 * seat + color]
        if isinstance(p, Revolt):
            return self.adjacent_temples(cell)
        return _popcount(self.side(cell) & self.up[color])

    def _commit_options(self, p: Conflict) -> list[int]:
        seat = self.to_move
        have = self.hands[seat][_commit_color(p)]
        if not self.options.english:
            return list(range(have + 1))
        attack = self.base_strength(p, p.attacker)
        defence = self.base_strength(p, p.defender)
        if p.attacker_commit is None:
            return [0] + [n for n in range(1, have + 1) if attack + n > defence]
        need = attack + p.attacker_commit - defence
        return [0, need] if 1 <= need <= have else [0]

    def _apply_pending_action(self, p: Decision, action: Action, events: list[TigrisEvent]) -> None:
        kind, a, cell = action
        if isinstance(p, Revolt | War):
            seat = self.to_move
            color = _commit_color(p)
            self.hands[seat][color] -= a
            self.removed[color] += a
            events.append(
                {
                    "type": "commit",
                    "text": f"{self.players[seat]} commits {a} {COLOURS[color]} tile(s)",
                    "seat": seat,
                    "count": a,
                    "color": COLOURS[color],
                }
            )
            if p.attacker_commit is None:
                self.pending = replace(p, attacker_commit=a)
            elif isinstance(p, Revolt):
                self._resolve_revolt(p, a, events)
            else:
                self._resolve_war(p, a, events)
        elif isinstance(p, WarOrder):
            rest = tuple(c for c in p.colors if c != a)
            self._start_war(a, rest, events)
        elif isinstance(p, MonumentChoice):
            self.pending = None
            if kind == MONUMENT:
                self._build_monument(a, cell, events)
            elif kind == WONDER:
                self._build_wonder(cell, events)
            else:
                events.append({"type": "decline", "text": f"{self.players[self.active]} declines"})
            self._treasure_step(events)
        elif isinstance(p, TreasureChoice):
            self._take_treasure(p.seat, cell, events)
            self.pending = None
            self._treasure_step(events)
        elif isinstance(p, BuildingChoice):
            self.pending = None
            if kind == BUILDING:
                self._put_building(cell, events)
            else:
                events.append({"type": "decline", "text": f"{self.players[self.active]} declines"})
            self._monument_step(events)
        else:  # WonderPoint
            self.pending = None
            self._score(self.active, a, 1, "the wonder", events)
            self._finish_turn(events)

    def _resolve_revolt(self, p: Revolt, defender_commit: int, events: list[TigrisEvent]) -> None:
        attacker, defender, color = p.attacker, p.defender, p.color
        attack = self.base_strength(p, attacker) + (p.attacker_commit or 0)
        defence = self.base_strength(p, defender) + defender_commit
        winner, loser = (attacker, defender) if attack > defence else (defender, attacker)
        lost_cell = self.leader_cell[4 * loser + color]
        self._take_leader(4 * loser + color)
        self.pending = None
        events.append(
            {
                "type": "revolt_result",
                "text": f"{self.players[winner]} wins the revolt {max(attack, defence)}-"
                f"{min(attack, defence)}; {self.players[loser]}'s {ROLES[color]} on "
                f"{CELL_NAMES[lost_cell]} returns",
                "winner": winner,
                "loser": loser,
                "attack": attack,
                "defence": defence,
            }
        )
        self._score(winner, RED, 1, "revolt won", events)
        self._treasure_step(events)

    def _resolve_war(self, p: War, defender_commit: int, events: list[TigrisEvent]) -> None:
        attacker, defender, color = p.attacker, p.defender, p.color
        attack = self.base_strength(p, attacker) + (p.attacker_commit or 0)
        defence = self.base_strength(p, defender) + defender_commit
        winner, loser = (attacker, defender) if attack > defence else (defender, attacker)
        loser_index = 4 * loser + color
        loser_cell = self.leader_cell[loser_index]
        side = self.side(loser_cell)
        self._take_leader(loser_index)
        doomed = side & self.up[color] & ~self._building_mask()
        if color == RED:
            others = 0
            for c in self.leader_cell:
                if c >= 0:
                    others |= NEIGHBOURS[c]
            doomed &= ~self.treasure & ~others
        count = _popcount(doomed)
        self.up[color] &= ~doomed
        self.removed[color] += count
        self._comps = None
        self.pending = None
        events.append(
            {
                "type": "war_result",
                "text": f"{self.players[winner]} wins the {COLOURS[color]} war {max(attack, defence)}-"
                f"{min(attack, defence)}; {self.players[loser]}'s {ROLES[color]} returns and "
                f"{count} {COLOURS[color]} tile(s) leave the board",
                "winner": winner,
                "loser": loser,
                "attack": attack,
                "defence": defence,
                "removed": [CELL_NAMES[c] for c in cells_of(doomed)],
            }
        )
        self._score(winner, color, 1 + count, f"{COLOURS[color]} war won", events)
        self._return_stranded_leaders(events)
        self._next_war(list(p.queue), events)

    # --- after conflicts: building, monument / wonder, treasures

    def _after_conflicts(self, events: list[TigrisEvent]) -> None:
        if self.options.buildings and self._building_options():
            self.pending = _BUILDING_CHOICE
            return
        self._monument_step(events)

    def _line(self, cell: int, tiles: int, step: int) -> int:
        """The unbroken horizontal (step 1) or vertical (step 16) line of ``tiles`` through ``cell``."""
        line = 1 << cell
        row = cell // COLUMNS
        for direction in (-step, step):
            other = cell + direction
            while (
                0 <= other < 176 and (step != 1 or other // COLUMNS == row) and tiles >> other & 1
            ):
                line |= 1 << other
                other += direction
        return line

    def _building_options(self) -> int:
        """Tiles of a 3+ line through the placed tile where its colour's building may go."""
        cell = self.placed
        if cell < 0 or not self.options.buildings:
            return 0
        color = next((c for c in range(4) if self.up[c] >> cell & 1), -1)
        if color < 0:
            return 0
        tiles = self.up[color]
        current = self.buildings[color]
        beat = 0
        if current >= 0:  # a building moves only to a longer line than where it stands
            beat = max(
                _popcount(self._line(current, tiles, 1)),
                _popcount(self._line(current, tiles, COLUMNS)),
            )
        out = 0
        for step in (1, COLUMNS):
            line = self._line(cell, tiles, step)
            length = _popcount(line)
            if length >= 3 and length > beat:
                out |= line
        if current >= 0:
            out &= ~(1 << current)
        return out

    def _put_building(self, cell: int, events: list[TigrisEvent]) -> None:
        color = next(c for c in range(4) if self.up[c] >> cell & 1)
        moved = self.buildings[color] >= 0
        self.buildings[color] = cell
        events.append(
            {
                "type": "building",
                "text": f"{self.players[self.active]} {'moves' if moved else 'puts'} the {COLOURS[color]} "
                f"building {'to' if moved else 'on'} {CELL_NAMES[cell]}",
                "color": COLOURS[color],
                "cell": CELL_NAMES[cell],
            }
        )

    def _wonder_options(self) -> list[int]:
        """Centres of plus-shaped crosses of 5 face-up tiles of one colour the placed tile completes."""
        cell = self.placed
        if cell < 0 or not self.options.wonder or self.wonder >= 0:
            return []
        color = next((c for c in range(4) if self.up[c] >> cell & 1), -1)
        if color < 0:
            return []
        tiles = self.up[color]
        out = []
        for centre in cells_of(NEIGHBOURS[cell] | 1 << cell):
            plus = _PLUS[centre]
            if plus and tiles & plus == plus:
                out.append(centre)
        return out

    def _clear_buildings(self, covered: int) -> None:
        """The buildings on the cells ``covered`` (by a monument or the wonder) leave."""
        for building_color, building_cell in enumerate(self.buildings):
            if building_cell >= 0 and covered >> building_cell & 1:
                self.buildings[building_color] = -1

    def _build_wonder(self, centre: int, events: list[TigrisEvent]) -> None:
        plus = _PLUS[centre]
        color = next(c for c in range(4) if self.up[c] & plus == plus)
        self.up[color] &= ~plus
        self.removed[color] += 5
        self.wonder = centre  # the wonder covers the same cells: connectivity is unchanged
        self._clear_buildings(plus)
        events.append(
            {
                "type": "wonder",
                "text": f"{self.players[self.active]} builds the wonder on {CELL_NAMES[centre]} "
                f"from five {COLOURS[color]} tiles",
                "cell": CELL_NAMES[centre],
            }
        )
        self._return_stranded_leaders(events)

    def _monument_options(self) -> list[Action]:
        cell = self.placed
        if cell < 0:
            return []
        out: list[Action] = []
        for color in range(4):
            tiles = self.up[color]
            if not tiles >> cell & 1:
                continue
            used = {m for m, _ in self.monuments}
            for top_left in sorted(_SQUARES[cell]):
                square = SQUARE_MASK[top_left]
                if tiles & square == square:
                    out += [
                        Action(MONUMENT, m, top_left)
                        for m, pair in enumerate(MONUMENTS)
                        if color in pair and m not in used
                    ]
        return out

    def _why_no_monument(self, monument: int, cell: int) -> DisallowedAction:
        if any(m == monument for m, _ in self.monuments):
            return DisallowedAction(
                N_("the {monument} monument is already built"), monument=MONUMENT_NAMES[monument]
            )
        return DisallowedAction(
            N_("{monument} cannot be built with its top-left corner on {cell}"),
            monument=MONUMENT_NAMES[monument],
            cell=CELL_NAMES[cell],
        )

    def _monument_step(self, events: list[TigrisEvent]) -> None:
        if self._monument_options() or self._wonder_options():
            self.pending = _MONUMENT_CHOICE
            return
        self._treasure_step(events)

    def _build_monument(self, monument: int, top_left: int, events: list[TigrisEvent]) -> None:
        square = SQUARE_MASK[top_left]
        color = next(c for c in MONUMENTS[monument] if self.up[c] & square == square)
        self.up[color] &= ~square
        self.down[color] |= square
        self.monuments.append((monument, top_left))
        self._clear_buildings(square)
        events.append(
            {
                "type": "monument",
                "text": f"{self.players[self.active]} builds the {MONUMENT_NAMES[monument]} monument on "
                f"{CELL_NAMES[top_left]}",
                "monument": MONUMENT_NAMES[monument],
                "cell": CELL_NAMES[top_left],
            }
        )
        self._return_stranded_leaders(events)

    def _treasure_step(self, events: list[TigrisEvent]) -> None:
        """Traders collect all but one treasure of their kingdom; specials first."""
        special = self.board.special
        while True:
            for kingdom in sorted(self.kingdoms(), key=lambda k: k & -k):
                found = kingdom & self.treasure
                total = _popcount(found)
                if total < 2:
                    continue
                owner = self._owner_in(kingdom, GREEN)
                if owner < 0:
                    continue
                specials = found & special
                if specials:
                    candidates, picks = specials, min(_popcount(specials), total - 1)
                else:
                    candidates, picks = found, total - 1
                if picks == _popcount(candidates):
                    for cell in cells_of(candidates):
                        self._take_treasure(owner, cell, events)
                    break
                self.pending = TreasureChoice(owner, tuple(cells_of(candidates)))
                return
            else:
                break
        self.pending = None
        self._end_action(events)

    def _take_treasure(self, seat: int, cell: int, events: list[TigrisEvent]) -> None:
        self.treasure &= ~(1 << cell)
        self.treasures[seat] += 1
        events.append(
            {
                "type": "treasure",
                "text": f"{self.players[seat]} takes the treasure on {CELL_NAMES[cell]}",
                "seat": seat,
                "cell": CELL_NAMES[cell],
            }
        )

    # --- end of action and turn

    def _end_action(self, events: list[TigrisEvent]) -> None:
        self.placed = -1
        self.actions_left -= 1
        if self.actions_left <= 0:
            self._end_turn(events)

    def _end_turn(self, events: list[TigrisEvent]) -> None:
        seat = self.active
        self.actions_left = 0
        lc = self.leader_cell
        for color in range(4):
            cell = lc[4 * seat + color]
            if cell < 0:
                continue
            kingdom = self.component_of(cell)
            if any(
                color in MONUMENTS[m] and kingdom >> top_left & 1 for m, top_left in self.monuments
            ):
                self._score(seat, color, 1, f"monument, {ROLES[color]}", events)
        if self.wonder >= 0 and lc[4 * seat + BLACK] >= 0:
            if self.component_of(lc[4 * seat + BLACK]) >> self.wonder & 1:
                self.pending = _WONDER_POINT
                return
        self._finish_turn(events)

    def _finish_turn(self, events: list[TigrisEvent]) -> None:
        seat = self.active
        for offset in range(self.n):
            other = (seat + offset) % self.n
            need = HAND_SIZE - sum(self.hands[other])
            if need > 0:
                self._draw(other, need)
        if self.ending or _popcount(self.treasure) <= 2:
            self.over = True
            self.pending = None
            reason = "the bag is empty" if self.ending else "two or fewer treasures remain"
            events.append({"type": "game_over", "text": f"the game ends: {reason}"})
            return
        self.active = (seat + 1) % self.n
        self.actions_left = 2
        events.append(
            {"type": "turn", "text": f"{self.players[self.active]}'s turn", "seat": self.active}
        )

    # ----------------------------------------------------------------- results

    def final_points(self, seat: int) -> list[int]:
        """Points per colour once treasures are assigned to lift the lowest colours."""
        points = self.points[seat][:]
        for _ in range(self.treasures[seat]):
            points[points.index(min(points))] += 1
        return points

    def result(self) -> list[TigrisResult]:
        """Per seat: points, treasures, score (lowest colour) and place (1 = winner): ties
        are broken by the second lowest colour, then the third, then the highest."""
        finals = [self.final_points(seat) for seat in range(self.n)]
        ranks = places([tuple(sorted(final)) for final in finals])
        return [
            {
                "seat": seat,
                "dynasty": self.players[seat],
                "points": dict(zip(COLOURS, self.points[seat], strict=True)),
                "treasures": self.treasures[seat],
                "final": dict(zip(COLOURS, finals[seat], strict=True)),
                "score": min(finals[seat]),
                "place": ranks[seat],
            }
            for seat in range(self.n)
        ]

    # ----------------------------------------------------------------- hidden information

    def sample_hidden(self, seat: int, rng: random.Random) -> TigrisState:
        """A full state consistent with all ``seat`` knows: other hands, discards and bag re-dealt."""
        s = self.clone()
        pool: list[int] = []
        for other in range(self.n):
            if other == seat:
                continue
            for color in range(4):
                pool += [color] * (self.hands[other][color] + self.discards[other][color])
        pool += self.bag
        rng.shuffle(pool)
        at = 0
        for other in range(self.n):
            if other == seat:
                continue
            for table in (s.hands, s.discards):
                size = sum(table[other])
                counts = [0, 0, 0, 0]
                for color in pool[at : at + size]:
                    counts[color] += 1
                table[other] = counts
                at += size
        s.bag = pool[at:]
        s._legal = s._legal_ids = None  # the board (and its analysis) stays as it is
        return s

    def with_hidden(self, hands: Sequence[Sequence[str]], bag: Sequence[str]) -> TigrisState:
        """A copy with every hand and the bag order set as given: an exact determinization.

        ``hands`` per seat as ``hand(seat)`` spells them (colour names), ``bag`` first drawn
        first as in positions. Only hidden tiles move: each hand keeps its size and together
        they hold the tiles the hands and the bag hold now (discards stay as they are);
        ValueError otherwise (this state is never changed).
        """
        hidden_now = [c for hand in self.hands for c in range(4) for _ in range(hand[c])]
        new_hands, new_bag = read_hidden(
            hands,
            bag,
            [sum(hand) for hand in self.hands],
            hidden_now + self.bag,
            COLOR_BY_NAME,
            unknown="not a tile colour",
            pile_word="bag",
        )
        counts = [[hand.count(c) for c in range(4)] for hand in new_hands]
        s = self.clone()
        s.hands = counts
        s.bag = new_bag
        s._legal = s._legal_ids = None
        return s

    def order_pile(self, front: Sequence[str]) -> None:
        """Make the bag's next draws ``front``, in that order (first drawn first); the other
        tiles keep their order. For chance-driven play, which fixes the draws just before they
        happen. ValueError, and nothing changes, when the bag does not hold those tiles."""
        bag = self.bag[:]
        try:
            colors = [COLOR_BY_NAME[name] for name in front]
            for color in colors:
                bag.remove(color)  # tiles of one colour are alike: any copy will do
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"the bag does not hold {', '.join(map(str, front))}") from None
        bag.extend(reversed(colors))
        self.bag = bag

    def view(self, seat: int | None) -> TigrisView:
        return view(self, seat)

    def public_action(self, action: str, viewer: int | None = None) -> str:
        """What ``viewer`` (None: a spectator) may know of ``action``, made by the seat to move
        here (docs/contract.md)."""
        return public_action(action, self.to_move, viewer_seat(viewer, self.n))

    def to_position(self) -> JSON:
        return to_position(self)

    # ----------------------------------------------------------------- analysis (docs/contract.md)

    def geometry(self) -> Geometry:
        return GEOMETRIES[self.options.board]

    def contents(self) -> tuple[Content | None, ...]:
        """Per cell, what lies on it (None: empty)."""
        found = self._contents
        if found is None:
            out: list[Content | None] = [None] * CELLS
            treasure = self.treasure
            for color in range(4):
                for cell in cells_of(self.up[color]):
                    out[cell] = _TILE_CONTENT[color][treasure >> cell & 1]
                for cell in cells_of(self.down[color]):
                    out[cell] = _DOWN_CONTENT[color][treasure >> cell & 1]
            for cell in cells_of(self.wonder_mask()):
                out[cell] = _WONDER_CONTENT[treasure >> cell & 1]
            for cell in cells_of(self.cata):
                out[cell] = _CATASTROPHE_CONTENT
            for index, cell in enumerate(self.leader_cell):
                if cell >= 0:
                    out[cell] = _LEADER_CONTENT[index]
            found = self._contents = tuple(out)
        return found

    def regions(self) -> tuple[Region, ...]:
        """Every region and kingdom (a region holding a leader), by their lowest cell."""
        found = self._regions
        if found is None:
            found = self._analyse_regions()
        return found

    def region_map(self) -> tuple[int, ...]:
        """Per cell, the index in ``regions()`` of the region holding it (-1: none)."""
        found = self._region_map
        if found is None:
            self._analyse_regions()
            found = self._region_map
            assert found is not None
        return found

    def _analyse_regions(self) -> tuple[Region, ...]:
        """Work out regions() and region_map() together, in one pass over the components."""
        leader_cells, treasure, up = self.leaders, self.treasure, self.up
        up0, up1, up2, up3 = up
        at = {cell: index for index, cell in enumerate(self.leader_cell) if cell >= 0}
        monuments = sorted(self.monuments, key=lambda m: m[1])
        region_map = [-1] * CELLS
        regions = []
        for number, mask in enumerate(sorted(self.components(), key=lambda m: m & -m)):
            cells = _cells(mask)
            for cell in cells:
                region_map[cell] = number
            here = mask & leader_cells
            leaders = tuple(Leader(at[c] >> 2, at[c] & 3, c) for c in _cells(here)) if here else ()
            treasures = mask & treasure
            regions.append(
                Region(
                    cells,
                    leaders,
                    (
                        (mask & up0).bit_count(),
                        (mask & up1).bit_count(),
                        (mask & up2).bit_count(),
                        (mask & up3).bit_count(),
                    ),
                    _cells(treasures) if treasures else (),
                    tuple(Monument(MONUMENTS[m], c) for m, c in monuments if mask >> c & 1)
                    if monuments
                    else (),
                )
            )
        found = self._regions = tuple(regions)
        self._region_map = tuple(region_map)
        return found

    def dynasty(self, seat: int) -> Dynasty:
        hand, points = self.hands[seat], self.points[seat]
        return Dynasty(
            name=self.players[seat],
            hand=(hand[0], hand[1], hand[2], hand[3]),
            points=(points[0], points[1], points[2], points[3]),
            treasures=self.treasures[seat],
            catastrophes=self.catastrophes[seat],
            supply=tuple(c for c in range(4) if self.leader_cell[4 * seat + c] < 0),
        )

    def bag_size(self) -> int:
        return len(self.bag)

    def decision(self) -> Decision | None:
        return self.pending

    def conflict_strengths(self) -> tuple[int, int] | None:
        p = self.pending
        if isinstance(p, Revolt | War):
            return self.base_strength(p, p.attacker), self.base_strength(p, p.defender)
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TigrisState):
            return NotImplemented
        return self.to_position() == other.to_position()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<TigrisState {len(self.players)}p active={self.active} to_move={self.to_move}>"


__all__ = ["TigrisState"]
