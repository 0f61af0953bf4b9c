"""Gheos as a research environment: action ids, observation tensor, the tile stack.

Placements name a tile by its number ("place t12 0,1 r0"); the fixed encoding names it by its
slot in the hand instead (#0: the lower-numbered tile, #1: the other), which keeps the action
space at a few hundred thousand ids rather than millions. Every cell any map can reach (those
within 51 steps of the start tile) has its ids. This is the engine's own numbering
(``gheos.all_action_templates()``, ``state.legal_action_ids()``, ``state.apply(id)``), so ids
pass straight through; layouts are documented in docs/openspiel.md and docs/gheos.md. The
vectorised environment writes the same observation tensor natively
(native/src/gheos/observation.rs): a change is made in both (docs/engines.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from cradle.core.contract import Event, GameState, View
from cradle.envs.encoding import ActionEncoding, UnknownAction
from cradle.envs.spec import JSON, EnvSpec, FloatArray
from cradle.gheos import COLOURS as GHEOS_COLOURS
from cradle.gheos import PHASES, all_action_templates, as_gheos, as_gheos_view, load_tiles
from cradle.gheos.actions import ACTION_COUNT
from cradle.gheos.tiles import TileSet

HAND = 2
# Events that each draw one tile of the stack.
_DRAW_EVENTS = frozenset({"draw", "epoch"})
AREA_KINDS = ("continent", "island")
TEMPLE_KINDS = ("wheat", "cup", "sword")
SEATS = 4


class GheosSpec(EnvSpec):
    game = "gheos"
    pile_key = "stack"
    hand_size = HAND
    # The engine can be told its next draws (order_pile).
    draws_ahead = True

    def __init__(self) -> None:
        tileset = self._tileset()
        self.tile_count = len(tileset.tiles)
        self.tokens = (*(f"t{n}" for n in range(1, self.tile_count)), "epoch")
        super().__init__()
        self._static = self._static_features(tileset)

    @staticmethod
    def _tileset() -> TileSet:
        return load_tiles(None)

    def make_encoding(self) -> ActionEncoding:
        strings = all_action_templates()
        return ActionEncoding(strings, lambda text: " ".join(text.lower().split()))

    @property
    def action_count(self) -> int:
        return ACTION_COUNT

    # --- the state-dependent part: hand slots
    def _hand(self, state: GameState) -> list[int]:
        """Tile numbers of the hand of the seat to move, lowest first."""
        return sorted(int(tile[1:]) for tile in self.actor_hand(state, state.to_move))

    def _slot_form(self, action: str, hand: list[int]) -> str:
        words = action.lower().split()
        if len(words) != 4 or not words[1].startswith("t") or not words[1][1:].isdigit():
            raise UnknownAction(f"{action!r} is not a tile action")
        number = int(words[1][1:])
        if number not in hand:
            raise UnknownAction(f"t{number} is not in the hand of the seat to move")
        return f"{words[0]} #{hand.index(number)} {words[2]} {words[3]}"

    def encode_legal(self, state: GameState, actions: list[str]) -> list[int]:
        ids = self.encoding
        out: list[int] = []
        hand: list[int] | None = None
        for action in actions:
            found = ids.exact(action)
            if found is None:
                if action.startswith(("place ", "replace ")):
                    if hand is None:
                        hand = self._hand(state)
                    found = ids.exact(self._slot_form(action, hand))
                if found is None:
                    found = self.encoding.encode(action)
            out.append(found)
        return out

    def encode_action(self, state: GameState, action: str) -> int:
        """The id of one action string in ``state`` (engine or hand-written spelling)."""
        if action.lower().split()[0] in ("place", "replace"):
            action = self._slot_form(action, self._hand(state))
        return self.encoding.encode(action)

    def decode(self, state: GameState, action_id: int) -> str:
        if isinstance(action_id, bool):
            raise UnknownAction(f"action id {action_id!r} is not a number")
        try:
            return as_gheos(state).action_string(int(action_id))
        except ValueError as exc:  # the engine's IllegalAction: out of range, empty slot
            raise UnknownAction(str(exc)) from None

    def describe(self, action_id: int, tiles: Sequence[str]) -> str:
        text = self.encoding.decode(action_id)
        if text.startswith(("place ", "replace ")):
            verb, slot, cell, rot = text.split()
            hand = sorted(tiles, key=lambda tile: int(tile[1:]))
            return f"{verb} {hand[int(slot[1:])]} {cell} {rot}"
        return text

    # --- set-up and the stack
    def option_defaults(self) -> JSON:
        return {}

    def max_game_length(self, players: int) -> int:
        return 1000

    def held(self, hand: list[str]) -> list[str]:
        # a position lists a hand by tile number
        return sorted(hand, key=lambda t: int(t[1:]))

    def dealable(self, token: str) -> bool:
        return token != "epoch"

    def pile_end(self, shown: View) -> tuple[str, int] | None:
        view = as_gheos_view(shown)
        # Drawing the epoch tile that ends the game (the 6th of 8 with two players) ends it.
        return ("epoch", int(view["end_epoch"]) - int(view.get("epochs_drawn") or 0))

    def covers_next(self, front: list[str]) -> bool:
        # A turn ends by drawing back to two tiles: at most two landscape tiles, and any
        # epoch tiles before them.
        landscape = 0
        for token in front:
            if token != "epoch":
                landscape += 1
                if landscape == HAND:
                    return True
        return False

    def drawn(self, events: list[Event]) -> int:
        count = 0
        for event in events:
            if event["type"] in _DRAW_EVENTS:
                count += 1
        return count

    # --- observations
    def _static_features(self, tileset: TileSet) -> FloatArray:
        """What each tile shows, per region (fixed by the tile set): see docs/openspiel.md."""
        static = np.zeros((self.tile_count, 3, STATIC), np.float32)
        for tile in tileset.tiles:
            for k, region in enumerate(tile.regions[:3]):
                row = static[tile.number, k]
                for edge in region.edges:
                    row[S_EDGES + edge] = 1.0
                row[S_LANDMASS] = 1.0 if len(region.edges) >= 2 else 0.0
                row[S_WHEAT] = region.wheat
                row[S_CUP] = region.cup
                row[S_SWORD] = region.sword
                row[S_PYRAMID] = region.pyramid
                if region.temple in TEMPLE_KINDS:
                    row[S_TEMPLE + TEMPLE_KINDS.index(region.temple)] = 1.0
        return static

    def observation_pieces(self, players: int) -> list[tuple[str, tuple[int, ...]]]:
        return [("tiles", (self.tile_count, PER_TILE)), ("features", (FEATURES,))]

    def observation_bounds(self, players: int) -> tuple[FloatArray, FloatArray]:
        size = self.tile_count * PER_TILE + FEATURES
        low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        tiles_low = low[: self.tile_count * PER_TILE].reshape(self.tile_count, PER_TILE)
        tiles_high = high[: self.tile_count * PER_TILE].reshape(self.tile_count, PER_TILE)
        reach = float(self.tile_count)
        tiles_low[:, T_ROW : T_COL + 1] = -reach
        tiles_high[:, T_ROW : T_COL + 1] = reach
        for k in range(3):
            base = T_REGIONS + k * REGION
            tiles_high[:, base + R_TOTALS : base + R_TOTALS + 5] = 1000.0
            base = T_STATIC + k * STATIC
            tiles_high[:, base + S_WHEAT : base + S_PYRAMID + 1] = 10.0
        f = high[self.tile_count * PER_TILE :]
        f[F_POINTS : F_POINTS + SEATS] = 10_000.0
        f[F_TOKENS : F_TOKENS + SEATS] = 3.0
        f[F_FOLLOWERS : F_FOLLOWERS + 24] = 5.0
        f[F_HAND_SIZES : F_HAND_SIZES + SEATS] = HAND
        f[F_SUPPLY : F_SUPPLY + 6] = 5.0
        f[F_STACK] = 100.0
        f[F_STACK_EPOCHS : F_END_EPOCH + 1] = 8.0
        f[F_SWORDS : F_SWORDS + 6] = 1000.0
        return low, high

    def fill_observation(self, shown: View, seat: int, out: FloatArray) -> None:
        view = as_gheos_view(shown)
        names: list[str] = view["players"]
        n = len(names)
        rel = {name: (i - seat) % n for i, name in enumerate(names)}
        count = self.tile_count
        tiles = out[: count * PER_TILE].reshape(count, PER_TILE)
        f = out[count * PER_TILE :]
        colour_index = {c: i for i, c in enumerate(GHEOS_COLOURS)}
        areas = {area["area"]: area for area in view.get("areas") or []}

        for entry in view.get("map") or []:
            number = int(entry["tile"][1:])
            row = tiles[number]
            row[T_ON_MAP] = 1.0
            row[T_ROW] = entry["row"]
            row[T_COL] = entry["col"]
            row[T_UP] = 1.0 if entry["up"] else 0.0
            row[T_ROTATION + int(entry["rotation"])] = 1.0
            for k, region in enumerate(entry["regions"][:3]):
                base = T_REGIONS + k * REGION
                civ = region["civ"]
                if civ is not None and civ in colour_index:
                    row[base + R_CIV + colour_index[civ]] = 1.0
                area = areas.get(region.get("area"))
                if area is not None:
                    kind = area.get("kind")
                    if kind in AREA_KINDS:
                        row[base + R_KIND + AREA_KINDS.index(kind)] = 1.0
                    row[base + R_TOTALS] = area.get("wheat", 0)
                    row[base + R_TOTALS + 1] = area.get("cup", 0)
                    row[base + R_TOTALS + 2] = area.get("sword", 0)
                    row[base + R_TOTALS + 3] = area.get("pyramid", 0)
                    row[base + R_TOTALS + 4] = area.get("tiles", 0)
        for tile in view.get("hand") or []:
            tiles[int(tile["tile"][1:]), T_IN_HAND] = 1.0
        for name in view.get("removed") or []:
            tiles[int(name[1:]), T_REMOVED] = 1.0
        tiles[:, T_STATIC:] = self._static.reshape(count, 3 * STATIC)

        f[F_PRESENT : F_PRESENT + n] = 1.0
        for name, value in (view.get("points") or {}).items():
            f[F_POINTS + rel[name]] = value
        for name, value in (view.get("tokens") or {}).items():
            f[F_TOKENS + rel[name]] = value
        for name, held in (view.get("followers") or {}).items():
            for colour, value in held.items():
                f[F_FOLLOWERS + 6 * rel[name] + colour_index[colour]] = value
        for name, value in (view.get("hand_sizes") or {}).items():
            f[F_HAND_SIZES + rel[name]] = value
        for colour, value in (view.get("supply") or {}).items():
            f[F_SUPPLY + colour_index[colour]] = value
        for colour in view.get("civilizations") or {}:
            f[F_CIVS + colour_index[colour]] = 1.0
        f[F_ACTIVE + (view["active"] - seat) % n] = 1.0
        f[F_TO_MOVE + (view["to_move"] - seat) % n] = 1.0
        if view.get("phase") in PHASES:
            f[F_PHASE + PHASES.index(view["phase"])] = 1.0
        f[F_STACK] = view.get("stack_size", 0)
        f[F_STACK_EPOCHS] = view.get("stack_epochs", 0)
        f[F_EPOCHS_DRAWN] = view.get("epochs_drawn", 0)
        f[F_END_EPOCH] = view.get("end_epoch", 0)
        pending = view["pending"]
        if pending is not None:
            for colour, value in pending["swords"].items():
                f[F_SWORDS + colour_index[colour]] = value
            for colour in pending["moved"]:
                f[F_MOVED + colour_index[colour]] = 1.0
            migrations = pending["migrations"]
            if migrations:
                f[F_MIGRATING + colour_index[migrations[0]["civ"]]] = 1.0
            wars = pending["wars"] or []
            if wars:
                for colour in wars[0]["civs"]:
                    f[F_AT_WAR + colour_index[colour]] = 1.0
                for colour in wars[0]["options"]:
                    f[F_TIED + colour_index[colour]] = 1.0
        f[F_OVER] = 1.0 if view.get("is_over") else 0.0

    # --- information states
    def memory_size(self) -> int:
        return self.tile_count

    def fill_memory(self, position: JSON, seat: int | None, out: FloatArray) -> None:
        """Tiles this seat has not seen (other hands and the stack), one flag per tile."""
        names: list[str] = position["players"]
        for i, name in enumerate(names):
            if i != seat:
                for tile in position["hands"][name]:
                    out[int(tile[1:])] = 1.0
        for tile in position["stack"]:
            if tile != "epoch":
                out[int(tile[1:])] = 1.0

    def private_size(self) -> int:
        return self.tile_count

    def fill_private(self, shown: View, out: FloatArray) -> None:
        view = as_gheos_view(shown)
        for tile in view.get("hand") or []:
            out[int(tile["tile"][1:])] = 1.0

    def private_string(self, shown: View) -> str:
        view = as_gheos_view(shown)
        return json.dumps({"hand": [tile["tile"] for tile in view.get("hand") or []]})

    def render(self, state: GameState) -> str:
        view = as_gheos(state).view(None)
        lines = [
            f"Gheos  phase {view['phase']}  stack {view['stack_size']}  "
            f"epochs {view['epochs_drawn']}/{view['end_epoch']}"
        ]
        for entry in view["map"]:
            civs = sorted({r["civ"] for r in entry["regions"] if r["civ"] is not None})
            lines.append(
                f"  {entry['cell']:>7} {entry['tile']:>4} r{entry['rotation']}"
                + (f"  {' '.join(civs)}" if civs else "")
            )
        for name in view["players"]:
            held = view["followers"].get(name) or {}
            lines.append(
                f"{name}: {view['points'][name]} points, {view['tokens'][name]} tokens, "
                f"followers {held}"
            )
        return "\n".join(lines) + "\n"


# Per-tile row of the observation (one row per tile number).
T_ON_MAP = 0
T_ROW = 1
T_COL = 2
T_UP = 3
T_ROTATION = 4  # 3: one-hot
T_IN_HAND = 7
T_REMOVED = 8
T_REGIONS = 9  # 3 regions x REGION: what the map makes of each of the tile's regions
R_CIV = 0  # 6: the civilization on the region's area
R_KIND = 6  # 2: the area is a continent / an island
R_TOTALS = 8  # 5: the area's wheat, cups, swords, pyramids, tiles
REGION = 13
T_STATIC = T_REGIONS + 3 * REGION  # 3 regions x STATIC: what the tile itself shows
S_EDGES = 0  # 3: the region touches the tile's own edge 0, 1, 2
S_LANDMASS = 3
S_WHEAT = 4
S_CUP = 5
S_SWORD = 6
S_PYRAMID = 7
S_TEMPLE = 8  # 3: temple of wheat, cup, sword
STATIC = 11
PER_TILE = T_STATIC + 3 * STATIC

# Global features.
F_PRESENT = 0  # 4: per relative seat
F_POINTS = 4  # 4
F_TOKENS = 8  # 4
F_FOLLOWERS = 12  # 24: relative seat x colour
F_HAND_SIZES = 36  # 4
F_SUPPLY = 40  # 6: followers left per colour
F_CIVS = 46  # 6: the civilization is on the map
F_ACTIVE = 52  # 4
F_TO_MOVE = 56  # 4
F_PHASE = 60  # 7
F_STACK = 67
F_STACK_EPOCHS = 68
F_EPOCHS_DRAWN = 69
F_END_EPOCH = 70
F_SWORDS = 71  # 6: swords on each warring civilization's former continent
F_MOVED = 77  # 6
F_MIGRATING = 83  # 6
F_AT_WAR = 89  # 6
F_TIED = 95  # 6: tied leaders the active player chooses between
F_OVER = 101
FEATURES = 102
