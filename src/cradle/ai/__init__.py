"""Bots for both games, all programmed against the public contract."""

from cradle.ai.bots import Bot, RandomBot, UnknownBot, bot_names, make_bot, register_bot

__all__ = ["Bot", "RandomBot", "UnknownBot", "bot_names", "make_bot", "register_bot"]
