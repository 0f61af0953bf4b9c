import json
from pathlib import Path

import pytest
import typer

from cradle.games import get_game
from cradle.gheos import as_gheos
from lab.wars import CLASSES, joinable, main, tally, threats
from tests.helpers.gheos import war_state
from tests.helpers.ladder import ladder_line as starts_line


def test_a_free_cell_between_two_continents_joins_them_and_the_weaker_is_threatened() -> None:
    # red (one sword) and blue (two) meet at the free cell -1,0; t0, which lies on both,
    # carries the pyramid and cannot be replaced.
    game = as_gheos(war_state())
    assert joinable(game) == {0: {3}, 3: {0}}
    assert threats(game) == {0: "touches a stronger", 3: "touches another"}


def test_a_civilization_alone_is_far_from_any_war() -> None:
    game = as_gheos(war_state(civs={"red": "0,0:s"}, followers={"north": {"red": 1}}))
    assert joinable(game) == {0: set()}
    assert threats(game) == {0: "far"}


def played_out(seed: int) -> tuple[list[str], int, int]:
    """A two-player deal played to its end by the first legal move, except that a tile
    starting a war is preferred: the moves, the number of civilizations wars removed, and
    the civilizations on the table at the start of each turn before the last epoch, summed."""
    module = get_game("gheos")
    state = as_gheos(module.new_game(2, seed, module.options_from_dict({})))
    moves: list[str] = []
    removed = seen = 0
    while not state.is_over:
        if state.phase == "tile" and state.epochs < state.end_epoch:
            seen += len(state.civilizations())
        wars = state.conflict_actions()
        move = wars[0] if wars else state.legal_actions()[0]
        events = state.apply(move)
        removed += sum(len(e["civs"]) - 1 for e in events if e["type"] == "war")
        moves.append(move)
    return moves, removed, seen


def ladder_line(seed: int, moves: list[str]) -> dict[str, object]:
    return {**starts_line(seed, ["pimc", "hard"], [1, 2]), "moves": moves}


def test_the_table_counts_the_civilizations_wars_removed_later(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = 3
    moves, removed, seen = played_out(seed)
    assert removed > 0
    records = [
        ladder_line(seed, moves),
        {**ladder_line(seed, moves), "game": "tigris"},  # another game: skipped
        {"game": "gheos", "seed": seed, "seating": ["a", "b"], "places": [1, 2]},  # no moves
    ]
    table = tally(records)
    assert table.games == 1
    cells = table.cells.values()
    assert sum(c.seen for c in cells) == seen  # every turn read, a war possible or not
    assert sum(c.died for c in cells) > 0
    assert all(0 <= c.soon <= c.died <= c.seen and 0 <= c.lost <= c.died for c in cells)
    assert {kind for kind, _ in table.cells} <= set(CLASSES)
    path = tmp_path / "ladder.jsonl"
    path.write_text(json.dumps(records[0]) + "\n", encoding="utf-8")
    main([str(path)])
    out = capsys.readouterr().out
    assert out.startswith("1 games.")
    header = (
        "| threat | epochs to come | seen | removed by a war | within three turns | epochs lost |"
    )
    assert header in out
    path.write_text(json.dumps(ladder_line(seed, moves[:10])) + "\n", encoding="utf-8")
    with pytest.raises(typer.BadParameter, match="do not end the game"):
        main([str(path)])
    with pytest.raises(typer.BadParameter, match="no such file"):
        main([str(tmp_path / "missing.jsonl")])
