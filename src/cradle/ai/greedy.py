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

Stall guard: in Tigris a pass that ends the turn at once collects the end-of-turn monument
points one action earlier than a tile does, so two greedy players would pass forever and
the bag would never empty. The search bots' ``StallGuard`` (once it has fired, after 2
decisions without a change of the bag) makes it place a tile or swap instead.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from cradle.ai.bots import StallGuard, decision_actions, seat_index
from cradle.core.contract import Event, GameState
from cradle.gheos import as_gheos
from cradle.tigris import as_tigris

# An action's immediate gain (compared element by element, greater is better).
Score = tuple[float, ...]
# Actions whose immediate effect is never a gain for the one-ply search.
_NEVER_GAIN = ("swap", "catastrophe")


def _tigris_score(seat: int, world: GameState, action: str) -> tuple[Score, Sequence[Event]]:
    after = as_tigris(world.clone())
    events = after.apply(action)
    own = after.result()[seat]
    points = list(own["points"].values())
    for _ in range(own["treasures"]):
        points[points.index(min(points))] += 1
    # Leaders lost: stranded without a temple, or beaten in a conflict.
    lost = sum(
        1
        for event in events
        if (event.get("type") == "leader_returned" and event.get("seat") == seat)
        or (event.get("type") in ("revolt_result", "war_result") and event.get("loser") == seat)
    )
    return (*sorted(points), -lost), events


def _gheos_standing(world: GameState) -> list[float]:
    """Each player's points if the game ended now: the final scoring counts every follower's
    cups (as a scoring token would), and so does each unused token while enough of the game
    is left to play it (so spending a token early on a small scoring gains nothing)."""
    state = as_gheos(world)
    civ_cups = {civ.colour: state.area(civ.area).cup for civ in state.civilizations()}
    epochs_left = state.end_epoch - state.epochs
    standing: list[float] = []
    for seat in range(len(state.players)):
        player = state.player(seat)
        points = float(player.points)
        if state.is_over:
            standing.append(points)
            continue
        final = sum(n * civ_cups.get(colour, 0) for colour, n in enumerate(player.followers) if n)
        # Tokens are only worth keeping while later epochs leave time to use them all.
        reserve = player.tokens * final if epochs_left > player.tokens + 1 else 0
        standing.append(points + final + reserve)
    return standing


def _gheos_score(seat: int, world: GameState, action: str) -> tuple[Score, Sequence[Event]]:
    after = world.clone()
    events = after.apply(action)
    standing = _gheos_standing(after)
    best_other = max((v for other, v in enumerate(standing) if other != seat), default=0)
    followers = sum(as_gheos(after).player(seat).followers)
    return (standing[seat] - best_other, followers), events


_SCORES: dict[str, Callable[[int, GameState, str], tuple[Score, Sequence[Event]]]] = {
    "tigris": _tigris_score,
    "gheos": _gheos_score,
}


def _tie_break(game: str, action: str, resolved: bool) -> Score:
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
        self.guard = StallGuard(relapse=2)

    def choose(self, state: GameState, seat: int) -> str:
        seat = seat_index(seat)
        legal = self.guard.allowed(state, seat, decision_actions(state, seat))
        if len(legal) == 1:
            return legal[0]
        game = state.game
        score = _SCORES.get(game)
        if score is None:
            return self.rng.choice(legal)
        candidates = [a for a in legal if not a.startswith(_NEVER_GAIN)] or legal
        if self.max_candidates is not None and len(candidates) > self.max_candidates:
            candidates = self.rng.sample(candidates, self.max_candidates)
        world = state.sample_hidden(seat, self.rng)
        best: list[str] = []
        best_key: Score | None = None
        for action in candidates:
            gain, events = score(seat, world, action)
            resolved = any(e["type"].endswith("_result") for e in events)
            key = (*gain, *_tie_break(game, action, resolved))
            if best_key is None or key > best_key:
                best_key, best = key, [action]
            elif key == best_key:
                best.append(action)
        return self.rng.choice(best)


def make_greedy(seed: int | None = None) -> GreedyBot:
    return GreedyBot(seed)
