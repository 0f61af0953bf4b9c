"""Each game's knowledge by its typed settings (``TigrisSettings``, ``GheosSettings``), made
once and shared."""

from __future__ import annotations

from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.gheos import GheosKnowledge, GheosSettings
from cradle.ai.knowledge.tigris import TigrisKnowledge, TigrisSettings

KnowledgeSettings = TigrisSettings | GheosSettings

_KNOWLEDGE: dict[KnowledgeSettings, Knowledge] = {}


def settings_for(game: str) -> KnowledgeSettings:
    """A game's plain knowledge settings (value 1: what PIMC and the analysis read)."""
    if game == "tigris":
        return TigrisSettings()
    if game == "gheos":
        return GheosSettings()
    raise ValueError(f"no AI knowledge for the game {game!r}")


def knowledge_for(settings: KnowledgeSettings | str) -> Knowledge:
    """The knowledge of those settings, or of a game by its name (its plain settings)."""
    if isinstance(settings, str):
        settings = settings_for(settings)
    found = _KNOWLEDGE.get(settings)
    if found is None:
        if isinstance(settings, TigrisSettings):
            found = TigrisKnowledge(settings.value, settings.learned)
        else:
            found = GheosKnowledge(settings.learned, settings.value, settings.settle)
        _KNOWLEDGE[settings] = found
    return found
