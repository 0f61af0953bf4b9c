"""The observation tensors in the shapes a network reads (docs/research.md, "Observations").

Each game's flat observation (docs/openspiel.md, "Tigris tensors", "Gheos tensors") is a board
part followed by a feature vector; :func:`board_shape` says how the board part folds:

- Tigris: ``(42, 11, 16)``, channels x rows x columns of the 11 x 16 board (row 1 first,
  column A first), the planes of the table in docs/openspiel.md;
- Gheos: ``(52, 81)``, one row per tile number (``t0``..``t51``) with the tile's cell (row,
  column, pointing up), rotation and regions: the triangular map as a table of its tiles,
  since a map of 52 tiles may stretch 51 cells in any direction from the start.

:func:`observation_scales` gives each element's scale: the larger magnitude of its bounds
(``spec.observation_bounds``), 1 where both are 0; an observation divided by it lies in
[-1, 1] (``normalize=True``).
"""

from __future__ import annotations

import numpy as np

from cradle.envs.spec import EnvSpec, FloatArray

BOARD_SHAPES: dict[str, tuple[int, ...]] = {"tigris": (42, 11, 16), "gheos": (52, 81)}


def board_shape(game: str) -> tuple[int, ...]:
    return BOARD_SHAPES[game]


def board_size(game: str) -> int:
    return int(np.prod(BOARD_SHAPES[game]))


def observation_scales(spec: EnvSpec, players: int) -> FloatArray:
    """Per element, what divides it into [-1, 1]: max(|low|, |high|), 1 where that is 0."""
    low, high = spec.observation_bounds(players)
    scale = np.maximum(np.abs(low), np.abs(high)).astype(np.float32)
    scale[scale == 0] = 1.0
    return scale


def split(game: str, flat: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(board, features)`` of flat observations (``(..., width)``), as views (no copy)."""
    size = board_size(game)
    lead = flat.shape[:-1]
    return flat[..., :size].reshape(*lead, *BOARD_SHAPES[game]), flat[..., size:]
