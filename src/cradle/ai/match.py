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


@dataclass
class Match:
    """A game played by :func:`play` (``state``: where it ended)."""

    state: GameState
    actions: list[str] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)  # the mover of each action
    thinking: list[float] = field(default_factory=list)  # seconds per seat
    decisions: list[int] = field(default_factory=list)  # per seat
    seconds: float = 0.0

    @property
    def truncated(self) -> bool:
        """Cut after ``max_actions`` and ranked as it stood."""
        return not self.state.is_over


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
    cap), ``players[seat]`` deciding for each seat: a bot, or a :data:`Decide` callback.

    ``observers`` (objects with ``observe(state, action)``, like a bot) are told every action
    with the bots; ``before(state, seat)`` runs before each decision, ``after(move)`` after
    each action. :class:`IllegalChoice` when the game refuses a choice.
    """
    count = len(players)
    match = Match(state, thinking=[0.0] * count, decisions=[0] * count)
    listeners = [*players, *observers]
    begun = time.perf_counter()
    try:
        while not state.is_over and (max_actions is None or len(match.actions) < max_actions):
            seat = int(state.to_move)
            if before is not None:
                before(state, seat)
            player = players[seat]
            began = time.perf_counter()
            action = player.choose(state, seat) if isinstance(player, Bot) else player(state, seat)
            spent = time.perf_counter() - began
            match.thinking[seat] += spent
            match.decisions[seat] += 1
            tell(listeners, state, action)
            try:
                events = list(state.apply(action) or [])
            except ValueError as exc:
                raise IllegalChoice(seat, player_name(player), action, str(exc)) from None
            match.actions.append(action)
            match.seats.append(seat)
            if after is not None:
                after(Move(len(match.actions), seat, action, events, spent, state))
    finally:
        match.seconds = time.perf_counter() - begun
    return match
