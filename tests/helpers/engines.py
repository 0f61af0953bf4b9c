"""The engines a test can run on: both where the native one is built (make test requires it)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar

from cradle.core import native
from cradle.core.contract import IllegalAction
from cradle.games import get_game

ENGINES = ("python", "native")


def engines() -> list[str]:
    """The engines a parametrized test runs on: both, native only where it is built."""
    return [e for e in ENGINES if e == "python" or native.available()]


def refusals(game: str, seed: int) -> list[IllegalAction]:
    """Refusals of the Python engine along a random game: at each step, actions that were legal
    earlier but are not now, and a few malformed ones."""
    module = get_game(game)
    state = module.new_game(2, seed=seed, engine="python")
    rng = random.Random(seed)
    seen: list[str] = []
    found: list[IllegalAction] = []
    for _step in range(60):
        if state.is_over:
            break
        legal = set(state.legal_actions())
        seen += rng.sample(sorted(legal), min(5, len(legal)))
        tries = [a for a in rng.sample(seen, min(12, len(seen))) if a not in legal][:6]
        tries += ["", "fly", "tile pink A1", "leader king Z9", "place t99 0,1 r0"]
        for action in tries:
            try:
                state.clone().apply(action)
            except IllegalAction as refused:
                found.append(refused)
        state.apply(rng.choice(sorted(legal)))
    return found


class Playable(Protocol):
    is_over: bool

    def legal_action_ids(self) -> Sequence[int]: ...

    def apply(self, action: int) -> None: ...


S = TypeVar("S", bound=Playable)


def random_states(state: S, seed: int, every: int) -> Iterator[S]:
    """``state`` at every ``every``-th step of a random game played on from it (the same
    object, changed between the steps), and at its end."""
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % every == 0:
            yield state
        state.apply(rng.choice(state.legal_action_ids()))
        step += 1
    yield state
