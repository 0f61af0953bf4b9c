"""One game played to its end between bots (and people): the loop every driver shares.

Each decision is the deciding seat's: its bot chooses (or a person, through a callback),
the time it took is counted for that seat, every bot that reads the opponents is told the
action before it is played, and the game is cut after ``max_actions`` (Tigris has no rule that
ends a game whose players stop using tiles; a cut game is ranked as it stands).
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from cradle.ai.bots import Bot, tell
from cradle.core.contract import Event, GameState

MAX_ACTIONS = 3000

Decide = Callable[[GameState, int], str]
"""A seat's decision made by someone other than a bot (a person, a scripted opening): the
action of ``seat`` in ``state``, which it must not change."""

Player = Bot | Decide


class IllegalChoice(ValueError):
    """A player chose an action the game refused; the game is as it was before it."""

    def __init__(self, seat: int, player: str, action: str, reason: str) -> None:
        super().__init__(f"{player} chose the illegal action {action!r}: {reason}")
        self.seat = seat
        self.player = player
        self.action = action
        self.reason = reason


@dataclass(frozen=True)
class Move:
    """One action played: ``state`` is the game after it (advanced in place)."""

    ply: int  # 1 for the first action
    seat: int
    action: str
    events: list[Event]
    seconds: float  # the decision's time
    state: GameState


def random_start(bots: Sequence[Bot], moves: int, rng: random.Random) -> list[Decide]:
    """Players that take the game's first ``moves`` actions at random (``rng``: uniform over
    the legal ones, whichever seat decides) and then are ``bots``; the bots are players no
    more, so pass them as :func:`play`'s ``observers`` to have them told every action."""
    taken = 0

    def decide(bot: Bot, state: GameState, seat: int) -> str:
        nonlocal taken
        taken += 1
        if taken <= moves:
            return rng.choice(state.legal_actions())
        return bot.choose(state, seat)

    return [functools.partial(decide, bot) for bot in bots]


def player_name(player: Player) -> str:
    name = getattr(player, "name", None)
    return f"bot {name}" if isinstance(name, str) else "the player"


class Table(Protocol):
    """What the loop itself needs of a game: whether it is over, whose decision it is, and
    playing an action (a :class:`GameState` is one; so is a game driven through an adapter,
    like ``lab.openspiel_arena.SpielTable``)."""

    @property
    def is_over(self) -> bool: ...

    @property
    def to_move(self) -> int: ...

    def apply(self, action: str) -> Sequence[Event]: ...


S = TypeVar("S", bound=Table)


@dataclass
class Drive(Generic[S]):
    """A game played by :func:`drive` (``state``: where it ended)."""

    state: S
    actions: list[str] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)  # the mover of each action
    thinking: list[float] = field(default_factory=list)  # seconds per seat
    decisions: list[int] = field(default_factory=list)  # per seat
    seconds: float = 0.0


@dataclass
class Match(Drive[GameState]):
    """A game played by :func:`play` (``state``: where it ended)."""

    @property
    def truncated(self) -> bool:
        """Cut after ``max_actions`` and ranked as it stood."""
        return not self.state.is_over


Played = Callable[[int, int, str, list[Event], float], None]
"""Told after each action: its ply (1 for the first), seat, action, events and decision time."""


def drive(
    state: S,
    players: Sequence[Callable[[S, int], str]],
    *,
    names: Sequence[str] = (),
    max_actions: int | None = MAX_ACTIONS,
    told: Callable[[S, str], None] | None = None,
    before: Callable[[S, int], None] | None = None,
    after: Played | None = None,
) -> Drive[S]:
    """The loop itself: ``state`` played on, in place, until it is over or ``max_actions``
    were played (None: no cap), ``players[seat](state, seat)`` choosing each seat's action.

    Each decision's time is counted for its seat; ``told(state, action)`` runs before each
    action is played (the bots that read the opponents see it there), ``before(state, seat)``
    before each decision and ``after`` after each action. :class:`IllegalChoice` (naming
    ``names[seat]``) when the game refuses a choice.
    """
    count = len(players)
    match = Drive(state, thinking=[0.0] * count, decisions=[0] * count)
    begun = time.perf_counter()
    try:
        while not state.is_over and (max_actions is None or len(match.actions) < max_actions):
            seat = int(state.to_move)
            if before is not None:
                before(state, seat)
            began = time.perf_counter()
            action = players[seat](state, seat)
            spent = time.perf_counter() - began
            match.thinking[seat] += spent
            match.decisions[seat] += 1
            if told is not None:
                told(state, action)
            try:
                events = list(state.apply(action) or [])
            except ValueError as exc:
                name = names[seat] if seat < len(names) else "the player"
                raise IllegalChoice(seat, name, action, str(exc)) from None
            match.actions.append(action)
            match.seats.append(seat)
            if after is not None:
                after(len(match.actions), seat, action, events, spent)
    finally:
        match.seconds = time.perf_counter() - begun
    return match


def _chooser(player: Player) -> Decide:
    return player.choose if isinstance(player, Bot) else player


def play(
    state: GameState,
    players: Sequence[Player],
    *,
    max_actions: int | None = MAX_ACTIONS,
    observers: Sequence[object] = (),
    before: Callable[[GameState, int], None] | None = None,
    after: Callable[[Move], None] | None = None,
) -> Match:
    """Play ``state`` on, in place, until it is over or ``max_actions`` were played (None: no
    cap), ``players[seat]`` deciding for each seat: a bot, or a :data:`Decide` callback
    (through :func:`drive`).

    ``observers`` (objects with ``observe(state, action)``, like a bot) are told every action
    with the bots; ``before(state, seat)`` runs before each decision, ``after(move)`` after
    each action. :class:`IllegalChoice` when the game refuses a choice.
    """
    listeners = [*players, *observers]

    def moved(ply: int, seat: int, action: str, events: list[Event], spent: float) -> None:
        if after is not None:
            after(Move(ply, seat, action, events, spent, state))

    done = drive(
        state,
        [_chooser(player) for player in players],
        names=[player_name(player) for player in players],
        max_actions=max_actions,
        told=lambda current, action: tell(listeners, current, action),
        before=before,
        after=moved if after is not None else None,
    )
    return Match(
        state,
        actions=done.actions,
        seats=done.seats,
        thinking=done.thinking,
        decisions=done.decisions,
        seconds=done.seconds,
    )
