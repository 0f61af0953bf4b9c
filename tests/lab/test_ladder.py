"""The ladder: its schedule, the resumable results file, and the report it writes beside them
(a quick run of a few tiny games)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab.ladder import (
    QUICK,
    RESULTS,
    LadderGame,
    LadderSettings,
    load,
    main,
    play,
    run,
    schedule,
)


def test_the_schedule_meets_every_opponent_in_every_seat_on_shared_seeds() -> None:
    settings = LadderSettings.at_iterations(50, games=("gheos",), players=(2, 4), rounds=2, seed=3)
    assert settings.opponents[-1] == "openspiel-ismcts@200"  # 4x our iterations
    tasks = schedule(settings)
    two = [t for t in tasks if t.players == 2]
    four = [t for t in tasks if t.players == 4]
    assert len(two) == 2 * 4 * 2  # rounds x opponents x seatings
    assert len(four) == 2 * 4 * 4  # rounds x (4 choose 3) tables x rotations
    assert all("ismcts@50" in t.seating for t in tasks)
    first = [t for t in two if t.seed == two[0].seed]
    assert {t.seating for t in first} >= {("ismcts@50", "greedy"), ("greedy", "ismcts@50")}
    assert len({t.seed for t in tasks}) == 2
    assert len({t.key for t in tasks}) == len(tasks)


def test_a_quick_ladder_writes_resumes_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    arguments = ["--quick", "--out", str(out), "--workers", "1"]
    main(arguments)
    lines = (out / RESULTS).read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(schedule(QUICK)) == 8
    summary = json.loads((out / "ladder.json").read_text(encoding="utf-8"))
    (table,) = summary["tables"]
    assert (table["game"], table["players"], table["games"]) == ("gheos", 2, 8)
    assert set(table["ratings"]) == {QUICK.hard, *QUICK.opponents}
    assert set(table["versus"]) == set(QUICK.opponents)
    for h2h in table["versus"].values():
        assert h2h["meetings"] == 2 and 0 <= h2h["low"] <= h2h["score"] <= h2h["high"] <= 1
    text = (out / "ladder.md").read_text(encoding="utf-8")
    assert "python -m lab ladder --quick" in text
    assert all(f"`{bot}`" in text for bot in QUICK.opponents)

    main(arguments)  # everything is played already: nothing is added, the report written again
    assert (out / RESULTS).read_text(encoding="utf-8").splitlines() == lines
    assert (out / "ladder.md").read_text(encoding="utf-8") == text
    with pytest.raises(Exception, match="No such option: --docs"):
        main([*arguments, "--docs", str(tmp_path / "ai.md")])  # no command writes into docs/


def test_load_skips_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / RESULTS
    path.write_text('{"key": "a", "places": [1, 2]}\n{"key": "b", "pla', encoding="utf-8")
    assert list(load(path)) == ["a"]


def test_a_bad_spec_is_a_clear_error_before_anything_is_played(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="openspiel-ismcts@<simulations>"):
        play(LadderGame("gheos", 2, 1, ("ismcts@2", "openspiel-ismcts@many")))
    for opponents in (("openspiel-ismcts@0",), ("no-such-bot",)):
        settings = LadderSettings(games=("gheos",), players=(2,), opponents=opponents)
        with pytest.raises(ValueError):
            run(settings, tmp_path / "out", 1)
    assert not (tmp_path / "out").exists()
