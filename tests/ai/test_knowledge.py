"""Game knowledge: board reading, evaluation, commitments against a belief, reasons."""

from __future__ import annotations

import random

import pytest

from cradle import gheos, tigris
from cradle.ai.knowledge.gheos import GheosKnowledge
from cradle.ai.knowledge.gheos import Reading as GheosReading
from cradle.ai.knowledge.tigris import Reading as TigrisReading
from cradle.ai.knowledge.tigris import TigrisKnowledge, binomial_cdf
from tests.helpers.ai import random_position, revolt_position


def test_board_reads_kingdoms_leaders_and_temples() -> None:
    board = TigrisReading(tigris.from_position(revolt_position(), seed=1))
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
    assert text.startswith("wins the revolt 4–2 unless they hold 2 temples")
    p = 1 - binomial_cdf(1, 6, 47 / 143)
    assert f"{p:.0%}" in text


def test_a_revolt_that_cannot_be_won_says_so() -> None:
    state = tigris.from_position(revolt_position(attacker_reds=0), seed=1)
    assert "revolt you lose" in TigrisKnowledge().reason(state, 0, "leader priest K5")


def test_defender_commits_exactly_what_wins_and_nothing_when_it_cannot() -> None:
    state = tigris.from_position(revolt_position(), seed=1)
    state.apply("leader priest K5")
    state.apply("commit 1")  # 3 against 2: bull needs 1 temple to tie, and ties defend
    board = TigrisReading(state)
    assert board.best_commit(1, [0, 1]) == 1
    state = tigris.from_position(revolt_position(), seed=1)
    state.apply("leader priest K5")
    state.apply("commit 2")  # 4 against 2: bull holds 1 temple, it cannot win
    assert TigrisReading(state).best_commit(1, [0, 1]) == 0


def test_attacker_commits_against_the_belief_over_the_defenders_hand() -> None:
    state = tigris.from_position(revolt_position(), seed=1)
    state.apply("leader priest K5")
    board = TigrisReading(state)
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
    reading = GheosReading(gheos.as_gheos(state))
    for seat in range(2):
        value = reading.seat_value(seat)
        assert value >= reading.points[seat]
        if not reading.held[seat]:
            assert value == pytest.approx(reading.points[seat])
    rewards = GheosKnowledge().rewards(state)
    assert sum(rewards) == pytest.approx(1.0)


def test_gheos_keeps_tokens_early_and_plays_them_late() -> None:
    state = random_position("gheos", 2, seed=4, steps=30)
    reading = GheosReading(gheos.as_gheos(state))
    reading.remaining = 1.0
    assert reading.token_worth() > 1.0
    reading.remaining = 0.1
    assert reading.token_worth() < 1.0


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
    from cradle.ai.knowledge.gheos import GheosKnowledge
    from cradle.ai.search.params import IsmctsParams, knowledge_of

    state = gheos.new_game(2, 5)
    default = knowledge_of(state, IsmctsParams())
    assert isinstance(default, GheosKnowledge) and default.value == 4 and default.settle
    unsettled = knowledge_of(state, IsmctsParams(settle=0))
    assert isinstance(unsettled, GheosKnowledge) and unsettled.value == 4
    assert not unsettled.settle
    plain = knowledge_of(state, IsmctsParams(value=1, settle=0))
    assert isinstance(plain, GheosKnowledge) and plain.value == 1 and not plain.settle
    # Tigris' priors have no such setting: its default leaves it off, naming it is an error.
    opening = tigris.new_game(2, 5)
    assert not hasattr(knowledge_of(opening, IsmctsParams()), "settle")
    assert knowledge_of(opening, IsmctsParams(settle=0)) is knowledge_of(opening, IsmctsParams())
    with pytest.raises(ValueError, match="settle is a setting of the Gheos priors"):
        knowledge_of(opening, IsmctsParams(settle=1))
    assert knowledge_of(state, IsmctsParams(value=1)).value == 1  # type: ignore[attr-defined]
    assert knowledge_of(opening, IsmctsParams()).value == 2  # type: ignore[attr-defined]
    assert knowledge_of(state, IsmctsParams(value=4)).value == 4  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"value is 1 or 2 \(Tigris\), 1 or 4 \(Gheos\), not 7"):
        IsmctsParams(value=7)
    # The evaluations their sequential tests rejected are gone, each with its reason.
    for version, why in ((3, "value 4 with settle"), (5, "played no better"), (6, "H0")):
        with pytest.raises(ValueError, match=why):
            IsmctsParams(value=version)
    with pytest.raises(ValueError, match="Gheos value 2 was removed"):
        knowledge_of(state, IsmctsParams(value=2))
    with pytest.raises(ValueError, match="value=1 or value=2, not 4"):
        knowledge_of(opening, IsmctsParams(value=4))
    with pytest.raises(ValueError, match="value=1 or value=4, not 2"):
        GheosKnowledge(value=2)


def last_token_position(engine: str, mover_ahead: bool) -> gheos.GheosState:
    """A two-player token decision where the mover holds the game's last token (the other
    seat has used its three): playing it ends the game, and the mover then wins or loses by
    far."""
    state = gheos.from_position(
        random_position("gheos", 2, seed=4, steps=30).to_position(), engine="python"
    )
    rng = random.Random(5)
    while (
        state.phase != "token" or GheosReading(gheos.as_gheos(state)).cup_score(state.to_move) <= 0
    ):
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

    for value in (1, 4):
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
            assert knowledge.playout_rule(earlier) is None


@pytest.mark.parametrize("engine", ["python", "native"])
def test_gheos_value_4_counts_the_control_of_the_end(engine: str) -> None:
    from cradle import _native
    from cradle.ai.knowledge.gheos import CONTROL

    state = last_token_position(engine, mover_ahead=False)
    mover, other = state.to_move, 1 - state.to_move
    old, new = GheosReading(gheos.as_gheos(state)), GheosReading(gheos.as_gheos(state), 4)
    assert new.controls_the_end(mover) and not new.controls_the_end(other)
    held = new.usable_tokens(mover)
    controlled = new.seat_value(mover)
    full = max(0.0, 1.0 - new.token_worth()) * new.cup_score(mover)
    # A token on the other side: nobody controls the end, the mover's tokens count the same.
    new.tokens[other] = 1
    assert not new.controls_the_end(mover) and new.usable_tokens(mover) == held
    control = CONTROL * new.epochs_left**0.5 + held * full
    assert controlled == pytest.approx(new.seat_value(mover) + control)
    assert new.temperature() == old.temperature()
    if engine == "native":
        four = GheosReading(gheos.as_gheos(state), 4)
        assert _native.gheos_ai_values(state, 4) == pytest.approx(four.values())


def test_survival_is_the_chance_that_a_landscape_tile_comes_first() -> None:
    # Every order of a small stack counted: the d-th landscape tile drawn before the m-th
    # epoch tile.
    from itertools import combinations

    from cradle.ai.knowledge.gheos import survival

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
    from cradle.ai.knowledge.gheos import survival

    state = gheos.from_position(
        random_position("gheos", 2, seed=4, steps=30).to_position(), engine="python"
    )
    rng = random.Random(8)
    while GheosReading(gheos.as_gheos(state)).epochs_left > 2 or state.phase != "tile":
        # Tokens kept, so the game ends by its epochs: to the last one.
        state.apply("pass" if state.phase == "token" else rng.choice(state.legal_actions()))
    data = state.to_position()
    data["tokens"] = {name: 3 for name in data["players"]}
    late = gheos.from_position(data, engine=engine)
    # Three tokens on each side: nobody controls the end, so value 4 is value 1 with the
    # tokens that can still be played in place of those held.
    one, four = GheosReading(gheos.as_gheos(late)), GheosReading(gheos.as_gheos(late), 4)
    mover = late.to_move
    landscape, epochs = four.stack - four.epoch_tiles, four.epoch_tiles
    for seat, wait in ((mover, 0), (1 - mover, 1)):
        # This turn (for the mover), then one turn in two while the stack lasts.
        ending = four.epochs_left
        expected = sum(survival(wait + 2 * j, landscape, epochs, ending) for j in range(3))
        assert four.usable_tokens(seat) == pytest.approx(expected)
        assert four.usable_tokens(seat) < 3
        # Value 1's token term, for the tokens that can still be played.
        tokens = one.token_worth() * (3 - four.usable_tokens(seat))
        cups = sum(
            n * one.civ[c][0] * one.survival(c) for c, n in one.held[seat].items() if c in one.civ
        )
        assert four.seat_value(seat) == pytest.approx(one.seat_value(seat) - tokens * cups)
    assert four.usable_tokens(mover) > four.usable_tokens(1 - mover)  # it plays first
    if engine == "native":
        assert _native.gheos_ai_values(late, 4) == pytest.approx(four.values())
    # At the start every token will find a turn.
    start = GheosReading(gheos.as_gheos(gheos.new_game(2, 5, engine=engine)), 4)
    assert start.usable_tokens(0) == pytest.approx(3, abs=1e-3)


def test_counts_in_reasons_are_plural_unless_one() -> None:
    from cradle.ai.knowledge.base import counted

    assert [counted(n, "temple") for n in (0, 1, 2)] == ["0 temples", "1 temple", "2 temples"]


def test_gheos_reasons_never_say_a_gain_of_nothing_or_count_in_brackets() -> None:
    """Issue 56: a move costing 21% was explained as "Estimated +0.0 points for you"."""
    knowledge = GheosKnowledge()
    said = set()
    for seed in range(4):
        state = gheos.new_game(2, seed)
        rng = random.Random(seed)
        for _ in range(12):
            state.apply(rng.choice(state.legal_actions()))
        for action in state.legal_actions()[:80]:
            said.add(knowledge.reason(state, state.to_move, action))
    assert any("the search finds it better" in text for text in said)  # the case occurs
    for text in said:
        assert "+0.0" not in text and "-0.0" not in text and "(s)" not in text, text
