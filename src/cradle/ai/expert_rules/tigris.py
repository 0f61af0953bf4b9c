"""Tigris & Euphrates by rules of thumb from published strategy, with at most a one-ply look.

The rules (docs/ai.md, "expert-rules"):

- **Play for the lowest colour.** A position is worth each colour's expected points (points
  scored plus what the leaders standing in their kingdoms should still bring), treasures
  added to the lowest colours as wild, the colours then weighted lowest first.
- **Leaders next to several temples**: a leader next to one temple is one catastrophe or
  revolt from the box; two or more temples are a bonus.
- **Keep red tiles** for revolts (each red in hand is worth something until the end), and
  tiles of the colours of the own leaders on the board (war supporters); other colours are
  dead weight and are swapped when no action gains.
- **Conflicts are started only when ahead**: a revolt or war counts the supporters on the
  board plus the tiles in hand against the opponent's supporters plus a belief over its hand
  (its public hand size, the unseen tiles of the colour, and reds taken as kept: a player
  who keeps reds for revolts holds more of them than a random draw).
- **Commitments**: the attacker commits the fewest tiles that win against that belief with
  high probability, and nothing when the conflict cannot be won; the defender commits
  exactly what ties (ties defend), or nothing when it cannot.
- **Catastrophes** only where they take an opponent's leader (its last temple).
- Monuments, treasures and the other choices in a turn go to whatever the one-ply look
  values most (monuments in colours the leaders feed, treasures to the lowest colours).

The bot reads one world sampled for its seat (``sample_world``) through the analysis API;
other seats' hands in that world are guesses, so only their sizes are used.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cradle.ai.knowledge.tigris import RED, ROLE_COLOUR, ROLES, Reading, binomial_cdf
from cradle.ai.search.worlds import sample_world
from cradle.core.contract import GameState
from cradle.tigris import COLOURS, Revolt, TigrisGame, War, as_tigris, geometry
from cradle.tigris.types import TILE_TOTALS

# Lowest colour first: the final score is the lowest colour, the others break ties.
COLOUR_WEIGHTS = (0.5, 0.25, 0.15, 0.1)
RED_IN_HAND = 0.35  # a red tile kept for revolt defence (up to RED_KEPT of them)
RED_KEPT = 4
SUPPORTER_IN_HAND = 0.1  # a tile of a colour whose leader stands on the board
LONE_TEMPLE = 0.8  # a leader next to a single temple
EXTRA_TEMPLE = 0.25  # per further temple, up to two
RED_BELIEF = 1.3  # opponents keep reds: their share of red over a random draw
SURE = 0.8  # the chance of winning a conflict that is worth starting
STAKE = 3.0  # a won revolt or war, in points, besides the supporters it removes
TILE_SHORTLIST = 20  # tile placements looked at one ply deep (best first by the board)
_CELL = {name: cell for cell, name in enumerate(geometry().cells)}


class TigrisRules:
    """The Tigris half of ``expert-rules`` (see the module docstring)."""

    # The style's numbers (module constants above); the ladder's styles (styles.py) change them.
    red_in_hand = RED_IN_HAND
    red_kept = RED_KEPT
    lone_temple = LONE_TEMPLE
    extra_temple = EXTRA_TEMPLE
    red_belief = RED_BELIEF
    sure = SURE
    stake = STAKE
    conflict_bonus = 0.0  # added to an action that starts a conflict the seat attacks in
    commit_everything = False  # commit every tile the conflict allows, attacking or defending

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: GameState, seat: int, actions: Sequence[str]) -> str:
        world = as_tigris(sample_world(state, seat, self.rng))
        board = Reading(world)
        if actions[0].startswith("commit "):
            return self._commit(world, board, seat, actions)
        candidates = self._candidates(board, seat, actions)
        before = self._value(board, seat)
        best: list[str] = []
        best_score = -1e9
        for action in candidates:
            score = self._look(world, board, seat, action) - before
            if score > best_score + 1e-9:
                best, best_score = [action], score
            elif score > best_score - 1e-9:
                best.append(action)
        swap = self._dead_swap(board, seat, actions)
        if swap is not None and best_score <= 0.05:
            return swap
        return self.rng.choice(sorted(best))

    # -- what a position is worth -----------------------------------------------------------

    def _standing(self, board: Reading, seat: int) -> float:
        expected, _, _, _ = board.outlook(seat)
        for _ in range(board.treasures[seat]):
            low = min(range(4), key=expected.__getitem__)
            expected[low] += 1.0
        expected.sort()
        value = sum(w * e for w, e in zip(COLOUR_WEIGHTS, expected, strict=True))
        # Leaders next to a single temple fall to one catastrophe or revolt.
        for role in ROLES:
            cell = board.leader_at.get((seat, role))
            if cell is None:
                continue
            temples = board.temples_around(cell)
            if temples <= 1:
                value -= self.lone_temple * (0.3 + 0.7 * board.remaining)
            else:
                value += self.extra_temple * min(temples - 1, 2)
        return value

    def _value(self, board: Reading, seat: int) -> float:
        mine = self._standing(board, seat)
        hand = board.hands[seat]
        led = {ROLE_COLOUR[role] for (owner, role) in board.leader_at if owner == seat}
        keep = board.remaining + 0.2
        mine += keep * self.red_in_hand * min(hand[RED], self.red_kept)
        mine += keep * SUPPORTER_IN_HAND * sum(hand[c] for c in led if c != RED)
        others = [self._standing(board, s) for s in range(board.n) if s != seat]
        if not others:
            return mine
        return mine - 0.6 * max(others) - 0.4 * sum(others) / len(others)

    def _look(self, world: TigrisGame, board: Reading, seat: int, action: str) -> float:
        """One ply: the value after ``action``, with a started conflict judged by the chance
        to win it."""
        after = as_tigris(world.clone())
        try:
            after.apply(action)
        except ValueError:
            return -1e6
        value = self._value(Reading(after), seat)
        decision = after.decision()
        if isinstance(decision, Revolt | War) and seat in (decision.attacker, decision.defender):
            chance = self._conflict_chance(after, board, seat, decision)
            if decision.attacker == seat and chance < self.sure:
                return value - 10.0  # a conflict that cannot be counted on is not started
            value += self.stake * (2 * chance - 1)
            if decision.attacker == seat:
                value += self.conflict_bonus
        if action.startswith("tile "):
            war = self._war_chances(board, seat, COLOURS.index(action.split()[1]), action)
            if war is not None and war < self.sure:
                value -= 10.0
            elif war is not None:
                value += self.conflict_bonus
        return value

    # -- conflicts --------------------------------------------------------------------------

    def _share(self, board: Reading, seat: int, colour: int) -> float:
        """The belief over one tile of another seat's hand: the unseen tiles of the colour
        among all unseen ones (reds weighted up: they are kept)."""
        on_board = [0, 0, 0, 0]
        for info in board.cells:
            if info is not None and 0 <= info.colour < 4 and info.seat < 0:
                on_board[info.colour] += 1
        unseen = [
            max(0, TILE_TOTALS[c] - on_board[c] - board.hands[seat][c]) + 0.5 for c in range(4)
        ]
        share = unseen[colour] / sum(unseen)
        if colour == RED:
            share = min(0.9, share * self.red_belief)
        return share

    def _holds_fewer(self, board: Reading, seat: int, other: int, colour: int, k: int) -> float:
        """The chance that ``other`` holds fewer than ``k`` tiles of ``colour``."""
        if k <= 0:
            return 0.0
        held = sum(board.hands[other])
        return binomial_cdf(k - 1, held, self._share(board, seat, colour))

    def _conflict_chance(
        self, after: TigrisGame, board: Reading, seat: int, decision: Revolt | War
    ) -> float:
        strengths = after.conflict_strengths()
        if strengths is None:
            return 0.5
        attack, defence = strengths
        colour = RED if isinstance(decision, Revolt) else decision.color
        hand = after.dynasty(seat).hand[colour]
        if decision.attacker == seat:
            # The defender ties (and wins) with attack + hand - defence tiles.
            return self._holds_fewer(
                board, seat, decision.defender, colour, attack + hand - defence
            )
        # Defending: the attacker wins if it commits more than we can answer.
        return 1.0 - self._holds_fewer(
            board, seat, decision.attacker, colour, defence + hand - attack + 1
        )

    def _war_chances(self, board: Reading, seat: int, colour: int, action: str) -> float | None:
        """The lowest chance to win among the wars a tile starts for ``seat`` (None: none)."""
        cell = _CELL[action.split()[2]]
        kingdoms = [k for k in board.comps_around(cell) if board.leaders[k]]
        if len(kingdoms) < 2:
            return None
        worst: float | None = None
        for role in ROLES:
            war_colour = ROLE_COLOUR[role]
            sides = [(k, owner) for k in kingdoms for owner, r, _ in board.leaders[k] if r == role]
            own = [k for k, owner in sides if owner == seat]
            if len(sides) < 2 or not own:
                continue
            hand = board.hands[seat][war_colour] - (1 if colour == war_colour else 0)
            ours = board.counts[own[0]][war_colour] + max(0, hand)
            for k, other in sides:
                if other == seat:
                    continue
                theirs = board.counts[k][war_colour]
                chance = self._holds_fewer(board, seat, other, war_colour, ours - theirs)
                worst = chance if worst is None else min(worst, chance)
        return worst

    def _commit(self, world: TigrisGame, board: Reading, seat: int, actions: Sequence[str]) -> str:
        options = sorted(int(a.split()[1]) for a in actions)
        decision = world.decision()
        strengths = world.conflict_strengths()
        if not isinstance(decision, Revolt | War) or strengths is None:
            return f"commit {options[0]}"
        attack, defence = strengths
        colour = RED if isinstance(decision, Revolt) else decision.color
        if self.commit_everything:
            return f"commit {options[-1]}"
        if seat == decision.defender and decision.attacker_commit is not None:
            need = attack + decision.attacker_commit - defence
            if need <= 0 or need not in options:
                return f"commit {options[0]}"  # won already, or lost whatever we add
            return f"commit {need}"
        # Attacking: the fewest tiles that win with high probability; none when hopeless.
        best = options[0]
        for k in options:
            chance = self._holds_fewer(board, seat, decision.defender, colour, attack + k - defence)
            if chance >= self.sure:
                return f"commit {k}"
            if chance >= 0.5:
                best = k
        return f"commit {best}"

    # -- what to look at --------------------------------------------------------------------

    def _candidates(self, board: Reading, seat: int, actions: Sequence[str]) -> list[str]:
        tiles = [a for a in actions if a.startswith("tile ")]
        others = [a for a in actions if not a.startswith(("tile ", "catastrophe ", "swap"))]
        if len(tiles) > TILE_SHORTLIST:
            scored = sorted(tiles, key=lambda a: (-board.prior(seat, a), a))
            tiles = scored[:TILE_SHORTLIST]
        disasters = [
            a for a in actions if a.startswith("catastrophe ") and self._takes(board, seat, a)
        ]
        chosen = tiles + others + disasters
        if not chosen:  # only swaps (or catastrophes) are legal
            chosen = list(actions)
        return chosen

    def _takes(self, board: Reading, seat: int, action: str) -> bool:
        """Whether a catastrophe removes an opponent leader's last temple and no own one."""
        cell = _CELL[action.split()[1]]
        if cell not in board.temples:
            return False
        hits = [
            info.seat
            for j in board.neighbours[cell]
            if (info := board.cells[j]) is not None
            and info.seat >= 0
            and board.temples_around(j) == 1
        ]
        return bool(hits) and seat not in hits

    def _dead_swap(self, board: Reading, seat: int, actions: Sequence[str]) -> str | None:
        """The swap of every tile of a colour none of the own leaders stands for (reds are
        never dead), when there are at least two."""
        led = {ROLE_COLOUR[role] for (owner, role) in board.leader_at if owner == seat}
        hand = board.hands[seat]
        dead = [COLOURS[c] for c in range(4) if c != RED and c not in led for _ in range(hand[c])]
        if len(dead) < 2:
            return None
        wanted = "swap " + " ".join(sorted(dead))
        for action in actions:
            if (
                action.startswith("swap ")
                and " ".join(["swap", *sorted(action.split()[1:])]) == wanted
            ):
                return action
        return None
