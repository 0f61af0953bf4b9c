"""What a bot remembers between its turns, for drivers that rebuild their bots at every decision
(the play server, its bot workers): the bots' own ``observe(state, action)`` keeps it inside a
bot that lives across a game; a driver that makes a new bot per decision keeps a
:class:`Memory` per game instead, tells it every action, and hands a copy to each new bot.

Which memory a game's bots keep is the AI's to say (the games themselves know no bots): the
Tigris bots read the opponents' hands from the public history
(:class:`cradle.ai.knowledge.belief.HandBelief`); other games' bots remember nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from cradle.core.contract import GameState

# The belief (and with it the engine whose hands it reads) is imported by the functions that
# use it: a server imports this at its start, long before any bot of its decides.


class Memory(Protocol):
    """What a game's bots remember, from the public history only (the same for every seat)."""

    def observe(self, state: GameState, action: str) -> None:
        """Take in ``action``, about to be played in ``state``."""
        ...

    def copy(self) -> Memory: ...


def new_memory(game: str) -> Memory | None:
    """An empty memory for the bots of ``game`` (None: they remember nothing)."""
    from cradle.ai.knowledge.belief import HandBelief, reads

    return HandBelief() if reads(game) else None


def remembered(state: GameState, actions: Sequence[str]) -> Memory | None:
    """The memory after ``actions`` played from ``state`` (a game's start, not changed), for a
    driver that keeps a game's record rather than its states."""
    memory = new_memory(state.game)
    if memory is None:
        return None
    state = state.clone()
    for action in actions:
        memory.observe(state, action)
        state.apply(action)
    return memory


def hand_over(bot: object, memory: Memory | None) -> None:
    """Give ``bot`` (just made) what its game's bots remember, if it keeps such a memory."""
    from cradle.ai.knowledge.belief import HandBelief

    if isinstance(memory, HandBelief) and isinstance(getattr(bot, "belief", None), HandBelief):
        bot.belief = memory  # type: ignore[attr-defined]
