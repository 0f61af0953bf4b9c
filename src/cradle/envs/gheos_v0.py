"""Gheos as a PettingZoo AEC environment (the ``pettingzoo`` extra).

    from cradle.envs import gheos_v0
    env = gheos_v0.env(players=3, render_mode="ansi")

Keyword options: ``players`` (2-4), ``max_moves`` (a cap on decisions), ``render_mode``
("ansi", "human" or None). See docs/pettingzoo.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from cradle.envs.pettingzoo_env import CradleAECEnv, wrap

NAME = "gheos_v0"


class raw_env(CradleAECEnv):
    metadata: ClassVar[dict[str, Any]] = {**CradleAECEnv.metadata, "name": NAME}

    def __init__(self, **options: Any) -> None:
        super().__init__("gheos", **options)

    def __str__(self) -> str:
        return NAME


def env(**options: Any) -> Any:
    """The environment with PettingZoo's standard wrappers (order and bounds checks)."""
    return wrap(raw_env(**options))
