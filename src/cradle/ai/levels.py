"""The search bots and the playing levels, registered by name in the bot registry.

| name     | bot                                   | budget per decision |
|----------|---------------------------------------|---------------------|
| `pimc`   | determinized one-ply + rollouts       | 0.5 s               |
| `ismcts` | information-set MCTS                  | 1 s                 |
| `easy`   | `greedy` (one ply)                    | -                   |
| `expert-rules` | rules of thumb, a one-ply look  | - (milliseconds)    |
| `medium` | `pimc`                                | 0.3 s               |
| `hard`   | `ismcts`                              | 1 s                 |
| `expert` | `ismcts`, root-parallel on every core | 3 s                 |

A budget can be given with the name: ``ismcts@2s`` (seconds) or ``ismcts@500`` (iterations);
:func:`make_bot_spec` understands that, ``make_bot`` (the registry) the plain names. A learned
network joins with ``model=`` (last, a shipped name or a path: cradle.ai.model):
``ismcts@200/model=tigris-2p`` searches with it, ``hard/model=tigris-2p`` is the level with it,
``policy/model=tigris-2p`` plays its policy alone.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from cradle.ai.bots import Bot, BotFactory, UnknownBot, make_bot, register_bot
from cradle.ai.model import split_model
from cradle.ai.search.budget import Budget

if TYPE_CHECKING:
    from cradle.ai.search.params import IsmctsParams

# The searches, the rules of thumb and the games' engines under them are imported by the
# functions that make their bots: the names, the levels and their words cost a process (a
# server's start, the CLI's) nothing until a bot is made.


@dataclass(frozen=True)
class Level:
    name: str
    bot: str
    budget: Budget | None
    workers: int = 1  # 0: every core
    about: str = ""
    turn_seconds: float | None = None  # the most a whole turn of its own may take


# The fewest iterations a level searches even when its seconds are up: ismcts@200 already beat
# expert-rules 27-3 in Tigris (lab/notebook/ladder.md), and the Python engines run ~600 a second.
HARD_FLOOR = 200
EXPERT_FLOOR = 400

LEVELS: dict[str, Level] = {
    "easy": Level("easy", "greedy", None, about="one-ply greedy: takes what scores now"),
    # Between easy and medium: far ahead of greedy in Tigris, behind the search bots.
    "expert-rules": Level(
        "expert-rules",
        "expert-rules",
        None,
        about="published strategy as rules, no search",
    ),
    "medium": Level("medium", "pimc", Budget(seconds=0.3), about="sampled worlds"),
    # Players wait at most 1 s a decision and 3 s a turn for `hard`, 3 s a decision for
    # `expert` (issue 15): the search gets 90% of that, the rest is kept for the work around
    # it. A loaded machine gets a later answer rather than a blind one (the floor).
    "hard": Level(
        "hard",
        "ismcts",
        Budget(seconds=0.9, floor=HARD_FLOOR),
        about="information-set MCTS",
        turn_seconds=2.7,
    ),
    "expert": Level(
        "expert",
        "ismcts",
        Budget(seconds=2.7, floor=EXPERT_FLOOR),
        workers=0,
        about="information-set MCTS",
        turn_seconds=5.4,
    ),
}


def describe(level: Level, seconds: float | None = None, workers: int | None = None) -> str:
    """The level in words with the numbers it plays by, never other numbers: its kind, the
    most it thinks a decision (``seconds``: where it runs capped lower, as on a server), its
    turn allowance and its cores (``workers``: where it runs on fewer)."""
    words = [level.about]
    if level.budget is None or not level.budget.seconds:
        words.append("answers at once")
        return ", ".join(words)
    per = level.budget.seconds if seconds is None else min(seconds, level.budget.seconds)
    words.append(f"up to {per:g} s a move")
    if level.turn_seconds is not None and seconds is None:
        words.append(f"{level.turn_seconds:g} s a turn")
    cores = level.workers if workers is None else workers
    if cores == 0:
        words.append("on every core")
    return ", ".join(words)


SEARCH_DEFAULTS = {"pimc": Budget(seconds=0.5), "ismcts": Budget(seconds=1.0)}


def search_bot(
    kind: str,
    seed: int | None,
    budget: Budget,
    workers: int = 1,
    name: str | None = None,
    turn_seconds: float | None = None,
    params: IsmctsParams | None = None,
) -> Bot:
    """A ``pimc`` or ``ismcts`` bot with that budget (``workers`` 0: every core), an
    ``ismcts`` one within ``turn_seconds`` a turn and with ``params``."""
    from cradle.ai.search.ismcts import IsmctsBot
    from cradle.ai.search.parallel import default_workers
    from cradle.ai.search.pimc import PimcBot

    if kind == "pimc":
        return PimcBot(seed, budget, name=name or kind)
    if kind == "ismcts":
        count = default_workers() if workers == 0 else workers
        return IsmctsBot(
            seed, budget, params, workers=count, name=name or kind, turn_seconds=turn_seconds
        )
    raise UnknownBot(f"{kind!r} is not a search bot (pimc or ismcts)")


def level_bot(
    level: str,
    seed: int | None = None,
    params: IsmctsParams | None = None,
    name: str | None = None,
) -> Bot:
    """The bot of a playing level; ``params`` changes the settings of an ISMCTS level's search
    (its budget, turn and workers stay the level's)."""
    spec = LEVELS[level]
    if params is not None and spec.bot != "ismcts":
        raise UnknownBot(f"{level!r} takes no search settings: only the ISMCTS levels do")
    if spec.bot == "expert-rules":
        from cradle.ai.expert_rules import ExpertRulesBot

        # The level and the bot share the name: the registry would hand back this factory.
        return ExpertRulesBot(seed)
    if spec.budget is None:
        try:
            bot = make_bot(spec.bot, seed)
        except UnknownBot:
            bot = make_bot("random", seed)  # the greedy bot is not installed in this checkout
        bot.name = level
        return bot
    return search_bot(
        spec.bot, seed, spec.budget, spec.workers, name or level, spec.turn_seconds, params
    )


def parse_budget(text: str) -> Budget:
    """'2s', '0.5s' (seconds) or '500' (iterations)."""
    raw = text.strip().lower()
    try:
        if raw.endswith("s"):
            return Budget(seconds=float(raw[:-1]))
        return Budget(iterations=int(raw))
    except ValueError as exc:
        raise UnknownBot(
            f"bad budget {text!r}: write seconds like '2s' or iterations like '500' ({exc})"
        ) from None


def make_bot_spec(spec: str, seed: int | None = None, default: Budget | None = None) -> Bot:
    """A bot from ``name``, ``name@budget`` or, for experiments with the search settings,
    ``name@budget/key=value/...`` (ismcts: the fields of ``IsmctsParams``, e.g. exploration,
    rollout, playout, value, learned, and ``turn``, the seconds a whole turn may take; pimc:
    candidates, rollout). An ISMCTS level takes settings too and keeps its budget, turn and
    workers (``hard/rollout=0``). A removed setting is a clear error naming it and why.
    ``default`` overrides the usual budget of a plain search-bot name. ``model=`` (last) names
    a learned network (cradle.ai.model): the ISMCTS bots and levels search with it,
    ``policy/model=...`` plays its policy alone."""
    try:
        rest, model = split_model(spec)
    except ValueError as exc:
        raise UnknownBot(str(exc)) from None
    label = rest if model is None else f"{rest}/model={model}"
    head, *settings = rest.split("/")
    if model is not None:
        base = head.partition("@")[0]
        if base not in ("ismcts", "policy") and LEVELS.get(base, LEVELS["easy"]).bot != "ismcts":
            raise UnknownBot(f"{base!r} takes no model: ismcts, its levels and policy do")
        _check_model(model, spec)
    if head == "policy":
        if settings or model is None:
            raise UnknownBot(
                f"policy takes a model and nothing else: policy/model=NAME, not {spec!r}"
            )
        from cradle.ai.policy import PolicyBot

        return PolicyBot(model, seed, name=label)
    name, _, budget_text = head.partition("@")
    values: dict[str, float] = {}
    for item in settings:
        key, _, value = item.partition("=")
        try:
            values[key.strip()] = float(value)
        except ValueError:
            raise UnknownBot(f"bad setting {item!r} in {spec!r}: write key=number") from None
    if (settings or model) and not budget_text and LEVELS.get(name, LEVELS["easy"]).bot == "ismcts":
        return level_bot(name, seed, _ismcts_params(values, spec, model), name=label)
    if (budget_text or settings) and name not in SEARCH_DEFAULTS:
        raise UnknownBot(
            f"{name!r} takes no budget or settings: only pimc and ismcts do (and the ISMCTS "
            "levels take settings)"
        )
    if not budget_text and not settings and model is None:
        if default is not None and name in SEARCH_DEFAULTS:
            return search_bot(name, seed, default)
        return make_bot(name, seed)
    budget = parse_budget(budget_text) if budget_text else default or SEARCH_DEFAULTS[name]
    from cradle.ai.search.ismcts import IsmctsBot
    from cradle.ai.search.pimc import PimcBot

    if name == "pimc":
        unknown = set(values) - {"candidates", "rollout"}
        if unknown:
            raise UnknownBot(f"unknown pimc setting(s): {', '.join(sorted(unknown))}")
        return PimcBot(
            seed,
            budget,
            candidates=int(values.get("candidates", 12)),
            rollout=int(values.get("rollout", 4)),
            name=label,
        )
    # turn=S: the most a whole turn of its own may take, as the levels have (hard 3 s at
    # 1 s a decision), so a scaled-down experiment keeps a level's shape.
    turn = values.pop("turn", None)
    if turn is not None and not turn > 0:
        raise UnknownBot(f"bad setting turn={turn:g} in {spec!r}: a turn takes more than 0 s")
    return IsmctsBot(
        seed, budget, _ismcts_params(values, spec, model), name=label, turn_seconds=turn
    )


def _check_model(model: str, spec: str) -> None:
    """A model that cannot be read is an UnknownBot naming it (before any game)."""
    from cradle.ai.model import load

    try:
        load(model)
    except (ValueError, OSError) as exc:
        raise UnknownBot(f"bad model in {spec!r}: {exc}") from None


def _ismcts_params(values: dict[str, float], spec: str, model: str | None = None) -> IsmctsParams:
    """The ISMCTS settings a spec names, each as its field's type (a switch 0 or 1, a whole
    number, a real); a removed one is named with the reason it went."""
    from cradle.ai.search.params import REMOVED, IsmctsParams

    removed = sorted(set(values) & set(REMOVED))
    if removed:
        reasons = "; ".join(f"{key}: {REMOVED[key]}" for key in removed)
        raise UnknownBot(
            f"{', '.join(removed)} in {spec!r}: removed from the search ({reasons}; "
            "docs/ai-decisions.md)"
        )
    kinds = {f.name: str(f.type) for f in fields(IsmctsParams) if f.name != "model"}
    unknown = set(values) - set(kinds)
    if unknown:
        raise UnknownBot(f"unknown ismcts setting(s): {', '.join(sorted(unknown))}")
    typed: dict[str, Any] = {}  # each value as its field's type, checked on the way
    for key, value in values.items():
        kind = kinds[key]
        if kind.startswith("bool"):
            if value not in (0, 1):
                raise UnknownBot(f"bad setting {key}={value:g} in {spec!r}: {key} is 0 or 1")
            typed[key] = bool(value)
        elif kind.startswith("int"):
            if value != int(value):
                raise UnknownBot(f"bad setting {key}={value:g} in {spec!r}: a whole number")
            typed[key] = int(value)
        else:
            typed[key] = value
    try:
        return replace(IsmctsParams(), model=model, **typed)
    except ValueError as exc:
        raise UnknownBot(f"bad ismcts setting in {spec!r}: {exc}") from None


def _search_factory(kind: str) -> BotFactory:
    def factory(seed: int | None = None) -> Bot:
        return search_bot(kind, seed, SEARCH_DEFAULTS[kind])

    return factory


def _level_factory(level: str) -> BotFactory:
    def factory(seed: int | None = None) -> Bot:
        return level_bot(level, seed)

    return factory


def register() -> None:
    for kind in SEARCH_DEFAULTS:
        register_bot(kind, _search_factory(kind))
    for level in LEVELS:
        register_bot(level, _level_factory(level))


register()
