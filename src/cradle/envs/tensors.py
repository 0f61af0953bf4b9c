"""The observation tensors in the shapes a network reads (docs/research.md, "Observations").

Each game's flat observation (docs/openspiel.md, "Tigris tensors", "Gheos tensors") is a board
part followed by a feature vector. The **board tensor** (:func:`board_shape`), channels x rows
x columns:

- Tigris: ``(42, 11, 16)``, the flat tensor's board part folded: the 11 x 16 board (row 1
  first, column A first), the planes of the table in docs/openspiel.md;
- Gheos: ``(41, 29, 55)``, the triangular map on a grid, each triangle one cell
  (``cradle.envs.gheos_grid``: the mapping and the channels). It is written beside the flat
  observation, whose board part is the map as a table of its tiles: ``(52, 81)``, one row
  per tile number (:data:`TILE_TABLE`).

:func:`observation_scales` gives each element's scale: the larger magnitude of its bounds
(``spec.observation_bounds``), 1 where both are 0; an observation divided by it lies in
[-1, 1] (``normalize=True``); :func:`board_scales` likewise for the board tensor.
"""

from __future__ import annotations

import numpy as np

from cradle.core.contract import View
from cradle.envs import gheos_grid
from cradle.envs.spec import EnvSpec, FloatArray

# the part of each flat observation that is the board, folded
FLAT_BOARDS: dict[str, tuple[int, ...]] = {"tigris": (42, 11, 16), "gheos": (52, 81)}
BOARD_SHAPES: dict[str, tuple[int, ...]] = {"tigris": (42, 11, 16), "gheos": gheos_grid.SHAPE}
TILE_TABLE = FLAT_BOARDS["gheos"]


def board_shape(game: str) -> tuple[int, ...]:
    """The board tensor's shape: channels x rows x columns."""
    return BOARD_SHAPES[game]


def board_size(game: str) -> int:
    """The elements of the flat observation's board part."""
    return int(np.prod(FLAT_BOARDS[game]))


def board_apart(game: str) -> bool:
    """Whether the board tensor is written apart from the flat observation (Gheos' grid),
    rather than folded from its first part (Tigris)."""
    return game == "gheos"


def scales_of(low: FloatArray, high: FloatArray) -> FloatArray:
    """Per element, what divides it into [-1, 1]: max(|low|, |high|), 1 where that is 0."""
    scale = np.maximum(np.abs(low), np.abs(high)).astype(np.float32)
    scale[scale == 0] = 1.0
    return scale


def observation_scales(spec: EnvSpec, players: int) -> FloatArray:
    """The flat observation's scales."""
    return scales_of(*spec.observation_bounds(players))


def board_bounds(spec: EnvSpec, players: int) -> tuple[FloatArray, FloatArray]:
    """The board tensor's low and high (``board_shape``)."""
    if board_apart(spec.game):
        return gheos_grid.bounds()
    low, high = spec.observation_bounds(players)
    size, shape = board_size(spec.game), BOARD_SHAPES[spec.game]
    return low[:size].reshape(shape), high[:size].reshape(shape)


def board_scales(spec: EnvSpec, players: int) -> FloatArray:
    return scales_of(*board_bounds(spec, players))


def fill_board(game: str, shown: View, flat: FloatArray, out: FloatArray) -> None:
    """The reference board tensor of a view into ``out`` (``board_shape``, zeros): Gheos'
    grid of the map, or Tigris' ``flat`` observation of the view folded."""
    if board_apart(game):
        gheos_grid.fill_grid(shown, out)
    else:
        out[...] = flat[: board_size(game)].reshape(out.shape)


def split(game: str, flat: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(board part, features)`` of flat observations (``(..., width)``), as views (no
    copy): Tigris' board tensor, Gheos' tile table."""
    size = board_size(game)
    lead = flat.shape[:-1]
    return flat[..., :size].reshape(*lead, *FLAT_BOARDS[game]), flat[..., size:]
