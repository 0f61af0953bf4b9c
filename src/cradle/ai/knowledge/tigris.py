"""Tigris & Euphrates knowledge for search: a board reading, an evaluation, move priors,
commitments against a belief over the opponent's hand, and reasons in words.

Everything here reads a *world* (a full state sampled for the searching seat) through the
engine's analysis API (``tigris.TigrisGame``: what lies on each cell, the regions and
kingdoms, each dynasty's holdings) and ``legal_actions()``. Hands of other seats in a world
are guesses, so the opponents' hands are only ever used through their expected contents.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from cradle.ai.knowledge.base import pairwise_chances
from cradle.ai.knowledge.learned import model
from cradle.core.contract import GameState
from cradle.core.results import rank_rewards
from cradle.core.words import N_
from cradle.tigris import COLOURS, Content, Revolt, TigrisGame, War, as_tigris, geometry
from cradle.tigris import ROLES as ROLE_OF_COLOUR
from cradle.tigris.analysis import LEADER, TILE
from cradle.tigris.types import HAND_SIZE, TOTAL_TILES

RED, BLUE, GREEN, BLACK = range(4)
ROLE_COLOUR = {role: colour for colour, role in enumerate(ROLE_OF_COLOUR)}
ROLES = ("king", "priest", "farmer", "trader")  # the order the evaluation visits leaders in
# Share of each colour among the tiles nobody has seen at the start (153 tiles less the 10
# starting temples): what an unknown hand holds on average.
UNSEEN_SHARE = (47 / 143, 36 / 143, 30 / 143, 30 / 143)
Shares = tuple[
    tuple[float, float, float, float], ...
]  # per seat, as cradle.ai.knowledge.belief has them

# Weights of the evaluation, in victory points.
LEADER_WORTH = 4.0  # future points of a well-placed leader over a whole game
MONUMENT_WORTH = 3.0  # future end-of-turn points from a monument of the leader's colour
KING_SHARE = 0.15  # the king also collects colours whose leader is missing
SORTED_WEIGHTS = (0.55, 0.25, 0.12, 0.08)  # lowest colour first: the score is the lowest
TILE_COST = 0.3  # what a tile committed to a conflict (and lost) is worth
# The evaluation of the lowest colour (TigrisValue): each colour's final points estimated from
# the rate its leaders still score at, the hand and the leaders' safety, the lowest colour first.
KING_REACH = 0.5  # a king scores a colour whose leader is missing from its kingdom, less surely
KING_LED_REACH = 0.1  # ... and barely one whose leader is there (another seat's, probably)
IN_HAND_REACH = 0.25  # a leader in hand (or lost back to it) scores only once placed again
MONUMENT_RATE = 0.25  # end-of-turn points per own action left, from a monument it feeds
ATTACK_SPOT = 1  # temples next to a rival's revolting leader (it must stand next to one)
REVOLT_PRESSURE = 0.5  # how often a revolt that the reds allow is actually started
CATASTROPHE_RISK = 0.3  # a leader on one temple, while an opponent keeps catastrophes
SOFTMIN_SPREAD = (1.0, 2.0)  # softmin temperature: 1 at the end, + 2 × remaining
TIE_WEIGHTS = (0.04, 0.02, 0.01)  # the next-lowest colours break ties (the rules' tie-break)
SWAP_GAIN = 1.0  # prior per tile swapped, times the reach it gains on average
WAR_WEIGHT = 0.8  # prior per point won (or lost) in a war the tile starts
TURN_VERBS = ("tile", "leader", "catastrophe", "swap", "pass", "withdraw")
_CELL = {name: cell for cell, name in enumerate(geometry().cells)}  # "K1" -> its cell


# A reason is English (the hints and analyses the server sends); each of its parts is one of
# these messages, so that the layers above can read it back and translate it (cradle.i18n,
# the web client's translateReason). A reason quoting the engine's events (without the
# player's name) has their shapes, and a score's reason the engine's.
NOT_POSSIBLE = N_("not possible: {reason}")
EVENT_SHAPES = (
    N_("scores {count} {colour} ({why})"),
    N_("{player} scores {count} {colour} ({why})"),
    N_("{player} takes the treasure on {cell}"),
    N_("{colour} tile on {cell}"),
    N_("{colour} tile on {cell}, by the king"),
    N_("revolt won"),
    N_("{colour} war won"),
    N_("monument, {leader}"),
    N_("the wonder"),
    N_("takes the treasure on {cell}"),
    N_("builds the {monument} monument on {cell}"),
    N_("puts the {colour} building on {cell}"),
    N_("moves the {colour} building to {cell}"),
    N_("builds the wonder on {cell} from five {colour} tiles"),
)


class TigrisValue(IntEnum):
    """The hand-set evaluation (``IsmctsParams.value``): the colours' points weighted lowest
    first (PIMC's and the analysis'), or the final lowest colour (the search's default since
    its SPRT, docs/ai-decisions.md)."""

    SORTED_COLOURS = 1
    LOWEST_COLOUR = 2


@dataclass(frozen=True)
class TigrisSettings:
    """What a Tigris knowledge is set to: its evaluation, or the learned model instead
    (cradle.ai.knowledge.learned; it reads the lowest colour's board, whatever the priors
    use). The native search reads these by name (native/src/python/tigris/knowledge.rs)."""

    value: TigrisValue = TigrisValue.SORTED_COLOURS
    learned: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", tigris_value(self.value))
        object.__setattr__(self, "learned", bool(self.learned))


def tigris_value(value: int) -> TigrisValue:
    """The evaluation ``value`` names, or a clear error."""
    if value not in (1, 2):
        raise ValueError(f"the Tigris evaluation is value=1 or value=2, not {value}")
    return TigrisValue(value)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


class Reading:
    """One reading of a world: kingdoms, leaders, supporters, hands and progress."""

    __slots__ = (
        "_around",
        "_facts",
        "_reach",
        "_squares",
        "catastrophes",
        "cells",
        "comp",
        "counts",
        "decision",
        "hands",
        "height",
        "leader_at",
        "leaders",
        "monuments",
        "n",
        "neighbours",
        "own_actions",
        "points",
        "remaining",
        "shares",
        "strengths",
        "temples",
        "treasures",
        "treasures_in",
        "unused",
        "value",
        "width",
    )

    def __init__(
        self,
        world: TigrisGame,
        tilts: Shares | None = None,
        value: int = TigrisValue.SORTED_COLOURS,
    ) -> None:
        self.value = tigris_value(value)  # the sorted colours, or the final lowest colour
        self.n = n = len(world.players)
        # Each seat's believed colour shares of its hand: the unseen shares tilted by the
        # belief over it (cradle.ai.knowledge.belief: odds against a uniform draw); uniform without.
        self.shares: Shares = (
            (UNSEEN_SHARE,) * n if tilts is None else tuple(tilted(tilt) for tilt in tilts)
        )
        self.decision = world.decision()
        geometry = world.geometry()
        self.neighbours = geometry.neighbours
        self.width, self.height = geometry.columns, geometry.rows
        # What lies on each cell (None: empty), and the face-up temples.
        self.cells: tuple[Content | None, ...] = world.contents()
        self.temples = _temples(self.cells)
        regions = world.regions()
        # Connected groups (catastrophes and empty cells do not connect).
        self.comp = world.region_map()
        self.counts = [region.supporters for region in regions]
        self.leaders: list[list[tuple[int, str, int]]] = [
            [(leader.seat, ROLE_OF_COLOUR[leader.colour], leader.cell) for leader in region.leaders]
            for region in regions
        ]
        self.leader_at = {(seat, role): cell for here in self.leaders for seat, role, cell in here}
        self.treasures_in = [len(region.treasures) for region in regions]
        self.monuments: list[tuple[int, tuple[int, ...]]] = [
            (k, monument.colours)
            for k, region in enumerate(regions)
            for monument in region.monuments
        ]
        used = {tuple(sorted(cs)) for _, cs in self.monuments}
        self.unused = [(a, b) for a in range(4) for b in range(a + 1, 4) if (a, b) not in used]
        dynasties = [world.dynasty(seat) for seat in range(n)]
        self.hands = [dynasty.hand for dynasty in dynasties]
        self.points = [dynasty.points for dynasty in dynasties]
        self.treasures = [dynasty.treasures for dynasty in dynasties]
        self.catastrophes = [dynasty.catastrophes for dynasty in dynasties]
        # How much of the game is left, from 1 (start) to 0: the bag or the treasures, whichever
        # runs out first.
        start_treasures = len(geometry.temples)
        start_bag = TOTAL_TILES - start_treasures - HAND_SIZE * n
        by_bag = world.bag_size() / start_bag
        treasures_on_board = sum(self.treasures_in)
        by_treasures = max(0, treasures_on_board - 2) / (start_treasures - 2)
        left = max(0.0, min(1.0, by_bag, by_treasures))
        self.remaining = 0.0 if world.ending else left
        # Actions each seat still takes, about one tile drawn each.
        self.own_actions = self.remaining * start_bag / n
        # The strengths on the board in a revolt or war (attacker, defender); value 2 only.
        self.strengths = (0, 0)
        if self.value == TigrisValue.LOWEST_COLOUR and isinstance(self.decision, Revolt | War):
            self.strengths = world.conflict_strengths() or (0, 0)
        self._around: dict[int, set[int]] = {}
        self._squares: list[set[int]] | None = None
        self._facts: dict[int, tuple[list[int], int, list[int], bool]] = {}
        self._reach: dict[int, list[float]] = {}

    # -- small questions ------------------------------------------------------------------

    def temples_around(self, i: int, skip: int = -1) -> int:
        """Face-up temples orthogonally next to cell ``i`` (not counting cell ``skip``)."""
        temples = self.temples
        return sum(1 for j in self.neighbours[i] if j != skip and j in temples)

    def comps_around(self, i: int, skip: int = -1) -> set[int]:
        if skip < 0:
            known = self._around.get(i)
            if known is None:
                comp = self.comp
                known = {comp[j] for j in self.neighbours[i] if comp[j] >= 0}
                self._around[i] = known
            return known
        return {self.comp[j] for j in self.neighbours[i] if j != skip and self.comp[j] >= 0}

    def expected_in_hand(self, seat: int, colour: int) -> float:
        return float(sum(self.hands[seat]) * self.shares[seat][colour])

    def odds_of_holding(self, seat: int, colour: int, count: int) -> float:
        """Belief that ``seat`` holds at least ``count`` tiles of ``colour`` (its hand size is
        public, its contents are not: believed in ``shares``)."""
        return 1.0 - binomial_cdf(count - 1, sum(self.hands[seat]), self.shares[seat][colour])

    def leader_quality(self, seat: int, role: str, cell: int) -> float:
        """0.35 (bare) to 1 (many supporters, well protected by temples)."""
        colour = ROLE_COLOUR[role]
        k = self.comp[cell]
        supporters = self.counts[k][colour] if k >= 0 else 0
        temples = self.temples_around(cell)
        return 0.35 + 0.35 * min(supporters, 8) / 8 + 0.3 * temples / (temples + 1)

    # -- the evaluation -------------------------------------------------------------------

    def outlook(self, seat: int) -> tuple[list[float], int, float, int]:
        """The seat's points per colour plus what its leaders (a king also for the colours
        its kingdom lacks) and the monuments they feed should still bring; with the number
        of leaders, their summed quality and the monument colours they feed."""
        future = self.remaining
        expected = [float(p) for p in self.points[seat]]
        leaders = 0
        quality_sum = 0.0
        fed = 0
        for role in ROLES:
            cell = self.leader_at.get((seat, role))
            if cell is None:
                continue
            leaders += 1
            colour = ROLE_COLOUR[role]
            k = self.comp[cell]
            quality = self.leader_quality(seat, role, cell)
            quality_sum += quality
            expected[colour] += LEADER_WORTH * future * quality
            if role == "king":
                led = {ROLE_COLOUR[r] for _, r, _ in self.leaders[k]}
                for other in range(4):
                    if other not in led:
                        expected[other] += KING_SHARE * LEADER_WORTH * future * quality
            for where, colours in self.monuments:
                if where == k and colour in colours:
                    expected[colour] += MONUMENT_WORTH * future
                    fed += 1
        return expected, leaders, quality_sum, fed

    def seat_value(self, seat: int) -> float:
        """An estimate of the seat's final score (its lowest colour, treasures placed)."""
        if self.value == TigrisValue.LOWEST_COLOUR:
            return self.final_value(seat)
        future = self.remaining
        expected, _, _, _ = self.outlook(seat)
        for _ in range(self.treasures[seat]):
            low = min(range(4), key=expected.__getitem__)
            expected[low] += 1.0
        expected.sort()
        # Late in the game only the lowest colours matter; early on every point counts, as
        # there is time to even the colours out.
        late = 1.0 - future
        value = sum(
            (late * w + future * 0.25) * e for w, e in zip(SORTED_WEIGHTS, expected, strict=True)
        )
        # Reserves: red tiles defend revolts, catastrophes are threats kept in hand.
        value += future * (0.12 * self.hands[seat][RED] + 0.15 * self.catastrophes[seat])
        return float(value)

    # -- the evaluation of the final lowest colour ----------------------------------------

    def safety(self, seat: int, temples: int) -> float:
        """The chance that a leader of ``seat`` next to ``temples`` temples still stands when
        it should score: a rival revolts when its reds (the belief over its hand) beat the
        temples and the owner's reds; a catastrophe takes a leader's only temple."""
        need = temples + self.hands[seat][RED] + 1 - ATTACK_SPOT  # ties defend
        standing = 1.0
        threatened = False
        for other in range(self.n):
            if other == seat:
                continue
            standing *= 1.0 - REVOLT_PRESSURE * self.odds_of_holding(other, RED, need)
            if self.catastrophes[other] > 0:
                threatened = True
        if temples <= 1 and threatened:
            standing *= 1.0 - CATASTROPHE_RISK
        return standing

    def reach(self, seat: int) -> list[float]:
        """Per colour, how surely a tile of that colour the seat places still scores: its
        leader of the colour (quality × safety; lost, it goes back to the hand), its king for
        a colour whose leader its kingdom lacks, or a leader still in hand (the least)."""
        known = self._reach.get(seat)
        if known is not None:
            return known
        king = self.leader_at.get((seat, "king"))
        king_reach = 0.0
        led: set[int] = set()
        if king is not None:
            quality = self.leader_quality(seat, "king", king)
            standing = self.safety(seat, self.temples_around(king))
            king_reach = quality * standing + (1.0 - standing) * IN_HAND_REACH
            led = {ROLE_COLOUR[r] for _, r, _ in self.leaders[self.comp[king]]}
        reach = [0.0, 0.0, 0.0, 0.0]
        for colour in range(4):
            role = ROLE_OF_COLOUR[colour]
            cell = self.leader_at.get((seat, role))
            if cell is None:
                r = IN_HAND_REACH
            else:
                # A leader lost to a revolt or a catastrophe goes back to the hand.
                quality = self.leader_quality(seat, role, cell)
                standing = self.safety(seat, self.temples_around(cell))
                r = quality * standing + (1.0 - standing) * IN_HAND_REACH
            if colour != BLACK and king is not None:
                r = max(r, (KING_LED_REACH if colour in led else KING_REACH) * king_reach)
            reach[colour] = r
        self._reach[seat] = reach
        return reach

    def final_outlook(self, seat: int) -> list[float]:
        """Per colour, the points the seat should end with: its points, the tiles of that
        colour in hand and those it will draw, each scoring as surely as its reach, and the
        end-of-turn points of monuments its leaders feed."""
        reach = self.reach(seat)
        actions = self.own_actions
        draws = max(0.0, actions - HAND_SIZE)
        hand = self.hands[seat]
        expected = [float(p) for p in self.points[seat]]
        for colour in range(4):
            tiles = min(float(hand[colour]), actions) + draws * UNSEEN_SHARE[colour]
            expected[colour] += reach[colour] * tiles
        for where, colours in self.monuments:
            for colour in colours:
                cell = self.leader_at.get((seat, ROLE_OF_COLOUR[colour]))
                if cell is not None and self.comp[cell] == where:
                    standing = self.safety(seat, self.temples_around(cell))
                    expected[colour] += MONUMENT_RATE * actions * standing
        return expected

    def final_value(self, seat: int) -> float:
        """The expected final lowest colour (treasures wild), as a softmin that tightens to
        the minimum as the game ends, plus a little of the next-lowest colours (the
        tie-break)."""
        expected = self.final_outlook(seat)
        for _ in range(self.treasures[seat]):
            expected[min(range(4), key=expected.__getitem__)] += 1.0
        expected.sort()
        spread = SOFTMIN_SPREAD[0] + SOFTMIN_SPREAD[1] * self.remaining
        least = expected[0]
        total = 0.0
        for e in expected:
            total += math.exp((least - e) / spread)
        value = least - spread * math.log(total)
        for w, e in zip(TIE_WEIGHTS, expected[1:], strict=True):
            value += w * e
        return value + self.remaining * 0.15 * self.catastrophes[seat]

    def features(self, seat: int) -> list[float]:
        """The board's features (the colours' points and expectations, leaders, monuments,
        reds and catastrophes), each once for the early game (× remaining) and once for the
        late game (× 1 - remaining): what the learned evaluation weighs beside the hand-set
        value."""
        future = self.remaining
        raw = [float(p) for p in self.points[seat]]
        expected, leaders, quality_sum, fed = self.outlook(seat)
        for _ in range(self.treasures[seat]):
            raw[min(range(4), key=raw.__getitem__)] += 1.0
            expected[min(range(4), key=expected.__getitem__)] += 1.0
        raw.sort()
        expected.sort()
        base = [
            *raw,
            expected[0],
            expected[1],
            sum(expected),
            float(leaders),
            quality_sum,
            float(fed),
            float(self.hands[seat][RED]),
            float(self.catastrophes[seat]),
        ]
        late = 1.0 - future
        return [x * future for x in base] + [x * late for x in base]

    def learned_features(self, seat: int) -> list[float]:
        """What the learned evaluation weighs (cradle.ai.knowledge.learned.FEATURES["tigris"]): the
        board's features and the hand-set value, each × remaining and × (1 - remaining)."""
        features = self.features(seat)
        value = self.seat_value(seat)
        late = 1.0 - self.remaining
        return [*features[:12], value * self.remaining, *features[12:], value * late]

    def learned_values(self) -> list[float]:
        found = model("tigris")
        return [found.value(self.learned_features(s)) for s in range(self.n)]

    def values(self) -> list[float]:
        return [self.seat_value(s) for s in range(self.n)]

    def temperature(self) -> float:
        """How uncertain a lead in estimated points still is (more so early on)."""
        return 1.0 + 4.0 * self.remaining

    # -- conflicts ------------------------------------------------------------------------

    def best_commit(self, seat: int, options: Sequence[int]) -> int:
        """The commitment for ``seat`` in the pending revolt or war, among ``options``.

        The attacker weighs each amount against the chance that the defender holds enough
        tiles to tie (a binomial belief over the defender's hand); the defender, who sees the
        attacker's total, commits exactly what wins, or nothing when it cannot."""
        p = self.decision
        if not isinstance(p, Revolt | War):
            raise ValueError("no revolt or war is being fought")
        colour = RED if isinstance(p, Revolt) else p.color
        # The strengths on the board count 0 with value=1, as they always have (the positions
        # this was first written against did not carry them); the lowest colour weighs them.
        attack, defence = self.strengths
        committed = p.attacker_commit
        if seat == p.defender and committed is not None:
            need = attack + committed - defence
            if need <= 0:
                return 0 if 0 in options else min(options)
            if need in options:
                return need
            return 0 if 0 in options else min(options)
        held = sum(self.hands[p.defender])
        share = self.shares[p.defender][colour]
        stake = self.conflict_stake(attack + defence)
        best, best_value = options[0], -math.inf
        for k in options:
            need = attack + k - defence  # the defender ties (and wins) with ``need`` tiles
            p_win = binomial_cdf(need - 1, held, share) if need > 0 else 0.0
            value = stake * p_win - TILE_COST * k
            if value > best_value + 1e-9:
                best, best_value = k, value
        return best

    def conflict_stake(self, supporters: int) -> float:
        """What winning rather than losing the conflict in progress is worth, in points
        (``supporters``: both sides' supporters on the board, in a war)."""
        if isinstance(self.decision, Revolt):
            return 2.0 + 2.0 * self.remaining
        return 2.0 + 2.0 * self.remaining + 0.5 * supporters

    # -- priors ---------------------------------------------------------------------------

    def prior(self, seat: int, action: str, commits: list[int] | None = None) -> float:
        words = action.split()
        verb = words[0]
        if verb == "tile":
            return self._tile_prior(seat, COLOURS.index(words[1]), _CELL[words[2]])
        if verb == "leader":
            return self._leader_prior(seat, words[1], _CELL[words[2]])
        if verb == "commit":
            if commits is None:
                commits = [int(words[1])]
            best = self.best_commit(seat, commits)
            return 1.0 - 0.3 * abs(int(words[1]) - best)
        if verb == "catastrophe":
            return self._catastrophe_prior(seat, _CELL[words[1]])
        if verb == "monument":
            return 1.0
        if verb == "wonder":
            return 1.2
        if verb in ("treasure", "building"):
            return 0.4
        if verb == "wonderpoint":
            mine = self.points[seat]
            return 0.5 if mine[COLOURS.index(words[1])] == min(mine) else 0.0
        if verb == "swap":
            value = -0.6 - 0.03 * (len(words) - 1)
            if self.value == TigrisValue.LOWEST_COLOUR:
                # Tiles that cannot score are traded for the average draw.
                reach = self.reach(seat)
                mean = 0.0
                for share, r in zip(UNSEEN_SHARE, reach, strict=True):
                    mean += share * r
                for word in words[1:]:
                    value += SWAP_GAIN * (mean - reach[COLOURS.index(word)])
            return value
        if verb == "pass":
            return -0.4
        if verb == "withdraw":
            return -0.7
        return 0.0  # war order, decline

    def _cell_facts(self, cell: int) -> tuple[list[int], int, list[int], bool]:
        """Kingdoms next to an empty cell, treasures it would join, owners of the leaders
        next to it, and whether it touches anything at all."""
        facts = self._facts.get(cell)
        if facts is None:
            around = self.comps_around(cell)
            kingdoms = [k for k in around if self.leaders[k]]
            treasures = sum(self.treasures_in[c] for c in around)
            owners = []
            for j in self.neighbours[cell]:
                info = self.cells[j]
                if info is not None and info.kind == LEADER:
                    owners.append(info.seat)
            facts = (kingdoms, treasures, owners, bool(around))
            self._facts[cell] = facts
        return facts

    def _tile_prior(self, seat: int, colour: int, cell: int) -> float:
        kingdoms, treasures, owners, touches = self._cell_facts(cell)
        value = 0.0
        if len(kingdoms) >= 2:
            return self._war_prior(seat, colour, kingdoms)
        if kingdoms:
            k = kingdoms[0]
            scorer = None
            king = None
            for owner, role, _ in self.leaders[k]:
                if ROLE_COLOUR[role] == colour:
                    scorer = owner
                if role == "king":
                    king = owner
            if scorer is None:
                scorer = king
            if scorer == seat:
                value += 1.0
            elif scorer is not None:
                value -= 0.3
            # Treasures: a trader's owner takes the extra ones.
            if treasures >= 2:
                for owner, role, _ in self.leaders[k]:
                    if role == "trader":
                        value += 0.6 if owner == seat else -0.3
        elif touches:
            value += 0.05
        if colour == RED:
            for owner in owners:
                value += 0.2 if owner == seat else -0.1
            if not kingdoms:
                value += 0.1
        if self._completes_square(colour, cell):
            value += 0.8
        return value

    def _completes_square(self, colour: int, cell: int) -> bool:
        if self._squares is None:
            self._squares = self._square_cells()
        return cell in self._squares[colour]

    def _square_cells(self) -> list[set[int]]:
        """Per colour, the empty cells whose tile would complete a 2×2 square of that colour
        (only colours that still have an unused monument)."""
        wanted = {c for pair in self.unused for c in pair}
        out: list[set[int]] = [set(), set(), set(), set()]
        cells = self.cells
        width = self.width
        for top in range(self.height - 1):
            for left in range(width - 1):
                at = top * width + left
                square = (at, at + 1, at + width, at + width + 1)
                empty = -1
                colour = -1
                ok = True
                for i in square:
                    info = cells[i]
                    if info is None:
                        if empty >= 0:
                            ok = False
                            break
                        empty = i
                    elif info.kind != TILE or (colour >= 0 and info.colour != colour):
                        ok = False
                        break
                    else:
                        colour = info.colour
                if ok and empty >= 0 and colour in wanted:
                    out[colour].add(empty)
        return out

    def _war_prior(self, seat: int, colour: int, kingdoms: list[int]) -> float:
        a, b = kingdoms[0], kingdoms[1]
        value = 0.1
        for role in ROLES:
            war_colour = ROLE_COLOUR[role]
            side_a = [o for o, r, _ in self.leaders[a] if r == role]
            side_b = [o for o, r, _ in self.leaders[b] if r == role]
            if not side_a or not side_b:
                continue
            owners = (side_a[0], side_b[0])
            if seat not in owners:
                continue
            mine, theirs = (a, b) if owners[0] == seat else (b, a)
            other = owners[1] if owners[0] == seat else owners[0]
            my_side = self.counts[mine][war_colour]
            their_side = self.counts[theirs][war_colour]
            in_hand = self.hands[seat][war_colour] - (1 if colour == war_colour else 0)
            my_total = my_side + max(0, in_hand)
            if self.value == TigrisValue.LOWEST_COLOUR:
                # The stake times the chance to win (the seat attacks; they tie, and so win,
                # holding ``need``) less the leader and supporters lost otherwise.
                need = my_total - their_side
                p_win = 1.0 - self.odds_of_holding(other, war_colour, need) if need > 0 else 0.0
                value += WAR_WEIGHT * (p_win * (1 + their_side) - (1.0 - p_win) * (1 + my_side))
                continue
            their_total = their_side + self.expected_in_hand(other, war_colour)
            if my_total > their_total + 0.5:
                value += 0.8 * (1 + their_side)
            else:
                value -= 0.8 * (1 + my_side)
        return value

    def _leader_prior(self, seat: int, role: str, cell: int) -> float:
        colour = ROLE_COLOUR[role]
        current = self.leader_at.get((seat, role), -1)
        around = self.comps_around(cell, skip=current)
        future = 0.4 + 0.6 * self.remaining
        temples = self.temples_around(cell, skip=current)
        kingdom = -1
        for k in around:
            if any(i != current for _, _, i in self.leaders[k]):
                kingdom = k
        value: float
        rival = None
        if kingdom >= 0:
            for owner, r, i in self.leaders[kingdom]:
                if r == role and owner != seat:
                    rival = (owner, i)
        if rival is not None:
            owner, where = rival
            attack = temples + self.hands[seat][RED]
            if self.value == TigrisValue.LOWEST_COLOUR:
                # They tie, and so win, holding ``need`` reds.
                need = attack - self.temples_around(where)
                p_win = 1.0 - self.odds_of_holding(owner, RED, need) if need > 0 else 0.0
                value = 1.8 * p_win - 0.6
            else:
                defence = self.temples_around(where) + self.expected_in_hand(owner, RED)
                value = 1.2 if attack > defence + 0.5 else -0.6
        else:
            supporters = sum(self.counts[k][colour] for k in around)
            quality = 0.35 + 0.35 * min(supporters, 8) / 8 + 0.3 * temples / (temples + 1)
            value = 0.9 * quality * future
            if self.value == TigrisValue.LOWEST_COLOUR:
                value *= self.safety(seat, temples)
            if kingdom < 0:
                value *= 0.7
            else:
                for where, colours in self.monuments:
                    if where == kingdom and colour in colours:
                        value += 0.5
        if current >= 0:
            # A move gives up the old spot and an action that could have placed a tile.
            value -= 0.9 * self.leader_quality(seat, role, current) * future + 0.4
        return value

    def _catastrophe_prior(self, seat: int, cell: int) -> float:
        value = -0.5
        info = self.cells[cell]
        if info is not None and info.kind == TILE and info.colour == RED:
            for j in self.neighbours[cell]:
                other = self.cells[j]
                if other is not None and other.kind == LEADER and self.temples_around(j) == 1:
                    value += -1.0 if other.seat == seat else 0.9
        return value


_LAST_TEMPLES: tuple[tuple[Content | None, ...], frozenset[int]] | None = None


def _temples(cells: tuple[Content | None, ...]) -> frozenset[int]:
    """The face-up temples of a board's contents. The last answer is kept (one tuple,
    replaced whole, so threads never mix two boards' halves): the worlds a search samples
    share their board, and the engine its contents tuple, until a tile moves."""
    global _LAST_TEMPLES
    last = _LAST_TEMPLES
    if last is not None and last[0] is cells:
        return last[1]
    found = frozenset(
        i for i, c in enumerate(cells) if c is not None and c.kind == TILE and c.colour == RED
    )
    _LAST_TEMPLES = (cells, found)
    return found


def tilted(tilt: Sequence[float]) -> tuple[float, float, float, float]:
    """The unseen shares tilted by the odds ``tilt`` of each colour against a uniform draw."""
    raw = [UNSEEN_SHARE[c] * tilt[c] for c in range(4)]
    total = raw[0] + raw[1] + raw[2] + raw[3]
    return (raw[0] / total, raw[1] / total, raw[2] / total, raw[3] / total)


def read(
    world: GameState, tilts: Shares | None = None, value: int = TigrisValue.SORTED_COLOURS
) -> Reading:
    return Reading(as_tigris(world), tilts, value)


def commit_options(actions: Sequence[str]) -> list[int]:
    return [int(a.split()[1]) for a in actions if a.startswith("commit ")]


class TigrisKnowledge:
    """The :class:`cradle.ai.search.Knowledge` of Tigris & Euphrates."""

    def __init__(
        self,
        value: int = TigrisValue.SORTED_COLOURS,
        learned: bool = False,
        tilts: Shares | None = None,
    ) -> None:
        self.settings = TigrisSettings(tigris_value(value), learned)
        self.value = self.settings.value
        self.learned = self.settings.learned  # the learned model (cradle.ai.knowledge.learned)
        # The belief over each hand as odds of each colour against a uniform draw
        # (cradle.ai.knowledge.belief; None: uniform): the commitments and the hands expected
        # read them, and the search deals its worlds by them (cradle.ai.search.worlds).
        self.tilts = tilts

    def rewards(self, world: GameState) -> list[float]:
        if world.is_over:
            return rank_rewards(world.result())
        if self.learned:
            # The model was fitted on the lowest colour's readings, whatever the priors use.
            board = read(world, self.tilts, TigrisValue.LOWEST_COLOUR)
            return pairwise_chances(board.learned_values(), 1.0)
        board = read(world, self.tilts, self.value)
        return pairwise_chances(board.values(), board.temperature())

    def priors(self, world: GameState, actions: Sequence[str]) -> list[float]:
        board = read(world, self.tilts, self.value)
        seat = world.to_move
        commits = commit_options(actions)
        if commits:
            best = board.best_commit(seat, commits)
            return [1.0 - 0.3 * abs(int(a.split()[1]) - best) for a in actions]
        return [board.prior(seat, a) for a in actions]

    def playout_rule(self, world: GameState) -> str | None:
        return None  # every random playout move of Tigris is random

    def unsettled(self, world: GameState) -> bool:
        # A decision in progress offers no turn action (commitments, wars, monuments, ...).
        actions = world.legal_actions()
        return bool(actions) and actions[0].split(" ", 1)[0] not in TURN_VERBS

    def policy(self, world: GameState, rng: random.Random) -> str:
        actions = world.legal_actions()
        if len(actions) == 1:
            return actions[0]
        if len(actions) > 24:
            actions = rng.sample(actions, 24)
        scores = self.priors(world, actions)
        best = max(range(len(actions)), key=lambda i: scores[i] + 0.3 * rng.random())
        return actions[best]

    def reason(self, world: GameState, seat: int, action: str) -> str:
        board = read(world, self.tilts, self.value)
        words = action.split()
        verb = words[0]
        if verb == "leader":
            text = self._revolt_reason(board, seat, words[1], _CELL[words[2]])
            if text:
                return text
        if verb == "tile":
            text = self._war_reason(board, seat, COLOURS.index(words[1]), _CELL[words[2]])
            if text:
                return text
        if verb == "commit" and board.decision is not None:
            return self._commit_reason(board, seat, int(words[1]))
        after = world.clone()
        try:
            events = after.apply(action)
        except ValueError as exc:
            return NOT_POSSIBLE.format(reason=exc)
        name = world.players[seat]
        texts = [
            str(e["text"]).replace(f"{name} ", "", 1)
            for e in events
            if e.get("type") in ("score", "treasure", "monument", "building", "wonder")
        ]
        if texts:
            return "; ".join(texts[:3])
        if verb == "leader":
            role, cell = words[1], _CELL[words[2]]
            temples = board.temples_around(cell, skip=board.leader_at.get((seat, role), -1))
            said = (
                N_("puts the {leader} next to {count} temple")
                if temples == 1
                else (N_("puts the {leader} next to {count} temples"))
            )
            return said.format(leader=role, count=temples)
        if verb == "swap":
            count = len(words) - 1
            said = (
                N_("swaps {count} tile for new ones")
                if count == 1
                else (N_("swaps {count} tiles for new ones"))
            )
            return said.format(count=count)
        if verb == "catastrophe":
            return N_("a catastrophe that breaks up the board")
        return {"pass": N_("ends the turn"), "decline": N_("declines the offer")}.get(verb, action)

    def _revolt_reason(self, board: Reading, seat: int, role: str, cell: int) -> str:
        current = board.leader_at.get((seat, role), -1)
        for k in board.comps_around(cell, skip=current):
            for owner, r, where in board.leaders[k]:
                if r == role and owner != seat:
                    attack = board.temples_around(cell, skip=current) + board.hands[seat][RED]
                    defence = board.temples_around(where)
                    need = attack - defence
                    if need <= 0:
                        return N_(
                            "revolt you lose: at most {attack}–{defence} with all your temples"
                        ).format(attack=attack, defence=defence)
                    odds = board.odds_of_holding(owner, RED, need)
                    said = (
                        N_(
                            "wins the revolt {attack}–{defence} unless they hold {count} temple (about {odds} likely)"
                        )
                        if need == 1
                        else N_(
                            "wins the revolt {attack}–{defence} unless they hold {count} temples (about {odds} likely)"
                        )
                    )
                    return said.format(
                        attack=attack, defence=defence, count=need, odds=f"{odds:.0%}"
                    )
        return ""

    def _war_reason(self, board: Reading, seat: int, colour: int, cell: int) -> str:
        kingdoms = [k for k in board.comps_around(cell) if board.leaders[k]]
        if len(kingdoms) < 2:
            return ""
        a, b = kingdoms[0], kingdoms[1]
        parts = []
        for role in ROLES:
            war_colour = ROLE_COLOUR[role]
            side_a = [o for o, r, _ in board.leaders[a] if r == role]
            side_b = [o for o, r, _ in board.leaders[b] if r == role]
            if not side_a or not side_b:
                continue
            if seat in (side_a[0], side_b[0]):
                mine, theirs = (a, b) if side_a[0] == seat else (b, a)
                other = side_b[0] if side_a[0] == seat else side_a[0]
                in_hand = board.hands[seat][war_colour] - (1 if colour == war_colour else 0)
                ours = board.counts[mine][war_colour] + max(0, in_hand)
                them = board.counts[theirs][war_colour]
                need = ours - them
                name = COLOURS[war_colour]
                if need <= 0:
                    said = N_("a {colour} war you lose: at most {ours}–{them}")
                    parts.append(said.format(colour=name, ours=ours, them=them))
                else:
                    odds = board.odds_of_holding(other, war_colour, need)
                    said = (
                        N_(
                            "wins the {colour} war {ours}–{them} unless they hold {count} {colour} tile (about {odds} likely)"
                        )
                        if need == 1
                        else N_(
                            "wins the {colour} war {ours}–{them} unless they hold {count} {colour} tiles (about {odds} likely)"
                        )
                    )
                    parts.append(
                        said.format(
                            colour=name, ours=ours, them=them, count=need, odds=f"{odds:.0%}"
                        )
                    )
            else:
                said = N_("starts a {colour} war between others")
                parts.append(said.format(colour=COLOURS[war_colour]))
        return "; ".join(parts) if parts else N_("joins two kingdoms (no war)")

    def _commit_reason(self, board: Reading, seat: int, k: int) -> str:
        p = board.decision
        committed = p.attacker_commit if isinstance(p, Revolt | War) else None
        attack = defence = 0  # see Reading.best_commit
        if committed is not None:
            total = attack + committed
            if defence + k >= total:
                return N_("defends {ours}–{theirs}").format(ours=defence + k, theirs=total)
            return N_("gives up: {ours}–{theirs}").format(ours=defence + k, theirs=total)
        return N_("attacks with {attack} against {defence} on the board").format(
            attack=attack + k, defence=defence
        )
