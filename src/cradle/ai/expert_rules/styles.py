"""Three styles of play for the ladder's opponents (issue: a search that cannot be exploited).

Each is ``expert-rules`` with other numbers, after advice players give one another; each is
deterministic for a seed and answers in milliseconds. In Gheos they play ``expert-rules``.

- ``red-keeper``: holds on to its red tiles (a red in hand is worth a point) and commits every
  red it may in a revolt, attacking or defending, and every tile in a war.
- ``turtle``: keeps its leaders behind two or more temples and starts a conflict only when it
  is all but sure to win it.
- ``warmonger``: starts a revolt or a war whenever it has a fair chance, and commits everything.
"""

from __future__ import annotations

from cradle.ai.expert_rules import _STYLE_NAMES, ExpertRulesBot
from cradle.ai.expert_rules.tigris import TigrisRules


class RedKeeperRules(TigrisRules):
    red_in_hand = 1.0
    red_kept = 6
    red_belief = 1.6
    commit_everything = True


class TurtleRules(TigrisRules):
    lone_temple = 3.0
    extra_temple = 1.0
    sure = 0.95


class WarmongerRules(TigrisRules):
    sure = 0.35
    stake = 4.0
    conflict_bonus = 2.0
    commit_everything = True


STYLES: dict[str, type[TigrisRules]] = {
    "red-keeper": RedKeeperRules,
    "turtle": TurtleRules,
    "warmonger": WarmongerRules,
}


_STYLE_NAMES.update({rules: name for name, rules in STYLES.items()})


def make_style(name: str, seed: int | None = None) -> ExpertRulesBot:
    bot = ExpertRulesBot(seed, tigris=STYLES[name])
    bot.name = name
    return bot


def make_red_keeper(seed: int | None = None) -> ExpertRulesBot:
    return make_style("red-keeper", seed)


def make_turtle(seed: int | None = None) -> ExpertRulesBot:
    return make_style("turtle", seed)


def make_warmonger(seed: int | None = None) -> ExpertRulesBot:
    return make_style("warmonger", seed)
