"""Gheos as a PettingZoo AEC environment (the ``pettingzoo`` extra).

    from cradle.envs import gheos_v0
    env = gheos_v0.env(players=3, render_mode="ansi")

Keyword options: ``players`` (2-4), ``max_moves`` (a cap on decisions), ``render_mode``
("ansi", "human" or None). See docs/pettingzoo.md.
"""

from __future__ import annotations

from cradle.envs.pettingzoo_env import game_module

NAME = "gheos_v0"

raw_env, env = game_module("gheos", NAME)
