import json
import random
from pathlib import Path

import pytest
import typer

from cradle.games import get_game
from cradle.gheos import as_gheos
from lab.course import Course, courses, length_class, main, replay, report
from lab.starts import first_player
from tests.helpers.ladder import game_of


def warlike(seed: int, chooser: int) -> tuple[list[str], list[int]]:
    """A two-player deal played to its end by a seeded random player that starts every war or
    migration it can (so civilizations are removed), and plays a token whenever it may; the
    moves and each seat's place."""
    rng = random.Random(chooser)
    module = get_game("gheos")
    state = as_gheos(module.new_game(2, seed, module.options_from_dict({})))
    moves: list[str] = []
    while not state.is_over:
        legal = state.legal_actions()
        urgent = state.conflict_actions()
        if urgent:
            move = rng.choice(urgent)
        elif "token" in legal:
            move = "token"
        else:
            move = rng.choice(legal)
        state.apply(move)
        moves.append(move)
    return moves, [row["place"] for row in state.result()]


def expected(seed: int, moves: list[str], seat: int) -> Course:
    """What the course should say, counted another way: tokens from the moves, followers
    lost from the followers gained, paid and held at the end, margins from the state."""
    module = get_game("gheos")
    state = as_gheos(module.new_game(2, seed, module.options_from_dict({})))
    course = Course(started=state.to_move == seat, score=0.0)
    gained, paid = [0, 0], [0, 0]
    for move in moves:
        mover = 0 if state.to_move == seat else 1
        course.tiles += move.startswith(("place ", "replace "))
        course.tokens[mover] += move == "token"
        events = state.apply(move)
        kinds = [e["type"] for e in events]
        paid[mover] += kinds.count("pay")
        for event in events:
            if event["type"] == "start":
                gained[mover] += int(event["followers"])
        gained[mover] += "take" in kinds
        if "epoch_scoring" in kinds and "final_scoring" not in kinds:
            points = [state.player(s).points for s in (seat, 1 - seat)]
            course.margins.append(points[0] - points[1])
    for s, who in ((0, seat), (1, 1 - seat)):
        course.lost[s] = gained[s] - paid[s] - sum(state.player(who).followers)
    return course


def test_a_replay_counts_the_points_tokens_losses_and_margins_another_count_finds() -> None:
    removed = 0
    for seed, chooser in ((3, 1), (8, 2), (21, 3)):
        moves, places = warlike(seed, chooser)
        for seat in (0, 1):
            score = 1.0 if places[seat] < places[1 - seat] else 0.0
            record = {"game": "gheos", "seed": seed, "seating": ["a", "b"], "moves": moves}
            got = replay(game_of(record), seat, score)
            want = expected(seed, moves, seat)
            assert got.started == (first_player("gheos", seed) == seat)
            assert (got.tiles, got.tokens, got.lost) == (want.tiles, want.tokens, want.lost)
            # The last epoch scoring comes with the final one: compared up to it.
            assert got.margins[: len(want.margins)] == want.margins
            assert len(got.margins) == len(got.followers) >= len(want.margins)
            assert got.points[0]["token"] >= got.tokens[0]  # a token scores its cups
            removed += got.lost[0] + got.lost[1]
    assert removed > 0  # the warlike games did remove civilizations


def test_the_command_prints_the_tables_and_refuses_bad_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = 3
    moves, places = warlike(seed, 1)
    line = {
        "game": "gheos",
        "seed": seed,
        "seating": ["pimc", "hard"],
        "places": places,
        "players": 2,
        "moves": moves,
    }
    records = [line, {**line, "moves": None}, {**line, "seating": ["greedy", "pimc"]}]
    found = courses(records, "hard")
    assert len(found) == 1  # the record without moves and the game without hard are skipped
    path = tmp_path / "ladder.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    main([str(path), "--bot", "hard"])
    out = capsys.readouterr().out
    assert out.strip() == report(found, "hard").strip()
    outcome = "won" if places[1] == 1 else "lost"
    assert f"| {'it' if found[0].started else 'the other'} started, {outcome} | 1 |" in out
    path.write_text(json.dumps({**line, "moves": moves[:12]}) + "\n", encoding="utf-8")
    with pytest.raises(typer.BadParameter, match="do not end the game"):
        main([str(path), "--bot", "hard"])
    with pytest.raises(typer.BadParameter, match="keeps its moves"):
        main([str(path), "--bot", "expert-rules"])
    with pytest.raises(typer.BadParameter, match="no such file"):
        main([str(tmp_path / "none.jsonl")])


def test_lengths_fall_into_classes() -> None:
    assert [length_class(t) for t in (5, 19, 20, 23, 24, 31, 32, 60)] == [
        "under 20",
        "under 20",
        "20-23",
        "20-23",
        "24-27",
        "28-31",
        "32 or more",
        "32 or more",
    ]


def test_the_score_by_the_lead_in_followers_after_an_epoch() -> None:
    def game(started: bool, score: float, held: list[tuple[int, int]]) -> Course:
        return Course(started=started, score=score, tiles=25, followers=held)

    found = [
        game(False, 1.0, [(1, 1), (3, 2), (4, 3)]),  # one ahead after the third epoch: won
        game(False, 0.5, [(1, 1), (2, 2), (5, 4)]),  # one ahead: tied
        game(False, 0.0, [(0, 1), (1, 4), (1, 6)]),  # five behind (shown as three or less)
        game(True, 1.0, [(1, 0), (2, 1)]),  # the third epoch never came: not counted
    ]
    third = report(found, "hard")
    assert "| +1 | - | 1.5 of 2 (0.75, Wilson " in third
    assert "| -3 or less | - | 0 of 1 (0.00, Wilson 0.00-0.79) |" in third
    assert "| 0 | - | - |" in third
    second = report(found, "hard", epoch=2)
    assert "| +1 | 1 of 1 (1.00, Wilson 0.21-1.00) | 1 of 1 (1.00, Wilson 0.21-1.00) |" in second
    assert "| 0 | - | 1 of 1 (0.50, Wilson " not in second  # the tie: half a win of one game
    assert "| 0 | - | 0.5 of 1 (0.50, Wilson " in second
    assert "| -3 or less | - | 0 of 1 (0.00, Wilson 0.00-0.79) |" in second
