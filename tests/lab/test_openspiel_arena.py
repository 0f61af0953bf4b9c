"""The match against OpenSpiel's own ISMCTSBot (python -m lab openspiel_arena), in miniature."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="needs the openspiel extra")

from lab.openspiel_arena import main, run


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
