"""The belief over the Tigris hands (cradle.ai.knowledge.belief): what public actions say about a hand,
the worlds dealt by it (exact tile counts, a function of the seat's information, the history
and the seed), the knowledge reading it, and the drivers that feed it to the bots."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cradle import tigris
from cradle.ai.bots import register_bot, tell
from cradle.ai.knowledge.belief import HandBelief, replayed, unseen_shares
from cradle.ai.knowledge.tigris import RED, UNSEEN_SHARE, Reading, Shares
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import IsmctsBot
from cradle.ai.search.params import IsmctsParams
from cradle.ai.search.worlds import believed_world
from cradle.core.contract import GameState
from tests.helpers.ai import decision_positions, decisions_differ, revolt_position

# Seat 0 hoards red, seat 1 holds almost none, seat 2 is a uniform draw (odds of each colour
# against a uniform draw, as the search reads a belief).
SKEWED: Shares = (
    (3.0, 0.5, 0.5, 0.5),
    (0.1, 1.3, 1.3, 1.3),
    (1.0, 1.0, 1.0, 1.0),
)


def revolt(attacker_commit: int) -> tuple[GameState, HandBelief]:
    """Archer attacks bull's priest (2 temples each) and commits; the belief has seen it all."""
    state = tigris.from_position(revolt_position(attacker_reds=4), seed=1)
    belief = HandBelief()
    for action in ("leader priest K5", f"commit {attacker_commit}"):
        belief.observe(state, action)
        state.apply(action)
    return state, belief


def test_no_history_is_the_uniform_belief() -> None:
    state = tigris.new_game(2, 1)
    assert HandBelief().shares(state) is None
    belief = HandBelief()
    belief.observe(state, state.legal_actions()[0])  # a leader: says nothing about tiles
    shares = belief.shares(state)
    assert shares is not None
    for row in shares:
        assert row == pytest.approx(UNSEEN_SHARE)  # nothing seen yet


def test_a_seat_that_committed_four_reds_is_believed_to_hold_fewer() -> None:
    state, belief = revolt(attacker_commit=4)
    shares = belief.shares(state)
    assert shares is not None
    # A uniform belief would still give archer's 2 tiles left the unseen share of red; the
    # belief (half of what the search reads) says none.
    assert shares[0][RED] < 0.6 * unseen_shares(state)[RED]
    believed = Reading(state, belief.tilts(state))
    assert believed.expected_in_hand(0, RED) < Reading(state).expected_in_hand(0, RED)


def test_a_defender_that_let_its_leader_go_is_believed_short_of_reds() -> None:
    # Archer commits 1: 3 against 2, bull ties with one red. It commits none: it had none.
    state, belief = revolt(attacker_commit=1)
    belief.observe(state, "commit 0")
    state.apply("commit 0")
    shares = belief.shares(state)
    assert shares is not None
    assert shares[1][RED] < 0.6 * unseen_shares(state)[RED]  # none, half trusted
    assert sum(shares[1]) == pytest.approx(1.0)
    uniform, believed = Reading(state), Reading(state, belief.tilts(state))
    assert believed.odds_of_holding(1, RED, 1) < 0.75 * uniform.odds_of_holding(1, RED, 1)


def test_a_seat_that_never_spends_red_is_believed_to_keep_it() -> None:
    # Both seats place tiles at random, but bull never a red one: after a few turns it is
    # believed to hold more reds than a fresh draw would, archer about as many as one.
    state = tigris.new_game(2, 7)
    rng = random.Random(7)
    belief = HandBelief()
    for _ in range(40):
        actions = state.legal_actions()
        tiles = [a for a in actions if a.startswith("tile ")]
        if state.to_move == 1:
            actions = [a for a in actions if not a.startswith("tile red")] or actions
            tiles = [a for a in actions if a.startswith("tile ")]
        action = rng.choice(tiles or actions)
        belief.observe(state, action)
        state.apply(action)
    shares = belief.shares(state)
    assert shares is not None
    assert shares[1][RED] > 1.2 * unseen_shares(state)[RED]
    assert shares[1][RED] > shares[0][RED]


def test_swapped_colours_stay_secret() -> None:
    # A swap is seen as a number of tiles: which ones does not change the belief.
    state = tigris.new_game(2, 3)
    seat = state.to_move
    swaps = [a for a in state.legal_actions() if a.startswith("swap ") and len(a.split()) == 3]
    a, b = swaps[0], next(s for s in swaps if sorted(s.split()) != sorted(swaps[0].split()))
    beliefs = []
    for action in (a, b):
        belief = HandBelief()
        belief.observe(state, action)
        beliefs.append(belief.expected)
    assert beliefs[0] == beliefs[1]
    assert beliefs[0] is not None and sum(beliefs[0][seat]) == pytest.approx(4.0)


def hidden_totals(position: dict[str, Any], seat: int) -> list[int]:
    """Tiles per colour the seat cannot see: other hands, discards and the bag."""
    colours = ("red", "blue", "green", "black")
    totals = [0, 0, 0, 0]
    names = position["players"]
    tiles = list(position["bag"])
    for other, name in enumerate(names):
        if other != seat:
            tiles += position["hands"][name] + position["discards"][name]
    for tile in tiles:
        totals[colours.index(tile)] += 1
    return totals


@pytest.mark.parametrize("engine", ["native", "python"])
def test_a_believed_world_keeps_the_tiles_and_depends_on_what_the_seat_knows(
    engine: str,
) -> None:
    for state in decision_positions("tigris", 3, seed=4, count=3):
        state = tigris.from_position(state.to_position(), seed=1, engine=engine)
        seat = state.to_move
        truth = state.to_position()
        for seed in (1, 2**63 + 5):
            world = believed_world(state, seat, SKEWED, seed)
            assert world.view(seat) == state.view(seat)
            dealt = world.to_position()
            assert hidden_totals(dealt, seat) == hidden_totals(truth, seat)
            for name in truth["players"]:
                assert len(dealt["hands"][name]) == len(truth["hands"][name])
                assert len(dealt["discards"][name]) == len(truth["discards"][name])
            # Re-drawing what the seat cannot see deals the very same world.
            for k in range(2):
                other = state.sample_hidden(seat, random.Random(k))
                assert believed_world(other, seat, SKEWED, seed).to_position() == dealt
            # Both engines deal it alike.
            twin = tigris.from_position(truth, seed=1, engine="native")
            assert believed_world(twin, seat, SKEWED, seed).to_position() == dealt


def test_believed_worlds_deal_the_hands_the_belief_expects() -> None:
    state = decision_positions("tigris", 3, seed=9, count=1)[0]
    observer = 2
    state = state.sample_hidden(state.to_move, random.Random(0))
    reds = {0: 0, 1: 0}
    uniform = {0: 0, 1: 0}
    worlds = 300
    for seed in range(worlds):
        believed = believed_world(state, observer, SKEWED, seed).to_position()
        plain = state.sample_hidden_seeded(observer, seed).to_position()
        for seat, name in enumerate(state.players[:2]):
            reds[seat] += believed["hands"][name].count("red")
            uniform[seat] += plain["hands"][name].count("red")
    assert reds[0] > uniform[0] + 0.8 * worlds  # about 1.6 more reds in the hoarder's hand
    assert reds[1] < uniform[1] - 0.8 * worlds


def test_a_believed_world_refuses_a_belief_of_other_seats() -> None:
    state = tigris.new_game(2, 1)
    with pytest.raises(ValueError, match="belief of 3 seats"):
        believed_world(state, 0, SKEWED, 1)


def history(seed: int, steps: int) -> tuple[GameState, HandBelief]:
    state = tigris.new_game(2, seed)
    rng = random.Random(seed)
    belief = HandBelief()
    for _ in range(steps):
        actions = state.legal_actions()
        tiles = [a for a in actions if a.startswith("tile ")]
        action = rng.choice(tiles or actions)
        belief.observe(state, action)
        state.apply(action)
    return state, belief


def test_a_bot_reading_the_opponents_ignores_hidden_information() -> None:
    for seed in (2, 3):
        state, belief = history(seed, 24)
        while state.is_over or len(state.legal_actions()) < 2:
            state, belief = history(seed + 10, 24)

        def make(bot_seed: int, belief: HandBelief = belief) -> IsmctsBot:
            bot = IsmctsBot(bot_seed, Budget(iterations=40), IsmctsParams(belief=1))
            bot.belief = belief.copy()
            return bot

        answers = decisions_differ(make, state)  # type: ignore[arg-type]
        assert len(set(answers)) == 1, answers


def test_replaying_a_record_gives_the_belief_of_its_actions() -> None:
    start = tigris.new_game(2, 5)
    state, rng, actions = start.clone(), random.Random(5), []
    for _ in range(30):
        action = rng.choice(state.legal_actions())
        actions.append(action)
        state.apply(action)
    followed = HandBelief()
    again = start.clone()
    for action in actions:
        followed.observe(again, action)
        again.apply(action)
    assert replayed(start, actions).shares(state) == followed.shares(state)
    assert start.to_position() == tigris.new_game(2, 5).to_position()  # not changed


class Listener:
    """A bot that plays the first action and keeps what it is told."""

    name = "listener"
    heard: list[str] = []  # noqa: RUF012 (the test reads what every instance heard)

    def choose(self, state: GameState, seat: int) -> str:
        return state.legal_actions()[0]

    def observe(self, state: GameState, action: str) -> None:
        Listener.heard.append(action)


def test_a_tournament_tells_the_bots_every_action() -> None:
    from cradle.ai.tournament import GameTask, play_game

    register_bot("test-listener", lambda seed: Listener())
    Listener.heard.clear()
    record = play_game(GameTask(0, "tigris", 3, ["test-listener", "random"]))
    assert len(Listener.heard) == sum(record["decisions"])  # every seat's actions


def test_tell_reaches_each_listening_bot_once() -> None:
    state = tigris.new_game(2, 1)
    bot = IsmctsBot(1, Budget(iterations=5), IsmctsParams(belief=1))
    plain = IsmctsBot(1, Budget(iterations=5))
    action = state.legal_actions()[0]
    tell([bot, bot, plain, object()], state, action)
    assert bot.belief.observed == 1
    assert plain.belief.observed == 0  # belief=0: the uniform belief, nothing to read
