import json
from pathlib import Path

import pytest
import typer

from cradle.games import get_game
from lab.starts import first_player, leftover, main, paired, split
from tests.helpers.ladder import ladder_line


def seeds_started_by(seat: int, count: int) -> list[int]:
    found = [s for s in range(1, 200) if first_player("gheos", s) == seat][:count]
    assert len(found) == count
    return found


def test_the_first_player_is_the_deals() -> None:
    module = get_game("gheos")
    for seed in (1, 2, 3, 4):
        dealt = module.new_game(2, seed, module.options_from_dict({}))
        assert first_player("gheos", seed) == dealt.to_move
    assert {first_player("gheos", s) for s in range(1, 40)} == {0, 1}  # both seats start


def test_a_bots_score_splits_by_who_started() -> None:
    (a, b), (c,) = seeds_started_by(0, 2), seeds_started_by(1, 1)
    records = [
        ladder_line(a, ["hard", "pimc@0.9s"], [1, 2]),  # hard starts and wins
        ladder_line(a, ["pimc@0.9s", "hard"], [1, 2]),  # pimc starts and wins
        ladder_line(b, ["pimc@0.9s", "hard"], [1, 1]),  # pimc starts: a tie
        ladder_line(c, ["hard", "pimc@0.9s"], [2, 1]),  # pimc starts and wins
        ladder_line(c, ["greedy", "random"], [1, 2]),  # hard is not there
        {"decision": "H0", "pairs": 1},  # an SPRT's summary line
        {  # an SPRT pair: hard starts (seat 1 of seed c) and wins, then loses starting second
            "seed": c,
            "settings": {"game": "gheos", "players": 2},
            "games": [
                {"seating": ["pimc", "hard/value=4"], "places": [2, 1]},
                {"seating": ["hard/value=4", "pimc"], "places": [2, 1]},
            ],
        },
    ]
    result = split(records, "hard")
    assert (result.started, result.started_games) == (2.0, 2)
    assert (result.followed, result.followed_games) == (0.5, 4)
    # The starter, whoever played: seed a twice won, b tied, c won, c's greedy game lost
    # (seat 0 won, seat 1 started), both SPRT games won.
    assert (result.starter, result.games) == (5.5, 7)


def test_the_command_prints_the_split_and_refuses_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (a,) = seeds_started_by(0, 1)
    path = tmp_path / "ladder.jsonl"
    lines = [ladder_line(a, ["hard", "pimc"], [1, 2]), ladder_line(a, ["pimc", "hard"], [2, 1])]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    main([str(path), "--bot", "hard"])
    out = capsys.readouterr().out
    assert "| won | 1 of 1 (1.00, Wilson 0.21-1.00) | 1 of 1 (1.00, Wilson 0.21-1.00) |" in out
    assert "started, in every game read: 1 of 2" in out
    with pytest.raises(typer.BadParameter, match="no such file"):
        main([str(tmp_path / "none.jsonl")])


def test_two_runs_compare_game_by_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = seeds_started_by(0, 2)
    base = [
        ladder_line(a, ["ismcts@0.1s", "pimc"], [1, 2]),  # won
        ladder_line(a, ["pimc", "ismcts@0.1s"], [1, 2]),  # lost
        ladder_line(b, ["ismcts@0.1s", "pimc"], [1, 1]),  # tied
        ladder_line(b, ["pimc", "ismcts@0.1s"], [2, 1]),  # won: not in the new run
    ]
    new = [
        ladder_line(a, ["ismcts@0.1s/x=1", "pimc"], [1, 2]),  # won again: 0
        ladder_line(a, ["pimc", "ismcts@0.1s/x=1"], [2, 1]),  # lost, now won: +1
        ladder_line(b, ["ismcts@0.1s/x=1", "pimc"], [2, 1]),  # tied, now lost: -1/2
        ladder_line(b, ["greedy", "pimc"], [1, 2]),  # the bot is not there
    ]
    compared = paired(base, new, "ismcts@0.1s")
    assert (compared.games, compared.base, compared.new) == (3, 1.5, 2.0)
    assert compared.difference == pytest.approx(0.5 / 3)
    # The differences 0, 1, -1/2: their spread over the square root of three, times 1.96.
    spread = (sum((d - 0.5 / 3) ** 2 for d in (0.0, 1.0, -0.5)) / 2) ** 0.5
    assert compared.margin == pytest.approx(1.96 * spread / 3**0.5)
    with pytest.raises(ValueError, match="share no game"):
        paired(base, new, "expert-rules")
    for name, lines in (("base.jsonl", base), ("new.jsonl", new)):
        (tmp_path / name).write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    main(
        [str(tmp_path / "new.jsonl"), "--bot", "ismcts", "--against", str(tmp_path / "base.jsonl")]
    )
    assert "game by game: 2 of 3 against 1.5, +0.167 ± " in capsys.readouterr().out
    with pytest.raises(typer.BadParameter, match="share no game"):
        main(
            [
                str(tmp_path / "new.jsonl"),
                "--bot",
                "hard",
                "--against",
                str(tmp_path / "base.jsonl"),
            ]
        )


def played_out(seed: int) -> tuple[list[str], list[int]]:
    """A two-player Gheos deal played to its end: seat 0 plays a scoring token whenever it
    may, seat 1 never does; the other moves are the first legal ones. The moves and places."""
    module = get_game("gheos")
    state = module.new_game(2, seed, module.options_from_dict({}))
    moves: list[str] = []
    while not state.is_over:
        legal = state.legal_actions()
        if "token" in legal:
            move = "token" if state.to_move == 0 else "pass"
        else:
            move = legal[0]
        state.apply(move)
        moves.append(move)
    return moves, [row["place"] for row in state.result()]


def test_the_tokens_left_at_the_end_are_counted_by_replaying_the_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = 5
    moves, places = played_out(seed)
    assert moves.count("token") == 3  # seat 0 played all three; seat 1 kept its three
    line = {**ladder_line(seed, ["pimc", "hard"], places), "moves": moves}
    records = [
        line,
        ladder_line(seed, ["hard", "pimc"], [1, 2]),  # no moves: not replayed
        {**line, "game": "tigris"},  # another game
        {**line, "seating": ["greedy", "random"]},  # hard is not there
    ]
    left = leftover(records, "hard")
    lost = int(places[1] != 1)
    assert (left.games, left.mine, left.theirs) == (1, 3, 0)
    assert (left.not_won, left.mine_not_won, left.theirs_not_won) == (lost, 3 * lost, 0)
    path = tmp_path / "ladder.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    main([str(path), "--bot", "hard"])
    assert "in the 1 Gheos games that keep their moves: `hard` 3, the other 0" in (
        capsys.readouterr().out
    )
    cut = {**line, "moves": moves[:10]}  # a record whose moves stop before the end
    path.write_text(json.dumps(cut) + "\n", encoding="utf-8")
    with pytest.raises(typer.BadParameter, match="do not end the game"):
        main([str(path), "--bot", "hard"])
