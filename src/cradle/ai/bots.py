"""Bots that choose actions through the public contract, and the registry that names them.

A bot sees the game only as its seat does: ``state.view(seat)``, ``state.legal_actions()`` and
``state.sample_hidden(seat, rng)`` (a full state consistent with that view, for search). It never
reads the hidden parts of ``state`` directly, so the same bot plays fairly in the terminal, on the
server and in research runs.

Bots register by name. A new bot either calls :func:`register_bot` at import time, or (so that it
needs no import to be found) gets one line in ``_LAZY_BOTS`` pointing to its factory.

Every bot that could stall a game keeps a :class:`StallGuard` (Tigris has no rule that ends a
game whose players stop using tiles).
"""

from __future__ import annotations

import importlib
import operator
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


def seat_index(seat: object) -> int:
    """``seat`` as a plain int: any integer (``numpy.int64`` from an environment too) is a
    seat; a float, bool or string is a TypeError with the reason."""
    if isinstance(seat, bool):
        raise TypeError(f"a seat is an integer, not {seat!r}")
    try:
        return operator.index(seat)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"a seat is an integer, not {seat!r}") from None


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


STALL_LIMIT = 10  # own decisions in a row while the bag does not move: the game stalls
PROGRESS_VERBS = ("tile", "swap")  # Tigris actions that use up tiles, so the bag empties


class StallGuard:
    """Keeps a bot from stalling a game forever.

    Tigris ends only when the bag or the treasures run out; a side that is ahead may find
    that moving leaders back and forth is as good as anything, and a game against a bot that
    passes would never end. The guard watches the public bag size at the bot's decisions;
    after ``limit`` of them without a change it allows only actions that use up tiles
    (when there are any), so the game moves on. Once it has fired, ``relapse`` decisions
    without a change are enough (a bot that stalled once, like greedy collecting monument
    points by passing, would otherwise spend ``limit`` decisions on every tile of the bag).
    It reads the view only: it is fair."""

    def __init__(self, limit: int = STALL_LIMIT, relapse: int | None = None) -> None:
        self.limit = limit
        self.relapse = limit if relapse is None else relapse
        self.bag: int | None = None
        self.still = 0
        self.fired = False

    def allowed(self, state: GameState, seat: int, actions: list[str]) -> list[str]:
        bag = state.view(seat).get("bag_size")
        if not isinstance(bag, int):
            return actions
        if self.bag is not None and bag > self.bag:
            self.fired = False  # the bag grew: a new game
        self.still = self.still + 1 if bag == self.bag else 0
        self.bag = bag
        if self.still < (self.relapse if self.fired else self.limit):
            return actions
        moving = [a for a in actions if a.split(" ", 1)[0] in PROGRESS_VERBS]
        if moving:
            self.fired = True
        return moving or actions


class Analysis(Protocol):
    """What a search returns: at least its best action."""

    @property
    def best(self) -> str: ...


def guarded_choice(
    state: GameState,
    seat: int,
    guard: StallGuard,
    analyse: Callable[[GameState, int, list[str] | None], Analysis],
) -> str:
    """A search bot's choice: forced moves at once, else the search's best among the actions
    the stall guard allows (``None``: all of them)."""
    actions = decision_actions(state, seat)
    if len(actions) == 1:
        return actions[0]
    allowed = guard.allowed(state, seat, actions)
    if len(allowed) == 1:
        return allowed[0]
    best: str = analyse(state, seat, allowed if len(allowed) < len(actions) else None).best
    return best


class RandomBot:
    """Uniform over the legal actions: the baseline every other bot must beat."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, seat: int) -> str:
        return self.rng.choice(decision_actions(state, seat_index(seat)))


_BOTS: dict[str, BotFactory] = {"random": RandomBot}

# name -> "module:factory", imported on first use, so heavy bots cost nothing until asked for.
_LAZY_BOTS: dict[str, str] = {
    "greedy": "cradle.ai.greedy:make_greedy",
    "expert-rules": "cradle.ai.expert_rules:make_expert_rules",
    "red-keeper": "cradle.ai.expert_rules.styles:make_red_keeper",
    "turtle": "cradle.ai.expert_rules.styles:make_turtle",
    "warmonger": "cradle.ai.expert_rules.styles:make_warmonger",
}


def register_bot(name: str, factory: BotFactory) -> None:
    """Make ``factory(seed)`` available as ``make_bot(name, seed)``."""
    if not name or name != name.strip().lower() or "," in name:
        raise ValueError(f"bad bot name {name!r}: use lower-case letters without commas")
    _BOTS[name] = factory


def bot_names() -> list[str]:
    return sorted(set(_BOTS) | set(_LAZY_BOTS))


# Budgets and settings (``ismcts@50``, ``pimc@0.2s``, ``hard/rollout=0``) and the search bots
# and levels (registered when this module is imported) live above the registry.
_SPECS = "cradle.ai.levels:make_bot_spec"


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A fresh bot called ``name`` (case-insensitive), or from a spec with a budget or
    settings (``ismcts@50``, ``pimc@0.5s``); raises UnknownBot with the known names."""
    key = name.strip().lower()
    module_name, _, attribute = _SPECS.partition(":")
    if "@" in key or "/" in key:
        # The spec as typed: a model's path keeps its case (cradle.ai.model.split_model).
        spec_bot: Bot = getattr(importlib.import_module(module_name), attribute)(name.strip(), seed)
        return spec_bot
    factory = _BOTS.get(key)
    if factory is None and key in _LAZY_BOTS:
        lazy_module, _, lazy_attribute = _LAZY_BOTS[key].partition(":")
        factory = getattr(importlib.import_module(lazy_module), lazy_attribute)
        _BOTS[key] = factory
    if factory is None:
        importlib.import_module(module_name)  # registers the search bots and the levels
        factory = _BOTS.get(key)
    if factory is None:
        raise UnknownBot(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
    return factory(seed)
