"""Tigris & Euphrates as a research environment: action ids, observation tensor, draw pile.

The observation tensor layout is documented in docs/openspiel.md; the vectorised environment
writes the same tensor natively (native/src/tigris/observation.rs): keep the three in step
(docs/engines.md, "Observation encoders").
"""

from __future__ import annotations

import json

import numpy as np

from cradle import tigris
from cradle.core.contract import Event, GameState, View
from cradle.envs.encoding import (
    TIGRIS_COLOURS,
    TIGRIS_COLUMNS,
    TIGRIS_HAND_SIZE,
    TIGRIS_MONUMENTS,
    TIGRIS_ROLES,
    TIGRIS_ROWS,
    ActionEncoding,
    tigris_encoding,
)
from cradle.envs.spec import JSON, EnvSpec, FloatArray
from cradle.tigris import TigrisPending, TigrisView, as_tigris_view

SEATS = 4  # observation slots per seat-relative quantity (the most players the game has)
COLUMNS = len(TIGRIS_COLUMNS)
PENDING_KINDS = (
    "revolt",
    "war",
    "war_order",
    "monument",
    "treasure",
    "building",
    "wonder",
    "wonderpoint",
)
OPTION_FLAGS = ("buildings", "english", "wonder", "open_scoring")

# Board planes (each 11 rows x 16 columns).
P_UP = 0  # 4: face-up tile of each colour
P_DOWN = 4  # 4: face-down tile (under a monument) of each colour
P_TREASURE = 8
P_CATASTROPHE = 9
P_WONDER = 10
P_UNIFICATION = 11
P_LEADER = 12  # 16: relative seat x role
P_MONUMENT = 28  # 6: the 2x2 square of each monument
P_BUILDING = 34  # 4: the tile carrying each colour's building
P_PLACED = 38  # the tile whose consequences are being resolved
P_CHOICE = 39  # treasures the trader's owner may take now
P_RIVER = 40
P_SPECIAL = 41  # special-border squares (advanced board)
PLANES = 42

# Feature vector offsets.
F_HAND = 0  # 4: own tiles per colour
F_HAND_SIZES = 4  # 4: per relative seat
F_BAG = 8
F_POINTS = 9  # 16: relative seat x colour (only where visible)
F_POINTS_SEEN = 25  # 4
F_TREASURES = 29  # 4
F_CATASTROPHES = 33  # 4
F_SUPPLY = 37  # 16: relative seat x role
F_PRESENT = 53  # 4: the seat is in the game
F_ACTIONS_LEFT = 57
F_ACTIVE = 58  # 4: one-hot relative seat
F_TO_MOVE = 62  # 4
F_UNUSED_MONUMENTS = 66  # 6
F_PENDING = 72  # 8: kind one-hot
F_PENDING_COLOUR = 80  # 4
F_ATTACKER = 84  # 4
F_DEFENDER = 88  # 4
F_ATTACKER_COMMITTED = 92
F_ATTACKER_COMMIT = 93
F_ATTACKER_STRENGTH = 94
F_DEFENDER_STRENGTH = 95
F_WARS_LEFT = 96  # 4: colours still at war
F_CHOOSER = 100  # 4: relative seat taking treasures
F_ADVANCED = 104
F_OPTIONS = 105  # 4: buildings, english, wonder, open scoring
F_ENDING = 109
F_OVER = 110
FEATURES = 111

# Information-state memory (after the observation tensor).
M_UNSEEN = 0  # 4: tiles per colour this seat has not seen (others' hands and discards, bag)
M_OWN_DISCARDS = 4  # 4: tiles this seat has swapped away
M_REMOVED = 8  # 4: tiles out of the game (conflicts, catastrophes)
MEMORY = 12

# Cell name -> (row, column), from the engine's geometry (a cell is row * 16 + column).
_CELL_INDEX = {name: divmod(cell, COLUMNS) for cell, name in enumerate(tigris.geometry().cells)}
_COLOUR = {colour: i for i, colour in enumerate(TIGRIS_COLOURS)}
_ROLE = {role: i for i, role in enumerate(TIGRIS_ROLES)}
_MONUMENT = {pair: i for i, pair in enumerate(TIGRIS_MONUMENTS)}
_PLANE_SIZE = TIGRIS_ROWS * COLUMNS
_DRAW_EVENTS = frozenset({"turn", "game_over", "swap"})


class TigrisSpec(EnvSpec):
    game = "tigris"
    tokens = TIGRIS_COLOURS
    pile_key = "bag"
    hand_size = TIGRIS_HAND_SIZE

    def __init__(self) -> None:
        super().__init__()
        self._terrain: dict[str, FloatArray] = {}

    def make_encoding(self) -> ActionEncoding:
        return tigris_encoding()

    def option_defaults(self) -> JSON:
        return {
            "board": "standard",
            "buildings": False,
            "english": False,
            "wonder": False,
            "open_scoring": False,
        }

    def max_game_length(self, players: int) -> int:
        # Random play ends well inside this (see tests/envs); a cap keeps leader shuffling finite.
        return 1000 * players

    # --- draws
    def may_draw(self, events: list[Event]) -> bool:
        return any(event["type"] in _DRAW_EVENTS for event in events)

    # --- observations
    def observation_pieces(self, players: int) -> list[tuple[str, tuple[int, ...]]]:
        return [("board", (PLANES, TIGRIS_ROWS, COLUMNS)), ("features", (FEATURES,))]

    def observation_bounds(self, players: int) -> tuple[FloatArray, FloatArray]:
        size = PLANES * _PLANE_SIZE + FEATURES
        low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        f = PLANES * _PLANE_SIZE
        high[f + F_HAND : f + F_HAND + 8] = TIGRIS_HAND_SIZE
        high[f + F_BAG] = 153
        high[f + F_POINTS : f + F_POINTS + 16] = 10_000
        high[f + F_TREASURES : f + F_TREASURES + 4] = 14
        high[f + F_CATASTROPHES : f + F_CATASTROPHES + 4] = 2
        high[f + F_ACTIONS_LEFT] = 2
        high[f + F_ATTACKER_COMMIT] = TIGRIS_HAND_SIZE
        high[f + F_ATTACKER_STRENGTH] = 153
        high[f + F_DEFENDER_STRENGTH] = 153
        return low, high

    def _terrain_planes(self, board: str) -> FloatArray:
        """River and special squares of a board side, from the engine's geometry."""
        found = self._terrain.get(board)
        if found is None:
            found = np.zeros((2, TIGRIS_ROWS, COLUMNS), np.float32)
            geometry = tigris.geometry(board)
            for plane, cells in ((0, geometry.river), (1, geometry.special)):
                for cell in cells:
                    row, column = divmod(cell, COLUMNS)
                    found[plane, row, column] = 1.0
            self._terrain[board] = found
        return found

    def fill_observation(self, shown: View, seat: int, out: FloatArray) -> None:
        view = as_tigris_view(shown)
        names: list[str] = view["players"]
        n = len(names)
        rel = {name: (i - seat) % n for i, name in enumerate(names)}
        planes = out[: PLANES * _PLANE_SIZE].reshape(PLANES, TIGRIS_ROWS, COLUMNS)
        f = out[PLANES * _PLANE_SIZE :]
        cell_index = _CELL_INDEX
        colour_index = _COLOUR

        for cell, content in view["board"].items():
            row, column = cell_index[cell]
            if content.endswith("*"):
                planes[P_TREASURE, row, column] = 1.0
                content = content[:-1]
            colour = colour_index.get(content)
            if colour is not None:
                planes[P_UP + colour, row, column] = 1.0
            elif content.startswith("leader:"):
                _, dynasty, role = content.split(":")
                planes[P_LEADER + 4 * rel[dynasty] + _ROLE[role], row, column] = 1.0
            elif content.startswith("down:"):
                planes[P_DOWN + colour_index[content[5:]], row, column] = 1.0
            elif content == "catastrophe":
                planes[P_CATASTROPHE, row, column] = 1.0
            elif content == "wonder":
                planes[P_WONDER, row, column] = 1.0
        unification = view["unification"]
        if unification:
            row, column = cell_index[unification]
            planes[P_UNIFICATION, row, column] = 1.0
        for monument in view.get("monuments") or []:
            m = _MONUMENT["-".join(sorted(monument["colors"], key=colour_index.__getitem__))]
            row, column = cell_index[monument["cell"]]
            planes[P_MONUMENT + m, row : row + 2, column : column + 2] = 1.0
        for built, cell in (view.get("buildings") or {}).items():
            row, column = cell_index[cell]
            planes[P_BUILDING + colour_index[built], row, column] = 1.0
        options = view.get("options") or {}
        board_name = str(options.get("board", "standard"))
        planes[P_RIVER : P_RIVER + 2] = self._terrain_planes(board_name)

        for tile in view.get("hand") or []:
            f[F_HAND + colour_index[tile]] += 1.0
        for name, size in view["hand_sizes"].items():
            f[F_HAND_SIZES + rel[name]] = size
        f[F_BAG] = view["bag_size"]
        for name, points in (view.get("points") or {}).items():
            r = rel[name]
            f[F_POINTS_SEEN + r] = 1.0
            for scored, value in points.items():
                f[F_POINTS + 4 * r + colour_index[scored]] = value
        for name, value in view["treasures"].items():
            f[F_TREASURES + rel[name]] = value
        for name, value in view["catastrophes"].items():
            f[F_CATASTROPHES + rel[name]] = value
        for name, roles in view["supply"].items():
            for role in roles:
                f[F_SUPPLY + 4 * rel[name] + _ROLE[role]] = 1.0
        f[F_PRESENT : F_PRESENT + n] = 1.0
        f[F_ACTIONS_LEFT] = view.get("actions_left") or 0
        f[F_ACTIVE + (view["active"] - seat) % n] = 1.0
        f[F_TO_MOVE + (view["to_move"] - seat) % n] = 1.0
        for pair in view.get("unused_monuments") or []:
            f[F_UNUSED_MONUMENTS + _MONUMENT["-".join(pair)]] = 1.0

        pending = view.get("pending")
        if pending:
            self._fill_pending(pending, seat, n, planes, f)

        f[F_ADVANCED] = 1.0 if board_name == "advanced" else 0.0
        for i, flag in enumerate(OPTION_FLAGS):
            f[F_OPTIONS + i] = 1.0 if options.get(flag) else 0.0
        f[F_ENDING] = 1.0 if view.get("ending") else 0.0
        f[F_OVER] = 1.0 if view.get("is_over") else 0.0

    @staticmethod
    def _fill_pending(
        pending: TigrisPending, seat: int, n: int, planes: FloatArray, f: FloatArray
    ) -> None:
        kind = pending.get("kind")
        if kind in PENDING_KINDS:
            f[F_PENDING + PENDING_KINDS.index(kind)] = 1.0
        colour = pending.get("color")
        if colour in _COLOUR:
            f[F_PENDING_COLOUR + _COLOUR[colour]] = 1.0
        if isinstance(pending.get("attacker"), int):
            f[F_ATTACKER + (pending["attacker"] - seat) % n] = 1.0
        if isinstance(pending.get("defender"), int):
            f[F_DEFENDER + (pending["defender"] - seat) % n] = 1.0
        if pending.get("attacker_commit") is not None:
            f[F_ATTACKER_COMMITTED] = 1.0
            f[F_ATTACKER_COMMIT] = pending["attacker_commit"]
        f[F_ATTACKER_STRENGTH] = pending.get("attacker_strength") or 0
        f[F_DEFENDER_STRENGTH] = pending.get("defender_strength") or 0
        for colour in [*(pending.get("colors") or []), *(pending.get("queue") or [])]:
            f[F_WARS_LEFT + _COLOUR[colour]] = 1.0
        if isinstance(pending.get("seat"), int):
            f[F_CHOOSER + (pending["seat"] - seat) % n] = 1.0
        placed = pending.get("placed")
        if placed:
            row, column = _CELL_INDEX[placed]
            planes[P_PLACED, row, column] = 1.0
        for cell in pending.get("cells") or []:
            row, column = _CELL_INDEX[cell]
            planes[P_CHOICE, row, column] = 1.0

    # --- information states
    def memory_size(self) -> int:
        return MEMORY

    def fill_memory(self, position: JSON, seat: int | None, out: FloatArray) -> None:
        names: list[str] = position["players"]
        colour_index = _COLOUR
        unseen = list(position["bag"])
        for i, name in enumerate(names):
            if i == seat:
                for tile in (position.get("discards") or {}).get(name, []):
                    out[M_OWN_DISCARDS + colour_index[tile]] += 1.0
            else:
                unseen += position["hands"][name]
                unseen += (position.get("discards") or {}).get(name, [])
        for tile in unseen:
            out[M_UNSEEN + colour_index[tile]] += 1.0
        for colour, count in (position.get("removed") or {}).items():
            out[M_REMOVED + colour_index[colour]] = count

    def private_size(self) -> int:
        return 8

    def fill_private(self, shown: View, out: FloatArray) -> None:
        view = as_tigris_view(shown)
        for tile in view.get("hand") or []:
            out[_COLOUR[tile]] += 1.0
        own = _own_points(view)
        for colour, value in own.items():
            out[4 + _COLOUR[colour]] = value

    def private_string(self, shown: View) -> str:
        view = as_tigris_view(shown)
        own = _own_points(view)
        return json.dumps({"hand": view.get("hand") or [], "points": own}, sort_keys=True)

    def render(self, state: GameState) -> str:
        try:
            return _render_rich(as_tigris_view(state.view(None)))
        except Exception:  # the terminal renderer is optional here; fall back to JSON
            return super().render(state)


def _own_points(view: TigrisView) -> dict[str, int]:
    """The viewing seat's points per colour, when its view shows them."""
    seat = view["seat"]
    return {} if seat is None else (view.get("points") or {}).get(view["players"][seat], {})


def _render_rich(view: TigrisView) -> str:
    import io

    from rich.console import Console

    from cradle.render.tigris_text import render_view

    buffer = io.StringIO()
    console = Console(file=buffer, width=160, color_system=None, force_terminal=False)
    console.print(render_view(view))
    return buffer.getvalue()
