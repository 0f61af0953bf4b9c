"""Gheos by rules of thumb from published strategy, with at most a one-ply look.

The rules (docs/ai.md, "expert-rules"):

- **Followers where the symbols are**: a follower is worth its continent's pyramids for every
  epoch still to score and its cups for the final scoring and each scoring token still held;
  a civilization whose continent has fewer swords than another's may lose a war, so its
  followers count for less while the game has time to fight it.
- **Start** the civilization whose continent brings the most followers × that worth; **take**
  the follower worth most; **pay** with the one worth least.
- **Tiles**: one ply over the placements, valued by the worth of the followers held plus the
  points scored (temples, wars won on swords, migrations that move a civilization to a richer
  continent), against the opponents' worth (the best of them counts most).
- **Scoring tokens** are timed: played when the followers' cups now reach about
  ``1 + remaining`` per follower (a bigger share of the game left asks for more), or when the
  epochs left are no more than the tokens held (an unused token is lost).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cradle.ai.search.worlds import sample_world
from cradle.core.contract import GameState
from cradle.core.results import rank_rewards
from cradle.gheos import COLOURS, GheosGame, as_gheos

PYRAMID_USE = 0.8  # share of the pyramids' epoch scorings a follower will still see
TOKEN_WORTH = 0.6  # a token held multiplies the cups by this much more (early; half late)
WAR_RISK = 0.4  # share of a weaker civilization's worth lost to a war while time is left
TILE_SHORTLIST = 48  # placements looked at one ply deep (a random sample when more)


class Worth:
    """What each seat's holdings are worth, from the public numbers of one world."""

    def __init__(self, world: GheosGame) -> None:
        self.n = len(world.players)
        self.players = [world.player(seat) for seat in range(self.n)]
        end = world.end_epoch
        self.epochs_left = max(0, end - world.epochs)
        self.remaining = self.epochs_left / end if end else 0.0
        # colour -> (cups, pyramids, swords) of its continent
        self.civ: dict[int, tuple[int, int, int]] = {}
        for civ in world.civilizations():
            area = world.area(civ.area)
            self.civ[civ.colour] = (area.cup, area.pyramid, area.sword)

    def follower(self, seat: int, colour: int) -> float:
        """One follower of ``colour`` held by ``seat``."""
        if colour not in self.civ:
            return 0.0
        cups, pyramids, swords = self.civ[colour]
        tokens = self.players[seat].tokens * TOKEN_WORTH * (0.5 + 0.5 * self.remaining)
        worth = pyramids * self.epochs_left * PYRAMID_USE + cups * (1.0 + tokens)
        stronger = any(s > swords for c, (_, _, s) in self.civ.items() if c != colour)
        if stronger:
            worth *= 1.0 - WAR_RISK * self.remaining
        return worth

    def standing(self, seat: int) -> float:
        player = self.players[seat]
        held = sum(n * self.follower(seat, c) for c, n in enumerate(player.followers) if n)
        return player.points + held + 0.01 * sum(player.followers)

    def value(self, seat: int) -> float:
        mine = self.standing(seat)
        others = [self.standing(s) for s in range(self.n) if s != seat]
        if not others:
            return mine
        return mine - 0.6 * max(others) - 0.4 * sum(others) / len(others)

    def cup_score(self, seat: int) -> int:
        followers = self.players[seat].followers
        return sum(n * self.civ[c][0] for c, n in enumerate(followers) if n and c in self.civ)


class GheosRules:
    """The Gheos half of ``expert-rules`` (see the module docstring)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: GameState, seat: int, actions: Sequence[str]) -> str:
        world = as_gheos(sample_world(state, seat, self.rng))
        worth = Worth(world)
        verb = actions[0].split(" ", 1)[0]
        if verb in ("token", "pass") and set(a.split(" ", 1)[0] for a in actions) <= {
            "token",
            "pass",
        }:
            return self._token(worth, seat, actions)
        if verb in ("take", "pay") and all(a.split(" ", 1)[0] == verb for a in actions):
            sign = 1.0 if verb == "take" else -1.0
            return max(
                sorted(actions),
                key=lambda a: sign * worth.follower(seat, COLOURS.index(a.split()[1])),
            )
        candidates = list(actions)
        if len(candidates) > TILE_SHORTLIST:
            candidates = self.rng.sample(sorted(candidates), TILE_SHORTLIST)
        best: list[str] = []
        best_score = -1e18
        for action in candidates:
            score = self._look(world, seat, action)
            if score > best_score + 1e-9:
                best, best_score = [action], score
            elif score > best_score - 1e-9:
                best.append(action)
        return self.rng.choice(sorted(best))

    def _look(self, world: GheosGame, seat: int, action: str) -> float:
        after = as_gheos(world.clone())
        try:
            after.apply(action)
        except ValueError:
            return -1e12
        if after.is_over:
            return 1e6 * (rank_rewards(after.result())[seat] - 0.5)
        return Worth(after).value(seat)

    def _token(self, worth: Worth, seat: int, actions: Sequence[str]) -> str:
        score = worth.cup_score(seat)
        tokens = worth.players[seat].tokens
        followers = sum(worth.players[seat].followers)
        play = score > 0 and (
            tokens >= worth.epochs_left or score >= (1.0 + worth.remaining) * max(1, followers)
        )
        wanted = "token" if play else "pass"
        return wanted if wanted in actions else actions[0]
