import json
from pathlib import Path

import pytest
import typer

from cradle.ai.tournament import GameTask, play_game
from lab.records import PlayedGame, wanted
from lab.review import Decision, Task, main, review, review_game, summarise
from tests.helpers.ladder import game_of


@pytest.fixture(scope="module")
def record() -> dict[str, object]:
    return dict(play_game(GameTask(0, "gheos", 5, ("ismcts@30", "random"))))


def test_a_record_keeps_its_moves_and_replays_to_its_result(record: dict[str, object]) -> None:
    from cradle.games import get_game

    moves = record["moves"]
    assert isinstance(moves, list) and len(moves) == record["actions"]
    module = get_game("gheos")
    state = module.new_game(2, 5, module.options_from_dict({}))
    for move in moves:
        state.apply(move)
    assert state.is_over
    assert [row["score"] for row in sorted(state.result(), key=lambda r: r["seat"])] == (
        record["scores"]
    )


def test_the_judge_looks_at_the_bots_own_decisions(record: dict[str, object]) -> None:
    from cradle.games import get_game

    decisions = review_game(Task(game_of(record), "ismcts", "ismcts@60", 4))
    assert [d.number for d in decisions] == [1, 2, 3, 4]
    # Replayed by hand: the bot's decisions with a choice, in order.
    module = get_game("gheos")
    state = module.new_game(2, 5, module.options_from_dict({}))
    expected = []
    for move in record["moves"]:  # type: ignore[attr-defined]
        if state.to_move == 0 and len(state.legal_actions()) > 1:
            expected.append(move)
        state.apply(move)
    assert [d.played for d in decisions] == expected[:4]
    for d in decisions:
        assert d.seat == 0 and d.seed == 5
        assert d.judged_visits > 0 and 0.0 <= d.judged_reward <= 1.0
        assert d.regret >= 0.0
        if d.agrees:
            assert d.regret == 0.0 and d.played_visits == d.judged_visits


def against_b(played_visits: int, played_reward: float) -> Decision:
    """The move "a" played where the judge, 1,000 visits at 0.5, chose "b"."""
    return Decision(1, 0, 1, "a", "b", played_visits, played_reward, 1000, 0.5)


def test_regret_counts_only_a_move_the_judge_visited_enough() -> None:
    assert against_b(200, 0.3).regret == pytest.approx(0.2)
    rare = against_b(9, 0.0)
    assert rare.rare and rare.regret == 0.0
    same = Decision(1, 0, 1, "b", "b", 1000, 0.5, 1000, 0.5)
    assert same.agrees and not same.rare and same.regret == 0.0
    s = summarise([[same, rare], [against_b(500, 0.35)]])
    assert (s.games, s.decisions, s.agreed, s.rare) == (2, 3, 1, 1)
    assert s.mean_regret == pytest.approx(0.05)
    assert s.over == {0.05: 1, 0.1: 1}
    assert s.first_rating == pytest.approx(0.5)


def test_the_filters(record: dict[str, object]) -> None:
    won = record["places"][0] == 1  # type: ignore[index]
    game = game_of(record)
    assert game.record.actions == record["moves"] and game.seed == record["seed"]
    assert wanted(game, "ismcts", False, False) == 0
    assert wanted(game, "random", False, False) == 1
    assert wanted(game, "pimc", False, False) is None
    assert (wanted(game, "ismcts", True, False) is None) == won
    from lab.starts import first_player

    started = first_player("gheos", 5) == 0
    assert (wanted(game, "ismcts", False, True) is None) == started
    assert PlayedGame.from_line({k: v for k, v in record.items() if k != "moves"}) is None
    assert len(review([record], "ismcts", "ismcts@20", 2)) == 1


def test_a_record_that_does_not_replay_is_refused(record: dict[str, object]) -> None:
    moves = list(record["moves"])  # type: ignore[call-overload]
    moves[0] = "place t99 9,9 r0"
    with pytest.raises(ValueError):
        review_game(Task(game_of({**record, "moves": moves}), "ismcts", "ismcts@20", 50))


def test_the_command(
    tmp_path: Path, record: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ladder.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "decisions.jsonl"
    main(
        [
            str(path),
            "--bot",
            "ismcts",
            "--judge",
            "ismcts@20",
            "--decisions",
            "3",
            "--out",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert "1 games, 3 decisions of `ismcts` judged by `ismcts@20`" in printed
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3
    with pytest.raises(typer.BadParameter, match="ISMCTS"):
        main([str(path), "--judge", "pimc@10"])
    with pytest.raises(typer.BadParameter, match="no such file"):
        main([str(tmp_path / "missing.jsonl")])
