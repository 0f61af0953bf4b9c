"""The native ISMCTS (native/src/search) against its Python reference (cradle.ai.search.ismcts):
where it runs, what it returns, that it computes what the reference computes, and threads."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from cradle import tigris
from cradle.ai.knowledge.gheos import GheosSettings
from cradle.ai.knowledge.params import knowledge_for
from cradle.ai.knowledge.tigris import Shares, TigrisKnowledge, TigrisSettings
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import IsmctsBot, parallel_search, search
from cradle.ai.search.native import NativeSettings, native_search_for
from cradle.ai.search.params import IsmctsParams
from cradle.ai.search.worlds import believed_world, next_world
from cradle.core.hidden import CanonicalRandom
from cradle.games import get_game
from tests.helpers.ai import (
    decision_positions,
    one_iteration_is_the_reference,
    revolt_position,
    search_adds_up_and_repeats,
)

_native = pytest.importorskip("cradle._native")


def test_the_native_search_runs_only_where_its_twin_knowledge_exists() -> None:
    params = IsmctsParams()
    native = tigris.new_game(2, 1, engine="native")
    python = tigris.new_game(2, 1, engine="python")
    assert native_search_for(native, knowledge_for("tigris"), params) is not None
    assert native_search_for(native, TigrisKnowledge(value=2, learned=True), params) is not None
    assert native_search_for(python, knowledge_for("tigris"), params) is None
    assert native_search_for(native, knowledge_for("tigris"), IsmctsParams(native=0)) is None

    class Tweaked(TigrisKnowledge):
        pass

    assert native_search_for(native, Tweaked(), params) is None  # no native twin


def test_native_root_statistics_add_up() -> None:
    state = decision_positions("tigris", 3, seed=2, count=2)[-1]
    search_adds_up_and_repeats(state, 300)


# A belief that one seat hoards red and the other holds almost none (odds of each colour
# against a uniform draw).
SKEWED: Shares = ((3.0, 0.5, 0.5, 0.5), (0.1, 1.3, 1.3, 1.3))


@pytest.mark.parametrize(
    ("shares", "value"),
    [(None, 1), (SKEWED, 1), (None, 2), (SKEWED, 2)],
    ids=["uniform", "belief", "lowest", "lowest-belief"],
)
def test_one_native_iteration_is_the_reference_evaluation_of_its_world(
    shares: Shares | None, value: int
) -> None:
    # With one iteration restricted to one action, the search's reward is the reference
    # knowledge's reward of the world the search drew (reproduced here from its seed), after
    # the action and the settling: determinization (dealt by the belief, if any), apply and
    # evaluation agree exactly, for both evaluations (IsmctsParams.value reaches the native
    # search).
    knowledge = TigrisKnowledge(tilts=shares, value=value)
    params = IsmctsParams(belief=1, value=value)
    checked = 0

    def deal(state: Any, seat: int, seed: int) -> Any:
        # A search deals from CanonicalRandom(seed): a belief's world from its first 64 bits.
        if shares is None:
            return state.sample_hidden_seeded(seat, seed)
        return believed_world(state, seat, shares, random.Random(seed).getrandbits(64))

    for state in decision_positions("tigris", 2, seed=8, count=6):
        for action in state.legal_actions()[:5]:
            checked += one_iteration_is_the_reference(state, action, params, knowledge, deal)
    assert checked >= 20


def test_native_and_python_search_value_a_revolt_defence_alike() -> None:
    # The defender's two commitments, each searched alone by both searches: the values agree
    # within the noise of the sampled worlds, and both prefer the defence that wins.
    state = tigris.from_position(revolt_position(), seed=1, engine="native")
    state.apply("leader priest K5")
    state.apply("commit 1")
    values = {}
    for native in (1, 0):
        params = IsmctsParams(native=native)
        for action in ("commit 0", "commit 1"):
            result = search(state, 1, Budget(iterations=150), params, seed=3, only=[action])
            values[native, action] = result.actions[0].reward
    for action in ("commit 0", "commit 1"):
        assert values[1, action] == pytest.approx(values[0, action], abs=0.05)
    assert values[1, "commit 1"] > values[1, "commit 0"]
    assert search(state, 1, Budget(iterations=60), seed=3).best == "commit 1"


@pytest.mark.parametrize("shares", [None, SKEWED], ids=["uniform", "belief"])
def test_a_tree_deals_its_worlds_from_one_generator_natively_as_in_the_reference(
    shares: Shares | None,
) -> None:
    # Every world of a search comes from one CanonicalRandom (search.worlds.next_world; with a
    # belief, believed_world from its next 64 bits each time): the native tree's worlds are
    # the reference's, on the native state and on its Python engine twin.
    state = decision_positions("tigris", 2, seed=3, count=3)[-1]
    twin = tigris.from_position(state.to_position(), engine="python")
    seat = state.to_move
    belief = None if shares is None else [list(row) for row in shares]
    native = [w.to_position() for w in _native.tigris_ai_worlds(state, seat, 91, 4, belief)]
    for source in (state, twin):
        dealer = CanonicalRandom(91)
        assert [next_world(source, seat, dealer, shares).to_position() for _ in range(4)] == (
            native
        )
    first = (
        state.sample_hidden_seeded(seat, 91)
        if shares is None
        else believed_world(state, seat, shares, random.Random(91).getrandbits(64))
    )
    assert native[0] == first.to_position()
    assert native[1] != native[0]


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_the_fast_dealer_is_an_explicit_option_of_the_native_search(game: str) -> None:
    # fast_deal=1 deals the worlds with SplitMix64: a search of its own, legal and repeatable
    # for a seed, whose trees differ from the default's (which deals the Python search's
    # worlds); the Python search and a bot spec with it on the Python engine refuse it.
    from cradle.ai.levels import make_bot_spec

    state = decision_positions(game, 2, seed=4, count=2)[-1]
    seat = state.to_move
    budget = Budget(iterations=150)
    fast = IsmctsParams(fast_deal=True, stop=False)
    result = search(state, seat, budget, fast, seed=2)
    assert sum(row.visits for row in result.actions) == 150
    assert {row.action for row in result.actions} <= set(state.legal_actions())
    assert search(state, seat, budget, fast, seed=2).actions == result.actions
    canonical = search(state, seat, budget, IsmctsParams(stop=False), seed=2)
    assert canonical.actions != result.actions
    assert search(state, seat, budget, replace(fast, fast_deal=False), seed=2).actions == (
        canonical.actions
    )
    with pytest.raises(ValueError, match="fast_deal=1 needs the native search"):
        search(state, seat, budget, replace(fast, native=False), seed=2)
    bot = make_bot_spec("ismcts@40/fast_deal=1", seed=3)
    assert isinstance(bot, IsmctsBot) and bot.params.fast_deal
    assert bot.choose(state, seat) in state.legal_actions()
    python = get_game(game).from_position(state.to_position(), engine="python")
    with pytest.raises(ValueError, match="fast_deal"):
        bot.choose(python, seat)


def test_trees_on_threads_add_their_statistics() -> None:
    state = decision_positions("tigris", 2, seed=6, count=2)[-1]
    result = parallel_search(state, state.to_move, Budget(iterations=200), IsmctsParams(), [1, 2])
    assert result.iterations == 200  # 100 in each tree
    assert sum(row.visits for row in result.actions) == 200
    bot = IsmctsBot(4, Budget(iterations=120), workers=3)
    assert bot.analyse(state, state.to_move).iterations == 120
    again = [
        IsmctsBot(9, Budget(iterations=90), workers=2).choose(state, state.to_move)
        for _ in range(2)
    ]
    assert again[0] == again[1]  # threads do not make a seeded search random


def test_a_time_budget_is_honoured_natively() -> None:
    # It thinks at least 90% of its seconds: the rest may be kept back for a pause of its
    # thread at the end (native/src/search/tree.rs, STALL_SHARE), so that it answers on time.
    state = decision_positions("tigris", 2, seed=6, count=2)[-1]
    result = search(state, state.to_move, Budget(seconds=0.2), seed=1)
    assert result.iterations >= 1
    assert result.seconds >= 0.18


def test_the_native_search_refuses_bad_input() -> None:
    state = tigris.new_game(2, 1, engine="native")
    other = 1 - state.to_move
    with pytest.raises(ValueError, match="decision"):
        search(state, other, Budget(iterations=5))
    settings = NativeSettings(0.4, 1.5, 0.5, 0.3, 0, 0, 48, True, False)
    knowledge = TigrisSettings()
    seat = state.to_move
    with pytest.raises(ValueError, match="seed"):
        _native.search(state, seat, 5, None, settings, knowledge, [], None)
    with pytest.raises(ValueError, match="budget"):
        _native.search(state, seat, None, None, settings, knowledge, [1], None)
    with pytest.raises(ValueError, match="budget"):
        _native.search(state, seat, 0, None, settings, knowledge, [1], None)
    # The settings are read by name and type: a bad one is refused, and so is a knowledge
    # of the other game (Gheos' lacks nothing Tigris reads, but its value 4 is not Tigris').
    for bad, why in (
        (replace(settings, batch=0), "batch is at least 1"),
        (replace(settings, exploration=float("nan")), "finite"),
        (replace(settings, urgent=2), "Settings.urgent"),  # a switch is a bool
    ):
        with pytest.raises((ValueError, TypeError), match=why):
            _native.search(state, seat, 5, None, bad, knowledge, [1], None)
    with pytest.raises(ValueError, match="value is 1 or 2, not 4"):
        _native.search(state, seat, 5, None, settings, GheosSettings(value=4), [1], None)
    with pytest.raises(TypeError, match="TigrisState or a GheosState"):
        _native.search(
            tigris.new_game(2, 1, engine="python"), seat, 5, None, settings, knowledge, [1]
        )  # type: ignore[arg-type]


@pytest.mark.long
@pytest.mark.parametrize(("game", "seeds", "least"), [("tigris", 4, 0.3), ("gheos", 8, 0.35)])
def test_native_search_is_not_weaker_than_the_python_search(
    game: str, seeds: int, least: float
) -> None:
    # Shared seeds, seats swapped: native ismcts@200 against the Python ismcts@200 (the same
    # algorithm and knowledge), on the native engine. Level play scores half the games.
    from tests.helpers.ai import play_out

    score = 0.0
    games = 0
    for seed in range(1, seeds + 1):
        for seating in (
            ["ismcts@200", "ismcts@200/native=0"],
            ["ismcts@200/native=0", "ismcts@200"],
        ):
            state = play_out(game, seating, seed, {})
            native_seat = seating.index("ismcts@200")
            places = {row["seat"]: row["place"] for row in state.result()}
            mine, theirs = places[native_seat], places[1 - native_seat]
            score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
            games += 1
    print(f"{game}: native ismcts@200 scored {score} of {games} against the Python ismcts@200")
    assert score >= least * games  # not clearly weaker (the same algorithm: about level)


def test_the_ai_bench_measures_both_engines_in_one_run() -> None:
    from rich.console import Console

    from cradle.cli.bench import run_ai_bench

    summary = run_ai_bench(Console(quiet=True), "tigris", 0.6, [2], {}, 3, ["native", "python"])
    assert summary["ai"]["native"]["2"]["search"] == "native"
    assert summary["ai"]["python"]["2"]["search"] == "python"
    assert summary["ai"]["native"]["2"]["iterations"] > 0
    assert summary["native_speedup"]["2"] > 0


def test_the_stall_guard_narrows_the_native_search_too() -> None:
    # A bot whose guard has seen the bag stand still chooses only among tiles and swaps: the
    # restriction reaches the native root through ``only``.
    from cradle.ai.bots import STALL_LIMIT

    state = tigris.new_game(2, 4, engine="native")
    seat = state.to_move
    leaders = [a for a in state.legal_actions() if a.startswith("leader ")]
    bot = IsmctsBot(3, Budget(iterations=80))
    assert bot.analyse(state, seat, only=leaders).best in leaders
    for _ in range(STALL_LIMIT):
        bot.guard.allowed(state, seat, state.legal_actions())
    assert bot.choose(state, seat).startswith(("tile ", "swap "))


def test_a_native_search_leaves_its_state_free_for_other_threads() -> None:
    # The search runs on its own copy with the GIL released: meanwhile another thread may
    # read and change the state it was given (the server's assistant does).
    import threading

    state = tigris.new_game(2, 7, engine="native")
    seat = state.to_move
    done: list[object] = []
    worker = threading.Thread(
        target=lambda: done.append(search(state.clone(), seat, Budget(seconds=1.0), seed=1))
    )
    shared = threading.Thread(target=lambda: done.append(search(state, seat, Budget(seconds=1.0))))
    worker.start()
    shared.start()
    while shared.is_alive():
        state.legal_actions()  # reads while the search runs
        shared.join(0.05)
    worker.join()
    state.apply(state.legal_actions()[0])  # and changes it afterwards
    assert len(done) == 2
