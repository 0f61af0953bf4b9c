"""Single-agent environments: one learner against cradle's bots (docs/research.md).

``gymnasium.make("cradle/Tigris-v1", players=2, opponents="greedy")`` and
``gymnasium.make_vec("cradle/Tigris-v1", num_envs=64, opponents=...)`` (likewise
``cradle/Gheos-v1``; ``import cradle.envs`` registers both ids: ``cradle.envs.ENV_IDS``). The learner plays one seat
(``seat``: drawn per game from the reset seed when None, else fixed); every other seat is an
opponent, played inside ``step`` until the learner must decide again. ``opponents`` is

- a bot spec (``"random"``, ``"greedy"``, ``"expert-rules"``, ``"ismcts@50"``, any spec of
  ``cradle.ai.levels.make_bot_spec``);
- a list of specs: a pool, one drawn per opponent seat at the start of each game;
- a callable ``policy(observations, masks) -> ids``: a batch of observations (in this env's
  form: flat or board, normalized or not) and masks of the seats it plays (a policy snapshot,
  for self-play), returning one legal id per row.

``normalize=True`` divides every element by its scale (``cradle.envs.tensors``): values in
[-1, 1]. ``observation="board"`` gives ``{"board": ..., "features": ...}``: the board tensor
(``cradle.envs.tensors``: Tigris' board part folded, channels x rows x columns; Gheos' map on
a grid, with the flat tensor's tile table as ``"tiles"``) beside the feature vector.
``actions="compact"`` (Gheos): the factored action space of ``cradle.envs.gheos_compact``
(2,588 ids instead of the engine's 191,012), for the learner's ids, masks and a policy's.

``random``, ``greedy``, ``expert-rules`` and its styles (``red-keeper``, ``turtle``,
``warmonger``) are native opponents (``cradle._native.Opponents``, the Rust twins of the Python
bots, same decisions for the same seeds), and so is ``ismcts@N``: the native search with N
iterations a decision and its plain settings (one tree, the knowledge's default evaluation,
the stall guard in Tigris), not the Python bot's every setting; they step across the whole
batch without Python. Other specs (``ismcts@N/setting=...``, ``pimc``, the levels) are Python
bots, asked one decision at a time.

An action outside the learner's mask loses its game at once (reward -1, ``terminated``,
``infos["illegal"]``; PettingZoo classic's rule), nothing applied; ``illegal="raise"`` makes it
a ValueError that changes nothing.

Rewards and episode statistics are the learner's: 0 until its game ends, then its zero-sum
ranking utility (docs/openspiel.md). ``action_masks()`` is what sb3-contrib's MaskablePPO
reads; the mask is also in ``infos["action_mask"]``.
"""

from __future__ import annotations

import importlib
import random
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol, SupportsInt

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
    observation_scales,
    split,
)

# the opponents' ids for the rows given (anything np.asarray reads as ints)
Policy = Callable[["Observations", npt.NDArray[np.int8]], npt.ArrayLike]
Opponents = str | Sequence[str] | Policy

NATIVE_BOTS = ("random", "greedy", "expert-rules", "red-keeper", "turtle", "warmonger")
# ismcts@N (iterations, no settings): the native search, played across the batch in Rust
NATIVE_SEARCH = re.compile(r"ismcts@[1-9][0-9]{0,5}")


def is_native(spec: str) -> bool:
    return spec in NATIVE_BOTS or NATIVE_SEARCH.fullmatch(spec) is not None


IntArray = npt.NDArray[np.int64]
# A batch of observations: flat rows, or the board and features (observation="board")
Observations = FloatArray | dict[str, FloatArray]


class _Bot(Protocol):
    """What the env asks of a ``cradle.ai.bots`` bot."""

    def choose(self, state: GameState, seat: int) -> str: ...


def _pool(opponents: Opponents) -> list[str] | None:
    """The specs of ``opponents`` (checked now: a bad spec fails at construction), or None
    for a policy."""
    if callable(opponents):
        return None
    specs = [opponents] if isinstance(opponents, str) else list(opponents)
    if not specs or not all(isinstance(s, str) and s.strip() for s in specs):
        raise ValueError(
            f"opponents must be a bot spec, a non-empty list of specs or a callable, "
            f"not {opponents!r}"
        )
    # lower-cased, but for a learned network's path (cradle.ai.model), kept as typed
    specs = [s.strip() if "/model=" in s.lower() else s.strip().lower() for s in specs]
    for spec in specs:
        if not is_native(spec):
            _make_bot(spec, 0)  # UnknownBot (a ValueError) with the known names
    return specs


def _make_bot(spec: str, seed: int) -> _Bot:
    """``cradle.ai.bots.make_bot``: the bots sit in the layer above the environments, so the
    registry is looked up by name when an opponent is asked for, as a plug-in."""
    bot: _Bot = importlib.import_module("cradle.ai.bots").make_bot(spec, seed)
    return bot


class CradleSingleVecEnv(BatchedEnv):
    """``num_envs`` games of ``game``, one learner seat each, opponents played in ``step``."""

    def __init__(
        self,
        game: str = "tigris",
        num_envs: int = 1,
        players: int = 2,
        opponents: Opponents = "random",
        seat: int | None = None,
        max_moves: int | None = None,
        illegal: str = "lose",
        normalize: bool = False,
        observation: str = "flat",
        actions: str = "engine",
        first_player: int | None = None,
        **options: object,
    ) -> None:
        self.first_player = check_first_player(first_player, players)
        if actions not in ("engine", "compact") or (actions == "compact" and game != "gheos"):
            raise ValueError(
                f"actions must be 'engine' (or 'compact' in Gheos), not {actions!r} in {game}"
            )
        self.compact = actions == "compact"
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', not {illegal!r}")
        if observation not in ("flat", "board"):
            raise ValueError(f"observation must be 'flat' or 'board', not {observation!r}")
        self.illegal = illegal
        self.normalize = bool(normalize)
        self.observation = observation
        spec = checked_spec(
            game,
            num_envs,
            players,
            options,
            "the single-agent environments need the native engines",
        )
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players
        ):
            raise ValueError(f"seat must be None (drawn) or 0..{players - 1}, not {seat!r}")
        self.game_spec = spec
        self.game = game
        self.num_envs = num_envs
        self.players = players
        self.fixed_seat = seat
        self.game_options = spec.options(options)
        self.max_moves = max_moves if max_moves is not None else spec.max_game_length(players)
        self.specs = _pool(opponents)
        self.policy: Policy | None = None if self.specs is not None else opponents  # type: ignore[assignment]
        low, high = spec.observation_bounds(players)
        self._scales = observation_scales(spec, players)
        if normalize:
            low, high = low / self._scales, high / self._scales
        self.actions = COMPACT_COUNT if self.compact else spec.action_count
        self.single_observation_space: spaces.Space[Any] = spaces.Box(
            low=low, high=high, dtype=np.float32
        )
        if observation == "board":
            self.single_observation_space = self._board_space(spec, low, high)
        self.board_shape = board_shape(game)
        self.single_action_space = spaces.Discrete(self.actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._width = low.shape[0]
        n = num_envs
        self._over = np.zeros(n, bool)
        self._movers = np.zeros(n, np.int64)
        self._moves = np.zeros(n, np.int64)
        self._caps = np.full(n, self.max_moves, np.int64)
        self.learners = np.zeros(n, np.int64)
        self._autoreset = np.zeros(n, bool)
        self._masks = np.zeros((n, self.actions), np.int8)
        self._rng = random.Random()
        self._batch: Any = None
        self._opponents: Any = None
        # per game, per seat: the Python bot playing it (None: learner, native bot or policy)
        self._py_bots: list[list[_Bot | None]] = [[None] * players for _ in range(n)]
        self._native_seats: list[list[tuple[str, int] | None]] = [[None] * players] * n
        self._policy_seats = np.zeros((n, players), bool)

    def _board_space(self, spec: Any, low: FloatArray, high: FloatArray) -> spaces.Dict:
        """``observation="board"``: the board tensor and the rest of the flat observation
        (Gheos: its tile table and features, the grid written apart)."""
        (table_low, features_low), (table_high, features_high) = (
            split(self.game, low),
            split(self.game, high),
        )
        board_low, board_high = board_bounds(spec, self.players)
        self._board_scales = board_scales(spec, self.players)
        if self.normalize:
            board_low, board_high = (
                board_low / self._board_scales,
                board_high / self._board_scales,
            )
        pieces: dict[str, spaces.Space[Any]] = {
            "board": spaces.Box(board_low, board_high, dtype=np.float32)
        }
        if board_apart(self.game):
            pieces["tiles"] = spaces.Box(table_low, table_high, dtype=np.float32)
        pieces["features"] = spaces.Box(features_low, features_high, dtype=np.float32)
        return spaces.Dict(pieces)

    # --- games and their seats
    def _deal(self, i: int) -> GameState:
        """A new game for row ``i``: its state, learner seat and opponents, all drawn from
        the reset seed's generator."""
        rng = self._rng
        state = new_game(
            self.game_spec.module,
            self.players,
            rng.randrange(2**63),
            self.game_options,
            self.first_player,
            engine="native",
        )
        learner = self.fixed_seat if self.fixed_seat is not None else rng.randrange(self.players)
        self.learners[i] = learner
        natives: list[tuple[str, int] | None] = [None] * self.players
        self._py_bots[i] = [None] * self.players
        self._policy_seats[i] = False
        for seat in range(self.players):
            bot_seed = rng.randrange(2**63)
            if seat == learner:
                continue
            if self.specs is None:
                self._policy_seats[i, seat] = True
                continue
            spec = self.specs[0] if len(self.specs) == 1 else rng.choice(self.specs)
            if is_native(spec):
                natives[seat] = (spec, bot_seed)
            else:
                self._py_bots[i][seat] = _make_bot(spec, bot_seed)
        self._native_seats[i] = natives
        self._moves[i] = 0
        return state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observations, dict[str, Any]]:
        """New games everywhere; ``seed`` makes them, the learners' seats, the opponents and
        every later autoreset repeatable."""
        self._rng = random.Random(seed)
        self._native_seats = [[None] * self.players for _ in range(self.num_envs)]
        states = [self._deal(i) for i in range(self.num_envs)]
        self._batch = native.extension().Batch(states)
        self._opponents = native.extension().Opponents(self._native_seats)
        self._autoreset[:] = False
        self._refresh()
        self._advance()
        observations = self._observe()
        infos = self._infos(np.zeros((self.num_envs, self.players)), np.zeros(self.num_envs, bool))
        return observations, infos

    def _refresh(self) -> None:
        none = np.zeros(self.num_envs, np.int64)
        self._batch.step(none, np.ones(self.num_envs, bool), self._over, self._movers)

    def _advance(self, rows: npt.NDArray[np.bool_] | None = None) -> None:
        """Play the opponents of every game (of ``rows``) until its learner is to move, it
        ends or it reaches the move cap: native bots in Rust, the rest here, a batch at a
        time."""
        batch = self._batch
        # a game left out is treated as capped for the native bots
        caps = self._caps if rows is None else np.where(rows, self._caps, 0)
        while True:
            self._opponents.play(batch, self.learners, caps, self._over, self._movers, self._moves)
            waiting = ~self._over & (self._movers != self.learners) & (self._moves < caps)
            if not waiting.any():
                return
            ids = np.zeros(self.num_envs, np.int64)
            asked: IntArray = np.flatnonzero(waiting)
            by_policy = asked[self._policy_seats[asked, self._movers[asked]]]
            if by_policy.size:
                ids[by_policy] = self._policy_ids(by_policy)
            for i in asked:
                seat = int(self._movers[i])
                bot = self._py_bots[i][seat]
                if bot is None:
                    continue
                state = batch.get(int(i))
                action = bot.choose(state, seat)
                ids[i] = self.game_spec.encode_legal(state, [action])[0]
            batch.step(ids, ~waiting, self._over, self._movers)
            self._moves[waiting] += 1

    def _policy_ids(self, rows: IntArray) -> IntArray:
        """The policy's ids for ``rows`` (their seats to move), checked against the masks."""
        assert self.policy is not None
        observations: FloatArray = np.empty((self.num_envs, self._width), np.float32)
        self._batch.observe(self._movers, observations)
        masks = np.zeros((self.num_envs, self.actions), np.int8)
        self._batch.masks(masks, self.compact)
        shaped = self._shaped(observations[rows], rows)
        chosen = np.asarray(self.policy(shaped, masks[rows]), np.int64).reshape(-1)
        if (
            chosen.shape != rows.shape
            or not ((chosen >= 0) & (chosen < self.actions)).all()
            or not masks[rows, chosen].all()
        ):
            raise ValueError("the opponents' policy must return one legal id per row it is given")
        if self.compact:  # the engine's ids of each row's table, natively
            ids = np.zeros(self.num_envs, np.int64)
            ids[rows] = chosen
            skip = np.ones(self.num_envs, bool)
            skip[rows] = False
            engine = np.zeros(self.num_envs, np.int64)
            self._batch.engine_ids(ids, skip, engine)
            chosen = engine[rows]
        return chosen

    def _observe(self) -> Observations:
        observations: FloatArray = np.empty((self.num_envs, self._width), np.float32)
        self._batch.observe(self.learners, observations)
        moving = ~self._over & (self._movers == self.learners)
        # the seats to move's masks (compact ids mapped natively), the buffer recycled: only
        # the ones written last step are cleared, not all its columns
        self._batch.masks(self._masks, self.compact, True)
        # a game the learner does not move in (over, or truncated at an opponent's turn)
        # shows no legal id
        self._masks[~moving] = 0
        return self._shaped(observations)

    def _shaped(self, observations: FloatArray, rows: IntArray | None = None) -> Observations:
        """Flat rows (of ``rows``, default all) as this env gives them: normalized, folded
        into the board tensor and the rest."""
        if self.normalize:
            observations /= self._scales
        if self.observation != "board":
            return observations
        table, features = split(self.game, observations)
        if not board_apart(self.game):
            return {"board": table, "features": features}
        grids: FloatArray = np.empty((self.num_envs, int(np.prod(self.board_shape))), np.float32)
        self._batch.observe_grid(grids)
        board = grids.reshape(self.num_envs, *self.board_shape)
        if rows is not None:
            board = board[rows]
        if self.normalize:
            board /= self._board_scales
        return {"board": board, "tiles": table, "features": features}

    def _infos(
        self, utilities: npt.NDArray[np.float64], illegal: npt.NDArray[np.bool_]
    ) -> dict[str, Any]:
        return {
            "seat": self.learners.copy(),
            "utilities": utilities,
            "action_mask": self._masks.copy(),
            "illegal": illegal,
        }

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learner's legal ids of each game (N rows), as MaskablePPO reads them."""
        return self._masks.astype(bool)

    def step(self, actions: npt.ArrayLike) -> VectorStep[Observations]:
        self._check_started("step()")
        ids = batch_ids(actions, self.num_envs)
        resetting = self._autoreset.copy()
        live = ~resetting
        rows = np.flatnonzero(live)
        legal = (ids[rows] >= 0) & (ids[rows] < self.actions)
        legal[legal] = self._masks[rows[legal], ids[rows[legal]]] == 1
        forfeit = np.zeros(self.num_envs, bool)
        if not legal.all():
            bad = int(rows[~legal][0])
            if self.illegal == "raise":
                raise ValueError(
                    f"action {ids[bad]} is not legal for the learner in game {bad} "
                    "(use action_masks()); nothing changed"
                )
            forfeit[rows[~legal]] = True
        # compact ids are mapped to the engine's natively, by each game's table now
        self._batch.step(ids, resetting | forfeit, self._over, self._movers, self.compact)
        self._moves[live & ~forfeit] += 1
        for i in np.flatnonzero(resetting):
            self._batch.set(int(i), self._deal(int(i)))
            self._opponents.set(int(i), self._native_seats[i])
        if resetting.any():
            self._refresh()
        self._advance(~forfeit)
        terminated = (self._over & live) | forfeit
        truncated = (self._moves >= self._caps) & ~terminated & live
        rewards = np.zeros(self.num_envs, np.float64)
        utilities = np.zeros((self.num_envs, self.players), np.float64)
        for i in np.flatnonzero(terminated):
            if forfeit[i]:
                # an illegal move loses the game: the others share the learner's -1
                utilities[i] = 1.0 / (self.players - 1)
                utilities[i, self.learners[i]] = -1.0
            else:
                utilities[i] = ranking_utilities(self._batch.get(int(i)).result())
            rewards[i] = utilities[i, self.learners[i]]
        self._autoreset = terminated | truncated
        observations = self._observe()
        infos = self._infos(utilities, forfeit)
        return observations, rewards, terminated, truncated, infos

    def random_actions(self, draws: npt.NDArray[np.uint64]) -> IntArray:
        """A uniform random legal id of the learner in each game (the legal id at
        ``draws[i]`` modulo the count; 0 where the learner has none), drawn natively."""
        self._check_started()
        out = np.zeros(self.num_envs, np.int64)
        self._batch.random_actions(np.asarray(draws, np.uint64), out, self.compact)
        out[~self._masks.any(axis=1)] = 0
        return out


class CradleSingleEnv(gymnasium.Env[Observations, np.int64]):
    """One game against bots (``CradleSingleVecEnv`` with one row; call ``reset`` after a
    game ends)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(
        self,
        game: str = "tigris",
        players: int = 2,
        opponents: Opponents = "random",
        seat: int | None = None,
        max_moves: int | None = None,
        illegal: str = "lose",
        normalize: bool = False,
        observation: str = "flat",
        actions: str = "engine",
        first_player: int | None = None,
        render_mode: str | None = None,
        **options: object,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.core = CradleSingleVecEnv(
            game,
            1,
            players,
            opponents,
            seat,
            max_moves,
            illegal,
            normalize,
            observation,
            actions,
            first_player,
            **options,
        )
        self.observation_space = self.core.single_observation_space
        self.action_space = self.core.single_action_space
        self._done = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observations, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63))
        observations, infos = self.core.reset(seed=seed)
        self._done = False
        return _first(observations), self._row(infos)

    def step(self, action: SupportsInt) -> tuple[Observations, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the game is over: call reset()")
        observations, rewards, terminated, truncated, infos = self.core.step(
            np.array([int(action)], np.int64)
        )
        self._done = bool(terminated[0] or truncated[0])
        return (
            _first(observations),
            float(rewards[0]),
            bool(terminated[0]),
            bool(truncated[0]),
            self._row(infos),
        )

    @staticmethod
    def _row(infos: dict[str, Any]) -> dict[str, Any]:
        return {
            "seat": int(infos["seat"][0]),
            "utilities": infos["utilities"][0],
            "action_mask": infos["action_mask"][0],
            "illegal": bool(infos["illegal"][0]),
        }

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learner's legal ids now, as MaskablePPO reads them."""
        mask: npt.NDArray[np.bool_] = self.core.action_masks()[0]
        return mask

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.core.game_spec.render(self.game_state())

    def game_state(self) -> GameState:
        return self.core.game_state(0)


def _first(observations: Observations) -> Observations:
    if isinstance(observations, dict):
        return {key: value[0] for key, value in observations.items()}
    row: FloatArray = observations[0]
    return row


# The Gymnasium entry points of cradle.envs.ENV_IDS.
tigris_env = partial(CradleSingleEnv, "tigris")
tigris_vec_env = partial(CradleSingleVecEnv, "tigris")
gheos_env = partial(CradleSingleEnv, "gheos")
gheos_vec_env = partial(CradleSingleVecEnv, "gheos")
