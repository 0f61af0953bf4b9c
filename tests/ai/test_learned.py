"""The learned evaluations: the model files, their native twin, self-play data and the fit."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cradle.ai.knowledge.gheos import GheosKnowledge
from cradle.ai.knowledge.gheos import read as read_gheos
from cradle.ai.knowledge.learned import FEATURES, model, parse, path_of
from cradle.ai.knowledge.tigris import TigrisKnowledge
from cradle.ai.knowledge.tigris import read as read_tigris
from cradle.games import get_game

np = pytest.importorskip("numpy")
_native = pytest.importorskip("cradle._native")


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_the_repository_model_loads_and_reaches_the_native_search(game: str) -> None:
    found = model(game)
    assert found.features == FEATURES[game]
    assert len(found.weights) == len(FEATURES[game])
    assert found.meta["command"].startswith(f"python -m lab training --game {game}")
    assert _native.ai_model(game) == list(found.weights)


def random_states(game: str, count: int, seed: int) -> list[object]:
    """Native states along random games of 2 to 4 players."""
    rng = random.Random(seed)
    states = []
    for k in range(count):
        state = get_game(game).new_game(2 + k % 3, seed + k, engine="native")
        for _ in range(rng.randrange(0, 120)):
            if state.is_over:
                break
            state.apply_id(rng.choice(state.legal_action_ids()))
        states.append(state)
    return states


def test_python_and_native_values_agree_on_random_positions() -> None:
    tigris, gheos = TigrisKnowledge(learned=True), GheosKnowledge(learned=True)
    model("tigris"), model("gheos")  # read, and handed to the native side
    for state in random_states("tigris", 6, 40):
        board = read_tigris(state, None, 2)  # the learned features read value=2
        rows = _native.tigris_ai_features(state)
        for seat, row in enumerate(rows):
            assert row == pytest.approx(board.learned_features(seat), abs=1e-9)
        values = [model("tigris").value(row) for row in rows]
        assert values == pytest.approx(board.learned_values(), abs=1e-9)
        python = tigris.rewards(state)
        assert _native.tigris_ai_rewards(state, learned=True) == pytest.approx(python, abs=1e-9)
    for state in random_states("gheos", 6, 50):
        reading = read_gheos(state)
        rows = _native.gheos_ai_features(state)
        for seat, row in enumerate(rows):
            assert row == pytest.approx(reading.features(seat), abs=1e-9)
        python = gheos.rewards(state)
        assert _native.gheos_ai_rewards(state, True) == pytest.approx(python, abs=1e-9)


def test_gheos_features_name_what_they_read() -> None:
    names = [n.removesuffix("_early") for n in FEATURES["gheos"][: len(FEATURES["gheos"]) // 2]]
    for state in random_states("gheos", 8, 70):
        reading = read_gheos(state)
        for seat in range(reading.n):
            row = reading.features(seat)
            half = len(row) // 2
            sums = [a + b for a, b in zip(row[:half], row[half:], strict=True)]
            whole = dict(zip(names, sums, strict=True))
            # each feature once scaled by the share of the game left, once by the share played
            late = 1.0 - reading.remaining
            assert row[:half] == pytest.approx([x * reading.remaining for x in whole.values()])
            assert row[half:] == pytest.approx([x * late for x in whole.values()])
            assert whole["to_move"] == (1.0 if seat == reading.active else 0.0)
            assert whole["controls_the_end"] == float(reading.controls_the_end(seat))
            assert whole["usable_tokens"] == pytest.approx(reading.usable_tokens(seat))
            assert whole["value_1"] == pytest.approx(reading.seat_value(seat, 1))
            assert whole["hand_set_value"] == pytest.approx(reading.seat_value(seat, 4))
            assert whole["points"] == reading.points[seat]


def test_a_learned_search_plays_both_games() -> None:
    from cradle.ai.levels import make_bot_spec

    for game in ("tigris", "gheos"):
        state = get_game(game).new_game(2, 3, engine="native")
        bot = make_bot_spec("ismcts@40/learned=1", 1)
        action = bot.choose(state, state.to_move)
        assert action in state.legal_actions()


def test_bad_models_are_refused_and_change_nothing(tmp_path: Path) -> None:
    good = json.loads(path_of("gheos").read_text())
    with pytest.raises(ValueError, match="features"):
        parse({**good, "features": good["features"][:-1]})
    with pytest.raises(ValueError, match="weights"):
        parse({**good, "weights": good["weights"][:-1]})
    with pytest.raises(ValueError, match="unknown game"):
        parse({**good, "game": "chess"})
    before = _native.ai_model("gheos")
    with pytest.raises(ValueError, match="30 finite weights"):
        _native.ai_set_model("gheos", [1.0])
    with pytest.raises(ValueError, match="finite"):
        _native.ai_set_model("gheos", [float("nan")] * 30)
    with pytest.raises(ValueError, match="no learned model"):
        _native.ai_set_model("chess", [])
    assert _native.ai_model("gheos") == before
