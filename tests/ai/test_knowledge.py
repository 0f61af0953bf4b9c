"""Game knowledge: board reading, evaluation, commitments against a belief, reasons."""

from __future__ import annotations

import random

import pytest

from cradle import gheos, tigris
from cradle.ai.gheos_knowledge import FOLLOWER_GROWTH, TOKEN_GROWTH, GheosKnowledge, Reading
from cradle.ai.tigris_knowledge import Board, TigrisKnowledge, binomial_cdf
from tests.helpers.ai import random_position, revolt_position


def test_board_reads_kingdoms_leaders_and_temples() -> None:
    board = Board(tigris.from_position(revolt_position(), seed=1))
    cell = board.leader_at[(1, "priest")]
    kingdom = board.comp[cell]
    assert board.leaders[kingdom] == [(1, "priest", cell)]
    assert board.counts[kingdom][0] == 3  # I7, J6, K6 (L5 only touches K6 at a corner)
    assert board.treasures_in[kingdom] == 1
    assert board.temples_around(cell) == 2
    assert board.remaining == pytest.approx(1.0, abs=0.05)


def test_revolt_reason_names_the_odds() -> None:
    state = tigris.from_position(revolt_position(), seed=1)
    text = TigrisKnowledge().reason(state, 0, "leader priest K5")
    assert text.startswith("wins the revolt 4–2 unless they hold 2 temple(s)")
    p = 1 - binomial_cdf(1, 6, 47 / 143)
    assert f"{p:.0%}" in text


def test_a_revolt_that_cannot_be_won_says_so() -> None:
    state = tigris.from_position(revolt_position(attacker_reds=0), seed=1)
    assert "revolt you lose" in TigrisKnowledge().reason(state, 0, "leader priest K5")


def test_defender_commits_exactly_what_wins_and_nothing_when_it_cannot() -> None:
    state = tigris.from_position(revolt_position(), seed=1)
    state.apply("leader priest K5")
    state.apply("commit 1")  # 3 against 2: bull needs 1 temple to tie, and ties defend
    board = Board(state)
    assert board.best_commit(1, [0, 1]) == 1
    state = tigris.from_position(revolt_position(), seed=1)
    state.apply("leader priest K5")
    state.apply("commit 2")  # 4 against 2: bull holds 1 temple, it cannot win
    assert Board(state).best_commit(1, [0, 1]) == 0


def test_attacker_commits_against_the_belief_over_the_defenders_hand() -> None:
    state = tigris.from_position(revolt_position(), seed=1)
    state.apply("leader priest K5")
    board = Board(state)
    # Committing both temples wins unless bull holds two (about 64%): worth it, the stake is
    # a leader and a point; committing one only wins if bull holds none.
    assert board.best_commit(0, [0, 1, 2]) == 2
    knowledge = TigrisKnowledge()
    priors = knowledge.priors(state, ["commit 0", "commit 1", "commit 2"])
    assert priors.index(max(priors)) == 2


def test_a_scoring_tile_is_preferred_to_passing() -> None:
    state = tigris.from_position(revolt_position(), seed=1)
    actions = ["pass", "tile red J5", "swap blue blue"]
    # J5 joins bull's kingdom, where bull's priest takes the red point: still a tile, but
    # the prior knows whose point it is.
    priors = TigrisKnowledge().priors(state, actions)
    assert priors[0] > priors[1] or priors[0] < 0
    own = tigris.from_position(revolt_position(), seed=1)
    own.apply("leader king H7")
    own.apply("pass")
    own.apply("pass")  # bull passes his turn; archer is active again
    scores = dict(
        zip(own.legal_actions(), TigrisKnowledge().priors(own, own.legal_actions()), strict=True)
    )
    assert max(scores, key=scores.__getitem__).startswith(("tile", "leader"))


def test_evaluation_prefers_the_seat_with_more_points() -> None:
    position = revolt_position()
    position["points"] = {
        "archer": {"red": 3, "blue": 3, "green": 3, "black": 3},
        "bull": {"red": 0, "blue": 0, "green": 0, "black": 0},
    }
    rewards = TigrisKnowledge().rewards(tigris.from_position(position, seed=1))
    assert rewards[0] > 0.5 > rewards[1]
    assert sum(rewards) == pytest.approx(1.0)


def test_a_balanced_score_beats_a_lopsided_one_at_the_end() -> None:
    position = revolt_position()
    position["ending"] = True  # the bag ran short: this turn is the last
    position["points"] = {
        "archer": {"red": 2, "blue": 2, "green": 2, "black": 2},
        "bull": {"red": 12, "blue": 0, "green": 0, "black": 0},
    }
    rewards = TigrisKnowledge().rewards(tigris.from_position(position, seed=1))
    assert rewards[0] > rewards[1]


def test_gheos_reading_values_followers_by_their_continent() -> None:
    state = random_position("gheos", 2, seed=4, steps=30)
    reading = Reading(gheos.as_gheos(state))
    for seat in range(2):
        value = reading.seat_value(seat)
        assert value >= reading.points[seat]
        if not reading.held[seat]:
            assert value == pytest.approx(reading.points[seat])
    rewards = GheosKnowledge().rewards(state)
    assert sum(rewards) == pytest.approx(1.0)


def test_gheos_keeps_tokens_early_and_plays_them_late() -> None:
    state = random_position("gheos", 2, seed=4, steps=30)
    reading = Reading(gheos.as_gheos(state))
    reading.remaining = 1.0
    assert reading.token_worth() > 1.0
    reading.remaining = 0.1
    assert reading.token_worth() < 1.0


def test_gheos_value_2_weighs_the_growth_to_come_and_doubts_early_leads() -> None:
    state = random_position("gheos", 2, seed=4, steps=30)
    old, new = Reading(gheos.as_gheos(state)), Reading(gheos.as_gheos(state), 2)
    for reading in (old, new):
        reading.remaining = 0.5
    for seat in range(2):
        # Value 2 adds, per token kept, TOKEN_GROWTH × remaining points (less its smaller
        # share of today's cup score) and, per follower, FOLLOWER_GROWTH × remaining.
        cups = sum(n * new.civ[c][0] * new.survival(c) for c, n in new.held[seat].items())
        expected = (
            old.seat_value(seat)
            + new.tokens[seat] * cups * (new.token_worth() - old.token_worth())
            + 0.5 * (TOKEN_GROWTH * new.tokens[seat] + FOLLOWER_GROWTH * new.followers[seat])
        )
        assert new.seat_value(seat) == pytest.approx(expected)
    # Early a lead is worth little (a wide temperature); late value 2 is as sure as value 1.
    assert new.temperature() > 3 * old.temperature()
    new.remaining = 0.0
    assert new.temperature() == 3.0
    # The learned features read value 1 whatever the reading's version.
    world = gheos.as_gheos(state)
    assert Reading(world, 2).features(0) == Reading(world).features(0)
    with pytest.raises(ValueError, match="value is 1 to 6"):
        GheosKnowledge(value=7)


def test_gheos_value_2_keeps_a_token_while_the_cups_are_still_to_grow() -> None:
    state = random_position("gheos", 2, seed=4, steps=30)
    reading = Reading(gheos.as_gheos(state), 2)
    seat = next(s for s in range(2) if reading.cup_score(s) > 0)
    reading.tokens[seat], reading.epochs_left = 3, 5
    knowledge = GheosKnowledge(value=2)
    reading.remaining = 5 / 6
    assert knowledge._token_choice(reading, seat) == "pass"  # 33 points of growth a token
    reading.remaining = 0.0
    assert knowledge._token_choice(reading, seat) == "token"  # nothing left to grow
    # Value 1 plays it as soon as its multiple of today's cups falls below one.
    old = Reading(gheos.as_gheos(state))
    old.tokens[seat], old.epochs_left, old.remaining = 3, 5, 0.3
    assert GheosKnowledge()._token_choice(old, seat) == "token"


def test_gheos_policy_and_priors_give_legal_actions() -> None:
    knowledge = GheosKnowledge()
    rng = random.Random(2)
    state = gheos.new_game(3, 5)
    for _ in range(60):
        if state.is_over:
            break
        actions = state.legal_actions()
        assert len(knowledge.priors(state, actions)) == len(actions)
        action = knowledge.policy(state, rng)
        assert action in actions
        assert knowledge.reason(state, state.to_move, action)
        state.apply(action)


def test_tigris_policy_plays_legal_actions_through_a_whole_game() -> None:
    knowledge = TigrisKnowledge()
    rng = random.Random(3)
    state = tigris.new_game(2, 8, tigris.Options(buildings=True, wonder=True))
    while not state.is_over:
        action = knowledge.policy(state, rng)
        assert action in state.legal_actions()
        state.apply(action)


def test_the_gheos_search_judges_by_value_4_with_settled_priors_unless_told() -> None:
    from cradle.ai.gheos_knowledge import GheosKnowledge
    from cradle.ai.ismcts import IsmctsParams, knowledge_of

    state = gheos.new_game(2, 5)
    default = knowledge_of(state, IsmctsParams())
    assert isinstance(default, GheosKnowledge) and default.value == 4 and default.settle
    unsettled = knowledge_of(state, IsmctsParams(settle=0))
    assert isinstance(unsettled, GheosKnowledge) and unsettled.value == 4
    assert not unsettled.settle
    plain = knowledge_of(state, IsmctsParams(value=3, settle=0))
    assert isinstance(plain, GheosKnowledge) and plain.value == 3 and not plain.settle
    # Tigris' priors have no such setting: its default leaves it off, naming it is an error.
    opening = tigris.new_game(2, 5)
    assert not hasattr(knowledge_of(opening, IsmctsParams()), "settle")
    assert knowledge_of(opening, IsmctsParams(settle=0)) is knowledge_of(opening, IsmctsParams())
    with pytest.raises(ValueError, match="settle is a setting of the Gheos priors"):
        knowledge_of(opening, IsmctsParams(settle=1))
    assert knowledge_of(state, IsmctsParams(value=1)).value == 1  # type: ignore[attr-defined]
    assert knowledge_of(state, IsmctsParams(value=2)).value == 2  # type: ignore[attr-defined]
    assert knowledge_of(opening, IsmctsParams()).value == 2  # type: ignore[attr-defined]
    assert knowledge_of(state, IsmctsParams(value=3)).value == 3  # type: ignore[attr-defined]
    assert knowledge_of(state, IsmctsParams(value=4)).value == 4  # type: ignore[attr-defined]
    assert knowledge_of(state, IsmctsParams(value=5)).value == 5  # type: ignore[attr-defined]
    assert knowledge_of(state, IsmctsParams(value=6)).value == 6  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="value is 1 to 6"):
        IsmctsParams(value=7)
    for version in (3, 4, 5, 6):
        with pytest.raises(ValueError, match=f"value {version} is a Gheos evaluation"):
            knowledge_of(tigris.new_game(2, 5), IsmctsParams(value=version))


def last_token_position(engine: str, mover_ahead: bool) -> gheos.GheosState:
    """A two-player token decision where the mover holds the game's last token (the other
    seat has used its three): playing it ends the game, and the mover then wins or loses by
    far."""
    state = gheos.from_position(
        random_position("gheos", 2, seed=4, steps=30).to_position(), engine="python"
    )
    rng = random.Random(5)
    while state.phase != "token" or Reading(gheos.as_gheos(state)).cup_score(state.to_move) <= 0:
        state.apply(rng.choice(state.legal_actions()))
    data = state.to_position()
    mover = data["players"][state.to_move]
    other = next(p for p in data["players"] if p != mover)
    data["tokens"] = {mover: 1, other: 0}
    data["points"] = {mover: 500, other: 0} if mover_ahead else {mover: 0, other: 500}
    return gheos.from_position(data, engine=engine)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_gheos_plays_the_last_token_when_it_wins_and_keeps_it_when_it_loses(engine: str) -> None:
    from cradle import _native

    for value in (1, 2):
        knowledge = GheosKnowledge(value=value)
        ahead = last_token_position(engine, mover_ahead=True)
        behind = last_token_position(engine, mover_ahead=False)
        assert knowledge.ending_token(ahead) is True
        assert knowledge.ending_token(behind) is False
        for state, choice in ((ahead, "token"), (behind, "pass")):
            assert knowledge.token_choice(state) == choice
            assert knowledge.policy(state, random.Random(1)) == choice
            assert knowledge.playout_rule(state) == choice  # not left to a random move
            if engine == "native":
                kind, scores = _native.gheos_ai_policy_scores(state, value)
                assert kind == "token"
                assert scores == [1.0 if a == choice else 0.0 for a in state.legal_actions()]
                assert state.action_string(_native.gheos_ai_policy(state, 1, value)) == choice
        # Any other decision is left to the usual rules, and to chance in a playout.
        ahead.apply("token")
        assert ahead.is_over
        data = behind.to_position()
        mover, other = data["players"][behind.to_move], data["players"][1 - behind.to_move]
        for tokens in ({mover: 2, other: 0}, {mover: 2, other: 1}):
            earlier = gheos.from_position({**data, "tokens": tokens}, engine=engine)
            assert knowledge.ending_token(earlier) is None
            assert knowledge.handing_token(earlier) is None
            assert knowledge.playout_rule(earlier) is None


def handing_position(engine: str, lead: int) -> gheos.GheosState:
    """A two-player token decision in the last epoch (the next epoch tile ends the game) where
    each seat holds one token and the mover's scores 9 now: playing it hands the other seat
    the control of the end. The mover leads by ``lead`` points."""
    data = last_token_position("python", mover_ahead=True).to_position()
    mover = data["players"][gheos.from_position(data, engine="python").to_move]
    other = next(p for p in data["players"] if p != mover)
    stack = list(data["stack"])
    while stack.count("epoch") > 3:  # 5 of the 8 drawn: the sixth ends a two-player game
        stack.remove("epoch")
    late = {
        **data,
        "epochs": 5,
        "stack": stack,
        "tokens": {mover: 1, other: 1},
        "points": {mover: 50 + lead, other: 50},
    }
    return gheos.from_position(late, engine=engine)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_gheos_keeps_the_token_that_would_hand_over_the_end_unless_it_pays(engine: str) -> None:
    from cradle import _native

    for value in (1, 3, 4):
        knowledge = GheosKnowledge(value=value, handing=True)
        close, far = handing_position(engine, 0), handing_position(engine, 400)
        reading = knowledge.read(close)
        assert reading.epochs_left == 1 and reading.cup_score(close.to_move) == 9
        assert knowledge.ending_token(close) is None
        # Time runs out (a token for each epoch left): the policy's own rule plays it.
        assert knowledge._token_choice(reading, close.to_move) == "token"
        if value == 1:  # counts no control of the end: the decision is left as it was
            assert knowledge.handing_token(close) is None
            assert knowledge.playout_rule(close) is None
            assert knowledge.token_choice(close) == "token"
            continue
        # Values 3 and 4 count the other seat's control of the end (16 points in the last
        # epoch) above the token's 9: kept while the game is close, played far ahead.
        assert knowledge.handing_token(close) is False
        assert knowledge.handing_token(far) is True
        for state, choice in ((close, "pass"), (far, "token")):
            assert knowledge.playout_rule(state) == choice  # not left to a random move
            assert knowledge.token_choice(state) == choice
            assert knowledge.policy(state, random.Random(1)) == choice
            if engine == "native":
                assert _native.gheos_ai_playout_rule(state, value, True) is (choice == "token")
                chosen = _native.gheos_ai_policy(state, 1, value, handing=True)
                assert state.action_string(chosen) == choice
        learned = GheosKnowledge(learned=True, value=value, handing=True)  # value 1's rules
        assert learned.handing_token(close) is None
        # Without the option (the default) the token is left to chance and the policy's rule.
        assert GheosKnowledge(value=value).playout_rule(close) is None
        assert GheosKnowledge(value=value).token_choice(close) == "token"
        if engine == "native":
            assert _native.gheos_ai_playout_rule(close, value) is None


@pytest.mark.parametrize("engine", ["python", "native"])
def test_gheos_value_6_counts_the_control_of_the_end_as_a_second_chance(engine: str) -> None:
    from cradle import _native
    from cradle.ai.gheos_knowledge import CONTROL
    from cradle.ai.search import beats

    start = last_token_position(engine, mover_ahead=False)
    mover, other = start.to_move, 1 - start.to_move
    data = start.to_position()
    names = data["players"]

    def with_points(behind: int) -> gheos.GheosState:
        return gheos.from_position(
            {**data, "points": {names[mover]: 100, names[other]: 100 + behind}}, engine=engine
        )

    level = Reading(gheos.as_gheos(with_points(0)), 6).values()
    for margin in (10, 0, -10, -40):  # the mover's, by value 6's numbers (to a point)
        state = with_points(round(level[mover] - level[other]) - margin)
        four, six = Reading(gheos.as_gheos(state), 4), Reading(gheos.as_gheos(state), 6)
        assert six.controls_the_end(mover) and six.epochs_left > 0
        # The same numbers as value 4 without CONTROL's points, at value 4's temperature.
        control = CONTROL * four.epochs_left**0.5
        assert six.seat_value(mover) == pytest.approx(four.seat_value(mover) - control)
        assert six.seat_value(other) == pytest.approx(four.seat_value(other))
        assert six.temperature() == four.temperature()
        # The holder may stop whenever it leads: two chances to be ahead, not one.
        p = beats(six.seat_value(mover), six.seat_value(other), six.temperature())
        chances = six.chances()
        assert chances[mover] == pytest.approx(1.0 - (1.0 - p) ** 2)
        assert chances[mover] + chances[other] == pytest.approx(1.0)
        assert GheosKnowledge(value=6).rewards(state) == pytest.approx(chances)
        if engine == "native":
            assert _native.gheos_ai_values(state, 6) == pytest.approx(six.values())
            assert _native.gheos_ai_rewards(state, value=6) == pytest.approx(chances)
        if margin == 0:
            assert chances[mover] == pytest.approx(0.75, abs=0.05)
        if margin == -40:
            # Far behind, control is worth little; value 4's points (16 × √5) made it close.
            assert chances[mover] < 0.1 and four.chances()[mover] > 0.3
    # Tokens on both sides: nobody controls the end, and value 6 is value 4 without CONTROL.
    both = gheos.from_position({**data, "tokens": {name: 1 for name in names}}, engine=engine)
    assert Reading(gheos.as_gheos(both), 6).chances() == Reading(gheos.as_gheos(both), 4).chances()


@pytest.mark.parametrize("engine", ["python", "native"])
def test_gheos_value_3_counts_the_control_of_the_end(engine: str) -> None:
    from cradle import _native
    from cradle.ai.gheos_knowledge import CONTROL

    state = last_token_position(engine, mover_ahead=False)
    mover, other = state.to_move, 1 - state.to_move
    old, new = Reading(gheos.as_gheos(state)), Reading(gheos.as_gheos(state), 3)
    assert new.controls_the_end(mover) and not new.controls_the_end(other)
    full = max(0.0, 1.0 - old.token_worth()) * old.cup_score(mover)
    control = CONTROL * old.epochs_left**0.5 + full
    assert new.seat_value(mover) == pytest.approx(old.seat_value(mover) + control)
    assert new.seat_value(other) == pytest.approx(old.seat_value(other))
    assert new.temperature() == old.temperature()
    if engine == "native":
        assert _native.gheos_ai_values(state, 3) == pytest.approx(new.values())
    # Tokens on both sides: nobody controls the end, and value 3 is value 1.
    data = state.to_position()
    both = gheos.from_position(
        {**data, "tokens": {name: 1 for name in data["players"]}}, engine=engine
    )
    assert Reading(gheos.as_gheos(both), 3).values() == Reading(gheos.as_gheos(both)).values()


def test_survival_is_the_chance_that_a_landscape_tile_comes_first() -> None:
    # Every order of a small stack counted: the d-th landscape tile drawn before the m-th
    # epoch tile.
    from itertools import combinations

    from cradle.ai.gheos_knowledge import survival

    for landscape, epochs in ((1, 1), (3, 2), (4, 3), (6, 2)):
        total = landscape + epochs
        orders = list(combinations(range(total), epochs))  # where the epoch tiles lie
        for ending in range(1, epochs + 1):
            for draws in range(0, landscape + 2):
                good = 0
                for places in orders:
                    seen_landscape = 0
                    for at in range(total):
                        if at in places:
                            if sum(1 for p in places if p <= at) == ending:
                                break
                        else:
                            seen_landscape += 1
                            if seen_landscape == draws:
                                break
                    good += draws == 0 or seen_landscape >= draws
                expected = good / len(orders)
                assert survival(draws, landscape, epochs, ending) == pytest.approx(expected), (
                    landscape,
                    epochs,
                    ending,
                    draws,
                )
    assert survival(1, 3, 2, 2) == pytest.approx(0.9)  # ends only if two epochs come first


@pytest.mark.parametrize("engine", ["python", "native"])
def test_gheos_value_4_counts_the_tokens_a_seat_can_still_play(engine: str) -> None:
    from cradle import _native
    from cradle.ai.gheos_knowledge import survival

    state = gheos.from_position(
        random_position("gheos", 2, seed=4, steps=30).to_position(), engine="python"
    )
    rng = random.Random(8)
    while Reading(gheos.as_gheos(state)).epochs_left > 2 or state.phase != "tile":
        # Tokens kept, so the game ends by its epochs: to the last one.
        state.apply("pass" if state.phase == "token" else rng.choice(state.legal_actions()))
    data = state.to_position()
    data["tokens"] = {name: 3 for name in data["players"]}
    late = gheos.from_position(data, engine=engine)
    three, four = Reading(gheos.as_gheos(late), 3), Reading(gheos.as_gheos(late), 4)
    mover = late.to_move
    landscape, epochs = four.stack - four.epoch_tiles, four.epoch_tiles
    for seat, wait in ((mover, 0), (1 - mover, 1)):
        # This turn (for the mover), then one turn in two while the stack lasts.
        ending = four.epochs_left
        expected = sum(survival(wait + 2 * j, landscape, epochs, ending) for j in range(3))
        assert four.usable_tokens(seat) == pytest.approx(expected)
        assert four.usable_tokens(seat) < 3
        # Value 3's token term, for the tokens that can still be played.
        tokens = three.token_worth() * (3 - four.usable_tokens(seat))
        cups = sum(
            n * three.civ[c][0] * three.survival(c)
            for c, n in three.held[seat].items()
            if c in three.civ
        )
        assert four.seat_value(seat) == pytest.approx(three.seat_value(seat) - tokens * cups)
    assert four.usable_tokens(mover) > four.usable_tokens(1 - mover)  # it plays first
    if engine == "native":
        assert _native.gheos_ai_values(late, 4) == pytest.approx(four.values())
    # At the start every token will find a turn.
    start = Reading(gheos.as_gheos(gheos.new_game(2, 5, engine=engine)), 4)
    assert start.usable_tokens(0) == pytest.approx(3, abs=1e-3)
