"""The PettingZoo AEC environment shared by ``cradle.envs.tigris_v0`` and ``gheos_v0``.

Agents are ``player_0`` .. ``player_{n-1}`` in seat order. The agent to act is the seat the
engine says must decide (the defender of a conflict, for instance), so the order is not always
round-robin. Observations are ``{"observation": float32 vector, "action_mask": int8 vector}``
(layouts in docs/pettingzoo.md); actions are ids of the game's fixed encoding. Rewards come
only at the end: the zero-sum ranking utilities of docs/openspiel.md. A game reaching the move
cap is truncated with zero rewards.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cradle.core.contract import GameState, fast
from cradle.core.results import ranking_utilities
from cradle.envs.first import check_first_player, new_game
from cradle.envs.spec import EnvSpec, FloatArray, get_spec
from cradle.envs.tensors import board_bounds, board_shape, fill_board


class CradleAECEnv(AECEnv):  # type: ignore[misc]
    """One of cradle's games as an AEC environment (use ``tigris_v0`` / ``gheos_v0``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        players: int = 2,
        render_mode: str | None = None,
        max_moves: int | None = None,
        first_player: int | None = None,
        observation: str = "flat",
        **options: object,
    ) -> None:
        super().__init__()
        if observation not in ("flat", "board"):
            raise ValueError(f"observation must be 'flat' or 'board', not {observation!r}")
        # observation="board": the board tensor (cradle.envs.tensors) beside the flat vector
        self.board = observation == "board"
        spec: EnvSpec = get_spec(game)
        module = spec.module
        if isinstance(players, bool) or not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise ValueError(
                f"{game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, "
                f"not {players!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        self.spec = spec
        self.players = players
        self.first_player = check_first_player(first_player, players)
        self.render_mode = render_mode
        self.game_options = spec.options(options) if options else spec.options({})
        unknown = set(options) - set(spec.option_defaults())
        if unknown:
            known = ", ".join(sorted(spec.option_defaults())) or "none"
            raise ValueError(f"unknown option(s) {', '.join(sorted(unknown))} (known: {known})")
        self.max_moves = max_moves if max_moves is not None else spec.max_game_length(players)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = spec.observation_bounds(players)
        self._obs_size = low.shape[0]
        n_actions = spec.action_count
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        pieces: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(low=low, high=high, dtype=np.float32)
        }
        if self.board:
            board_low, board_high = board_bounds(spec, players)
            pieces["board"] = spaces.Box(board_low, board_high, dtype=np.float32)
        # int8 0/1 without bounds arrays (the vector env batches it: docs/vector.md)
        pieces["action_mask"] = spaces.MultiBinary(n_actions)
        self.observation_spaces = {a: spaces.Dict(dict(pieces)) for a in self.possible_agents}
        self.state_: GameState | None = None
        self.moves = 0
        # The legal ids of agent_selection, worked out when first asked for.
        self._legal_ids: list[int] | None = None

    # --- spaces (the same objects every call, as PettingZoo asks)
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # --- the game
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        self.state_ = new_game(
            self.spec.module, self.players, seed, self.game_options, self.first_player
        )
        self.moves = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        self.agent_selection = self.possible_agents[self._game.to_move]
        self._legal_ids = None

    def _legal(self) -> list[int]:
        legal = self._legal_ids
        if legal is None:
            legal = self._legal_ids = self.spec.legal_ids(self._game)
        return legal

    def legal_action_ids(self) -> list[int]:
        """Ids of the legal actions of ``agent_selection`` (cheaper than a whole observation)."""
        done = self.terminations.get(self.agent_selection) or self.truncations.get(
            self.agent_selection
        )
        return [] if done else self._legal()[:]

    def action_mask(self, agent: str) -> npt.NDArray[np.int8]:
        mask = np.zeros(self.spec.action_count, np.int8)
        if agent == self.agent_selection:
            mask[self.legal_action_ids()] = 1
        return mask

    def observe(self, agent: str) -> dict[str, FloatArray | npt.NDArray[np.int8]]:
        seat = self._seat[agent]
        vector: FloatArray = np.zeros(self._obs_size, np.float32)
        view = self._game.view(seat)
        self.spec.fill_observation(view, seat, vector)
        if not self.board:
            return {"observation": vector, "action_mask": self.action_mask(agent)}
        board: FloatArray = np.zeros(board_shape(self.spec.game), np.float32)
        fill_board(self.spec.game, view, vector, board)
        return {"observation": vector, "board": board, "action_mask": self.action_mask(agent)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action_id = int(action)
        # The engine checks the id itself and refuses it without changing anything; no event
        # dicts are built (the fast path of every engine).
        try:
            fast(self._game).apply_id(action_id)
        except ValueError as exc:
            raise self._illegal(agent, action_id, str(exc)) from None
        self._legal_ids = None
        self.moves += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        state = self._game
        if state.is_over:
            for a, value in zip(
                self.possible_agents, ranking_utilities(state.result()), strict=True
            ):
                self.rewards[a] = value
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.moves >= self.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
        if not (state.is_over or self.moves >= self.max_moves):
            self._select()
        self._accumulate_rewards()

    def _illegal(self, agent: str, action_id: int, reason: str) -> ValueError:
        return ValueError(
            f"action {action_id} is not legal for {agent} now"
            + (f": {reason}" if reason else "")
            + f" (use the action mask; {len(self._legal())} actions are legal)"
        )

    def render(self) -> str | None:
        """``ansi``: the position as text; ``human``: the same text printed, None returned."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (use 'ansi')")
            return None
        text = "" if self.state_ is None else self.spec.render(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def game_state(self) -> GameState | None:
        """The underlying game state (the contract's object), e.g. for bots or records; None
        before the first reset()."""
        return self.state_

    @property
    def _game(self) -> GameState:
        if self.state_ is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state_


def wrap(env: CradleAECEnv) -> Any:
    """The standard PettingZoo safety wrappers, as the classic environments use them."""
    wrapped: Any = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(wrapped)


def game_module(game: str, name: str) -> tuple[type[CradleAECEnv], Callable[..., Any]]:
    """``raw_env`` and ``env`` of ``game``'s PettingZoo module ``cradle.envs.<name>``: the
    environment's class, and the function that makes one with the standard wrappers."""

    class raw_env(CradleAECEnv):
        metadata: ClassVar[dict[str, Any]] = {**CradleAECEnv.metadata, "name": name}

        def __init__(self, **options: Any) -> None:
            super().__init__(game, **options)

        def __str__(self) -> str:
            return name

    raw_env.__module__ = f"cradle.envs.{name}"
    raw_env.__qualname__ = "raw_env"

    def env(**options: Any) -> Any:
        """The environment with PettingZoo's standard wrappers (order and bounds checks)."""
        return wrap(raw_env(**options))

    env.__module__ = raw_env.__module__
    return raw_env, env
