from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import assert_clean_error, cradle, finished_record


def test_replay_prints_the_final_ranking(tmp_path: Path) -> None:
    record = finished_record(tmp_path)
    run = cradle("replay", str(record))
    assert run.code == 0, run.err
    actions = len(json.loads(record.read_text())["actions"])
    assert f"Replayed {actions} action(s) of tigris" in run.out
    assert "Final ranking" in run.out


def test_replay_show_prints_every_action_and_the_board(tmp_path: Path) -> None:
    record = finished_record(tmp_path)
    actions = json.loads(record.read_text())["actions"]
    run = cradle("replay", str(record), "--show")
    assert run.code == 0, run.err
    assert f"{len(actions):>3}. " in run.out
    assert actions[-1] in run.out
    assert "Monuments:" in run.out  # the final board


def test_replay_json_is_the_final_position(tmp_path: Path) -> None:
    record = finished_record(tmp_path)
    position = json.loads(cradle("replay", str(record), "--json").out)
    assert position["players"] == json.loads(record.read_text())["players"]
    assert "board" in position


def broken(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broken.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"game": "tigris", "players": ["archer", "bull"], "seed": 1}', "no 'actions'"),
        ('{"game": "go", "players": ["a", "b"], "seed": 1, "actions": []}', "unknown game"),
        ('{"game": "tigris", "players": ["a"], "seed": 1, "actions": []}', "cannot set up"),
        ('{"game": "tigris", "players": ["archer", "bull"], "seed": "x", "actions": []}', "seed"),
    ],
)
def test_bad_records_are_clean_errors(tmp_path: Path, text: str, reason: str) -> None:
    assert_clean_error(cradle("replay", str(broken(tmp_path, text))), reason)


def test_a_missing_record_is_a_clean_error(tmp_path: Path) -> None:
    assert_clean_error(cradle("replay", str(tmp_path / "nothing.json")), "cannot read")


def test_an_illegal_action_in_a_record_is_named(tmp_path: Path) -> None:
    record = finished_record(tmp_path)
    data = json.loads(record.read_text())
    data["actions"][2] = "tile red Z99"
    record.write_text(json.dumps(data))
    assert_clean_error(cradle("replay", str(record)), "action 3 ('tile red Z99') is illegal")
