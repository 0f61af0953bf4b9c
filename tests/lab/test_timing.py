from pathlib import Path

import pytest
import typer

from cradle.ai.knowledge.gheos import Reading
from cradle.games import get_game
from cradle.gheos import as_gheos
from lab.timing import Task, judge, main, spots, timing
from tests.helpers.ladder import SEED, game_of, played_game, played_out, record, record_file


def test_a_bots_token_decisions_are_found_with_what_the_token_would_score() -> None:
    moves = played_out(SEED)
    found = spots(played_game(SEED, moves), "hard", epochs_left=6)
    assert found
    module = get_game("gheos")
    for spot in found:
        assert spot.seat == 1 and spot.played == (moves[spot.move] == "token")
        assert spot.cup_score > 0 and spot.opponent_tokens > 0 and spot.epochs_left <= 6
        game = as_gheos(module.new_game(2, SEED, module.options_from_dict({})))
        for move in moves[: spot.move]:
            game.apply(move)
        assert game.to_move == 1 and game.phase == "token"
        assert Reading(game).cup_score(1) == spot.cup_score
        scored = [e for e in game.apply("token") if e["type"] == "token"]
        assert [e["points"] for e in scored] == [spot.cup_score]  # what the engine scores
    fewer = spots(played_game(SEED, moves), "hard", epochs_left=2)
    assert [s.move for s in fewer] == [s.move for s in found if s.epochs_left <= 2]
    assert spots(played_game(SEED, moves), "greedy", epochs_left=6) == []  # not in the seating
    assert spots(game_of({**record(SEED, moves), "game": "tigris"}), "hard", epochs_left=6) == []


def test_a_decision_is_played_on_both_ways_the_same_way_twice() -> None:
    moves = played_out(SEED)
    spot = spots(played_game(SEED, moves), "hard", epochs_left=6)[-1]
    task = Task(spot, worlds=2, iterations=10, seed=7)
    first = judge(task)
    assert len(first.gains) == 2
    assert all(g in (-1.0, -0.5, 0.0, 0.5, 1.0) for g in first.gains)
    assert judge(task) == first  # the worlds and both play-ons come from the seed alone


def test_the_command_prints_the_table_and_refuses_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    moves = played_out(SEED)
    path = record_file(tmp_path, moves)
    main([str(path), "--decisions", "2", "--worlds", "1", "--iterations", "10"])
    out = capsys.readouterr().out
    assert out.startswith("| decisions | epochs to come |")
    assert "| all | any | any | 2 |" in out
    assert "| by epochs |" in out and "| class |" in out
    main([str(path), "--bot", "greedy", "--decisions", "2"])
    assert "No token decision" in capsys.readouterr().out
    with pytest.raises(typer.BadParameter, match="no such file"):
        main([str(tmp_path / "none.jsonl")])
    with pytest.raises(typer.BadParameter, match="--worlds"):
        main([str(path), "--worlds", "0"])
    assert len(timing([record(SEED, moves)], "hard", 1, 1, 10, 6)) == 1
