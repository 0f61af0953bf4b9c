"""OpenSpiel: both games pass OpenSpiel's own checks and its search bots play them."""

from __future__ import annotations

import random
import unittest
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import cradle.envs.openspiel  # noqa: E402,F401  (registers the games)
from cradle.envs.chance import ChanceGame  # noqa: E402

GAMES = ["python_tigris_euphrates", "python_gheos"]
# each versioned id -> the first name of the same game
VERSIONED = {
    "python_cradle_tigris_v1": "python_tigris_euphrates",
    "python_cradle_gheos_v1": "python_gheos",
}


def _play_random(state: Any, rng: random.Random, steps: int | None = None) -> Any:
    taken = 0
    # Stops at a decision (or the end), never at a chance node.
    while not state.is_terminal() and (steps is None or taken < steps or state.is_chance_node()):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            taken += 1
    return state


def test_importing_registers_both_games() -> None:
    names = pyspiel.registered_names()
    for name in [*GAMES, *VERSIONED]:
        assert name in names
    game = pyspiel.load_game("python_tigris_euphrates")
    assert game.num_distinct_actions() == 3398
    assert game.max_chance_outcomes() == 4
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    params = game.get_type().parameter_specification
    assert {"players", "board", "buildings", "english", "wonder", "open_scoring"} <= set(params)


TYPE_FIELDS = [
    "long_name",
    "dynamics",
    "chance_mode",
    "information",
    "utility",
    "reward_model",
    "max_num_players",
    "min_num_players",
    "provides_information_state_string",
    "provides_information_state_tensor",
    "provides_observation_string",
    "provides_observation_tensor",
    "parameter_specification",
]


@pytest.mark.parametrize(("versioned", "first"), VERSIONED.items())
def test_the_versioned_id_loads_the_same_game(versioned: str, first: str) -> None:
    params = {"players": 3}
    games = [pyspiel.load_game(versioned, params), pyspiel.load_game(first, params)]
    assert [game.get_type().short_name for game in games] == [versioned, first]
    v1, named = games
    for field in TYPE_FIELDS:
        assert getattr(v1.get_type(), field) == getattr(named.get_type(), field), field
    assert v1.get_parameters() == named.get_parameters()
    for size in (
        "num_distinct_actions",
        "max_chance_outcomes",
        "max_game_length",
        "observation_tensor_shape",
        "information_state_tensor_shape",
    ):
        assert getattr(v1, size)() == getattr(named, size)(), size
    # One random game through both: the same choices, views and returns at every step.
    rng = random.Random(5)
    states = [game.new_initial_state() for game in games]
    while not states[0].is_terminal():
        a, b = states
        assert a.legal_actions() == b.legal_actions()
        if a.is_chance_node():
            assert a.chance_outcomes() == b.chance_outcomes()
        else:
            seat = a.current_player()
            assert a.observation_tensor(seat) == b.observation_tensor(seat)
            assert a.information_state_string(seat) == b.information_state_string(seat)
        action = rng.choice(a.legal_actions())
        for state in states:
            state.apply_action(action)
    assert states[1].is_terminal() and states[0].returns() == states[1].returns()
    # a state saved under the versioned id loads back by it, as the same state
    text = pyspiel.serialize_game_and_state(v1, states[0])
    game, state = pyspiel.deserialize_game_and_state(text)
    assert game.get_type().short_name == versioned
    assert str(state) == str(states[0]) and state.history() == states[0].history()


@pytest.mark.parametrize(
    "game_string",
    [
        "python_tigris_euphrates",
        "python_tigris_euphrates(players=3,board=advanced,buildings=True,wonder=True,"
        "draws=when_drawn)",
        "python_tigris_euphrates(players=4,english=True,open_scoring=True)",
        "python_gheos",
        "python_gheos(players=3,draws=at_setup)",
        "python_gheos(players=4,draws=when_drawn)",
    ],
)
def test_random_sim_test_with_serialization(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        pyspiel.load_game("python_tigris_euphrates(players=5)")
    with pytest.raises(ValueError):
        pyspiel.load_game("python_tigris_euphrates(board=round)")
    with pytest.raises(ValueError):
        pyspiel.load_game("python_gheos(draws=sometimes)")
    with pytest.raises(ValueError, match="ahead"):
        pyspiel.load_game("python_tigris_euphrates(draws=ahead)")


def test_draw_timings_default_per_game() -> None:
    assert pyspiel.load_game("python_gheos").get_parameters()["draws"] == "ahead"
    assert pyspiel.load_game("python_tigris_euphrates").get_parameters()["draws"] == "at_setup"


def _api_suite(game_string: str) -> unittest.TestSuite:
    from absl import flags

    if not flags.FLAGS.is_parsed():
        flags.FLAGS(["pytest"])
    from open_spiel.integration_tests import api_test

    game = pyspiel.load_game(game_string)

    class Checks(api_test.EnforceAPIOnPartialTreeBase):  # type: ignore[misc]
        @classmethod
        def setUpClass(cls) -> None:
            super().setUpClass()
            # OpenSpiel samples states near the root; add the rest of a game, to the end.
            rng = random.Random(3)
            state = game.new_initial_state()
            while not state.is_terminal():
                _play_random(state, rng, steps=7)
                cls.some_states.append(state.clone())

    Checks.game = game
    Checks.game_name = game_string
    return unittest.defaultTestLoader.loadTestsFromTestCase(Checks)


@pytest.mark.parametrize(
    "game_string",
    [
        "python_tigris_euphrates",
        "python_tigris_euphrates(players=3,draws=when_drawn)",
        "python_gheos",
        "python_gheos(players=3,draws=when_drawn)",
    ],
)
def test_openspiel_api_checks(game_string: str) -> None:
    result = unittest.TestResult()
    suite = _api_suite(game_string)
    suite.run(result)
    assert result.testsRun == 5
    assert not result.errors, result.errors
    assert not result.failures, result.failures


@pytest.mark.parametrize("game_string", ["python_tigris_euphrates", "python_gheos"])
def test_chance_outcomes_are_the_pile_composition(game_string: str) -> None:
    game = pyspiel.load_game(game_string + "(draws=when_drawn)")
    state = game.new_initial_state()
    core: ChanceGame = state.core
    outcomes = dict(state.chance_outcomes())
    assert abs(sum(outcomes.values()) - 1.0) < 1e-9
    pile = [t for t in core.bag if core.spec.dealable(t)]
    for token_id, prob in outcomes.items():
        token = core.spec.tokens[token_id]
        assert prob == pytest.approx(pile.count(token) / len(pile))


@pytest.mark.parametrize("game_string", ["python_tigris_euphrates", "python_gheos(players=3)"])
def test_when_drawn_the_engine_draws_exactly_the_chance_outcomes(game_string: str) -> None:
    game = pyspiel.load_game(
        game_string.replace(")", ",draws=when_drawn)")
        if "(" in game_string
        else game_string + "(draws=when_drawn)"
    )
    rng = random.Random(11)
    state = game.new_initial_state()
    draws = 0
    while not state.is_terminal() and draws < 60:
        core: ChanceGame = state.core
        if state.is_chance_node():
            if core.pending is None:
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            chosen: list[str] = []
            actor = core.engine.to_move
            epochs_before = core.engine.to_position().get("epochs", 0)
            while state.is_chance_node() and core is state.core:
                outcome = rng.choice(state.legal_actions())
                chosen.append(core.spec.tokens[outcome])
                state.apply_action(outcome)
                core = state.core
            draws += len(chosen)
            position = core.engine.to_position()
            hands = core.spec.hands(position)
            # A chosen tile lands in a hand, or stays fixed on top of the pile when the
            # replay's draws stopped before it (an epoch tile changed what was drawn).
            front = list(core.spec.pile(position))[: len(chosen)]
            drawn_into = [t for hand in hands for t in hand] + front
            for token in set(chosen) - {"epoch"}:
                assert drawn_into.count(token) >= chosen.count(token), (actor, chosen, hands)
            if "epochs" in position:  # an epoch tile is revealed and scored, never kept
                epochs = position["epochs"] - epochs_before
                assert epochs + front.count("epoch") >= chosen.count("epoch"), (actor, chosen)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        state.core.check()
    assert draws > 0


def test_information_states_are_kept_by_resampling() -> None:
    for game_string in GAMES:
        game = pyspiel.load_game(game_string)
        rng = random.Random(5)
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        # Early enough that a short random game is still going after the checks below.
        state = _play_random(game.new_initial_state(), rng, steps=12)
        differs = 0
        for _ in range(4):
            _play_random(state, rng, steps=3)
            if state.is_terminal():
                break
            for player in range(game.num_players()):
                other = state.resample_from_infostate(player, sampler)
                assert other.information_state_string(player) == state.information_state_string(
                    player
                )
                assert np.array_equal(
                    other.information_state_tensor(player), state.information_state_tensor(player)
                )
                assert other.observation_string(player) == state.observation_string(player)
                assert other.current_player() == state.current_player()
                differs += str(other) != str(state)
        assert differs > 0, "re-sampling never changed the hidden information"


def test_information_state_shows_own_tiles_but_only_the_size_of_others_swaps() -> None:
    game = pyspiel.load_game("python_tigris_euphrates")
    rng = random.Random(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        _play_random(state, rng, steps=1)
        core: ChanceGame = state.core
        if (
            core.log is not None
            and core.log.action.startswith("swap")
            and not state.is_chance_node()
        ):
            actor = core.log.seat
            mine = state.information_state_string(actor).split("\n")[1]
            theirs = state.information_state_string(1 - actor).split("\n")[1]
            assert mine.endswith(core.log.action + " [" + core.log.actor_hand() + "]")
            assert theirs.endswith(f"{actor}:swap {len(core.log.action.split()) - 1}")
            return
    pytest.fail("no swap in the game")


class _ZeroEvaluator:
    """No rollouts: keeps full-game bot tests fast (the search itself is what is exercised)."""

    def evaluate(self, state: Any) -> np.ndarray:
        return np.zeros(state.num_players())

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


@pytest.mark.parametrize("game_string", ["python_tigris_euphrates", "python_gheos(players=3)"])
def test_mcts_and_ismcts_bots_play_full_games(game_string: str) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(game_string)
    evaluator = _ZeroEvaluator()
    rs = np.random.RandomState(0)
    bots = [
        ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=rs),
        mcts.MCTSBot(game, uct_c=2.0, max_simulations=3, evaluator=evaluator, random_state=rs),
    ]
    bots += bots[:1] * (game.num_players() - 2)
    state = game.new_initial_state()
    rng = random.Random(0)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions > 10
    assert sum(state.returns()) == pytest.approx(0.0)


def test_mcts_with_random_rollouts_chooses_a_legal_action() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_gheos")
    state = _play_random(game.new_initial_state(), random.Random(1), steps=3)
    bot = mcts.MCTSBot(
        game,
        2.0,
        4,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        random_state=np.random.RandomState(0),
    )
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize("game_string", GAMES)
def test_python_side_legal_actions_answer_as_pyspiel_does(game_string: str) -> None:
    # CradleState answers legal_actions / is_chance_node in Python; pyspiel's own methods
    # (the C++ path, as C++ algorithms see the game) must give the same answers.
    game = pyspiel.load_game(game_string, {"players": 3})
    state = game.new_initial_state()
    rng = random.Random(4)
    checked_pseudo = False
    while True:
        decision = not (state.is_chance_node() or state.is_terminal())
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        legal = state.legal_actions()
        assert legal == pyspiel.State.legal_actions(state)
        assert legal == sorted(set(legal)), "OpenSpiel wants legal actions ascending"
        for player in (0, 1, 2) if decision else (-1, 0, 1, 2):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
        if decision and not checked_pseudo:
            # Only the chance player's outcomes may be asked for, and only at chance nodes.
            for ask in (state.legal_actions, lambda p: pyspiel.State.legal_actions(state, p)):
                with pytest.raises(pyspiel.SpielError):
                    ask(-1)
            checked_pseudo = True
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked_pseudo


def test_gheos_set_up_stops_at_the_epoch_that_ends_the_game() -> None:
    # The order after the game's last epoch tile is never drawn, so chance is not asked for it.
    game = pyspiel.load_game("python_gheos(draws=at_setup)")
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state()
        asked = 0
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            asked += 1
        core: ChanceGame = state.core
        stack = core.engine.to_position()["stack"]
        epochs = [i for i, tile in enumerate(stack) if tile == "epoch"]
        last = epochs[core.engine.view(None)["end_epoch"] - 1]
        assert asked == 4 + last + 1 < 4 + len(stack)
        tail = stack[last + 1 :]
        assert tail == sorted(tail, key=core.spec.tokens.index)


def test_the_history_spells_each_decision_as_it_was_taken() -> None:
    # Gheos ids name hand slots: the history must spell them with the tiles held then.
    game = pyspiel.load_game("python_gheos", {"players": 2})
    rng = random.Random(6)
    state = game.new_initial_state()
    spelled: list[str] = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        action = rng.choice(state.legal_actions())
        player = state.current_player()
        spelled.append(f"{player}:{state.action_to_string(player, action)}")
        state.apply_action(action)
    history = state.information_state_string(0).split("\n")[1].split(" | ")
    assert [token.split(" [")[0] for token in history] == spelled
    assert any(token.startswith("0:place t") for token in spelled)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ahead_fixes_just_the_draws_to_come(players: int) -> None:
    # draws=ahead: every chance node after the deal offers the tiles whose order is still
    # open, each with its share; before each decision the fixed front of the engine's pile
    # holds two landscape tiles (all a Gheos turn can draw) unless the game-ending epoch tile
    # is fixed; and the engine draws only fixed tiles (check() compares with its pile).
    game = pyspiel.load_game("python_gheos", {"players": players})
    rng = random.Random(players)
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            core: ChanceGame = state.core
            if state.is_chance_node():
                if not core.dealing:
                    # The engine hears of the fixed front once it is complete.
                    pile = core.spec.pile(core.engine.to_position())
                    for token in core.front:
                        pile.remove(token)
                    outcomes = dict(state.chance_outcomes())
                    assert abs(sum(outcomes.values()) - 1.0) < 1e-9
                    assert {core.spec.tokens[i] for i in outcomes} == set(pile)
                    for token_id, prob in outcomes.items():
                        token = core.spec.tokens[token_id]
                        assert prob == pytest.approx(pile.count(token) / len(pile))
                outcomes_, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes_, probs)[0])
            else:
                front = core.front
                assert (
                    sum(1 for t in front if t != "epoch") >= 2
                    or not core._total  # the game-ending epoch tile is fixed
                ), front
                state.apply_action(rng.choice(state.legal_actions()))
            state.core.check()


def test_ahead_asks_chance_far_less_often_than_at_setup() -> None:
    asked = {}
    for draws in ("ahead", "at_setup"):
        game = pyspiel.load_game("python_gheos", {"draws": draws})
        rng = random.Random(8)
        nodes = 0
        for _ in range(30):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    nodes += 1
                    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probs)[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
        asked[draws] = nodes
    assert asked["ahead"] < 0.75 * asked["at_setup"], asked


def test_ahead_draws_follow_a_shuffled_pile() -> None:
    # The first tile drawn after the deal: each landscape tile equally likely (chi-square-ish
    # bound on 2,000 deals, 51 tiles less the 4 dealt).
    game = pyspiel.load_game("python_gheos")
    rng = random.Random(2)
    seen: dict[str, int] = {}
    for _ in range(2000):
        state = game.new_initial_state()
        while state.is_chance_node() and state.core.dealing:
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        first = state.core.front[0]
        seen[first] = seen.get(first, 0) + 1
    epoch_share = seen.get("epoch", 0) / 2000
    assert 8 / 55 - 0.04 < epoch_share < 8 / 55 + 0.04
    landscape = [n for t, n in seen.items() if t != "epoch"]
    assert len(landscape) >= 40 and max(landscape) < 80
