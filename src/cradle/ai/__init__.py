"""Bots for both games, all programmed against the public contract.

Importing the package registers the search bots (``pimc``, ``ismcts``) and the playing
levels (``easy``, ``medium``, ``hard``, ``expert``) next to ``random`` and ``greedy``.
"""

from cradle.ai.bots import Bot, RandomBot, UnknownBot, bot_names, make_bot, register_bot
from cradle.ai.levels import LEVELS  # registers the search bots and the levels

__all__ = ["LEVELS", "Bot", "RandomBot", "UnknownBot", "bot_names", "make_bot", "register_bot"]
