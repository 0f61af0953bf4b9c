"""The Gheos rules: a game state, its legal actions and what each action does.

A turn goes through steps (``phase``): ``tile`` (place or replace a tile), then, when that
started a war or a migration, ``pay`` / ``migrate`` / ``war`` (the active player's choices
while it is resolved), then ``civ`` (start a civilization or take a follower), then ``token``
(play a scoring token or pass); drawing back to two tiles ends the turn. Steps with nothing to
decide are skipped. Every decision is the active player's, so ``to_move`` is always ``active``.
See docs/gheos.md for the notation and the rulings where the rulebook is silent.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cradle.core.contract import JSON
from cradle.core.fast import ReferenceFastPaths
from cradle.core.hidden import read_hidden, viewer_seat
from cradle.core.results import places
from cradle.core.words import N_
from cradle.gheos import actions as ids
from cradle.gheos.analysis import Area, Civilization, PlacedTile, Player
from cradle.gheos.areas import AreaTally, Board, compute_areas
from cradle.gheos.geometry import (
    CELL_NAME,
    COL,
    NEIGHBOURS,
    ROW,
    ROW_COL,
    edge_name,
)
from cradle.gheos.notation import Reading, read_action
from cradle.gheos.position import to_position
from cradle.gheos.tiles import Tile, TileSet
from cradle.gheos.types import (
    COLOURS,
    END_EPOCH,
    EPOCH,
    FOLLOWERS_PER_COLOUR,
    HAND_SIZE,
    HIDDEN_NAMES,
    TOKENS,
    Conflict,
    DisallowedAction,
    GheosEvent,
    GheosResult,
    GheosSummary,
    GheosView,
    MalformedAction,
    Options,
)
from cradle.gheos.view import public_action, summary, view


@dataclass
class Plan:
    """What a tile action would do to the areas and the civilizations, before it is made."""

    board: Board
    area_of: dict[int, int]
    area_list: list[AreaTally]
    anchors: dict[int, int]  # colour -> a region of its (single) new area, for those staying
    swords: dict[int, int]
    migrations: list[tuple[int, list[int], bool]]
    split: bool  # some occupied continent split: a migration
    war: bool  # (when nothing split) two civilizations now share an area


class GheosState(ReferenceFastPaths):
    """A Gheos position with the operations of the contract (docs/contract.md) and the fast
    paths of every engine (``cradle.core.contract.FastState``)."""

    MALFORMED = MalformedAction

    __slots__ = (
        "_area_base",
        "_areas",
        "_legal",
        "_legal_ids",
        "_occupied",
        "active",
        "area_list",
        "area_of",
        "board",
        "civs",
        "conflict",
        "epochs",
        "frontier",
        "hands",
        "held",
        "names",
        "options",
        "phase",
        "points",
        "removed",
        "stack",
        "supply",
        "tiles",
        "tileset",
        "tokens",
    )

    def __init__(self, tileset: TileSet, options: Options, names: tuple[str, ...]) -> None:
        self.tileset = tileset
        self.tiles: tuple[Tile, ...] = tileset.tiles
        self.options = options
        self.names = names
        count = len(names)
        self.active = 0
        self.phase = "tile"
        self.board: Board = {}
        self.frontier: set[int] = set()
        self.hands: list[list[int]] = [[] for _ in range(count)]
        self.stack: list[int] = []  # the next tile drawn is the LAST element
        self.removed: list[int] = []
        self.civs: dict[int, int] = {}  # colour index -> a region of its continent
        self.held: list[list[int]] = [[0] * len(COLOURS) for _ in range(count)]
        self.supply = [FOLLOWERS_PER_COLOUR] * len(COLOURS)
        self.points = [0] * count
        self.tokens = [TOKENS] * count
        self.epochs = 0
        self.conflict: Conflict | None = None
        self.area_of: dict[int, int] = {}
        self.area_list: list[AreaTally] = []
        self._legal: list[str] | None = None
        self._legal_ids: list[int] | None = None
        self._occupied: dict[int, int] | None = None
        # The analysis's areas, as they are made: without civilizations (for this area_list),
        # and all of them with their civilizations (for this occupied dict); each follows the
        # object it was made from, by identity.
        self._area_base: tuple[list[AreaTally], dict[tuple[int, int], Area]] | None = None
        self._areas: tuple[dict[int, int], tuple[Area, ...]] | None = None

    game = "gheos"

    # -- the contract ----------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self.names

    @property
    def to_move(self) -> int:
        return self.active

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def clone(self) -> GheosState:
        other = GheosState.__new__(GheosState)
        other.tileset = self.tileset
        other.tiles = self.tiles
        other.options = self.options
        other.names = self.names
        other.active = self.active
        other.phase = self.phase
        other.board = dict(self.board)
        other.frontier = set(self.frontier)
        other.hands = [list(hand) for hand in self.hands]
        other.stack = list(self.stack)
        other.removed = list(self.removed)
        other.civs = dict(self.civs)
        other.held = [list(row) for row in self.held]
        other.supply = list(self.supply)
        other.points = list(self.points)
        other.tokens = list(self.tokens)
        other.epochs = self.epochs
        other.conflict = None if self.conflict is None else self.conflict.copy()
        other.area_of = self.area_of  # never changed in place: shared
        other.area_list = self.area_list
        other._legal = self._legal  # lists never changed in place: shared
        other._legal_ids = self._legal_ids
        other._occupied = self._occupied
        other._area_base = self._area_base
        other._areas = self._areas
        return other

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = self._generate(False)
        return list(self._legal)

    def legal_action_ids(self) -> list[int]:
        """The legal actions as fixed ids (cradle.gheos.actions, docs/gheos.md), in the order
        of ``legal_actions()``; ``apply`` takes an id too."""
        if self._legal_ids is None:
            self._legal_ids = self._generate(True)
        return list(self._legal_ids)

    def conflict_actions(self) -> list[str]:
        """The legal tile actions that start a war or a migration, in the order of
        ``legal_actions()``: the moves that can take a civilization off the table. None outside
        the tile phase, and none for a player who cannot pay for one (they are not legal)."""
        if self.phase != "tile" or not any(self.held[self.active]):
            return []
        return self._tile_actions(False, conflicts=True)

    def hand(self, seat: int) -> list[str]:
        """The tiles in ``seat``'s hand, lowest number first (what its view shows), cheaply."""
        return [f"t{number}" for number in sorted(self.hands[seat])]

    def action_string(self, action_id: int) -> str:
        """The notation of the fixed id ``action_id`` now: a hand slot becomes the tile in it.

        MalformedAction for an id out of range, DisallowedAction for an empty hand slot."""
        if isinstance(action_id, bool) or not isinstance(action_id, int):
            raise MalformedAction(
                N_("an action id is an integer, not {kind}"), kind=type(action_id).__name__
            )
        if not 0 <= action_id < ids.ACTION_COUNT:
            raise MalformedAction(
                N_("action id {id} is outside 0..{last}"), id=action_id, last=ids.ACTION_COUNT - 1
            )
        if action_id < ids.START:
            replacing, slot, cell, rotation = ids.split_tile_id(action_id)
            hand = sorted(self.hands[self.active])
            if slot >= len(hand):
                raise DisallowedAction(
                    N_(
                        "action id {id} plays hand slot #{slot}, but {player} holds {count} tile(s)"
                    ),
                    id=action_id,
                    slot=slot,
                    player=self.names[self.active],
                    count=len(hand),
                )
            verb = "replace" if replacing else "place"
            return f"{verb} t{hand[slot]} {CELL_NAME[cell]} r{rotation}"
        if action_id < ids.PAY:
            migrating, colour, cell, edge = ids.split_region_id(action_id)
            verb = "migrate" if migrating else "start"
            return f"{verb} {COLOURS[colour]} {CELL_NAME[cell]}:{edge_name(cell, edge)}"
        if action_id < ids.TOKEN:
            kind, colour = divmod(action_id - ids.PAY, len(COLOURS))
            return f"{('pay', 'take', 'winner')[kind]} {COLOURS[colour]}"
        return "token" if action_id == ids.TOKEN else "pass"

    def _id_action(self, action_id: int) -> str:
        """The notation of ``action_id`` if it is one of ``legal_action_ids()``; otherwise
        DisallowedAction, also for ids whose notation ``apply`` would accept as an equivalent
        spelling (another rotation of a symmetric tile, another region of the same area)."""
        text = self.action_string(action_id)
        canonical = True
        if action_id < ids.START:
            _, slot, _, rotation = ids.split_tile_id(action_id)
            number = sorted(self.hands[self.active])[slot]
            canonical = rotation in self.tiles[number].rotations
        elif action_id < ids.PAY:
            _, _, cell, edge = ids.split_region_id(action_id)
            placed = self.board.get(cell)
            if placed is not None:
                number, rotation = placed
                layout = self.tiles[number].edge_region[rotation]
                node = cell * 3 + layout[edge]
                # An area is named by its first region, and a region by its first edge.
                canonical = (
                    self.area_list[self.area_of[node]].regions[0] == node
                    and layout.index(layout[edge]) == edge
                )
        if not canonical:
            raise DisallowedAction(
                N_(
                    "action id {id} ({action}) is not legal: the same decision has another id "
                    "(see legal_action_ids())"
                ),
                id=action_id,
                action=text,
            )
        return text

    def apply(self, action: str | int) -> list[GheosEvent]:
        if isinstance(action, int) and not isinstance(action, bool):
            legal = self._legal_ids
            if legal is not None and action in legal:
                # Listed by legal_action_ids(): legal as it stands, so no notation is spelled
                # and parsed again on the way.
                events = self._apply_legal_id(action)
                self._legal = self._legal_ids = None
                return events
            action = self._id_action(action)
        if not isinstance(action, str):
            raise MalformedAction(
                N_("an action is a string (or an action id), not {kind}"),
                kind=type(action).__name__,
            )
        words = action.strip().lower().split()
        if not words:
            raise MalformedAction(N_("empty action"))
        reading = read_action(words)
        if self.phase == "over":
            raise DisallowedAction(N_("the game is over"))
        handler = _HANDLERS.get((self.phase, reading.verb))
        if handler is None:
            raise self._wrong_step(reading.verb)
        events = handler(self, reading)
        self._legal = self._legal_ids = None
        return events

    def _apply_legal_id(self, action_id: int) -> list[GheosEvent]:
        """Carry out ``action_id``, one of ``legal_action_ids()``."""
        if action_id < ids.START:
            replacing, slot, cell, rotation = ids.split_tile_id(action_id)
            number = sorted(self.hands[self.active])[slot]
            return self._tile_action(number, cell, rotation, replacing)
        if action_id < ids.PAY:
            migrating, colour, cell, edge = ids.split_region_id(action_id)
            number, rotation = self.board[cell]
            area = self.area_of[cell * 3 + self.tiles[number].edge_region[rotation][edge]]
            return self._migrate_to(area) if migrating else self._start(colour, area)
        if action_id < ids.TAKE:
            return self._pay_with(action_id - ids.PAY)
        if action_id < ids.WINNER:
            return self._take(action_id - ids.TAKE)
        if action_id < ids.TOKEN:
            return self._winner(action_id - ids.WINNER)
        return self._play_token() if action_id == ids.TOKEN else self._end_turn()

    def result(self) -> list[GheosResult]:
        """Standings (final once the game is over): place 1 wins, ties share a place; the
        followers held break a tie in points."""
        followers = [sum(row) for row in self.held]
        ranks = places([(points, followers[seat]) for seat, points in enumerate(self.points)])
        return [
            {
                "seat": seat,
                "player": name,
                "points": self.points[seat],
                "followers": followers[seat],
                "score": self.points[seat],
                "place": ranks[seat],
            }
            for seat, name in enumerate(self.names)
        ]

    def to_position(self) -> JSON:
        return to_position(self)

    def view(self, seat: int | None) -> GheosView:
        """All ``seat`` may know (``None``: a spectator, public information only)."""
        return view(self, seat)

    def public_action(self, action: str, viewer: int | None = None) -> str:
        """What ``viewer`` (None: a spectator) may know of ``action``, made by the seat to move
        here (docs/contract.md)."""
        return public_action(action, self.to_move, viewer_seat(viewer, len(self.names)))

    def summary(self) -> GheosSummary:
        """Public numbers only, in the view's keys (see cradle.gheos.view.summary): cheap."""
        return summary(self)

    def sample_hidden(self, seat: int, rng: random.Random) -> GheosState:
        """A copy in which what ``seat`` cannot see (other hands, the stack order) is redrawn.

        The unseen landscape tiles are dealt again at random to the other hands (same sizes)
        and, with the epoch tiles still in the stack, shuffled into a new stack.
        """
        other = self.clone()
        unseen = [t for s, hand in enumerate(self.hands) if s != seat for t in hand]
        unseen += [t for t in self.stack if t != EPOCH]
        epochs = sum(1 for t in self.stack if t == EPOCH)
        rng.shuffle(unseen)
        for s, hand in enumerate(self.hands):
            if s != seat:
                other.hands[s] = sorted(unseen[: len(hand)])
                del unseen[: len(hand)]
        stack = unseen + [EPOCH] * epochs
        rng.shuffle(stack)
        other.stack = stack
        other._legal = other._legal_ids = None
        return other

    def with_hidden(self, hands: Sequence[Sequence[str]], pile: Sequence[str]) -> GheosState:
        """A copy with every hand and the stack order set as given: an exact determinization.

        ``hands`` per seat as ``hand(seat)`` spells them (``"t12"``), ``pile`` first drawn
        first as in positions (``"epoch"`` for an epoch tile). Only hidden tiles move: each
        hand keeps its size and together they hold the tiles hands and stack hold now;
        ValueError otherwise (this state is never changed).
        """

        def no_epoch(seat: int, hand: list[int]) -> None:
            if EPOCH in hand:
                raise ValueError(f"an epoch tile cannot be in seat {seat}'s hand")

        hands_read, stack = read_hidden(
            hands,
            pile,
            [len(hand) for hand in self.hands],
            [t for hand in self.hands for t in hand] + self.stack,
            HIDDEN_NAMES,
            unknown="not a tile of the hands or the stack",
            pile_word="pile",
            check_hand=no_epoch,
        )
        other = self.clone()
        other.hands = [sorted(hand) for hand in hands_read]
        other.stack = stack
        other._legal = other._legal_ids = None
        return other

    def order_pile(self, front: Sequence[str]) -> None:
        """Make the stack's next draws ``front``, in that order (first drawn first); the other
        tiles keep their order. For chance-driven play, which fixes the draws just before they
        happen. ValueError, and nothing changes, when the stack does not hold those tiles."""
        try:
            wanted = [HIDDEN_NAMES[name] for name in front]
        except (KeyError, TypeError):
            raise ValueError(f"not a tile of the stack in {list(front)!r}") from None
        stack = self.stack
        # Tiles already in place (the stack is drawn from its end) stay where they are.
        end = len(stack)
        placed = 0
        while placed < len(wanted) and placed < end and stack[end - 1 - placed] == wanted[placed]:
            placed += 1
        rest = stack[: end - placed]
        try:
            for number in wanted[placed:]:
                rest.remove(number)
        except ValueError:
            raise ValueError(f"the stack does not hold {', '.join(front)}") from None
        rest.extend(reversed(wanted))
        self.stack = rest

    # -- analysis (docs/contract.md) --------------------------------------------------------

    def tiles_on_map(self) -> tuple[PlacedTile, ...]:
        """The placed tiles, by cell."""
        area_of = self.area_of
        out = []
        for cell, (number, rotation) in sorted(self.board.items()):
            e0, e1, e2 = self.tiles[number].edge_region[rotation]
            base = cell * 3
            areas = (area_of[base + e0], area_of[base + e1], area_of[base + e2])
            out.append(PlacedTile(ROW[cell], COL[cell], number, rotation, areas))
        return tuple(out)

    def areas(self) -> tuple[Area, ...]:
        """Every area, ordered by its first region (``Area.number`` is the position)."""
        occupied = self.occupied()
        found = self._areas
        if found is None or found[0] is not occupied:
            found = self._areas = (
                occupied,
                tuple(self.area(index) for index in range(len(self.area_list))),
            )
        return found[1]

    def area(self, index: int) -> Area:
        """The area ``areas()[index]`` alone (cheaper than all of them)."""
        made = self._area_base
        if made is None or made[0] is not self.area_list:
            made = self._area_base = (self.area_list, {})
        key = (index, self.occupied().get(index, -1))
        found = made[1].get(key)
        if found is None:
            found = made[1][key] = self._make_area(self.area_list[index], key[1])
        return found

    def _make_area(self, tally: AreaTally, civilization: int) -> Area:
        temples = [0, 0, 0]
        board, tiles = self.board, self.tiles
        for node in tally.regions:
            kind = tiles[board[node // 3][0]].temple_kinds[node % 3]
            if kind >= 0:
                temples[kind] += 1
        # Regions are ascending, so a tile's regions come together.
        cells = dict.fromkeys(node // 3 for node in tally.regions)
        return Area(
            number=tally.index,
            ref=self.region_ref(tally.regions[0]),
            kind=tally.kind,
            cells=tuple(ROW_COL[cell] for cell in cells),
            wheat=tally.wheat,
            cup=tally.cup,
            sword=tally.sword,
            pyramid=tally.pyramid,
            temples=(temples[0], temples[1], temples[2]),
            civilization=civilization,
        )

    def civilizations(self) -> tuple[Civilization, ...]:
        """The civilizations on the map, by colour."""
        return tuple(
            Civilization(
                colour=colour,
                area=self.area_of[anchor],
                supply=self.supply[colour],
                followers=tuple([row[colour] for row in self.held]),
            )
            for colour, anchor in sorted(self.civs.items())
        )

    def player(self, seat: int) -> Player:
        return Player(
            name=self.names[seat],
            points=self.points[seat],
            tokens=self.tokens[seat],
            followers=tuple(self.held[seat]),
            hand=tuple(sorted(self.hands[seat])),
        )

    def stack_size(self) -> int:
        return len(self.stack)

    # -- helpers ---------------------------------------------------------------------------

    @property
    def end_epoch(self) -> int:
        return END_EPOCH[len(self.names)]

    def occupied(self) -> dict[int, int]:
        """AreaTally index -> colour of the civilization on it."""
        if self._occupied is None:
            # Two civilizations share an area only during a war: the lowest colour names it,
            # a rule of the position (views must not depend on the order civilizations came).
            self._occupied = {
                self.area_of[anchor]: c for c, anchor in sorted(self.civs.items(), reverse=True)
            }
        return self._occupied

    def civ_area(self, colour: int) -> AreaTally:
        return self.area_list[self.area_of[self.civs[colour]]]

    def region_ref(self, node: int) -> str:
        """The name of a region: its cell and the first cell edge it touches."""
        cell, k = divmod(node, 3)
        number, rotation = self.board[cell]
        layout = self.tiles[number].edge_region[rotation]
        return f"{CELL_NAME[cell]}:{edge_name(cell, layout.index(k))}"

    def area_ref(self, index: int) -> str:
        return self.region_ref(self.area_list[index].regions[0])

    def _wrong_step(self, verb: str) -> DisallowedAction:
        """Why ``verb`` (one of the notation's) is not possible at this step."""
        return DisallowedAction(
            _EXPECTED[self.phase], verb=repr(verb), player=self.names[self.active]
        )

    # -- legal actions ---------------------------------------------------------------------

    def _generate(self, as_ids: bool) -> list[Any]:
        """The legal actions as notation, or (``as_ids``) as fixed ids in the same order."""
        phase = self.phase
        if phase == "tile":
            return self._tile_actions(as_ids)
        if phase == "civ":
            return self._civ_actions(as_ids)
        if phase == "token":
            return [ids.TOKEN, ids.PASS] if as_ids else ["token", "pass"]
        conflict = self.conflict
        if phase == "pay":
            row = self.held[self.active]
            if as_ids:
                return [ids.PAY + c for c in range(len(COLOURS)) if row[c]]
            return [f"pay {COLOURS[c]}" for c in range(len(COLOURS)) if row[c]]
        if phase == "migrate" and conflict is not None:
            colour, options, _ = conflict.migrations[0]
            if as_ids:
                return [self._region_id(ids.MIGRATE, colour, self.area_list[a]) for a in options]
            return [f"migrate {COLOURS[colour]} {self.area_ref(a)}" for a in options]
        if phase == "war" and conflict is not None and conflict.wars:
            if as_ids:
                return [ids.WINNER + c for c in conflict.wars[0][1]]
            return [f"winner {COLOURS[c]}" for c in conflict.wars[0][1]]
        return []

    def _region_id(self, base: int, colour: int, area: AreaTally) -> int:
        """The id naming ``area`` as ``area_ref`` does: its first region, by its first edge."""
        cell, k = divmod(area.regions[0], 3)
        number, rotation = self.board[cell]
        edge = self.tiles[number].edge_region[rotation].index(k)
        return base + (colour * ids.CELLS + ids.CELL_POSITION[cell]) * 3 + edge

    def _tile_actions(self, as_ids: bool, conflicts: bool = False) -> list[Any]:
        """The active player's legal tile actions; ``conflicts``: only those that start a war
        or a migration (the player can pay for one)."""
        tiles = self.tiles
        hand = sorted(self.hands[self.active])
        # Which actions start a conflict matters to a player who cannot pay, or when asked.
        checked = conflicts or not any(self.held[self.active])
        position = ids.CELL_POSITION
        slots = ids.CELLS * 3
        out: list[Any] = []
        for cell in sorted(self.frontier):
            allowed = self._placement_filter(cell) if checked else None
            if conflicts and allowed is None:
                continue  # only a cell between two civilizations can start a war
            name = CELL_NAME[cell]
            base = ids.PLACE + position[cell] * 3
            for slot, number in enumerate(hand):
                tile = tiles[number]
                for rotation in tile.rotations:
                    if allowed is not None and allowed(tile, rotation) == conflicts:
                        continue
                    out.append(
                        base + slot * slots + rotation
                        if as_ids
                        else f"place t{number} {name} r{rotation}"
                    )
        board = self.board
        for cell in sorted(board):
            if tiles[board[cell][0]].pyramid:
                continue
            name = CELL_NAME[cell]
            base = ids.REPLACE + position[cell] * 3
            cache: dict[tuple[int, int, int], bool] = {}
            for slot, number in enumerate(hand):
                tile = tiles[number]
                for rotation in tile.rotations:
                    if checked and self._needs_payment(cell, tile, rotation, cache) != conflicts:
                        continue
                    out.append(
                        base + slot * slots + rotation
                        if as_ids
                        else f"replace t{number} {name} r{rotation}"
                    )
        return out

    def _placement_filter(self, cell: int) -> Callable[[Tile, int], bool] | None:
        """For a player without followers: a test of which tiles may go on empty ``cell``.

        Only a landmass joins areas, so a placement starts a war exactly when its landmass
        touches two occupied continents.
        """
        occupied = self.occupied()
        across: list[int] = []
        for edge in (0, 1, 2):
            other = NEIGHBOURS[cell][edge]
            found = -1
            if other in self.board:
                number, rotation = self.board[other]
                node = other * 3 + self.tiles[number].edge_region[rotation][edge]
                found = occupied.get(self.area_of[node], -1)
            across.append(found)
        if len({c for c in across if c >= 0}) < 2:
            return None

        def allowed(tile: Tile, rotation: int) -> bool:
            layout = tile.edge_region[rotation]
            for k, region in enumerate(tile.regions):
                if region.landmass:
                    met = {across[e] for e in (0, 1, 2) if layout[e] == k and across[e] >= 0}
                    if len(met) >= 2:
                        return False
            return True

        return allowed

    def _needs_payment(
        self, cell: int, tile: Tile, rotation: int, cache: dict[tuple[int, int, int], bool]
    ) -> bool:
        """Whether replacing the tile on ``cell`` starts a war or a migration."""
        occupied = self.occupied()
        number = self.board[cell][0]
        if not any(
            self.area_of[cell * 3 + k] in occupied for k in range(len(self.tiles[number].regions))
        ):
            return False
        # Only how the new tile groups its edges matters, not what is on it.
        layout = tile.edge_region[rotation]
        first: dict[int, int] = {}
        key = tuple(first.setdefault(k, len(first)) for k in layout)
        shape = (key[0], key[1], key[2])
        if shape not in cache:
            plan = self._plan(cell, tile.number, rotation, replacing=True)
            cache[shape] = plan.split or plan.war
        return cache[shape]

    def _civ_actions(self, as_ids: bool = False) -> list[Any]:
        out: list[Any] = []
        occupied = self.occupied()
        free = [c for c in range(len(COLOURS)) if c not in self.civs]
        if free:
            for area in self.area_list:
                if area.continent and area.index not in occupied:
                    if as_ids:
                        out.extend(self._region_id(ids.START, c, area) for c in free)
                        continue
                    ref = self.region_ref(area.regions[0])
                    out.extend(f"start {COLOURS[c]} {ref}" for c in free)
        for c in sorted(self.civs):
            if self.supply[c] > 0:
                out.append(ids.TAKE + c if as_ids else f"take {COLOURS[c]}")
        return out

    # -- tile step -------------------------------------------------------------------------

    def _act_tile(self, reading: Reading) -> list[GheosEvent]:
        number, cell = reading.tile, reading.cell
        hand = self.hands[self.active]
        if number not in hand:
            shown = ", ".join(f"t{n}" for n in sorted(hand))
            raise DisallowedAction(
                N_("{tile} is not in your hand (you hold {tiles})"), tile=f"t{number}", tiles=shown
            )
        replacing = reading.verb == "replace"
        name = CELL_NAME[cell]
        if replacing:
            if cell not in self.board:
                raise DisallowedAction(
                    N_("there is no tile on {cell} to replace (use place)"), cell=name
                )
            old = self.board[cell][0]
            if self.tiles[old].pyramid:
                raise DisallowedAction(
                    N_("{tile} on {cell} has a pyramid: it can never be replaced"),
                    tile=f"t{old}",
                    cell=name,
                )
        elif cell in self.board:
            raise DisallowedAction(N_("{cell} already holds a tile (use replace)"), cell=name)
        elif cell not in self.frontier:
            raise DisallowedAction(
                N_("{cell} does not share an edge with a tile on the table"), cell=name
            )
        return self._tile_action(number, cell, reading.rotation, replacing)

    def _tile_action(
        self, number: int, cell: int, rotation: int, replacing: bool
    ) -> list[GheosEvent]:
        name = CELL_NAME[cell]
        plan = self._plan(cell, number, rotation, replacing)
        conflict = plan.split or plan.war
        seat = self.active
        if conflict and not any(self.held[seat]):
            raise DisallowedAction(_UNPAID[replacing, plan.split])
        # -- committed from here on --
        events: list[GheosEvent] = []
        player = self.names[seat]
        if replacing:
            old = self.board[cell][0]
            self.removed.append(old)
            events.append(
                {
                    "type": "replace",
                    "text": f"{player} replaces t{old} on {name} with t{number} (r{rotation}); "
                    f"t{old} leaves the game",
                    "cell": name,
                    "tile": f"t{number}",
                    "rotation": rotation,
                    "removed": f"t{old}",
                }
            )
        else:
            self.frontier.discard(cell)
            for other in NEIGHBOURS[cell]:
                if other >= 0 and other not in plan.board:
                    self.frontier.add(other)
            events.append(
                {
                    "type": "place",
                    "text": f"{player} places t{number} on {name} (r{rotation})",
                    "cell": name,
                    "tile": f"t{number}",
                    "rotation": rotation,
                }
            )
        self.hands[seat].remove(number)
        self.board = plan.board
        self.area_of = plan.area_of
        self.area_list = plan.area_list
        self.civs.update(plan.anchors)
        self._occupied = None
        state = Conflict(cell, plan.swords)
        state.migrations = plan.migrations
        self.conflict = state
        if conflict:
            what = "a migration" if plan.split else "a war"
            events.append(
                {"type": "conflict", "text": f"this starts {what}; {player} pays one follower"}
            )
            held = [c for c in range(len(COLOURS)) if self.held[seat][c]]
            if len(held) == 1:
                events += self._pay(held[0])
            else:
                self.phase = "pay"
                return events
        events += self._resolve()
        return events

    def _plan(self, cell: int, number: int, rotation: int, replacing: bool) -> Plan:
        """Work out the areas after the tile action and what it does to each civilization."""
        board = dict(self.board)
        board[cell] = (number, rotation)
        area_of, areas = compute_areas(board, self.tiles)
        anchors: dict[int, int] = {}
        swords: dict[int, int] = {}
        migrations: list[tuple[int, list[int], bool]] = []
        split = False
        stay_area: dict[int, int] = {}
        old_tile = self.tiles[self.board[cell][0]] if replacing else None
        for colour in sorted(self.civs):
            former = self.civ_area(colour)
            if replacing and old_tile is not None:
                remaining = [r for r in former.regions if r // 3 != cell]
                lost = [old_tile.regions[r % 3] for r in former.regions if r // 3 == cell]
                swords[colour] = former.sword - sum(region.sword for region in lost)
            else:
                remaining = former.regions
                swords[colour] = former.sword
            parts = sorted({area_of[r] for r in remaining})
            if len(parts) >= 2:
                split = True
                migrations.append((colour, _migration_choices(parts, areas), True))
            elif not areas[parts[0]].continent:
                # Nothing split off, but what is left is no continent: it cannot live there.
                migrations.append((colour, parts, False))
            else:
                anchors[colour] = areas[parts[0]].regions[0]
                stay_area[colour] = parts[0]
            if replacing and self.civs[colour] // 3 == cell and colour not in anchors:
                # Its marker's region is gone; hold it on a remaining one until it moves.
                anchors[colour] = remaining[0]
        war = len(set(stay_area.values())) < len(stay_area)
        return Plan(board, area_of, areas, anchors, swords, migrations, split, war)

    # -- resolving wars and migrations -----------------------------------------------------

    def _pay(self, colour: int) -> list[GheosEvent]:
        seat = self.active
        self.held[seat][colour] -= 1
        self.supply[colour] += 1
        return [
            {
                "type": "pay",
                "text": f"{self.names[seat]} returns a {COLOURS[colour]} follower to the supply",
                "colour": COLOURS[colour],
            }
        ]

    def _resolve(self) -> list[GheosEvent]:
        """Carry the conflict on until the next choice; then temple scoring and the civ step."""
        conflict = self.conflict
        assert conflict is not None
        events: list[GheosEvent] = []
        while conflict.migrations:
            colour, options, _split = conflict.migrations[0]
            if len(options) > 1:
                self.phase = "migrate"
                return events
            conflict.migrations.pop(0)
            events += self._migrate(colour, options[0], _split)
        if conflict.wars is None:
            conflict.wars = self._find_wars(conflict)
        while conflict.wars:
            fighters, options = conflict.wars[0]
            if len(options) > 1:
                self.phase = "war"
                return events
            conflict.wars.pop(0)
            events += self._war_result(fighters, options[0])
        events += self._temple(conflict.cell)
        self.conflict = None
        self.phase = "civ"
        events += self._skip_empty_steps()
        return events

    def _migrate(self, colour: int, area_index: int, split: bool) -> list[GheosEvent]:
        conflict = self.conflict
        assert conflict is not None
        area = self.area_list[area_index]
        name = COLOURS[colour]
        if not area.continent:
            where = "an island" if area.island else "land that is no continent"
            verb = f"migrates to {where}" if split else f"is left on {where}"
            return self._remove_civ(colour, f"the {name} civilization {verb} and perishes")
        self.civs[colour] = area.regions[0]
        self._occupied = None
        conflict.moved.append(colour)
        ref = self.area_ref(area_index)
        return [
            {
                "type": "migration",
                "text": f"the {name} civilization migrates to the continent at {ref}",
                "civ": name,
                "to": ref,
            }
        ]

    def _find_wars(self, conflict: Conflict) -> list[tuple[list[int], list[int]]]:
        """Each area now holding several civilizations is a war: (fighters, tied leaders)."""
        by_area: dict[int, list[int]] = {}
        for colour in sorted(self.civs):
            by_area.setdefault(self.area_of[self.civs[colour]], []).append(colour)
        wars = []
        for area_index in sorted(by_area):
            fighters = by_area[area_index]
            if len(fighters) < 2:
                continue
            settled = [c for c in fighters if c not in conflict.moved]
            if not settled:
                settled = fighters  # only migrants met: they fight it out like any war
            best = max(conflict.swords.get(c, 0) for c in settled)
            leaders = [c for c in settled if conflict.swords.get(c, 0) == best]
            wars.append((fighters, leaders))
        return wars

    def _war_result(self, fighters: list[int], winner: int) -> list[GheosEvent]:
        conflict = self.conflict
        assert conflict is not None
        names = " and ".join(COLOURS[c] for c in fighters)
        events: list[GheosEvent] = [
            {
                "type": "war",
                "text": f"war between {names}: {COLOURS[winner]} wins",
                "civs": [COLOURS[c] for c in fighters],
                "winner": COLOURS[winner],
            }
        ]
        for colour in fighters:
            if colour != winner:
                why = "migrated into an occupied continent" if colour in conflict.moved else "lost"
                events += self._remove_civ(colour, f"the {COLOURS[colour]} civilization {why}")
        return events

    def _remove_civ(self, colour: int, why: str) -> list[GheosEvent]:
        del self.civs[colour]
        self._occupied = None
        returned = []
        for seat, row in enumerate(self.held):
            if row[colour]:
                returned.append(f"{self.names[seat]} {row[colour]}")
                self.supply[colour] += row[colour]
                row[colour] = 0
        text = f"{why}: its marker and all its followers return to the supply"
        if returned:
            text += f" ({', '.join(returned)})"
        return [{"type": "civ_removed", "text": text, "civ": COLOURS[colour]}]

    def _temple(self, cell: int) -> list[GheosEvent]:
        number, _ = self.board[cell]
        occupied = self.occupied()
        events: list[GheosEvent] = []
        for k, region in enumerate(self.tiles[number].regions):
            if region.temple is None:
                continue
            area = self.area_list[self.area_of[cell * 3 + k]]
            if not area.continent or area.index not in occupied:
                continue
            gained = area.count(region.temple)
            self.points[self.active] += gained
            events.append(
                {
                    "type": "temple",
                    "text": f"{self.names[self.active]} scores {gained} for the {region.temple} temple "
                    f"on the {COLOURS[occupied[area.index]]} continent",
                    "player": self.names[self.active],
                    "points": gained,
                }
            )
        return events

    def _act_pay(self, reading: Reading) -> list[GheosEvent]:
        colour = reading.colour
        if not self.held[self.active][colour]:
            raise DisallowedAction(
                N_("you hold no {colour} follower to pay with"), colour=COLOURS[colour]
            )
        return self._pay_with(colour)

    def _pay_with(self, colour: int) -> list[GheosEvent]:
        events = self._pay(colour)
        return events + self._resolve()

    def _act_migrate(self, reading: Reading) -> list[GheosEvent]:
        conflict = self.conflict
        assert conflict is not None
        colour, options, _ = conflict.migrations[0]
        if reading.colour != colour:
            raise DisallowedAction(
                N_("the {colour} civilization is the one migrating now"), colour=COLOURS[colour]
            )
        chosen = self._find_area(reading, options, migrating=True)
        return self._migrate_to(chosen)

    def _migrate_to(self, chosen: int) -> list[GheosEvent]:
        conflict = self.conflict
        assert conflict is not None
        colour, _, split = conflict.migrations.pop(0)
        return self._migrate(colour, chosen, split) + self._resolve()

    def _act_winner(self, reading: Reading) -> list[GheosEvent]:
        conflict = self.conflict
        assert conflict is not None and conflict.wars
        _, options = conflict.wars[0]
        colour = reading.colour
        if colour not in options:
            tied = ", ".join(COLOURS[c] for c in options)
            raise DisallowedAction(
                N_("{colour} is not one of the tied leaders ({colours})"),
                colour=COLOURS[colour],
                colours=tied,
            )
        return self._winner(colour)

    def _winner(self, colour: int) -> list[GheosEvent]:
        conflict = self.conflict
        assert conflict is not None and conflict.wars
        fighters, _ = conflict.wars.pop(0)
        return self._war_result(fighters, colour) + self._resolve()

    # -- civ, token and draw steps ---------------------------------------------------------

    def _act_start(self, reading: Reading) -> list[GheosEvent]:
        colour = reading.colour
        if colour in self.civs:
            raise DisallowedAction(
                N_("the {colour} civilization is already on the table"), colour=COLOURS[colour]
            )
        occupied = self.occupied()
        options = [a.index for a in self.area_list if a.continent and a.index not in occupied]
        chosen = self._find_area(reading, options, migrating=False)
        return self._start(colour, chosen)

    def _start(self, colour: int, chosen: int) -> list[GheosEvent]:
        area = self.area_list[chosen]
        seat = self.active
        taken = min(area.wheat, self.supply[colour])
        self.civs[colour] = area.regions[0]
        self._occupied = None
        self.supply[colour] -= taken
        self.held[seat][colour] += taken
        name = COLOURS[colour]
        events: list[GheosEvent] = [
            {
                "type": "start",
                "text": f"{self.names[seat]} starts the {name} civilization on the continent at "
                f"{self.area_ref(chosen)} and takes {taken} {name} follower"
                + ("s" if taken != 1 else ""),
                "civ": name,
                "at": self.area_ref(chosen),
                "followers": taken,
            }
        ]
        self.phase = "token"
        return events + self._skip_empty_steps()

    def _act_take(self, reading: Reading) -> list[GheosEvent]:
        colour = reading.colour
        name = COLOURS[colour]
        if colour not in self.civs:
            raise DisallowedAction(N_("the {colour} civilization is not on the table"), colour=name)
        if not self.supply[colour]:
            raise DisallowedAction(N_("no {colour} follower is left in the supply"), colour=name)
        return self._take(colour)

    def _take(self, colour: int) -> list[GheosEvent]:
        name = COLOURS[colour]
        seat = self.active
        self.supply[colour] -= 1
        self.held[seat][colour] += 1
        self.phase = "token"
        events: list[GheosEvent] = [
            {"type": "take", "text": f"{self.names[seat]} takes a {name} follower", "civ": name},
        ]
        return events + self._skip_empty_steps()

    def _act_token(self, reading: Reading) -> list[GheosEvent]:
        if not self.tokens[self.active]:
            raise DisallowedAction(N_("you have no scoring token left"))
        return self._play_token()

    def _play_token(self) -> list[GheosEvent]:
        seat = self.active
        self.tokens[seat] -= 1
        gained = self._cup_score(seat)
        self.points[seat] += gained
        events: list[GheosEvent] = [
            {
                "type": "token",
                "text": f"{self.names[seat]} plays a scoring token and scores {gained} "
                f"({self.tokens[seat]} token{'s' if self.tokens[seat] != 1 else ''} left)",
                "player": self.names[seat],
                "points": gained,
            }
        ]
        if not any(self.tokens):
            events.append(
                {"type": "end", "text": "every scoring token has been played: the game ends"}
            )
            return events + self._finish()
        return events + self._end_turn()

    def _act_pass(self, reading: Reading) -> list[GheosEvent]:
        return self._end_turn()

    def _cup_score(self, seat: int) -> int:
        row = self.held[seat]
        return sum(row[c] * self.civ_area(c).cup for c in self.civs if row[c])

    def _skip_empty_steps(self) -> list[GheosEvent]:
        events: list[GheosEvent] = []
        if self.phase == "civ" and not self._civ_actions():
            events.append(
                {
                    "type": "skip",
                    "text": f"{self.names[self.active]} can neither start a civilization nor take "
                    "a follower",
                }
            )
            self.phase = "token"
        if self.phase == "token" and not self.tokens[self.active]:
            events += self._end_turn()
        return events

    def _end_turn(self) -> list[GheosEvent]:
        seat = self.active
        hand = self.hands[seat]
        events: list[GheosEvent] = []
        while len(hand) < HAND_SIZE and self.stack:
            drawn = self.stack.pop()
            if drawn != EPOCH:
                hand.append(drawn)
                events.append({"type": "draw", "text": f"{self.names[seat]} draws a tile"})
                continue
            self.epochs += 1
            events.append(
                {
                    "type": "epoch",
                    "text": f"{self.names[seat]} draws epoch tile {self.epochs} "
                    f"(the game ends with the {self.end_epoch}th): epoch scoring",
                    "epoch": self.epochs,
                }
            )
            events += self._epoch_scoring()
            if self.epochs >= self.end_epoch:
                events.append(
                    {"type": "end", "text": f"epoch tile {self.epochs} drawn: the game ends"}
                )
                return events + self._finish()
        self.active = (seat + 1) % len(self.names)
        self.phase = "tile"
        return events

    def _epoch_scoring(self) -> list[GheosEvent]:
        parts = []
        gains = {}
        for seat, row in enumerate(self.held):
            gained = sum(row[c] * self.civ_area(c).pyramid for c in self.civs if row[c])
            self.points[seat] += gained
            gains[self.names[seat]] = gained
            parts.append(f"{self.names[seat]} {gained}")
        return [
            {
                "type": "epoch_scoring",
                "text": "pyramids score: " + ", ".join(parts),
                "points": gains,
            }
        ]

    def _finish(self) -> list[GheosEvent]:
        parts = []
        gains = {}
        for seat in range(len(self.names)):
            gained = self._cup_score(seat)
            self.points[seat] += gained
            gains[self.names[seat]] = gained
            parts.append(f"{self.names[seat]} {gained}")
        self.phase = "over"
        self.conflict = None
        events: list[GheosEvent] = [
            {
                "type": "final_scoring",
                "text": "final scoring (cups): " + ", ".join(parts),
                "points": gains,
            }
        ]
        ranking = sorted(self.result(), key=lambda row: (row["place"], row["seat"]))
        standings = ", ".join(
            f"{row['place']}. {row['player']} {row['points']} points" for row in ranking
        )
        events.append({"type": "result", "text": f"result: {standings}", "ranking": ranking})
        return events

    # -- parsing helpers -------------------------------------------------------------------

    def _find_area(self, reading: Reading, options: list[int], migrating: bool) -> int:
        """The area ``reading`` names (its cell and edge, or a bare cell when that is
        unambiguous): one of ``options``, the parts a civilization may migrate to
        (``migrating``) or the unoccupied continents."""
        cell = reading.cell
        if cell not in self.board:
            raise DisallowedAction(N_("there is no tile on {cell}"), cell=CELL_NAME[cell])
        number, rotation = self.board[cell]
        layout = self.tiles[number].edge_region[rotation]
        if reading.edge is not None:
            found = [self.area_of[cell * 3 + layout[reading.edge]]]
        else:
            found = sorted({self.area_of[cell * 3 + k] for k in layout})
        matching = [a for a in found if a in options]
        if len(matching) == 1:
            return matching[0]
        if not matching:
            shown = ", ".join(self.area_ref(a) for a in options) or "none"
            raise DisallowedAction(
                N_("{text} is not on a part the civilization may migrate to (possible: {areas})")
                if migrating
                else N_("{text} is not on an unoccupied continent (possible: {areas})"),
                text=reading.area,
                areas=shown,
            )
        raise DisallowedAction(
            N_("{cell} touches more than one possible area: add the edge, e.g. {area}"),
            cell=CELL_NAME[cell],
            area=self.area_ref(matching[0]),
        )


# What each step of a turn expects, said when another action is tried.
_EXPECTED = {
    "tile": N_(
        "{verb} is not possible now: {player} must place or replace a tile, e.g. 'place t12 0,1 r0'"
    ),
    "pay": N_(
        "{verb} is not possible now: {player} must pay a follower for the war or migration, e.g. 'pay red'"
    ),
    "migrate": N_(
        "{verb} is not possible now: {player} must choose where the civilization migrates, e.g. 'migrate red 0,1:n'"
    ),
    "war": N_(
        "{verb} is not possible now: {player} must choose the winner of the tied war, e.g. 'winner red'"
    ),
    "civ": N_(
        "{verb} is not possible now: {player} must start a civilization or take a follower, e.g. 'take red'"
    ),
    "token": N_(
        "{verb} is not possible now: {player} must play a scoring token ('token') or not ('pass')"
    ),
}
# A tile that starts a conflict its player cannot pay for: by (replacing, a migration).
_UNPAID = {
    (False, False): N_("this placement starts a war, and you have no follower to pay for it"),
    (False, True): N_("this placement starts a migration, and you have no follower to pay for it"),
    (True, False): N_("this replacement starts a war, and you have no follower to pay for it"),
    (True, True): N_("this replacement starts a migration, and you have no follower to pay for it"),
}


def _migration_choices(parts: list[int], areas: list[AreaTally]) -> list[int]:
    """Where a migrating civilization may go: the parts with the most wheat; when they tie the
    active player chooses, but must take a continent over a part that is none."""
    best = max(areas[p].wheat for p in parts)
    tied = [p for p in parts if areas[p].wheat == best]
    continents = [p for p in tied if areas[p].continent]
    return continents or tied


_HANDLERS: dict[tuple[str, str], Callable[[GheosState, Reading], list[GheosEvent]]] = {
    ("tile", "place"): GheosState._act_tile,
    ("tile", "replace"): GheosState._act_tile,
    ("pay", "pay"): GheosState._act_pay,
    ("migrate", "migrate"): GheosState._act_migrate,
    ("war", "winner"): GheosState._act_winner,
    ("civ", "start"): GheosState._act_start,
    ("civ", "take"): GheosState._act_take,
    ("token", "token"): GheosState._act_token,
    ("token", "pass"): GheosState._act_pass,
}
