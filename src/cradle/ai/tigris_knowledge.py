"""Tigris & Euphrates knowledge for search: a board reading, an evaluation, move priors,
commitments against a belief over the opponent's hand, and reasons in words.

Everything here reads a *world* (a full state sampled for the searching seat) through the
contract: ``to_position()`` and ``legal_actions()``. Hands of other seats in a world are
guesses, so the opponents' hands are only ever used through their expected contents.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from cradle.ai.search import pairwise_chances, rank_rewards
from cradle.core.contract import GameState

COLOURS = ("red", "blue", "green", "black")
RED, BLUE, GREEN, BLACK = range(4)
ROLE_COLOUR = {"king": BLACK, "priest": RED, "farmer": BLUE, "trader": GREEN}
ROLES = ("king", "priest", "farmer", "trader")
WIDTH, HEIGHT = 16, 11
CELLS = WIDTH * HEIGHT
# Share of each colour among the tiles nobody has seen at the start (153 tiles less the 10
# starting temples): what an unknown hand holds on average.
UNSEEN_SHARE = (47 / 143, 36 / 143, 30 / 143, 30 / 143)
START_TREASURES = {"standard": 10, "advanced": 14}

# Weights of the evaluation, in victory points.
LEADER_WORTH = 4.0  # future points of a well-placed leader over a whole game
MONUMENT_WORTH = 3.0  # future end-of-turn points from a monument of the leader's colour
KING_SHARE = 0.15  # the king also collects colours whose leader is missing
SORTED_WEIGHTS = (0.55, 0.25, 0.12, 0.08)  # lowest colour first: the score is the lowest
TILE_COST = 0.3  # what a tile committed to a conflict (and lost) is worth
TURN_VERBS = ("tile", "leader", "catastrophe", "swap", "pass", "withdraw")
# An evaluation fitted to game results by ``python -m cradle.ai.training`` (weights of
# Board.features). It predicts results of quick policy games better than the hand-set
# Board.seat_value (log-loss 0.608 against 0.623) but searched worse (6 wins in 14 games at
# 200 iterations), so the hand-set value is the default; ``ismcts@.../fitted=1`` uses this.
FITTED_WEIGHTS: tuple[float, ...] = (
    -0.3646,
    0.0178,
    -0.0674,
    -0.1333,
    -0.1060,
    0.0447,
    0.1687,
    -0.4039,
    0.0897,
    -0.2736,
    0.0041,
    -0.1534,
    0.2541,
    -0.0784,
    0.0996,
    0.0236,
    0.9353,
    0.2733,
    -0.0390,
    -0.4290,
    0.8094,
    -0.0274,
    0.0982,
    -0.0716,
)
CELL_INDEX = {f"{chr(65 + c)}{r + 1}": r * WIDTH + c for r in range(HEIGHT) for c in range(WIDTH)}
CELL_NAME = {i: name for name, i in CELL_INDEX.items()}


def _neighbours(i: int) -> tuple[int, ...]:
    r, c = divmod(i, WIDTH)
    out = []
    if r > 0:
        out.append(i - WIDTH)
    if r < HEIGHT - 1:
        out.append(i + WIDTH)
    if c > 0:
        out.append(i - 1)
    if c < WIDTH - 1:
        out.append(i + 1)
    return tuple(out)


NEIGHBOURS = tuple(_neighbours(i) for i in range(CELLS))

# Cell value -> (kind, colour index or role, treasure): kinds below.
UP, DOWN, LEADER, WONDER, CATASTROPHE = range(5)
_VALUES: dict[str, tuple[int, Any, bool]] = {}


def _classify(value: str) -> tuple[int, Any, bool]:
    known = _VALUES.get(value)
    if known is not None:
        return known
    treasure = value.endswith("*")
    bare = value.rstrip("*")
    out: tuple[int, Any, bool]
    if bare in COLOURS:
        out = (UP, COLOURS.index(bare), treasure)
    elif bare.startswith("down:"):
        out = (DOWN, COLOURS.index(bare[5:]), treasure)
    elif bare.startswith("leader:"):
        _, dynasty, role = bare.split(":")
        out = (LEADER, (dynasty, role), False)
    elif bare == "wonder":
        out = (WONDER, None, treasure)
    else:
        out = (CATASTROPHE, None, False)
    _VALUES[value] = out
    return out


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


class Board:
    """One reading of a world: kingdoms, leaders, supporters, hands and progress."""

    __slots__ = (
        "_around",
        "_facts",
        "_squares",
        "active",
        "catastrophes",
        "cells",
        "comp",
        "counts",
        "hands",
        "kind",
        "leader_at",
        "leaders",
        "monuments",
        "n",
        "pending",
        "points",
        "position",
        "remaining",
        "seat_of",
        "treasures",
        "treasures_in",
        "unused",
    )

    def __init__(self, position: dict[str, Any]) -> None:
        self.position = position
        players: list[str] = position["players"]
        self.n = len(players)
        self.seat_of = {name: i for i, name in enumerate(players)}
        self.active: int = position.get("active", 0)
        self.pending: dict[str, Any] | None = position.get("pending")
        cells: list[tuple[int, Any, bool] | None] = [None] * CELLS
        self.leader_at: dict[tuple[int, str], int] = {}
        treasures_on_board = 0
        for name, value in position["board"].items():
            i = CELL_INDEX[name]
            info = _classify(value)
            cells[i] = info
            if info[2]:
                treasures_on_board += 1
            if info[0] == LEADER:
                dynasty, role = info[1]
                self.leader_at[(self.seat_of[dynasty], role)] = i
        self.cells = cells
        # Connected groups (catastrophes and empty cells do not connect).
        comp = [-1] * CELLS
        counts: list[list[int]] = []
        leaders: list[list[tuple[int, str, int]]] = []
        treasures_in: list[int] = []
        k = 0
        for start in range(CELLS):
            first = cells[start]
            if first is None or first[0] == CATASTROPHE or comp[start] >= 0:
                continue
            comp[start] = k
            tally = [0, 0, 0, 0]
            here: list[tuple[int, str, int]] = []
            treasure = 0
            stack = [start]
            while stack:
                i = stack.pop()
                cell = cells[i]
                assert cell is not None
                kind = cell[0]
                if kind == UP:
                    tally[cell[1]] += 1
                elif kind == LEADER:
                    dynasty, role = cell[1]
                    here.append((self.seat_of[dynasty], role, i))
                if cell[2]:
                    treasure += 1
                for j in NEIGHBOURS[i]:
                    other = cells[j]
                    if comp[j] < 0 and other is not None and other[0] != CATASTROPHE:
                        comp[j] = k
                        stack.append(j)
            counts.append(tally)
            leaders.append(here)
            treasures_in.append(treasure)
            k += 1
        self.comp = comp
        self.counts = counts
        self.leaders = leaders
        self.treasures_in = treasures_in
        self.monuments: list[tuple[int, tuple[int, ...]]] = []
        for monument in position.get("monuments") or []:
            i = CELL_INDEX[monument["cell"]]
            colours = tuple(COLOURS.index(c) for c in monument["colors"])
            self.monuments.append((comp[i], colours))
        used = {tuple(sorted(cs)) for _, cs in self.monuments}
        self.unused = [(a, b) for a in range(4) for b in range(a + 1, 4) if (a, b) not in used]
        self.hands = [
            [hand.count(c) for c in COLOURS]
            for hand in (position["hands"].get(name, []) for name in players)
        ]
        self.points = [
            [int(position["points"][name][c]) for c in COLOURS]
            if "points" in position
            else [0, 0, 0, 0]
            for name in players
        ]
        self.treasures = [int((position.get("treasures") or {}).get(name, 0)) for name in players]
        self.catastrophes = [
            int((position.get("catastrophes") or {}).get(name, 2)) for name in players
        ]
        # How much of the game is left, from 1 (start) to 0: the bag or the treasures, whichever
        # runs out first.
        board_side = (position.get("options") or {}).get("board", "standard")
        start_treasures = START_TREASURES.get(board_side, 10)
        start_bag = 153 - start_treasures - 6 * self.n
        bag = len(position.get("bag") or [])
        by_bag = bag / start_bag
        by_treasures = max(0, treasures_on_board - 2) / (start_treasures - 2)
        left = max(0.0, min(1.0, by_bag, by_treasures))
        self.remaining = 0.0 if position.get("ending") else left
        self.kind = [c[0] if c is not None else -1 for c in cells]
        self._around: dict[int, set[int]] = {}
        self._squares: list[set[int]] | None = None
        self._facts: dict[int, tuple[list[int], int, list[int], bool]] = {}

    # -- small questions ------------------------------------------------------------------

    def temples_around(self, i: int, skip: int = -1) -> int:
        """Face-up temples orthogonally next to cell ``i`` (not counting cell ``skip``)."""
        cells = self.cells
        total = 0
        for j in NEIGHBOURS[i]:
            cell = cells[j]
            if j != skip and cell is not None and cell[0] == UP and cell[1] == RED:
                total += 1
        return total

    def comps_around(self, i: int, skip: int = -1) -> set[int]:
        if skip < 0:
            known = self._around.get(i)
            if known is None:
                comp = self.comp
                known = {comp[j] for j in NEIGHBOURS[i] if comp[j] >= 0}
                self._around[i] = known
            return known
        return {self.comp[j] for j in NEIGHBOURS[i] if j != skip and self.comp[j] >= 0}

    def expected_in_hand(self, seat: int, colour: int) -> float:
        return float(sum(self.hands[seat]) * UNSEEN_SHARE[colour])

    def odds_of_holding(self, seat: int, colour: int, count: int) -> float:
        """Belief that ``seat`` holds at least ``count`` tiles of ``colour`` (its hand size is
        public, its contents are not)."""
        return 1.0 - binomial_cdf(count - 1, sum(self.hands[seat]), UNSEEN_SHARE[colour])

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

    def features(self, seat: int) -> list[float]:
        """What the fitted evaluation weighs (see cradle.ai.training), each feature once for
        the early game (× remaining) and once for the late game (× 1 - remaining)."""
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

    def fitted_value(self, seat: int) -> float:
        return sum(w * x for w, x in zip(FITTED_WEIGHTS, self.features(seat), strict=True))

    def values(self, fitted: bool = False) -> list[float]:
        if fitted and FITTED_WEIGHTS:
            return [self.fitted_value(s) for s in range(self.n)]
        return [self.seat_value(s) for s in range(self.n)]

    def temperature(self, fitted: bool = False) -> float:
        """How uncertain a lead in estimated points still is (more so early on); the fitted
        values are already on the logistic scale."""
        if fitted and FITTED_WEIGHTS:
            return 1.0
        return 1.0 + 4.0 * self.remaining

    # -- conflicts ------------------------------------------------------------------------

    def best_commit(self, seat: int, options: Sequence[int]) -> int:
        """The commitment for ``seat`` in the pending revolt or war, among ``options``.

        The attacker weighs each amount against the chance that the defender holds enough
        tiles to tie (a binomial belief over the defender's hand); the defender, who sees the
        attacker's total, commits exactly what wins, or nothing when it cannot."""
        pending = self.pending or {}
        colour = RED if pending.get("kind") == "revolt" else COLOURS.index(pending["color"])
        attack = int(pending.get("attacker_strength", 0))
        defence = int(pending.get("defender_strength", 0))
        committed = pending.get("attacker_commit")
        if seat == pending.get("defender") and committed is not None:
            need = attack + int(committed) - defence
            if need <= 0:
                return 0 if 0 in options else min(options)
            if need in options:
                return need
            return 0 if 0 in options else min(options)
        defender = int(pending.get("defender", (seat + 1) % self.n))
        held = sum(self.hands[defender])
        share = UNSEEN_SHARE[colour]
        stake = self.conflict_stake(pending)
        best, best_value = options[0], -math.inf
        for k in options:
            need = attack + k - defence  # the defender ties (and wins) with ``need`` tiles
            p_win = binomial_cdf(need - 1, held, share) if need > 0 else 0.0
            value = stake * p_win - TILE_COST * k
            if value > best_value + 1e-9:
                best, best_value = k, value
        return best

    def conflict_stake(self, pending: dict[str, Any]) -> float:
        """What winning rather than losing the pending conflict is worth, in points."""
        if pending.get("kind") == "revolt":
            return 2.0 + 2.0 * self.remaining
        supporters = int(pending.get("attacker_strength", 0)) + int(
            pending.get("defender_strength", 0)
        )
        return 2.0 + 2.0 * self.remaining + 0.5 * supporters

    # -- priors ---------------------------------------------------------------------------

    def prior(self, seat: int, action: str, commits: list[int] | None = None) -> float:
        words = action.split()
        verb = words[0]
        if verb == "tile":
            return self._tile_prior(seat, COLOURS.index(words[1]), CELL_INDEX[words[2]])
        if verb == "leader":
            return self._leader_prior(seat, words[1], CELL_INDEX[words[2]])
        if verb == "commit":
            if commits is None:
                commits = [int(words[1])]
            best = self.best_commit(seat, commits)
            return 1.0 - 0.3 * abs(int(words[1]) - best)
        if verb == "catastrophe":
            return self._catastrophe_prior(seat, CELL_INDEX[words[1]])
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
            return -0.6 - 0.03 * (len(words) - 1)
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
            for j in NEIGHBOURS[cell]:
                info = self.cells[j]
                if info is not None and info[0] == LEADER:
                    owners.append(self.seat_of[info[1][0]])
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
        for top in range(HEIGHT - 1):
            for left in range(WIDTH - 1):
                at = top * WIDTH + left
                square = (at, at + 1, at + WIDTH, at + WIDTH + 1)
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
                    elif info[0] != UP or (colour >= 0 and info[1] != colour):
                        ok = False
                        break
                    else:
                        colour = info[1]
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
            defence = self.temples_around(where) + self.expected_in_hand(owner, RED)
            attack = temples + self.hands[seat][RED]
            value = 1.2 if attack > defence + 0.5 else -0.6
        else:
            supporters = sum(self.counts[k][colour] for k in around)
            quality = 0.35 + 0.35 * min(supporters, 8) / 8 + 0.3 * temples / (temples + 1)
            value = 0.9 * quality * future
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
        if info is not None and info[0] == UP and info[1] == RED:
            for j in NEIGHBOURS[cell]:
                other = self.cells[j]
                if other is not None and other[0] == LEADER and self.temples_around(j) == 1:
                    owner = self.seat_of[other[1][0]]
                    value += -1.0 if owner == seat else 0.9
        return value


def read(world: GameState) -> Board:
    return Board(world.to_position())


def commit_options(actions: Sequence[str]) -> list[int]:
    return [int(a.split()[1]) for a in actions if a.startswith("commit ")]


class TigrisKnowledge:
    """The :class:`cradle.ai.search.Knowledge` of Tigris & Euphrates."""

    def __init__(self, fitted: bool = False) -> None:
        self.fitted = fitted  # the fitted evaluation instead of the hand-set one

    def rewards(self, world: GameState) -> list[float]:
        if world.is_over:
            return rank_rewards(world.result())
        board = read(world)
        return pairwise_chances(board.values(self.fitted), board.temperature(self.fitted))

    def priors(self, world: GameState, actions: Sequence[str]) -> list[float]:
        board = read(world)
        seat = world.to_move
        commits = commit_options(actions)
        if commits:
            best = board.best_commit(seat, commits)
            return [1.0 - 0.3 * abs(int(a.split()[1]) - best) for a in actions]
        return [board.prior(seat, a) for a in actions]

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
        board = read(world)
        words = action.split()
        verb = words[0]
        if verb == "leader":
            text = self._revolt_reason(board, seat, words[1], CELL_INDEX[words[2]])
            if text:
                return text
        if verb == "tile":
            text = self._war_reason(board, seat, COLOURS.index(words[1]), CELL_INDEX[words[2]])
            if text:
                return text
        if verb == "commit" and board.pending:
            return self._commit_reason(board, seat, int(words[1]))
        after = world.clone()
        try:
            events = after.apply(action)
        except ValueError as exc:
            return f"not possible: {exc}"
        name = world.players[seat]
        texts = [
            str(e["text"]).replace(f"{name} ", "", 1)
            for e in events
            if e.get("type") in ("score", "treasure", "monument", "building", "wonder")
        ]
        if texts:
            return "; ".join(texts[:3])
        if verb == "leader":
            role, cell = words[1], CELL_INDEX[words[2]]
            temples = board.temples_around(cell, skip=board.leader_at.get((seat, role), -1))
            return f"puts the {role} next to {temples} temple(s)"
        if verb == "swap":
            return f"swaps {len(words) - 1} tile(s) for new ones"
        if verb == "catastrophe":
            return "a catastrophe that breaks up the board"
        return {"pass": "ends the turn", "decline": "declines the offer"}.get(verb, action)

    def _revolt_reason(self, board: Board, seat: int, role: str, cell: int) -> str:
        current = board.leader_at.get((seat, role), -1)
        for k in board.comps_around(cell, skip=current):
            for owner, r, where in board.leaders[k]:
                if r == role and owner != seat:
                    attack = board.temples_around(cell, skip=current) + board.hands[seat][RED]
                    defence = board.temples_around(where)
                    need = attack - defence
                    if need <= 0:
                        return f"revolt you lose: at most {attack}–{defence} with all your temples"
                    odds = board.odds_of_holding(owner, RED, need)
                    return (
                        f"wins the revolt {attack}–{defence} unless they hold {need} "
                        f"temple(s) (about {odds:.0%} likely)"
                    )
        return ""

    def _war_reason(self, board: Board, seat: int, colour: int, cell: int) -> str:
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
                    parts.append(f"a {name} war you lose: at most {ours}–{them}")
                else:
                    odds = board.odds_of_holding(other, war_colour, need)
                    parts.append(
                        f"wins the {name} war {ours}–{them} unless they hold {need} {name} "
                        f"tile(s) (about {odds:.0%} likely)"
                    )
            else:
                parts.append(f"starts a {COLOURS[war_colour]} war between others")
        return "; ".join(parts) if parts else "joins two kingdoms (no war)"

    def _commit_reason(self, board: Board, seat: int, k: int) -> str:
        pending = board.pending or {}
        attack = int(pending.get("attacker_strength", 0))
        defence = int(pending.get("defender_strength", 0))
        committed = pending.get("attacker_commit")
        if committed is not None:
            total = attack + int(committed)
            if defence + k >= total:
                return f"defends {defence + k}–{total}"
            return f"gives up: {defence + k}–{total}"
        return f"attacks with {attack + k} against {defence} on the board"
