"""``python -m lab revolts``: the schedule is fixed by its seed, and the conflicts a record
replays to are counted for the bot on trial."""

from __future__ import annotations

from pathlib import Path

from lab import revolts


def test_the_schedule_rotates_the_bot_through_every_seat_on_shared_seeds() -> None:
    meetings = revolts.schedule("hard", ("turtle", "warmonger"), 4, [2, 4], seed=1)
    assert meetings == revolts.schedule("hard", ("turtle", "warmonger"), 4, [2, 4], seed=1)
    two = [m for m in meetings if m.players == 2]
    assert len(two) == 2 * 2 * 2  # two opponents, two seeds, two seats
    assert {m.seed for m in two if m.opponent == "turtle"} == {
        m.seed for m in two if m.opponent == "warmonger"
    }
    four = [m for m in meetings if m.players == 4 and m.opponent == "turtle"]
    assert sorted(m.seat for m in four) == [0, 1, 2, 3]  # one whole rotation
    assert all(m.seating.count("hard") == 1 for m in meetings)


# Two games of a quick search against the red keeper, two seats.
SHORT_RUN = ["--bot", "ismcts@4", "--opponent", "red-keeper", "--games", "2", "--players", "2"]


def test_a_short_run_reports_the_conflicts_of_its_records(tmp_path: Path) -> None:
    revolts.main([*SHORT_RUN, "--out", str(tmp_path)])
    rows = (tmp_path / revolts.RESULTS).read_text().splitlines()
    assert len(rows) == 2
    report = (tmp_path / "revolts.md").read_text()
    assert "| red-keeper (2p) | 2 |" in report
    import json

    for line in rows:
        row = json.loads(line)
        for conflict in row["conflicts"]:
            assert conflict["winner"] in (conflict["attacker"], conflict["defender"])
            assert (conflict["winner"] == conflict["attacker"]) == (
                conflict["attack"] > conflict["defence"]
            )
    # A second run plays nothing new: it reads the records back.
    revolts.main([*SHORT_RUN, "--out", str(tmp_path)])
    assert len((tmp_path / revolts.RESULTS).read_text().splitlines()) == 2
