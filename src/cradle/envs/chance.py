"""A game whose tile draws are explicit chance outcomes, built on the contract alone.

The engines draw from a shuffled pile inside ``apply``. OpenSpiel-style search and learning
want that randomness as chance nodes with known probabilities. Two timings are offered:

``at_setup`` (the default)
    Chance deals the starting hands (one outcome per tile, seat 0 first) and then fixes the
    whole draw order of the pile, one outcome per tile, each with probability equal to that
    tile's share of the tiles not yet placed in the order. That is exactly the distribution
    of a well-shuffled pile, no seat observes the order, and afterwards the engine draws from
    it by itself: playing costs nothing beyond the engine.

``when_drawn``
    Chance is asked at the moment of each draw. A decision is applied to a clone; when tiles
    were drawn, one chance outcome per drawn tile follows (probability: the tile's share of the
    pile), and the engine is made to draw exactly those tiles: the pre-decision position is
    rebuilt with them at the front of the pile (``to_position`` / ``from_position``) and the
    decision applied again (skipped when the engine happened to draw those very tiles). A
    chosen tile that the replay did not draw (a draw that depended on an earlier drawn tile)
    stays fixed at the front of the pile. Exact timing for chance-aware search, but rebuilding
    positions makes it several times slower than ``at_setup``.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from cradle.envs.spec import JSON, EnvSpec, ranking_utilities

CHANCE = -1
TERMINAL = -4
DRAW_TIMINGS = ("at_setup", "when_drawn")


class Log:
    """One decision, linked to the previous one; immutable, so copies of a game share it.

    It keeps the engine state the decision was taken in, to tell (lazily, cached) which tiles
    the deciding seat held then: that is what makes information states perfect-recall.
    """

    __slots__ = ("action", "before", "depth", "hand", "previous", "seat")

    def __init__(
        self, seat: int, action: str, before: tuple[EnvSpec, Any] | None, previous: Log | None
    ) -> None:
        self.seat = seat
        self.action = action
        self.before = before
        self.hand: str | None = None
        self.previous = previous
        self.depth: int = previous.depth + 1 if previous is not None else 1

    def actor_hand(self) -> str:
        if self.hand is None:
            assert self.before is not None
            spec, state = self.before
            self.hand = " ".join(sorted(spec.hand_tokens(state.view(self.seat))))
            self.before = None
        return self.hand

    def __deepcopy__(self, memo: dict[int, Any]) -> Log:
        return self

    def nodes(self) -> list[Log]:
        out: list[Log] = []
        node: Log | None = self
        while node is not None:
            out.append(node)
            node = node.previous
        out.reverse()
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (_log_from, ([(n.seat, n.action, n.actor_hand()) for n in self.nodes()],))


def _log_from(entries: list[tuple[int, str, str]]) -> Log | None:
    log: Log | None = None
    for seat, action, hand in entries:
        log = Log(seat, action, None, log)
        log.hand = hand
    return log


def _without(pile: list[str], taken: list[str]) -> list[str]:
    """``pile`` less one copy of each token of ``taken`` (order otherwise kept)."""
    left = Counter(taken)
    out = []
    for token in pile:
        if left[token]:
            left[token] -= 1
        else:
            out.append(token)
    return out


class ChanceGame:
    """One game in progress (see the module docstring); :meth:`copy` is cheap."""

    __slots__ = (
        "_counts",
        "_cuts",
        "_setup",
        "bag",
        "chosen",
        "engine",
        "fixed",
        "log",
        "max_moves",
        "moves",
        "need",
        "pending",
        "post",
        "post_position",
        "spec",
        "timing",
    )

    def __init__(
        self, spec: EnvSpec, players: int, options: Any, max_moves: int, timing: str = "at_setup"
    ) -> None:
        if timing not in DRAW_TIMINGS:
            raise ValueError(f"draws must be one of {', '.join(DRAW_TIMINGS)}, not {timing!r}")
        self.spec = spec
        self.max_moves = max_moves
        self.timing = timing
        base = spec.module.new_game(players, 0, options)
        position, deal = spec.undealt(base.to_position())
        self._setup: tuple[JSON, list[int]] | None = (position, deal)
        # While dealing there is no real state yet; the engine's own set-up stands in for it
        # (only its public view is ever shown, see :attr:`dealing`).
        self.engine: Any = base
        self.bag: list[str] = spec.pile(position)
        self.fixed = 0
        self.need = sum(deal) + (len(self.bag) - sum(deal) if timing == "at_setup" else 0)
        self.chosen: list[str] = []
        # Tokens still available to the chance node being asked (kept up to date per outcome).
        self._counts: Counter[str] = Counter(self.bag)
        self.pending: str | None = None
        self.post: Any = None
        self.post_position: JSON | None = None
        self.log: Log | None = None
        self.moves = 0
        # (log depth, seat): a hidden-information re-sample for that seat was taken there, so
        # other seats' private history up to that depth is unknown in this copy.
        self._cuts: tuple[tuple[int, int], ...] = ()

    def copy(self) -> ChanceGame:
        other = ChanceGame.__new__(ChanceGame)
        for name in ChanceGame.__slots__:
            setattr(other, name, getattr(self, name))
        other.engine = self.engine.clone()
        if self.need > 0:
            other.bag = self.bag[:]
            other.chosen = self.chosen[:]
            other._counts = self._counts.copy()
            other.post = self.post.clone() if self.post is not None else None
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> ChanceGame:
        return self.copy()

    # --- pickling goes through positions (JSON), the contract's exact round trip
    def __getstate__(self) -> JSON:
        rest = {
            name: getattr(self, name)
            for name in ChanceGame.__slots__
            if name not in ("spec", "engine", "post")
        }
        return {
            "game": self.spec.game,
            "engine": self.engine.to_position(),
            "post": self.post.to_position() if self.post is not None else None,
            "rest": rest,
        }

    def __setstate__(self, data: JSON) -> None:
        from cradle.envs.spec import get_spec

        self.spec = get_spec(data["game"])
        module = self.spec.module
        self.engine = module.from_position(data["engine"])
        self.post = module.from_position(data["post"]) if data["post"] else None
        for name, value in data["rest"].items():
            setattr(self, name, value)

    # --- queries
    @property
    def dealing(self) -> bool:
        """Still dealing the starting hands (``engine`` is then a stand-in: public view only)."""
        return self._setup is not None

    def dealt_so_far(self, seat: int) -> list[str]:
        """The tiles dealt to ``seat`` so far (during the deal)."""
        if self._setup is None:
            return []
        deal = self._setup[1]
        start = sum(deal[:seat])
        return self.chosen[start : start + deal[seat]]

    @property
    def is_terminal(self) -> bool:
        if self.need > 0:
            return False
        return bool(self.engine.is_over) or self.moves >= self.max_moves

    def current_player(self) -> int:
        if self.need > 0:
            return CHANCE
        if self.engine.is_over or self.moves >= self.max_moves:
            return TERMINAL
        return int(self.engine.to_move)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(token index, probability) for the next tile, in token order."""
        counts = self._counts
        if self._setup is not None and len(self.chosen) < sum(self._setup[1]):
            dealable = self.spec.dealable
            counts = Counter({t: n for t, n in counts.items() if dealable(t)})
        total = sum(n for n in counts.values() if n > 0)
        ids = self.spec.token_ids
        return sorted((ids[token], n / total) for token, n in counts.items() if n > 0)

    def returns(self) -> list[float]:
        if self.need > 0 or not self.engine.is_over:
            return [0.0] * len(self.engine.players)
        return ranking_utilities(self.engine.result())

    # --- moves
    def apply_action(self, action: str) -> list[JSON]:
        """The decision of the seat to move; returns the engine's events."""
        if self.need > 0 or self.is_terminal:
            raise ValueError("no player is to move now")
        before = self.engine
        post = before.clone()
        events: list[JSON] = post.apply(action)
        self.moves += 1
        self.log = Log(int(before.to_move), action, (self.spec, before), self.log)
        if self.timing == "at_setup" or not self.spec.may_draw(events):
            self.engine = post
            return events
        position = post.to_position()
        drawn = len(self.bag) - len(self.spec.pile(position))
        if drawn <= self.fixed:
            self._settle(post, self.bag, drawn, self.fixed)
            return events
        self.pending = action
        self.post = post
        self.post_position = position
        self.need = drawn - self.fixed
        self.chosen = []
        self._counts = Counter(self.bag[self.fixed :])
        return events

    def apply_chance(self, outcome: int) -> None:
        if self.need <= 0:
            raise ValueError("this is not a chance node")
        if not 0 <= outcome < len(self.spec.tokens) or self._counts[self.spec.tokens[outcome]] <= 0:
            raise ValueError(f"outcome {outcome} cannot be drawn now")
        token = self.spec.tokens[outcome]
        if self._setup is not None and len(self.chosen) < sum(self._setup[1]):
            if not self.spec.dealable(token):
                raise ValueError(f"{token!r} is not dealt into a starting hand")
        self.chosen.append(token)
        self._counts[token] -= 1
        if len(self.chosen) < self.need:
            return
        if self._setup is not None:
            self._deal()
            return
        prefix = self.bag[: self.fixed] + self.chosen
        assert self.post is not None and self.post_position is not None
        if self.bag[: len(prefix)] == prefix:
            # The engine drew exactly these already.
            drawn = len(self.bag) - len(self.spec.pile(self.post_position))
            self._settle(self.post, self.bag, drawn, len(prefix))
            return
        bag = prefix + _without(self.bag[self.fixed :], self.chosen)
        engine = self.spec.module.from_position(self.spec.with_pile(self.engine.to_position(), bag))
        assert self.pending is not None
        engine.apply(self.pending)
        position = engine.to_position()
        drawn = len(bag) - len(self.spec.pile(position))
        if drawn > len(prefix):
            # A drawn tile led to further draws (e.g. a Gheos epoch): ask chance for those too.
            self.bag = bag
            self.fixed = len(prefix)
            self.need = drawn - len(prefix)
            self.chosen = []
            self._counts = Counter(bag[self.fixed :])
            self.post = engine
            self.post_position = position
            return
        self._settle(engine, bag, drawn, len(prefix))

    def _settle(self, engine: Any, bag: list[str], drawn: int, fixed: int) -> None:
        self.engine = engine
        self.bag = bag[drawn:]
        self.fixed = fixed - drawn
        self.need = 0
        self.chosen = []
        self.pending = None
        self.post = None
        self.post_position = None

    def _deal(self) -> None:
        assert self._setup is not None
        position, deal = self._setup
        hands: list[list[str]] = []
        at = 0
        for size in deal:
            hands.append(self.chosen[at : at + size])
            at += size
        # at_setup: the chosen order is the whole pile; when_drawn: the rest keeps its order.
        rest = self.chosen[at:] if self.timing == "at_setup" else _without(self.bag, self.chosen)
        self._setup = None
        engine = self.spec.module.from_position(self.spec.dealt(position, hands, rest))
        self._settle(engine, rest, 0, len(rest) if self.timing == "at_setup" else 0)

    # --- information
    def history_tokens(self, seat: int | None) -> list[str]:
        """The decisions so far as ``seat`` saw them (``None``: a spectator): others' swaps
        only by their size, and with each of the seat's own decisions the tiles it held."""
        out: list[str] = []
        if self.log is None:
            return out
        public = self.spec.public_action
        cuts = self._cuts
        for node in self.log.nodes():
            actor = node.seat
            if actor != seat:
                out.append(f"{actor}:{public(node.action)}")
            elif any(depth >= node.depth and cut != seat for depth, cut in cuts):
                # Re-sampled for another seat: this seat's past hands are not known here.
                out.append(f"{actor}:{node.action} [?]")
            else:
                out.append(f"{actor}:{node.action} [{node.actor_hand()}]")
        return out

    def public_tokens(self) -> list[str]:
        return self.history_tokens(None)

    def resample(self, seat: int, rng: random.Random) -> ChanceGame:
        """A copy whose hidden information is re-drawn consistently with all ``seat`` knows."""
        if self.need > 0:
            raise ValueError("hidden information is re-sampled only at a player's decision")
        other = self.copy()
        other.engine = self.engine.sample_hidden(seat, rng)
        if self.timing == "when_drawn":
            other.bag = self.spec.pile(other.engine.to_position())
            other.fixed = 0
        depth = self.log.depth if self.log is not None else 0
        other._cuts = (*self._cuts, (depth, seat))
        return other

    def check(self) -> None:
        """Assert that the tracked pile is the engine's (a test hook, ``when_drawn`` only)."""
        if self.need == 0 and self.timing == "when_drawn":
            actual = self.spec.pile(self.engine.to_position())
            assert actual == self.bag, (actual[:8], self.bag[:8])
