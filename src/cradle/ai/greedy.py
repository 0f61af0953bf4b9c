"""The greedy baseline: try every candidate action one ply deep and keep the best immediate gain.

It looks only at what its seat may know: each decision is searched in one determinization,
``state.sample_hidden(seat, rng)`` (the other hands and the bag re-drawn), and it reads only its
own standing from ``result()``. The gain is game-specific:

- Tigris & Euphrates: the seat's points as final scoring would rank them (treasures assigned to
  the lowest colours, then the lowest colour first, the second lowest next, ...). Ties are
  broken against obvious blunders: losing a leader (its last temple gone, a lost conflict),
  passing or withdrawing for nothing; an attacker commits all it can, since the defender
  answers after it; a defender keeps its tiles when it would lose anyway.
- Gheos: the seat's standing if the game ended now (points plus the final scoring of its
  followers) minus the best other seat's (all of it public), then its followers.

Swaps and catastrophes never gain a point at once, so they are only tried when nothing else
is legal (a catastrophe that would cost the bot a leader is a typical random blunder).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from cradle.ai.bots import decision_actions
from cradle.core.contract import GameState

Score = tuple[Any, ...]
# Actions whose immediate effect is never a gain for the one-ply search.
_NEVER_GAIN = ("swap", "catastrophe")


def _tigris_score(seat: int, before: Any, after: Any, events: list[dict[str, Any]]) -> Score:
    own = after.result()[seat]
    points = [int(v) for v in own["points"].values()]
    for _ in range(int(own["treasures"])):
        points[points.index(min(points))] += 1
    # Leaders lost: stranded without a temple, or beaten in a conflict.
    lost = sum(
        1
        for event in events
        if (event.get("type") == "leader_returned" and event.get("seat") == seat)
        or (event.get("type") in ("revolt_result", "war_result") and event.get("loser") == seat)
    )
    return (tuple(sorted(points)), -lost)


def _gheos_standing(view: dict[str, Any]) -> dict[str, float]:
    """Each player's points if the game ended now: the final scoring counts every follower's
    cups (as a scoring token would), and so does each unused token while enough of the game
    is left to play it (so spending a token early on a small scoring gains nothing)."""
    cups = {area["area"]: int(area["cup"]) for area in view.get("areas") or []}
    civ_cups = {
        colour: cups.get(civ["area"], 0)
        for colour, civ in (view.get("civilizations") or {}).items()
    }
    epochs_left = int(view.get("end_epoch", 0)) - int(view.get("epochs_drawn", 0))
    standing: dict[str, float] = {}
    for name in view["players"]:
        points = float(view["points"][name])
        if view.get("is_over"):
            standing[name] = points
            continue
        held = (view.get("followers") or {}).get(name) or {}
        final = sum(n * civ_cups.get(colour, 0) for colour, n in held.items())
        tokens = int((view.get("tokens") or {}).get(name, 0))
        # Tokens are only worth keeping while later epochs leave time to use them all.
        reserve = tokens * final if epochs_left > tokens + 1 else 0
        standing[name] = points + final + reserve
    return standing


def _gheos_score(seat: int, before: Any, after: Any, events: list[dict[str, Any]]) -> Score:
    view = after.view(None)
    standing = _gheos_standing(view)
    me = view["players"][seat]
    best_other = max((v for name, v in standing.items() if name != me), default=0)
    followers = sum(((view.get("followers") or {}).get(me) or {}).values())
    return (standing[me] - best_other, followers)


_SCORES: dict[str, Callable[[int, Any, Any, list[dict[str, Any]]], Score]] = {
    "tigris": _tigris_score,
    "gheos": _gheos_score,
}


def _game_name(state: Any, seat: int) -> str:
    name = state.view(seat).get("game")
    return str(name) if name else ""


def _tie_break(game: str, action: str, resolved: bool) -> tuple[int, int]:
    """Secondary preferences among actions of equal gain (higher is better)."""
    verb, _, rest = action.partition(" ")
    if game == "gheos":
        # Among equal standings keep the scoring token for later.
        return (1 if verb == "pass" else 0, 0)
    if verb == "commit":
        amount = int(rest) if rest.isdigit() else 0
        # Unresolved (we attack; the defender answers next): commit all we can.
        # Resolved (we defend): among equal outcomes keep the tiles.
        return (0, amount if not resolved else -amount)
    if verb in ("pass", "withdraw", "decline"):
        return (-1, 0)
    return (0, 0)


class GreedyBot:
    """One-ply greedy play (see the module docstring)."""

    name = "greedy"

    def __init__(self, seed: int | None = None, max_candidates: int | None = None) -> None:
        self.rng = random.Random(seed)
        # When set, only a random sample of this many candidates is searched (faster, weaker).
        self.max_candidates = max_candidates

    def choose(self, state: GameState, seat: int) -> str:
        legal = decision_actions(state, seat)
        if len(legal) == 1:
            return legal[0]
        game = _game_name(state, seat)
        score = _SCORES.get(game)
        if score is None:
            return self.rng.choice(legal)
        candidates = [a for a in legal if not a.startswith(_NEVER_GAIN)] or legal
        if self.max_candidates is not None and len(candidates) > self.max_candidates:
            candidates = self.rng.sample(candidates, self.max_candidates)
        world = state.sample_hidden(seat, self.rng)
        best: list[str] = []
        best_key: tuple[Any, ...] | None = None
        for action in candidates:
            after = world.clone()
            events = after.apply(action)
            resolved = any(str(e.get("type", "")).endswith("_result") for e in events)
            key = (*score(seat, world, after, events), *_tie_break(game, action, resolved))
            if best_key is None or key > best_key:
                best_key, best = key, [action]
            elif key == best_key:
                best.append(action)
        return self.rng.choice(best)


def make_greedy(seed: int | None = None) -> GreedyBot:
    return GreedyBot(seed)
