"""Bots that choose actions through the public contract, and the registry that names them.

A bot sees the game only as its seat does: ``state.view(seat)``, ``state.legal_actions()`` and
``state.sample_hidden(seat, rng)`` (a full state consistent with that view, for search). It never
reads the hidden parts of ``state`` directly, so the same bot plays fairly in the terminal, on the
server and in research runs.

Bots register by name. A new bot either calls :func:`register_bot` at import time, or (so that it
needs no import to be found) gets one line in ``_LAZY_BOTS`` pointing to its factory.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from cradle.core.contract import GameState


@runtime_checkable
class Bot(Protocol):
    """Chooses the action of ``seat`` in ``state`` (where ``state.to_move == seat``)."""

    name: str

    def choose(self, state: GameState, seat: int) -> str: ...


BotFactory = Callable[[int | None], Bot]


class UnknownBot(ValueError):
    pass


def decision_actions(state: GameState, seat: int) -> list[str]:
    """The legal actions when ``seat`` is the one to decide; ValueError otherwise."""
    if state.to_move != seat:
        raise ValueError(f"it is seat {state.to_move}'s decision, not seat {seat}'s")
    actions = state.legal_actions()
    if not actions:
        raise ValueError("there is no legal action to choose from")
    return actions


def tell(bots: Sequence[object], state: GameState, action: str) -> None:
    """Let every bot that reads the opponents (``observe(state, action)``) see ``action``,
    about to be played in ``state``; each bot once, however many seats it plays."""
    seen: set[int] = set()
    for bot in bots:
        hook = getattr(bot, "observe", None)
        if hook is not None and id(bot) not in seen:
            seen.add(id(bot))
            hook(state, action)


class RandomBot:
    """Uniform over the legal actions: the baseline every other bot must beat."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, seat: int) -> str:
        return self.rng.choice(decision_actions(state, seat))


_BOTS: dict[str, BotFactory] = {"random": RandomBot}

# name -> "module:factory", imported on first use, so heavy bots cost nothing until asked for.
_LAZY_BOTS: dict[str, str] = {
    "greedy": "cradle.ai.greedy:make_greedy",
    "expert-rules": "cradle.ai.expert_rules:make_expert_rules",
}


def register_bot(name: str, factory: BotFactory) -> None:
    """Make ``factory(seed)`` available as ``make_bot(name, seed)``."""
    if not name or name != name.strip().lower() or "," in name:
        raise ValueError(f"bad bot name {name!r}: use lower-case letters without commas")
    _BOTS[name] = factory


def bot_names() -> list[str]:
    return sorted(set(_BOTS) | set(_LAZY_BOTS))


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A fresh bot called ``name`` (case-insensitive); raises UnknownBot with the known names."""
    key = name.strip().lower()
    factory = _BOTS.get(key)
    if factory is None and key in _LAZY_BOTS:
        module_name, _, attribute = _LAZY_BOTS[key].partition(":")
        factory = getattr(importlib.import_module(module_name), attribute)
        _BOTS[key] = factory
    if factory is None:
        raise UnknownBot(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
    return factory(seed)
