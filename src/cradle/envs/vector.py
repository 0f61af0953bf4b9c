"""A vectorised environment: N games of one of cradle's games stepped by one call
(Gymnasium's ``gymnasium.vector.VectorEnv``; docs/vector.md).

The games live in a native ``cradle._native.Batch``, which applies the N actions (ids of the
game's fixed encoding, without event dicts), writes the observation tensors, the legal-action
masks and which games ended into NumPy arrays: nothing in Python per game. Observations are
the PettingZoo env's, element for element: the flat tensor of the seat to move (written by the
native encoders, equal to ``spec.fill_observation`` of its view) and its action mask.

Turn-based and multi-agent: the caller plays every seat. ``infos["seat"]`` is the seat each
observation belongs to (the seat to move, who acts next); ``rewards[i]`` is the final ranking
utility of the seat that just acted in game ``i`` (0 until its game ends), and
``infos["utilities"]`` every seat's utility (rows of games that did not end are 0).

``actions="compact"`` (Gheos): masks and actions in the compact ids of
``cradle.envs.gheos_compact`` (2,588 wide), mapped natively. ``observation="board"`` adds
``"board"``, the board tensor (``cradle.envs.tensors``; Gheos' grid written natively). The
arrays of a step are recycled once the caller holds none of them (``_buffers``).

Autoreset is Gymnasium's NEXT_STEP mode: the step after a game ends (terminated, or truncated
at the move cap) resets it, ignores its action and returns its first observation with reward 0.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from cradle.core import native
from cradle.core.contract import GameState
from cradle.core.results import ranking_utilities
from cradle.envs.batched import BatchedEnv, checked_spec
from cradle.envs.first import check_first_player, new_game
from cradle.envs.gheos_compact import COMPACT_COUNT
from cradle.envs.spec import FloatArray, VectorStep, batch_ids
from cradle.envs.tensors import (
    board_apart,
    board_bounds,
    board_scales,
    board_shape,
    board_size,
    observation_scales,
)

# the float32 observation rows and the int8 action masks
Observation = dict[str, FloatArray | npt.NDArray[np.int8]]
# The bound of a memory element: a count of tiles (Tigris has 153) or a flag (Gheos).
MEMORY_HIGH = 153.0
# How many steps' arrays the env keeps to recycle once their caller has let them go.
POOL = 3


def _unheld() -> int:
    """``sys.getrefcount`` of an array only a pooled tuple holds, measured the way
    ``_buffers`` asks (the count differs between Python versions)."""
    kept = (np.empty(0),)
    return sys.getrefcount(kept[0])


_UNHELD = _unheld()


class CradleVectorEnv(BatchedEnv):
    """``num_envs`` games of ``game`` (tigris or gheos) with ``players`` seats each."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        players: int = 2,
        max_moves: int | None = None,
        normalize: bool = False,
        information_state: bool = False,
        first_player: int | None = None,
        actions: str = "engine",
        observation: str = "flat",
        **options: object,
    ) -> None:
        if observation not in ("flat", "board"):
            raise ValueError(f"observation must be 'flat' or 'board', not {observation!r}")
        self.board = observation == "board"
        if actions not in ("engine", "compact") or (actions == "compact" and game != "gheos"):
            raise ValueError(
                f"actions must be 'engine' (or 'compact' in Gheos), not {actions!r} in {game}"
            )
        self.compact = actions == "compact"
        spec = checked_spec(
            game, num_envs, players, options, "the vectorised environment needs the native engines"
        )
        self.game_spec = spec
        self.first_player = check_first_player(first_player, players)
        self.game = game
        self.num_envs = num_envs
        self.players = players
        self.game_options = spec.options(options)
        self.max_moves = max_moves if max_moves is not None else spec.max_game_length(players)
        low, high = spec.observation_bounds(players)
        # normalize=True: each element over its scale, in [-1, 1] (cradle.envs.tensors)
        self._scales = observation_scales(spec, players) if normalize else None
        if self._scales is not None:
            low, high = low / self._scales, high / self._scales
        # information_state=True: OpenSpiel's information-state tensor (the observation, then
        # what the seat can count from memory: spec.fill_memory of the position)
        self._memory = spec.memory_size() if information_state else 0
        if self._memory:
            top = 1.0 if normalize else MEMORY_HIGH
            low = np.concatenate([low, np.zeros(self._memory, np.float32)])
            high = np.concatenate([high, np.full(self._memory, top, np.float32)])
        self.actions = COMPACT_COUNT if self.compact else spec.action_count
        pieces: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(low=low, high=high, dtype=np.float32)
        }
        # observation="board": the board tensor beside the flat rows (cradle.envs.tensors)
        self.board_shape = board_shape(game)
        self._board_scales = board_scales(spec, players) if normalize else None
        if self.board:
            board_low, board_high = board_bounds(spec, players)
            if self._board_scales is not None:
                board_low, board_high = (
                    board_low / self._board_scales,
                    board_high / self._board_scales,
                )
            pieces["board"] = spaces.Box(board_low, board_high, dtype=np.float32)
        # the masks as MultiBinary (int8 0/1, as a Box(0, 1) would be), which keeps no bounds
        # arrays: a batched Box of Gheos' 191,012 ids would hold four of 47 MiB at N=256
        pieces["action_mask"] = spaces.MultiBinary(self.actions)
        self.single_observation_space = spaces.Dict(pieces)
        self.single_action_space = spaces.Discrete(self.actions)
        batched = {
            key: batch_space(piece, num_envs)
            for key, piece in pieces.items()
            if key != "action_mask"
        }
        batched["action_mask"] = spaces.MultiBinary((num_envs, self.actions))
        self.observation_space = spaces.Dict(batched)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._width = low.shape[0]
        self._over = np.zeros(num_envs, bool)
        self._movers = np.zeros(num_envs, np.int64)
        self._moves = np.zeros(num_envs, np.int64)
        self._autoreset = np.zeros(num_envs, bool)
        self._seeds = random.Random()
        self._batch: Any = None
        # (observations, masks, grids) of earlier steps, recycled when nobody holds them
        self._pool: list[tuple[FloatArray, npt.NDArray[np.int8], FloatArray | None]] = []
        self._pooled = 0

    def _new_game(self) -> GameState:
        return new_game(
            self.game_spec.module,
            self.players,
            self._seeds.randrange(2**63),
            self.game_options,
            self.first_player,
            engine="native",
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """New games everywhere; ``seed`` makes them (and every later autoreset) repeatable."""
        self._seeds = random.Random(seed)
        self._batch = native.extension().Batch([self._new_game() for _ in range(self.num_envs)])
        self._pool = []
        self._moves[:] = 0
        self._autoreset[:] = False
        self._refresh()
        return self._observe(), {"seat": self._movers.copy()}

    def _refresh(self) -> None:
        """Read which games are over and their seats to move (nothing is applied)."""
        none = np.zeros(self.num_envs, np.int64)
        self._batch.step(none, np.ones(self.num_envs, bool), self._over, self._movers)

    def step(self, actions: npt.ArrayLike) -> VectorStep[Observation]:
        self._check_started("step()")
        ids = batch_ids(actions, self.num_envs)
        resetting = self._autoreset.copy()
        acting = self._movers.copy()
        # every game that did not end is stepped natively (checked first: a bad id changes
        # nothing); the ones that ended last step start again and ignore their action
        self._batch.step(ids, resetting, self._over, self._movers, self.compact)
        for i in np.flatnonzero(resetting):
            self._batch.set(int(i), self._new_game())
            self._moves[i] = 0
        if resetting.any():
            self._refresh()
        self._moves[~resetting] += 1
        terminated = self._over & ~resetting
        truncated = (self._moves >= self.max_moves) & ~terminated & ~resetting
        rewards = np.zeros(self.num_envs, np.float64)
        utilities = np.zeros((self.num_envs, self.players), np.float64)
        for i in np.flatnonzero(terminated):
            utilities[i] = ranking_utilities(self._batch.get(int(i)).result())
            rewards[i] = utilities[i, acting[i]]
        self._autoreset = terminated | truncated
        seats = np.where(self._autoreset, acting, self._movers)
        observations = self._observe(seats)
        infos = {"seat": seats, "utilities": utilities}
        return observations, rewards, terminated, truncated, infos

    def _observe(self, seats: npt.NDArray[np.int64] | None = None) -> Observation:
        """Each game's observation for ``seats`` (default: the seats to move); games that
        ended get their final view and an empty mask."""
        if seats is None:
            seats = self._movers
        obs, masks, grids, reuse = self._buffers()
        size = self._width - self._memory
        if not self._memory:
            self._batch.observe(seats, obs)
        else:
            # the observation, then what the seat counts from memory, both written natively
            # (equal to spec.fill_observation and spec.fill_memory)
            core: FloatArray = np.empty((self.num_envs, size), np.float32)
            self._batch.observe(seats, core)
            obs[:, :size] = core
            memory: FloatArray = np.empty((self.num_envs, self._memory), np.float32)
            self._batch.observe_memory(seats, memory)
            obs[:, size:] = memory
            if self._scales is not None:
                obs[:, size:] /= MEMORY_HIGH
        if self._scales is not None:
            obs[:, :size] /= self._scales
        self._batch.masks(masks, self.compact, reuse)
        if not self.board:
            return {"observation": obs, "action_mask": masks}
        if grids is None:  # Tigris: the first part of the rows, folded (a view)
            board = obs[:, : board_size(self.game)].reshape(self.num_envs, *self.board_shape)
        else:
            self._batch.observe_grid(grids)
            if self._board_scales is not None:
                grids /= self._board_scales.reshape(-1)
            board = grids.reshape(self.num_envs, *self.board_shape)
        return {"observation": obs, "board": board, "action_mask": masks}

    def _buffers(self) -> tuple[FloatArray, npt.NDArray[np.int8], FloatArray | None, bool]:
        """The arrays of the next observations (the grids: Gheos' board tensor, when asked
        for), and whether they are recycled: those of an earlier step that nobody but the
        pool holds any more (a view or a reference kept by the caller keeps them out), else
        new ones. A fresh mask of Gheos' 191,012 columns is 49 MB at N = 256, zeroed by the
        kernel page by page on every step; a recycled one has only its last ones cleared
        (natively), and its memory stays in the caches."""
        for kept in self._pool:
            if (
                sys.getrefcount(kept[0]) == _UNHELD
                and sys.getrefcount(kept[1]) == _UNHELD
                and (kept[2] is None or sys.getrefcount(kept[2]) == _UNHELD)
            ):
                return kept[0], kept[1], kept[2], True
        # the native encoders write every element of each row; a fresh mask's zeros come free
        obs: FloatArray = np.empty((self.num_envs, self._width), np.float32)
        masks = np.zeros((self.num_envs, self.actions), np.int8)
        grids: FloatArray | None = None
        if self.board and board_apart(self.game):
            grids = np.empty((self.num_envs, int(np.prod(self.board_shape))), np.float32)
        if len(self._pool) < POOL:
            self._pool.append((obs, masks, grids))
        else:  # every pooled set is held: the oldest makes way
            self._pool[self._pooled % POOL] = (obs, masks, grids)
            self._pooled += 1
        return obs, masks, grids, False

    def random_actions(
        self, draws: npt.NDArray[np.uint64], out: npt.NDArray[np.int64] | None = None
    ) -> npt.NDArray[np.int64]:
        """A uniform random legal id per game (``out``, or a new array): the legal id at
        ``draws[i]`` modulo game ``i``'s count; 0 where a game ended (its action is ignored).
        With ``draws = rng.integers(0, 2**63, num_envs, dtype=np.uint64)``, random play
        without sampling the masks in Python."""
        self._check_started()
        if out is None:
            out = np.zeros(self.num_envs, np.int64)
        self._batch.random_actions(np.asarray(draws, np.uint64), out, self.compact)
        return out


def make_vector_env(
    game: str, num_envs: int, players: int = 2, **options: Any
) -> gymnasium.vector.VectorEnv:
    """``CradleVectorEnv(game, num_envs, players, **options)``."""
    return CradleVectorEnv(game, num_envs, players, **options)
