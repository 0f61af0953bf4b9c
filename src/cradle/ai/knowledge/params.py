"""Each game's knowledge by its settings."""

from __future__ import annotations

from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.gheos import GheosKnowledge
from cradle.ai.knowledge.tigris import TigrisKnowledge

_KNOWLEDGE: dict[str, Knowledge] = {}


def knowledge_for(game: str) -> Knowledge:
    """The heuristics of ``game`` (tigris or gheos; ``tigris:fitted`` evaluates with the
    weights fitted to game results instead of the hand-set ones, ``tigris:value2`` with the
    final lowest colour, ``gheos:value2`` to ``gheos:value5`` with Gheos' other evaluations,
    for comparisons, ``gheos:...:settled`` with priors after the conflicts the moves start,
    ``gheos:...:handing`` with a token that would hand over the control of the end judged
    rather than left to chance in the playouts; ``tigris:learned`` and
    ``gheos:learned`` with the learned model, cradle.ai.knowledge.learned)."""
    if game not in _KNOWLEDGE:
        name, *settings = game.split(":")
        if name == "tigris" and set(settings) <= {"fitted", "value2", "learned"}:
            _KNOWLEDGE[game] = TigrisKnowledge(
                fitted="fitted" in settings,
                value=2 if "value2" in settings else 1,
                learned="learned" in settings,
            )
        elif name == "gheos" and set(settings) <= {
            "value2",
            "value3",
            "value4",
            "value5",
            "value6",
            "learned",
            "settled",
            "handing",
        }:
            versions = [int(s[5:]) for s in settings if s.startswith("value")]
            version = max(versions, default=1)
            _KNOWLEDGE[game] = GheosKnowledge(
                learned="learned" in settings,
                value=version,
                settle="settled" in settings,
                handing="handing" in settings,
            )
        else:
            raise ValueError(f"no AI knowledge for the game {game!r}")
    return _KNOWLEDGE[game]
