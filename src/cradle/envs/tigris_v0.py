"""Tigris & Euphrates as a PettingZoo AEC environment (the ``pettingzoo`` extra).

    from cradle.envs import tigris_v0
    env = tigris_v0.env(players=2, board="standard", render_mode="ansi")

Keyword options: ``players`` (2-4), ``board`` ("standard" or "advanced"), ``buildings``,
``english``, ``wonder``, ``open_scoring`` (booleans), ``max_moves`` (a cap on decisions),
``render_mode`` ("ansi", "human" or None). See docs/pettingzoo.md.
"""

from __future__ import annotations

from cradle.envs.pettingzoo_env import game_module

NAME = "tigris_v0"

raw_env, env = game_module("tigris", NAME)
