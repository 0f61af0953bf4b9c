"""What the two vectorised environments (:mod:`cradle.envs.vector`, :mod:`cradle.envs.single`)
share: their games held together in one native ``Batch`` (``cradle._native.Batch``), made by
``reset``, and reset on the step after a game ends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gymnasium.vector import AutoresetMode, VectorEnv

from cradle.core import native
from cradle.core.contract import GameState
from cradle.envs.spec import EnvSpec, get_spec


def checked_spec(
    game: str, num_envs: int, players: int, options: Mapping[str, object], missing: str
) -> EnvSpec:
    """``game``'s spec for ``num_envs`` games of ``players`` seats with ``options``, after
    refusing what cannot be played: NativeMissing (saying ``missing``) without the native
    engines, ValueError for a count out of range or an unknown option."""
    if not native.available():
        raise native.NativeMissing(missing)
    spec = get_spec(game)
    module = spec.module
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
    if isinstance(players, bool) or not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
        raise ValueError(
            f"{game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, not {players!r}"
        )
    unknown = set(options) - set(spec.option_defaults())
    if unknown:
        known = ", ".join(sorted(spec.option_defaults())) or "none"
        raise ValueError(f"unknown option(s) {', '.join(sorted(unknown))} (known: {known})")
    return spec


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
