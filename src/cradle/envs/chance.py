"""A game whose tile draws are explicit chance outcomes, built on the contract alone.

The engines draw from a shuffled pile inside ``apply``. OpenSpiel-style search and learning
want that randomness as chance nodes with known probabilities. Three timings are offered:

``at_setup`` (the default for games without ``ahead``: Tigris)
    Chance deals the starting hands (one outcome per tile, seat 0 first) and then fixes the
    whole draw order of the pile, one outcome per tile, each with probability equal to that
    tile's share of the tiles not yet placed in the order. That is exactly the distribution
    of a well-shuffled pile, no seat observes the order, and afterwards the engine draws from
    it by itself: a decision is applied to the engine in place, by action id when the engine
    numbers its actions (``legal_action_ids``), so playing costs little beyond the engine.

``ahead`` (the default for games whose spec supports it: Gheos)
    Chance deals the starting hands, then fixes the order of the pile one tile at a time, but
    only as far as the next decision can draw: before a decision it is asked for the next
    tile until the fixed front of the pile covers every draw that decision can make (the
    spec's ``covers_next``; for Gheos, two landscape tiles), or the tile that ends the game
    is fixed. The same distribution as ``at_setup`` (each position is drawn from what is left
    with the tile's share as its probability), but a game that ends early asks for far fewer
    tiles, and the engine is told the fixed tiles by its ``order_pile`` hook in place.

``when_drawn``
    Chance is asked at the moment of each draw. A decision is applied to a clone; when tiles
    were drawn, one chance outcome per drawn tile follows (probability: the tile's share of the
    pile), and the engine is made to draw exactly those tiles: the pre-decision state is
    re-arranged with them at the front of the pile (the engine's ``with_hidden``, or a rebuilt
    position) and the decision applied again (skipped when the engine happened to draw those
    very tiles). A chosen tile that the replay did not draw (a draw that depended on an earlier
    drawn tile) stays fixed at the front of the pile. Exact timing for chance-aware search, but
    applying decisions twice makes it several times slower than ``at_setup``.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence

from cradle.core.contract import Event, GameState
from cradle.core.results import ranking_utilities
from cradle.envs.spec import JSON, EnvSpec

CHANCE = -1
TERMINAL = -4
DRAW_TIMINGS = ("at_setup", "when_drawn", "ahead")

# (token count, tiles left) -> the outcome (i, 1 / tiles left) of every token i: most tokens
# of a Gheos pile are single tiles, so their outcomes are shared rather than rebuilt per node.
_SINGLES: dict[tuple[int, int], list[tuple[int, float]]] = {}


def _singles(size: int, total: int) -> list[tuple[int, float]]:
    row = _SINGLES.get((size, total))
    if row is None:
        row = _SINGLES[size, total] = [(i, 1 / total) for i in range(size)]
    return row


class Log:
    """One decision, linked to the previous one; immutable, so copies of a game share it.

    It keeps the tiles the deciding seat held when it decided (read cheaply from the engine
    before the decision): that is what makes information states perfect-recall.
    """

    __slots__ = ("_action", "action_id", "depth", "previous", "seat", "spec", "tiles")

    def __init__(
        self,
        seat: int,
        action: str | None,
        tiles: Sequence[str],
        previous: Log | None,
        spec: EnvSpec | None = None,
        action_id: int = -1,
    ) -> None:
        self.seat = seat
        # Either the action string, or (spelled only when asked) its id and the game's spec.
        self._action = action
        self.spec = spec
        self.action_id = action_id
        self.tiles = tiles
        self.previous = previous
        self.depth: int = previous.depth + 1 if previous is not None else 1

    @property
    def action(self) -> str:
        text = self._action
        if text is None:
            assert self.spec is not None
            text = self._action = self.spec.describe(self.action_id, self.tiles)
        return text

    def actor_hand(self) -> str:
        """The actor's tiles then, sorted, space-separated (formatted only when asked)."""
        return " ".join(sorted(self.tiles))

    def __deepcopy__(self, memo: dict[int, object]) -> Log:
        return self

    def nodes(self) -> list[Log]:
        out: list[Log] = []
        node: Log | None = self
        while node is not None:
            out.append(node)
            node = node.previous
        out.reverse()
        return out

    def __reduce__(self) -> tuple[object, ...]:
        return (_log_from, ([(n.seat, n.action, list(n.tiles)) for n in self.nodes()],))


def _log_from(entries: list[tuple[int, str, list[str]]]) -> Log | None:
    log: Log | None = None
    for seat, action, tiles in entries:
        log = Log(seat, action, tiles, log)
    return log


def check_timing(spec: EnvSpec, timing: str) -> str:
    """``timing`` if ``spec``'s game supports it; ValueError saying what does otherwise."""
    if timing not in DRAW_TIMINGS:
        raise ValueError(f"draws must be one of {', '.join(DRAW_TIMINGS)}, not {timing!r}")
    if timing == "ahead" and not spec.draws_ahead:
        raise ValueError(f"{spec.game} does not support draws=ahead (use at_setup or when_drawn)")
    return timing


def _never_dealt(spec: EnvSpec) -> frozenset[int]:
    return frozenset(i for i, token in enumerate(spec.tokens) if not spec.dealable(token))


class Setup:
    """The table before the deal, the same for every game of one set of parameters (so it is
    worked out once per OpenSpiel game object, not per game)."""

    __slots__ = (
        "base",
        "counts",
        "deal",
        "dealt",
        "ends",
        "live",
        "multi",
        "never_dealt",
        "never_dealt_count",
        "pile",
        "position",
    )

    def __init__(self, spec: EnvSpec, players: int, options: object) -> None:
        # While dealing there is no real state yet; the engine's own set-up stands in for it
        # (only its public view is ever shown, and it is never changed: games clone it).
        start = spec.module.new_game(players, 0, options).to_position()
        position, deal = spec.undealt(start)
        # The same table with seat 0 to move (as ``undealt`` says); deals re-arrange its tiles.
        base = spec.module.from_position(spec.dealt(position, spec.hands(start), spec.pile(start)))
        self._derive(spec, base, position, deal)

    def _derive(self, spec: EnvSpec, base: GameState, position: JSON, deal: list[int]) -> None:
        """Everything else from the stand-in state, the undealt position and the deal (also
        for a set-up read back from a pickle)."""
        self.base: GameState = base
        self.position = position
        self.deal = deal
        self.dealt = sum(deal)
        self.pile: list[str] = spec.pile(position)
        self.ends = spec.pile_end(base.view(None))
        self.never_dealt = _never_dealt(spec)
        # What every new game starts from (copied, not recounted).
        counts = self.counts = _pile_counts(spec, self.pile)
        self.live = [i for i, n in enumerate(counts) if n]
        self.multi = [i for i, n in enumerate(counts) if n > 1]
        self.never_dealt_count = sum(counts[i] for i in self.never_dealt)


def _pile_counts(spec: EnvSpec, pile: list[str]) -> list[int]:
    """How many of each token (by id) ``pile`` holds."""
    counts = [0] * len(spec.tokens)
    for token in pile:
        counts[spec.token_ids[token]] += 1
    return counts


def _without(pile: list[str], taken: list[str]) -> list[str]:
    """``pile`` less the first copy of each token of ``taken`` (order otherwise kept)."""
    out = pile[:]
    for token in taken:
        out.remove(token)
    return out


class ChanceGame:
    """One game in progress (see the module docstring); :meth:`copy` is cheap."""

    __slots__ = (
        "_counts",
        "_cuts",
        "_end_token",
        "_ends_left",
        "_front_told",
        "_live",
        "_multi",
        "_setup",
        "_total",
        "bag",
        "chosen",
        "engine",
        "fixed",
        "front",
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
        self,
        spec: EnvSpec,
        players: int,
        options: object,
        max_moves: int,
        timing: str = "at_setup",
        setup: Setup | None = None,
    ) -> None:
        self.spec = spec
        self.max_moves = max_moves
        self.timing = check_timing(spec, timing)
        if setup is None:
            setup = Setup(spec, players, options)
        self._setup: Setup | None = setup
        self.engine: GameState = setup.base
        self.bag: list[str] = setup.pile
        self.fixed = 0
        dealt = setup.dealt
        self.need = dealt + (len(self.bag) - dealt if timing == "at_setup" else 0)
        self.chosen: list[str] = []
        # Tiles still available to the chance node being asked: per token id, the ids with
        # some left (ascending), those with more than one left, and their sum.
        self._counts: list[int] = setup.counts[:]
        self._live: list[int] = setup.live[:]
        self._multi: list[int] = setup.multi[:]
        self._total = len(setup.pile)
        # at_setup: the game ends when the n-th tile of this token is drawn (spec.pile_end);
        # once chance has placed it, the order after it no longer matters.
        ends = setup.ends if timing != "when_drawn" else None
        self._end_token = spec.token_ids[ends[0]] if ends is not None else -1
        self._ends_left = ends[1] if ends is not None else 0
        # ahead: the tiles at the front of the engine's pile whose order chance has fixed (first
        # drawn first; never changed in place, so copies share it), and whether the engine
        # has been told the last of them.
        self.front: list[str] = []
        self._front_told = True
        self.pending: str | None = None
        self.post: GameState | None = None
        self.post_position: JSON | None = None
        self.log: Log | None = None
        self.moves = 0
        # (log depth, seat): a hidden-information re-sample for that seat was taken there, so
        # other seats' private history up to that depth is unknown in this copy.
        self._cuts: tuple[tuple[int, int], ...] = ()

    def _count(self, tokens: list[str]) -> None:
        self._set_counts(_pile_counts(self.spec, tokens))

    def _set_counts(self, counts: list[int]) -> None:
        self._counts = counts
        self._live = [i for i, n in enumerate(counts) if n]
        self._multi = [i for i, n in enumerate(counts) if n > 1]
        self._total = sum(counts)

    def copy(self) -> ChanceGame:
        other = ChanceGame.__new__(ChanceGame)
        for name in ChanceGame.__slots__:
            setattr(other, name, getattr(self, name))
        other.engine = self.engine.clone()
        if self.need > 0:
            other.bag = self.bag[:]
            other.chosen = self.chosen[:]
            other._counts = self._counts[:]
            other._live = self._live[:]
            other._multi = self._multi[:]
            other.post = self.post.clone() if self.post is not None else None
        elif self._total and self.timing == "ahead":
            # More of the order may be fixed later, which changes these in place.
            other._counts = self._counts[:]
            other._live = self._live[:]
            other._multi = self._multi[:]
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> ChanceGame:
        return self.copy()

    # --- pickling goes through positions (JSON), the contract's exact round trip
    def __getstate__(self) -> JSON:
        rest = {
            name: getattr(self, name)
            for name in ChanceGame.__slots__
            if name not in ("spec", "engine", "post", "_setup")
        }
        setup = self._setup
        return {
            "game": self.spec.game,
            "engine": self.engine.to_position(),
            "post": self.post.to_position() if self.post is not None else None,
            "setup": None if setup is None else (setup.position, setup.deal),
            "rest": rest,
        }

    def __setstate__(self, data: JSON) -> None:
        from cradle.envs.spec import get_spec

        self.spec = get_spec(data["game"])
        module = self.spec.module
        self.engine = module.from_position(data["engine"])
        self.post = module.from_position(data["post"]) if data["post"] else None
        self._setup = None
        if data["setup"] is not None:
            self._setup = Setup.__new__(Setup)
            self._setup._derive(self.spec, self.engine, *data["setup"])
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
        deal = self._setup.deal
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
        if self.moves >= self.max_moves or self.engine.is_over:
            return TERMINAL
        return int(self.engine.to_move)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(token index, probability) for the next tile, in token order."""
        counts = self._counts
        live = self._live
        total = self._total
        setup = self._setup
        if setup is not None and len(self.chosen) < setup.dealt:
            skip = setup.never_dealt
            total -= setup.never_dealt_count
            return [(i, counts[i] / total) for i in live if i not in skip]
        elif 3 * len(self._multi) < len(live):
            # Asked at every chance node (a whole pile of them at set-up): mostly shared
            # single-tile outcomes, then the few tokens with several tiles left.
            out = list(map(_singles(len(counts), total).__getitem__, live))
            for i in self._multi:
                out[bisect_left(live, i)] = (i, counts[i] / total)
            return out
        return [(i, counts[i] / total) for i in live]

    def returns(self) -> list[float]:
        if self.need > 0 or not self.engine.is_over:
            return [0.0] * len(self.engine.players)
        return ranking_utilities(self.engine.result())

    # --- moves
    def legal_ids(self) -> list[int]:
        """The ids of the legal actions of the seat to move, ascending."""
        ids = self.spec.legal_ids(self.engine)
        ids.sort()
        return ids

    def apply_action(self, action_id: int) -> list[Event]:
        """The decision ``action_id`` of the seat to move; returns the engine's events."""
        before = self.engine
        if self.need > 0 or self.moves >= self.max_moves or before.is_over:
            raise ValueError("no player is to move now")
        spec = self.spec
        seat = int(before.to_move)
        tiles = spec.actor_hand(before, seat)
        # The action's string is spelled only if the history is read.
        action = None
        timing = self.timing
        if timing != "when_drawn":
            # Copies clone the engine, so it can change in place (unchanged when refused).
            events = spec.apply_id(before, action_id)
            self.moves += 1
            self.log = Log(seat, action, tiles, self.log, spec, action_id)
            if timing == "ahead" and self._total:
                drawn = spec.drawn(events)
                if drawn:
                    if drawn > len(self.front):
                        raise RuntimeError(
                            f"{drawn} tiles drawn but only {len(self.front)} were fixed: "
                            f"{spec.game}'s covers_next is wrong"
                        )
                    self.front = self.front[drawn:]
                    self._top_up()
            return events
        post = before.clone()
        events = spec.apply_id(post, action_id)
        self.moves += 1
        log = self.log = Log(seat, action, tiles, self.log, spec, action_id)
        if not spec.may_draw(events):
            self.engine = post
            return events
        position = post.to_position()
        drawn = len(self.bag) - len(spec.pile(position))
        if drawn <= self.fixed:
            self._settle(post, self.bag, drawn, self.fixed)
            return events
        self.pending = log.action
        self.post = post
        self.post_position = position
        self.need = drawn - self.fixed
        self.chosen = []
        self._count(self.bag[self.fixed :])
        return events

    def apply_chance(self, outcome: int) -> None:
        if self.need <= 0:
            raise ValueError("this is not a chance node")
        counts = self._counts
        if not 0 <= outcome < len(counts) or counts[outcome] <= 0:
            raise ValueError(f"outcome {outcome} cannot be drawn now")
        setup = self._setup
        if setup is None and self.timing == "ahead":
            self._fix_next(outcome)
            return
        tokens = self.spec.tokens
        token = tokens[outcome]
        chosen = self.chosen
        if setup is not None and len(chosen) < setup.dealt and outcome in setup.never_dealt:
            raise ValueError(f"{token!r} is not dealt into a starting hand")
        chosen.append(token)
        self._use(outcome)
        if outcome == self._end_token and setup is not None and len(chosen) > setup.dealt:
            self._ends_left -= 1
            if not self._ends_left:
                # The game ends when this tile is drawn: no draw ever reaches the tiles after
                # it, so their order is left as it is instead of being asked of chance.
                for i in self._live:
                    chosen.extend([tokens[i]] * counts[i])
                self._deal()
                return
        if len(chosen) < self.need:
            return
        if setup is not None:
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
        engine = self.spec.rearranged(self.engine, None, bag)
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
            self._count(bag[self.fixed :])
            self.post = engine
            self.post_position = position
            return
        self._settle(engine, bag, drawn, len(prefix))

    def _use(self, outcome: int) -> None:
        """One tile of token ``outcome`` is no longer open to chance."""
        counts = self._counts
        counts[outcome] -= 1
        self._total -= 1
        if counts[outcome] == 1:
            self._multi.remove(outcome)
        elif not counts[outcome]:
            self._live.remove(outcome)

    def _fix_next(self, outcome: int) -> None:
        """ahead: ``outcome`` is the next tile after the fixed front."""
        self._use(outcome)
        self.front = [*self.front, self.spec.tokens[outcome]]
        self._front_told = False
        if outcome == self._end_token:
            self._ends_left -= 1
            if not self._ends_left:
                # The game ends when this tile is drawn: the order after it never matters.
                self._count([])
        self._top_up()

    def _top_up(self) -> None:
        """ahead: a chance node for the next tile, unless the fixed front covers the next
        decision's draws; once it does, the engine is told the front."""
        if (
            self._total
            and not self.spec.covers_next(self.front)
            and not self.engine.is_over
            and self.moves < self.max_moves
        ):
            self.need = 1
            return
        self.need = 0
        if not self._front_told:
            self.engine.order_pile(self.front)
            self._front_told = True

    def _settle(self, engine: GameState, bag: list[str], drawn: int, fixed: int) -> None:
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
        setup = self._setup
        hands: list[list[str]] = []
        at = 0
        for size in setup.deal:
            hands.append(self.chosen[at : at + size])
            at += size
        # at_setup: the chosen order is the whole pile; when_drawn: the rest keeps its order;
        # ahead: any order will do (chance fixes it before anything is drawn).
        if self.timing == "at_setup":
            rest = self.chosen[at:]
        else:
            rest = _without(self.bag, self.chosen)
        self._setup = None
        engine = self.spec.rearranged(setup.base, hands, rest)
        self._settle(engine, rest, 0, len(rest) if self.timing == "at_setup" else 0)
        if self.timing == "ahead":
            self._top_up()

    # --- information
    def history_tokens(self, seat: int | None) -> list[str]:
        """The decisions so far as ``seat`` saw them (``None``: a spectator): others' swaps
        only by their size, and with each of the seat's own decisions the tiles it held."""
        out: list[str] = []
        if self.log is None:
            return out
        public = self.spec.module.public_action
        cuts = self._cuts
        for node in self.log.nodes():
            actor = node.seat
            if actor != seat:
                out.append(f"{actor}:{public(node.action, actor, seat)}")
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
        elif self.timing == "ahead":
            # The re-drawn pile is a fresh shuffle: its whole order is settled, like at_setup's.
            other.front = []
            other._count([])
        depth = self.log.depth if self.log is not None else 0
        other._cuts = (*self._cuts, (depth, seat))
        return other

    def check(self) -> None:
        """Assert that the tracked pile is the engine's (a test hook): ``when_drawn``'s whole
        pile; ``ahead``'s fixed front, and the tiles not fixed yet as a multiset."""
        if self.need == 0 and self.timing == "when_drawn":
            actual = self.spec.pile(self.engine.to_position())
            assert actual == self.bag, (actual[:8], self.bag[:8])
        if self.need == 0 and self.timing == "ahead" and self._setup is None and self._total:
            actual = self.spec.pile(self.engine.to_position())
            assert actual[: len(self.front)] == self.front, (actual[:8], self.front)
            rest = Counter(actual[len(self.front) :])
            tracked = {self.spec.tokens[i]: n for i, n in enumerate(self._counts) if n}
            assert rest == Counter(tracked), (rest, tracked)
