"""Gheos knowledge for search: an evaluation (followers × symbols, war risk, epochs to come),
one-ply move priors, a rollout policy and reasons in words.

Two evaluations (``GheosValue``): 1, followers × what their continents will score (PIMC's and
the analysis'); 4, value 1 with the control of the game's end (a seat that holds every token
left chooses when the game ends) and each seat's tokens counted as the number it can still
expect to play (one a turn, before the epoch tile that ends the game is drawn): the search's
default since its SPRT (docs/ai-decisions.md).

It reads worlds through the engine's analysis API (``gheos.GheosGame``): the areas with
their symbols, the civilizations, the followers each player holds, tokens, points and how
many epochs are left (all of it public).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from math import comb

from cradle.ai.knowledge.base import counted, pairwise_chances
from cradle.ai.knowledge.learned import model
from cradle.core.contract import GameState
from cradle.core.results import rank_rewards
from cradle.core.words import N_
from cradle.gheos import COLOURS, Area, GheosGame, as_gheos

TILE_VERBS = ("place", "replace")
WAR_RISK = 0.35  # share of a civilization's future lost when a stronger neighbour may attack
TOKEN_EARLY, TOKEN_LATE = 1.2, 0.4  # a kept token: this share of today's cup score
PYRAMID_USE = 0.8  # share of the pyramids' epoch scorings a follower will still see
# How sure a lead is: base + slope × remaining (a point counts less while many epochs are to
# come).
TEMPERATURE = (3.0, 10.0)
# Value 4: a seat that holds every token left (it alone chooses when the game ends) counts
# CONTROL × √(epochs left) points more, and its tokens at their full cup score; each seat's
# tokens count as the number it can expect to play before the game ends (one a turn; the end
# comes with an epoch tile drawn: usable_tokens).
CONTROL = 16.0
EPOCH_TILES = 8  # all of them in the stack at the start, whatever the players


# A reason is English (the hints and analyses the server sends); each of its parts is one of
# these messages, so that the layers above can read it back and translate it (cradle.i18n,
# the web client's translateReason): the engine's events it quotes, and the counts it gives.
EVENT_SHAPES = (
    N_("{player} scores {count} for the {kind} temple on the {colour} continent"),
    N_("war between {colours}: {colour} wins"),
    N_("the {colour} civilization migrates to the continent at {area}"),
    N_("this starts a war; {player} pays one follower"),
    N_("this starts a migration; {player} pays one follower"),
)
REMOVED_SHAPES = (
    N_("the {colour} civilization lost: its marker and all its followers return to the supply"),
    N_(
        "the {colour} civilization lost: its marker and all its followers return to the supply ({returned})"
    ),
    N_(
        "the {colour} civilization migrated into an occupied continent: its marker and all its followers return to the supply"
    ),
    N_(
        "the {colour} civilization migrated into an occupied continent: its marker and all its followers return to the supply ({returned})"
    ),
    N_(
        "the {colour} civilization migrates to an island and perishes: its marker and all its followers return to the supply"
    ),
    N_(
        "the {colour} civilization migrates to an island and perishes: its marker and all its followers return to the supply ({returned})"
    ),
    N_(
        "the {colour} civilization migrates to land that is no continent and perishes: its marker and all its followers return to the supply"
    ),
    N_(
        "the {colour} civilization migrates to land that is no continent and perishes: its marker and all its followers return to the supply ({returned})"
    ),
    N_(
        "the {colour} civilization is left on an island and perishes: its marker and all its followers return to the supply"
    ),
    N_(
        "the {colour} civilization is left on an island and perishes: its marker and all its followers return to the supply ({returned})"
    ),
    N_(
        "the {colour} civilization is left on land that is no continent and perishes: its marker and all its followers return to the supply"
    ),
    N_(
        "the {colour} civilization is left on land that is no continent and perishes: its marker and all its followers return to the supply ({returned})"
    ),
)
COUNT_SHAPES = (
    N_("{count} follower"),
    N_("{count} followers"),
    N_("{count} cup"),
    N_("{count} cups"),
    N_("{count} pyramid"),
    N_("{count} pyramids"),
    N_("{count} sword"),
    N_("{count} swords"),
    N_("{delta} cup"),
    N_("{delta} pyramid"),
    N_("{delta} sword"),
    N_("{delta} wheat"),
)


class GheosValue(IntEnum):
    """The hand-set evaluation (``IsmctsParams.value``; the module's docstring)."""

    FOLLOWERS = 1
    USABLE_TOKENS = 4


def gheos_value(value: int) -> GheosValue:
    """The evaluation ``value`` names, or a clear error."""
    if value not in (1, 4):
        raise ValueError(f"the Gheos evaluation is value=1 or value=4, not {value}")
    return GheosValue(value)


@dataclass(frozen=True)
class GheosSettings:
    """What a Gheos knowledge is set to: its evaluation, or the learned model instead
    (cradle.ai.knowledge.learned; its priors and policy are value 1's), and whether its priors
    judge a move that starts a conflict after that conflict (``settle_conflict``). The native
    search reads these by name (native/src/python/gheos/knowledge.rs)."""

    value: GheosValue = GheosValue.FOLLOWERS
    learned: bool = False
    settle: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", gheos_value(self.value))
        object.__setattr__(self, "learned", bool(self.learned))
        object.__setattr__(self, "settle", bool(self.settle))


class Reading:
    """The numbers of one world the evaluation needs."""

    __slots__ = (
        "_areas",
        "_world",
        "active",
        "civ",
        "epoch_tiles",
        "epochs_left",
        "followers",
        "held",
        "n",
        "phase",
        "points",
        "remaining",
        "stack",
        "tokens",
        "value",
    )

    def __init__(self, world: GheosGame, value: int = GheosValue.FOLLOWERS) -> None:
        self.value = gheos_value(value)
        self.n = len(world.players)
        self.active = world.active
        self.stack = world.stack_size()  # tiles left to draw, epoch tiles among them
        self.epoch_tiles = max(0, EPOCH_TILES - world.epochs)  # those epoch tiles
        self.phase = world.phase
        players = [world.player(seat) for seat in range(self.n)]
        self.points = [float(player.points) for player in players]
        self.tokens = [player.tokens for player in players]
        # colour name -> followers, for the colours each seat holds
        self.held: list[dict[str, int]] = [
            {COLOURS[c]: count for c, count in enumerate(player.followers) if count}
            for player in players
        ]
        self.followers = [sum(h.values()) for h in self.held]
        end_epoch = world.end_epoch
        self.epochs_left = max(0, end_epoch - world.epochs)
        self.remaining = self.epochs_left / end_epoch if end_epoch else 0.0
        # colour -> (cups, pyramids, swords, wheat) of its continent
        self.civ: dict[str, tuple[int, int, int, int]] = {}
        for civ in world.civilizations():
            area = world.area(civ.area)
            self.civ[COLOURS[civ.colour]] = (area.cup, area.pyramid, area.sword, area.wheat)
        self._world = world  # for the areas, read when asked (a reading is used at once)
        self._areas: tuple[Area, ...] | None = None

    @property
    def areas(self) -> tuple[Area, ...]:
        if self._areas is None:
            self._areas = self._world.areas()
        return self._areas

    def survival(self, colour: str) -> float:
        swords = self.civ[colour][2]
        strongest = max((v[2] for c, v in self.civ.items() if c != colour), default=0)
        return 1.0 - WAR_RISK * self.remaining if strongest > swords else 1.0

    def cup_score(self, seat: int) -> int:
        return sum(n * self.civ[c][0] for c, n in self.held[seat].items() if c in self.civ)

    def token_worth(self) -> float:
        """A token kept, as a multiple of the cup score it would bring now: more early (cups
        and followers grow), less late (a token unused at the end is lost)."""
        return TOKEN_EARLY * self.remaining + TOKEN_LATE

    def usable_tokens(self, seat: int) -> float:
        """The number of its tokens ``seat`` can expect to play: one a turn, its turns being
        this one (when it is to move) and those after the draws between. The game ends when
        the epoch tile that ends it is drawn, so a turn after ``d`` more draws comes when the
        stack's first ``d + m - 1`` tiles hold at least ``d`` landscape tiles (``m`` epoch
        tiles still end it): a hypergeometric tail."""
        tokens = self.tokens[seat]
        if tokens <= 0 or self.epochs_left <= 0:
            return 0.0
        epochs = self.epoch_tiles
        landscape = max(0, self.stack - epochs)
        wait = (seat - self.active) % self.n  # draws before its next turn
        return sum(
            survival(wait + self.n * j, landscape, epochs, self.epochs_left) for j in range(tokens)
        )

    def seat_value(self, seat: int, value: int | None = None) -> float:
        usable = (value or self.value) == GheosValue.USABLE_TOKENS
        total = self.points[seat]
        held = self.usable_tokens(seat) if usable else float(self.tokens[seat])
        tokens = held * self.token_worth()
        for colour, count in self.held[seat].items():
            if colour not in self.civ or count <= 0:
                continue
            cups, pyramids, _, _ = self.civ[colour]
            future = pyramids * self.epochs_left * PYRAMID_USE + cups * (tokens + 1.0)
            total += count * future * self.survival(colour)
        if usable and self.controls_the_end(seat):
            # It plays its tokens when they score most, and ends the game when it leads.
            full = max(0.0, 1.0 - self.token_worth())
            total += held * full * self.cup_score(seat)
            total += CONTROL * self.epochs_left**0.5
        return total + 0.01 * self.followers[seat]

    def controls_the_end(self, seat: int) -> bool:
        """Whether ``seat`` holds every token left: it alone chooses when the game ends."""
        return self.tokens[seat] > 0 and all(t == 0 for s, t in enumerate(self.tokens) if s != seat)

    def values(self) -> list[float]:
        return [self.seat_value(s) for s in range(self.n)]

    def chances(self) -> list[float]:
        """Each seat's expected share of the others it beats (``pairwise_chances`` of the
        values)."""
        return pairwise_chances(self.values(), self.temperature())

    def features(self, seat: int) -> list[float]:
        """What the learned evaluation weighs (cradle.ai.knowledge.learned.FEATURES["gheos"]), each
        once × remaining and once × (1 - remaining)."""
        cups = pyramids = swords = wheat = to_score = at_risk = civilizations = 0
        for colour, count in self.held[seat].items():
            if colour not in self.civ or count <= 0:
                continue
            c, p, s, w = self.civ[colour]
            cups += count * c
            pyramids += count * p
            swords += count * s
            wheat += count * w
            to_score += count * p * self.epochs_left
            strongest = max((v[2] for o, v in self.civ.items() if o != colour), default=0)
            at_risk += count if strongest > s else 0
            civilizations += 1
        base = [
            self.points[seat],
            float(self.tokens[seat]),
            float(self.followers[seat]),
            float(cups),
            float(pyramids),
            float(swords),
            float(wheat),
            float(to_score),
            float(at_risk),
            float(civilizations),
            self.seat_value(seat, GheosValue.FOLLOWERS),
            1.0 if seat == self.active else 0.0,
            1.0 if self.controls_the_end(seat) else 0.0,
            self.usable_tokens(seat),
            self.seat_value(seat, GheosValue.USABLE_TOKENS),  # the search's evaluation
        ]
        late = 1.0 - self.remaining
        return [x * self.remaining for x in base] + [x * late for x in base]

    def learned_values(self) -> list[float]:
        found = model("gheos")
        return [found.value(self.features(s)) for s in range(self.n)]

    def temperature(self) -> float:
        base, slope = TEMPERATURE
        return base + slope * self.remaining


def survival(draws: int, landscape: int, epochs: int, ending: int) -> float:
    """The chance that ``draws`` more turns end with a landscape tile drawn before the
    ``ending``-th of the ``epochs`` epoch tiles, from a stack of ``landscape`` landscape
    tiles and those epoch tiles in random order: at least ``draws`` landscape tiles among its
    first ``draws + ending - 1``."""
    if draws <= 0:
        return 1.0
    if draws > landscape:
        return 0.0
    total = landscape + epochs
    seen = min(draws + ending - 1, total)
    ways = sum(
        comb(landscape, k) * comb(epochs, seen - k) for k in range(draws, min(seen, landscape) + 1)
    )
    return ways / comb(total, seen)


def read(world: GameState, value: int = GheosValue.FOLLOWERS) -> Reading:
    return Reading(as_gheos(world), value)


CONFLICT_PHASES = ("pay", "migrate", "war")


class GheosKnowledge:
    """The :class:`cradle.ai.search.Knowledge` of Gheos."""

    batch = 16  # one-ply priors cost a clone and an apply each: score few at a time
    # ISMCTS plays this many random moves before judging a new node: cheap in Gheos, and
    # against OpenSpiel's ISMCTS (random rollouts to the end) it won 5 of 6 games where the
    # heuristic alone won 3 of 6 (the same seeds; docs/ai-decisions.md).
    playout = 8
    # Before them, this many quick-policy moves: up to 45% fewer iterations, but at `hard`'s
    # full time they won 213 of 224 games against `pimc` where the random moves alone won 200,
    # paired on the same seeds (docs/ai-decisions.md); level at a tenth of that time.
    rollout = 4

    def __init__(
        self, learned: bool = False, value: int = GheosValue.FOLLOWERS, settle: bool = False
    ) -> None:
        self.settings = GheosSettings(gheos_value(value), learned, settle)
        self.learned = self.settings.learned  # the learned model (cradle.ai.knowledge.learned)
        self.value = self.settings.value  # the hand-set evaluation (module docstring)
        # The priors judge a move that starts a conflict after it (settle_conflict).
        self.settle = self.settings.settle

    def read(self, world: GameState) -> Reading:
        # The learned model reads its features from value 1's reading, whatever the priors use.
        return read(world, 1 if self.learned else self.value)

    def rewards(self, world: GameState) -> list[float]:
        if world.is_over:
            return rank_rewards(world.result())
        reading = self.read(world)
        if self.learned:
            return pairwise_chances(reading.learned_values(), 1.0)
        return reading.chances()

    def _after(self, world: GameState, action: str) -> GameState | None:
        after = world.clone()
        try:
            after.apply(action)
        except ValueError:
            return None
        return after

    def priors(self, world: GameState, actions: Sequence[str]) -> list[float]:
        """One ply: the mover's margin over the best other seat after each action (with
        ``settle``, after the conflict it starts is played out)."""
        return self._priors(world, actions, self.settle)

    def _priors(self, world: GameState, actions: Sequence[str], settle: bool) -> list[float]:
        seat = world.to_move
        out = []
        for action in actions:
            after = self._after(world, action)
            if after is None:
                out.append(-1e9)
                continue
            if settle:
                self.settle_conflict(after)
            if after.is_over:
                out.append(10.0 * (rank_rewards(after.result())[seat] - 0.5))
                continue
            values = self.read(after).values()
            best_other = max(v for s, v in enumerate(values) if s != seat)
            out.append((values[seat] - best_other) / 10.0)
        return out

    def settle_conflict(self, world: GameState) -> None:
        """Play out the conflict ``world`` is in (who pays, where a civilization migrates, who
        wins a tied war) by the policy's choices without their random tie-breaks, the first
        best on a tie: a move that starts a war is judged by the war's end."""
        state = as_gheos(world)
        while state.phase in CONFLICT_PHASES:
            actions = state.legal_actions()
            if not actions:
                return
            scores = [0.0] if len(actions) == 1 else self._scores(state, actions, False)[0]
            state.apply(actions[max(range(len(actions)), key=scores.__getitem__)])

    def urgent(self, world: GameState) -> frozenset[str]:
        """The tile actions that start a war or a migration (the search scores them in every
        batch below the root, with ``IsmctsParams.urgent``): the replies that can take a
        civilization off the table."""
        return frozenset(as_gheos(world).conflict_actions())

    def unsettled(self, world: GameState) -> bool:
        # Every step after the tile (a conflict, the civilization, the token) is the same
        # player's, so the turn is played to its end before it is judged.
        actions = world.legal_actions()
        return bool(actions) and actions[0].split(" ", 1)[0] not in TILE_VERBS

    def playout_rule(self, world: GameState) -> str | None:
        # A token that ends the game is not left to chance (ending_token).
        ruled = self.ending_token(world)
        if ruled is None:
            return None
        return "token" if ruled else "pass"

    def policy(self, world: GameState, rng: random.Random) -> str:
        actions = world.legal_actions()
        if len(actions) == 1:
            return actions[0]
        verb = actions[0].split(" ", 1)[0]
        if verb in ("token", "pass"):
            return self.token_choice(world)
        if verb in TILE_VERBS:
            # Tile placements: the best of a few, by one ply.
            actions = rng.sample(actions, min(6, len(actions)))
        scores, noise = self._scores(world, actions, self.settle)
        best = max(range(len(actions)), key=lambda i: scores[i] + noise * rng.random())
        return actions[best]

    def _scores(
        self, world: GameState, actions: Sequence[str], settle: bool
    ) -> tuple[list[float], float]:
        """The policy's scores of ``actions`` (starts, takes and payments by the worth of the
        followers, the rest by one ply) and the size of its random tie-breaks."""
        if actions[0].split(" ", 1)[0] in ("start", "take", "pay"):
            reading = self.read(world)
            seat = world.to_move
            return [self._follower_choice(reading, seat, a) for a in actions], 0.01
        return self._priors(world, actions, settle), 0.05

    def _follower_choice(self, reading: Reading, seat: int, action: str) -> float:
        """Worth of a start / take (followers × what their continent will score), or the
        loss of paying with a follower of that colour (the cheapest is paid)."""
        words = action.split()
        tokens = reading.tokens[seat]

        def worth(cups: int, pyramids: int) -> float:
            kept = tokens * reading.token_worth()
            return pyramids * reading.epochs_left * PYRAMID_USE + cups * (kept + 1.0)

        if words[0] == "start":
            for area in reading.areas:
                if area.ref == words[2]:
                    return area.wheat * worth(area.cup, area.pyramid) + 0.5
            return 0.0
        colour = words[1]
        if colour not in reading.civ:
            return 0.0
        cups, pyramids, _, _ = reading.civ[colour]
        value = worth(cups, pyramids) * reading.survival(colour)
        return -value if words[0] == "pay" else value

    def token_choice(self, world: GameState) -> str:
        """The policy's token decision: a token that ends the game by the rule of
        ``ending_token``, any other by ``_token_choice``."""
        return self.playout_rule(world) or self._token_choice(self.read(world), world.to_move)

    def ending_token(self, world: GameState) -> bool | None:
        """Whether to play a token that ends the game (the mover's last, every other seat's
        used up; None for any other decision): yes when the finished game gives the mover at
        least the reward the evaluation expects of going on. The holder of the last token
        chooses when the game ends, and ends it when it wins: the playouts and the policy
        must know that, or a search gives that choice away cheaply."""
        game = as_gheos(world)
        if game.phase != "token":
            return None
        seat = world.to_move
        tokens = [game.player(s).tokens for s in range(len(game.players))]
        if tokens[seat] != 1 or any(t for s, t in enumerate(tokens) if s != seat):
            return None
        after = world.clone()
        after.apply("token")
        if not after.is_over:
            return None
        expected = self.read(world).chances()[seat]
        return rank_rewards(after.result())[seat] >= expected

    def _token_choice(self, reading: Reading, seat: int) -> str:
        # Play when a token now beats keeping it (see token_worth), or when time runs out.
        score = reading.cup_score(seat)
        tokens = reading.tokens[seat]
        if score <= 0:
            return "pass"
        if tokens >= reading.epochs_left:
            return "token"
        return "token" if reading.token_worth() < 1.0 else "pass"

    def reason(self, world: GameState, seat: int, action: str) -> str:
        reading = self.read(world)
        words = action.split()
        after = world.clone()
        try:
            events = after.apply(action)
        except ValueError as exc:
            return N_("not possible: {reason}").format(reason=exc)
        texts = [
            str(e["text"])
            for e in events
            if e.get("type") in ("temple", "war", "civ_removed", "migration", "conflict")
        ]
        if words[0] == "start" and len(words) > 1 and words[1] in read(after).civ:
            cups, pyramids, swords, wheat = read(after).civ[words[1]]
            said = N_(
                "starts {colour} with {followers} on a continent of {cups}, {pyramids}, {swords}"
            )
            texts.insert(
                0,
                said.format(
                    colour=words[1],
                    followers=counted(wheat, "follower"),
                    cups=counted(cups, "cup"),
                    pyramids=counted(pyramids, "pyramid"),
                    swords=counted(swords, "sword"),
                ),
            )
        elif words[0] == "take" and len(words) > 1 and words[1] in reading.civ:
            cups, pyramids, swords, _ = reading.civ[words[1]]
            said = N_("takes a {colour} follower: {cups}, {pyramids}, {swords} on its continent")
            texts.insert(
                0,
                said.format(
                    colour=words[1],
                    cups=counted(cups, "cup"),
                    pyramids=counted(pyramids, "pyramid"),
                    swords=counted(swords, "sword"),
                ),
            )
        elif words[0] == "token":
            said = N_("scores {count} now with a scoring token")
            texts.insert(0, said.format(count=reading.cup_score(seat)))
        elif words[0] == "pass" and reading.phase == "token":
            said = N_("keeps the token (it would score {count} now)")
            texts.insert(0, said.format(count=reading.cup_score(seat)))
        if words[0] in TILE_VERBS:
            texts.extend(self._tile_effects(reading, self.read(after), seat))
        if not texts:
            gain = self.read(after).values()[seat] - reading.values()[seat]
            if abs(gain) < 0.05:
                # Nothing it changes shows now: the search's advantage lies turns ahead.
                return N_("scores nothing now; the search finds it better over the coming turns")
            return N_("estimated {gain} points for you").format(gain=f"{gain:+.1f}")
        return "; ".join(texts[:3])

    def _tile_effects(self, before: Reading, after: Reading, seat: int) -> list[str]:
        """What a tile did to the continents of the civilizations the seat follows, and
        whether it opened a continent for a new civilization."""
        out = []
        names = ("cup", "pyramid", "sword", "wheat")
        for colour, count in sorted(before.held[seat].items()):
            if count <= 0 or colour not in before.civ or colour not in after.civ:
                continue
            changes = [
                f"{new - old:+d} {name}"
                for name, old, new in zip(names, before.civ[colour], after.civ[colour], strict=True)
                if new != old
            ]
            if changes:
                said = N_("{colour} continent {changes} (you hold {count})")
                out.append(said.format(colour=colour, changes=", ".join(changes), count=count))
        if after.phase == "civ":
            free = [
                a.wheat
                for a in after.areas
                if a.kind == "continent" and a.civilization < 0 and a.wheat > 0
            ]
            if free:
                said = N_("a free continent with {count} wheat to start a civilization")
                out.append(said.format(count=max(free)))
        return out
