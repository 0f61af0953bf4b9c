"""Seats: what a new table asks for (:class:`NewTable`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NewTable:
    """A validated ``POST /api/games`` body (see :mod:`cradle.server.models`)."""

    game: str
    players: int
    options: dict[str, Any]
    seats: list[str]  # "human" (the creator's), "open" (for the lobby) or "bot:NAME"
    hotseat: bool = False
    listed: bool = True
    bot_seconds: float | None = None
