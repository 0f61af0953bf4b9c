"""What the two vectorised environments (:mod:`cradle.envs.vector`, :mod:`cradle.envs.single`)
share: their games held together in one native ``Batch`` (``cradle._native.Batch``), made by
``reset``, and reset on the step after a game ends."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode, VectorEnv

from cradle.core.contract import GameState


class BatchedEnv(VectorEnv):
    """A vector environment whose games are one native ``Batch`` (None before ``reset``)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012
    _batch: Any = None

    def _check_started(self, doing: str = "using the environment") -> None:
        if self._batch is None:
            raise RuntimeError(f"call reset() before {doing}")

    def game_state(self, index: int) -> GameState:
        """The native state of game ``index`` (changing it changes the environment)."""
        self._check_started()
        state: GameState = self._batch.get(index)
        return state

    def close_extras(self, **kwargs: object) -> None:
        self._batch = None
