"""The match against OpenSpiel's own ISMCTSBot (python -m lab openspiel_arena), in miniature."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="needs the openspiel extra")

from cradle.ai.bots import RandomBot
from cradle.ai.match import drive
from cradle.core.contract import GameState
from lab.ladder import LadderGame
from lab.ladder import play as ladder_play
from lab.openspiel_arena import SpielTable, cradle_player, main, run, told


# A Tigris match takes minutes of OpenSpiel's search: make test-long.
@pytest.mark.parametrize("game", ["gheos", pytest.param("tigris", marks=pytest.mark.long)])
def test_a_match_plays_every_seat_to_the_end(game: str) -> None:
    report = run(game, 2, "greedy", seconds=0.01, games=1, seed=3, workers=1)
    records = report["records"]
    assert [r["seat"] for r in records] == [0, 1]
    for record in records:
        returns = record["returns"]
        assert sum(returns) == 0 and set(returns) <= {-1.0, 0.0, 1.0}
        ours = returns[record["seat"]]
        assert record["won"] == (ours == 1.0)
        assert record["tied"] == (ours == 0.0)
        assert record["their_simulations_per_decision"] >= 2
    wins = sum(1.0 if r["won"] else 0.5 if r["tied"] else 0.0 for r in records)
    assert report["score"] == round(wins / 2, 4)
    assert report["low"] <= report["score"] <= report["high"]


def test_the_command_writes_its_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "arena.json"
    main(
        [
            "--game",
            "gheos",
            "--bot",
            "greedy",
            "--seconds",
            "0.01",
            "--games",
            "1",
            "--out",
            str(out),
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    report = json.loads(out.read_text())
    assert summary["games"] == 2 == len(report["records"])
    assert "records" not in summary


class Listening:
    """A random bot that notes every action it is told of."""

    def __init__(self, seed: int) -> None:
        self.bot = RandomBot(seed)
        self.heard: list[str] = []

    def choose(self, state: GameState, seat: int) -> str:
        return self.bot.choose(state, seat)

    def observe(self, state: GameState, action: str) -> None:
        assert action in state.legal_actions()  # told before it is played, on the engine
        self.heard.append(action)


def test_cradle_bots_at_an_openspiel_table_decide_and_are_told_every_action() -> None:
    import pyspiel

    import cradle.envs.openspiel  # noqa: F401  (registers the games)

    spiel_game = pyspiel.load_game("python_gheos", {"players": 2})
    table = SpielTable("gheos", spiel_game.new_initial_state(), random.Random(5))
    bots = [Listening(1), Listening(2)]
    done = drive(table, [cradle_player(bot) for bot in bots], max_actions=None, told=told(bots))
    assert table.is_over and table.spiel.is_terminal()
    assert done.actions and all(bot.heard == done.actions for bot in bots)
    assert sum(done.decisions) == len(done.actions) == len(done.seats)
    assert table.engine().is_over


def test_a_ladder_game_against_openspiel_plays_through_the_match_loop() -> None:
    record = ladder_play(LadderGame("gheos", 2, 4, ("greedy", "openspiel-ismcts@2")))
    assert sorted(record["places"]) in ([1, 2], [1, 1])
    assert record["actions"] == sum(record["decisions"]) > 0
    assert not record["truncated"]
