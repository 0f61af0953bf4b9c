"""Reading the opponents: a belief over every Tigris hand from the public history.

The state carries no history, so the drivers that play bots tell them every action as it is
played (``cradle.ai.bots.tell``: the state before it and the action). A :class:`HandBelief` turns that
public history into an expected number of tiles of each colour in each seat's hand, from what
anybody may know at the table: the hand sizes, the conflict in progress, the colours of tiles
placed and committed, and the number (never the colours) of tiles swapped. It starts as today's
uniform belief (each tile in hand a draw from the unseen tiles in their starting shares) and
changes where the actions say something:

- a tile placed or ``k`` tiles committed show the seat held at least that many of the colour
  (raised to it if the belief had fewer, the other colours lowered to keep the hand's size),
  and then no longer holds them;
- a defender who commits fewer than it needed to tie (ties defend) could not do better: what
  it keeps of the colour is capped at ``need - 1 - committed``;
- a swap of ``j`` tiles takes ``j / size`` of each colour (which ones is secret) and the draws
  that follow, like every refill, come in the unseen shares;
- what a seat keeps stays: one who spends other colours turn after turn and never red is
  believed to hold more and more reds (nothing lowers them while every refill adds some).

The belief is public: it is the same for every observer and it is a function of the public
history only (it reads each action in the form the game shows a spectator,
``public_action``), so a world dealt from it is a function of the seat's information, the
history and the seed (docs/ai.md, "Fair play"). The search reads it as each seat's odds of
each colour against a uniform draw (:meth:`HandBelief.tilts`): ``Reading.expected_in_hand``,
``odds_of_holding`` and ``best_commit`` tilt the uniform share by them, and
:func:`cradle.ai.search.worlds.believed_world` deals the opponents' hands weighted by them (the native search deals
the same worlds).
"""

from __future__ import annotations

from collections.abc import Sequence

from cradle.ai.knowledge.tigris import UNSEEN_SHARE, Shares
from cradle.core.contract import GameState
from cradle.tigris import COLOURS, TigrisPending, TigrisView, as_tigris

RED = 0
# No colour's share falls below this: a belief is never certain that a tile is absent, so a
# weighted deal can always give any tile the pool holds.
SHARE_FLOOR = 0.02
# The shares the search reads are this much the belief and the rest the unseen tiles' shares
# now: the expected hands alone are too sure of themselves. Over 6 games each of expert-rules
# against ismcts@100 and ismcts@100 against itself, the error of the expected tiles per hand
# (summed over the colours) was least at 0.5 for every seat (lab/notebook/tigris-knowledge.md).
TRUST = 0.5
# The games whose hands this belief reads (what a placed, committed or swapped tile tells).
GAMES = frozenset({"tigris"})


def reads(game: str) -> bool:
    """Whether a :class:`HandBelief` reads the hands of ``game`` (a driver with no belief for
    a game gives its bots none)."""
    return game in GAMES


class HandBelief:
    """Expected tiles per colour in each seat's hand, from the public actions (see the module).

    ``expected`` is None until the first action is observed: a bot without history keeps
    today's uniform belief (:meth:`shares` answers None)."""

    def __init__(self) -> None:
        self.expected: list[list[float]] | None = None
        self.players: tuple[str, ...] = ()
        self.observed = 0  # actions seen

    def copy(self) -> HandBelief:
        other = HandBelief()
        other.expected = None if self.expected is None else [row[:] for row in self.expected]
        other.players = self.players
        other.observed = self.observed
        return other

    # -- the public history ---------------------------------------------------------------

    def observe(self, state: GameState, action: str) -> None:
        """Take in ``action``, about to be played in ``state`` (read as a spectator sees it)."""
        if not reads(state.game):
            return
        view = as_tigris(state).view(None)
        self._sync(view, unseen_shares(state))
        # Only what everybody sees of the action, as the game tells it (a swap: its size).
        words = state.public_action(action).split()
        verb = words[0] if words else ""
        seat = int(state.to_move)
        if verb == "tile" and len(words) >= 2 and words[1] in COLOURS:
            self._spend(seat, COLOURS.index(words[1]), 1)
        elif verb == "swap":
            self._swap(seat, int(words[1]) if len(words) == 2 and words[1].isdigit() else 0)
        elif verb == "commit" and len(words) == 2:
            self._commit(seat, int(words[1]), view.get("pending"))
        self.observed += 1

    def shares(self, state: GameState) -> Shares | None:
        """Each seat's believed colour shares of its hand now, half the belief and half the
        unseen tiles' shares (None: no history, uniform)."""
        if self.expected is None or not reads(state.game):
            return None
        unseen = unseen_shares(state)
        self._sync(as_tigris(state).view(None), unseen)
        assert self.expected is not None
        return tuple(_shares(row, unseen) for row in self.expected)

    def tilts(self, state: GameState) -> Shares | None:
        """What the search reads: each seat's odds of each colour against a uniform draw from
        the unseen tiles (1: no different), from :meth:`shares` (None: no history). Odds, not
        shares, since the searching seat deals from the tiles it cannot see, without its own
        hand: a hand believed as a uniform draw must be dealt as one."""
        shares = self.shares(state)
        if shares is None:
            return None
        unseen = unseen_shares(state)
        return tuple(_odds(row, unseen) for row in shares)

    # -- updates --------------------------------------------------------------------------

    def _sync(self, view: TigrisView, unseen: Sequence[float]) -> None:
        """Match the public hand sizes: tiles drawn since come in the shares of the tiles
        nobody has seen (``unseen``)."""
        players = tuple(view["players"])
        sizes = [int(view["hand_sizes"][name]) for name in players]
        if self.expected is None or players != self.players:
            self.players = players
            self.expected = [[size * share for share in unseen] for size in sizes]
            return
        for seat, size in enumerate(sizes):
            row = self.expected[seat]
            total = sum(row)
            if size > total + 1e-9:
                drawn = size - total
                for c in range(4):
                    row[c] += drawn * unseen[c]
            elif size < total - 1e-9:
                scale = size / total
                for c in range(4):
                    row[c] *= scale

    def _row(self, seat: int) -> list[float]:
        assert self.expected is not None
        return self.expected[seat]

    def _at_least(self, seat: int, colour: int, count: float) -> None:
        """The seat holds at least ``count`` of ``colour`` (the others make room)."""
        row = self._row(seat)
        total = sum(row)
        count = min(count, total)
        if row[colour] >= count:
            return
        others = total - row[colour]
        scale = (total - count) / others if others > 0 else 0.0
        for c in range(4):
            row[c] = count if c == colour else row[c] * scale

    def _at_most(self, seat: int, colour: int, bound: float) -> None:
        """The seat holds at most ``bound`` of ``colour`` (the others take the rest)."""
        row = self._row(seat)
        bound = max(0.0, bound)
        if row[colour] <= bound:
            return
        excess = row[colour] - bound
        others = sum(row) - row[colour]
        row[colour] = bound
        for c in range(4):
            if c == colour:
                continue
            if others > 0:
                row[c] += excess * row[c] / others
            else:
                row[c] += excess * UNSEEN_SHARE[c] / (1.0 - UNSEEN_SHARE[colour])

    def _spend(self, seat: int, colour: int, count: int) -> None:
        self._at_least(seat, colour, count)
        row = self._row(seat)
        row[colour] = max(0.0, row[colour] - count)

    def _swap(self, seat: int, count: int) -> None:
        row = self._row(seat)
        total = sum(row)
        if total <= 0 or count <= 0:
            return
        scale = max(0.0, total - count) / total
        for c in range(4):
            row[c] *= scale  # the draws come at the next sync (the hand size is back up)

    def _commit(self, seat: int, count: int, pending: TigrisPending | None) -> None:
        if pending is None or pending["kind"] not in ("revolt", "war"):
            return
        fought = pending.get("color")
        colour = COLOURS.index(fought) if fought is not None and fought in COLOURS else RED
        self._spend(seat, colour, count)
        committed = pending.get("attacker_commit")
        if seat == pending.get("defender") and isinstance(committed, int):
            attack = int(pending.get("attacker_strength") or 0) + committed
            need = attack - int(pending.get("defender_strength") or 0)  # ties defend
            if count < need:
                # It could not tie (or it would have): what it keeps is below what was missing.
                self._at_most(seat, colour, need - 1 - count)


TILT_FLOOR = 0.05  # no colour's odds fall below this: a tile is never ruled out


def _odds(shares: Sequence[float], unseen: Sequence[float]) -> tuple[float, float, float, float]:
    odds = [max(TILT_FLOOR, s / u) if u > 0 else 1.0 for s, u in zip(shares, unseen, strict=True)]
    return (odds[0], odds[1], odds[2], odds[3])


def unseen_shares(state: GameState) -> tuple[float, float, float, float]:
    """The colour shares of the tiles nobody has seen (every hand, the discards and the bag):
    public, since everything else is on the board or counted out of the game. Reds grow rarer
    in the bag as temples are placed, so draws late in a game hold fewer than 47/143."""
    position = state.to_position()
    counts = [0, 0, 0, 0]
    piles = [*position["hands"].values(), *position["discards"].values(), position["bag"]]
    for pile in piles:
        for tile in pile:
            counts[COLOURS.index(tile)] += 1
    total = sum(counts)
    if total == 0:
        return UNSEEN_SHARE
    return (counts[0] / total, counts[1] / total, counts[2] / total, counts[3] / total)


def _shares(row: Sequence[float], unseen: Sequence[float]) -> tuple[float, float, float, float]:
    total = sum(row)
    believed = [x / total for x in row] if total > 0 else list(unseen)  # an empty hand
    shares = [
        max(SHARE_FLOOR, TRUST * b + (1 - TRUST) * u) for b, u in zip(believed, unseen, strict=True)
    ]
    norm = sum(shares)
    return (shares[0] / norm, shares[1] / norm, shares[2] / norm, shares[3] / norm)


def replayed(state: GameState, actions: Sequence[str]) -> HandBelief:
    """The belief after ``actions`` played from ``state`` (a game's start): for drivers that
    keep a game's record rather than its states (the server). ``state`` is not changed."""
    belief = HandBelief()
    state = state.clone()
    for action in actions:
        belief.observe(state, action)
        state.apply(action)
    return belief
