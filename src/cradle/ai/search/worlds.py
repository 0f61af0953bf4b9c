"""The worlds a search deals: full states its seat cannot tell from the truth.

A search bot never looks at the hidden parts of the state it is given. It asks the engine for
*worlds* (``state.sample_hidden(seat, rng)``) and searches, rolls out and evaluates on those
worlds only. A world is dealt uniformly from the tiles the seat cannot see, or, with a belief
over the Tigris hands (``cradle.ai.knowledge.belief``), the other hands are dealt weighted by
it (:func:`believed_world`; the native search deals the same worlds).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cradle.ai.knowledge.tigris import Shares
from cradle.core.contract import GameState, fast


def sample_world(
    state: GameState, seat: int, rng: random.Random, tilts: Shares | None = None
) -> GameState:
    """A full state that ``seat`` cannot tell from ``state``, drawn with ``rng``: the world
    ``sample_hidden(seat, CanonicalRandom(seed))`` gives, made by the engine's fast path; with
    a belief's odds ``tilts`` (Tigris), the other hands dealt weighted by them."""
    if tilts is None:
        return fast(state).sample_hidden_seeded(seat, rng.getrandbits(64))
    return believed_world(state, seat, tilts, rng.getrandbits(64))


def next_world(
    state: GameState, seat: int, dealer: random.Random, tilts: Shares | None = None
) -> GameState:
    """The next world of a search that deals all its worlds from one generator, ``dealer``
    (a :class:`CanonicalRandom` seeded once): ``sample_hidden(seat, dealer)``. Its first world
    is ``sample_hidden_seeded(seat, seed)``; each next one goes on where the last stopped,
    which spares seeding a generator for every world (the native search does the same). With
    a belief's odds ``tilts``, the world :func:`sample_world` deals from the dealer's next 64
    bits."""
    if tilts is None:
        return state.sample_hidden(seat, dealer)
    return believed_world(state, seat, tilts, dealer.getrandbits(64))


# -- the deal weighted by a belief --------------------------------------------------------

MASK = (1 << 64) - 1


class SplitMix64:
    """The native crate's SplitMix64 (native/src/splitmix.rs), draw for draw."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def unit(self) -> float:
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))


def weighted_pool(
    pool: Sequence[int],
    sizes: Sequence[tuple[int, int]],
    weights: Sequence[Sequence[float]],
    seed: int,
) -> list[int]:
    """The unseen tiles (colour indices) in the order ``sample_hidden`` deals them: for each
    other seat its hand then its discards (``sizes``), then the bag.

    Each hand is drawn without replacement, a tile of colour c with a chance proportional to
    how many the pool still holds × the seat's odds of c (``weights``, the belief's tilts;
    SplitMix64 of ``seed``); the rest (discards and bag) is sorted and shuffled as
    ``random.Random(seed)`` shuffles."""
    counts = [0, 0, 0, 0]
    for colour in pool:
        counts[colour] += 1
    rng = SplitMix64(seed)
    hands: list[list[int]] = []
    for (hand_size, _discards), weight in zip(sizes, weights, strict=True):
        hand = [0, 0, 0, 0]
        for _ in range(hand_size):
            total = 0.0
            for c in range(4):
                total += counts[c] * weight[c]
            r = rng.unit() * total
            pick = -1
            for c in range(4):
                x = counts[c] * weight[c]
                if x > 0 and r < x:
                    pick = c
                    break
                r -= x
            if pick < 0:  # rounding at the top end: the last colour still in the pool
                pick = max(c for c in range(4) if counts[c] > 0)
            hand[pick] += 1
            counts[pick] -= 1
        hands.append(hand)
    rest = [c for c in range(4) for _ in range(counts[c])]
    random.Random(seed).shuffle(rest)
    order: list[int] = []
    at = 0
    for hand, (_hand_size, discards) in zip(hands, sizes, strict=True):
        order += [c for c in range(4) for _ in range(hand[c])]
        order += rest[at : at + discards]
        at += discards
    order += rest[at:]
    return order


class _Dealer:
    """A stand-in for ``rng`` in ``sample_hidden``: its shuffle lays out a given order."""

    def __init__(self, tilts: Shares, sizes: list[tuple[int, int]], seed: int) -> None:
        self.tilts = tilts
        self.sizes = sizes
        self.seed = seed
        self.seat = 0

    def shuffle(self, pool: list[int]) -> None:
        others = [self.tilts[s] for s in range(len(self.tilts)) if s != self.seat]
        pool[:] = weighted_pool(sorted(pool), self.sizes, others, self.seed)


def believed_world(state: GameState, seat: int, tilts: Shares, seed: int) -> GameState:
    """A full Tigris state ``seat`` cannot tell from ``state``, the other hands dealt weighted
    by the belief's odds ``tilts`` (the native search's ``tigris::World::determinize``)."""
    if len(tilts) != len(state.players):
        raise ValueError(f"a belief of {len(tilts)} seats for {len(state.players)} players")
    position = state.to_position()
    sizes = [
        (len(position["hands"][name]), len(position["discards"][name]))
        for s, name in enumerate(position["players"])
        if s != seat
    ]
    dealer = _Dealer(tilts, sizes, seed)
    dealer.seat = seat
    return state.sample_hidden(seat, dealer)  # type: ignore[arg-type]
