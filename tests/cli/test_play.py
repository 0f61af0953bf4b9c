from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from rich.console import Console

from cradle.cli.common import CliError
from cradle.cli.play import group_actions, plan_seats, setup_session, show_actions
from cradle.core.record import GameRecord
from tests.helpers.ai import Listener
from tests.helpers.cli import GAMES, assert_clean_error, cradle, finished_record


@pytest.mark.parametrize(
    ("players", "humans", "bots", "seats"),
    [
        (None, 1, "random", [None, "random"]),
        (4, 1, "random", [None, "random", "random", "random"]),
        (None, 1, "3", [None, "random", "random", "random"]),
        (None, 1, "random,greedy", [None, "random", "greedy"]),
        (None, 2, "random", [None, None]),
        (3, 0, "Random", ["random", "random", "random"]),
    ],
)
def test_seats_from_players_humans_and_bots(
    players: int | None, humans: int, bots: str, seats: list[str | None]
) -> None:
    assert plan_seats(players, humans, bots) == seats


@pytest.mark.parametrize(
    ("players", "humans", "bots", "reason"),
    [
        (2, 3, "random", "more than --players"),
        (2, 1, "random,random", "does not match"),
        (None, -1, "random", "0 or more"),
        (None, 1, "random,,random", "empty bot name"),
    ],
)
def test_inconsistent_seats_are_refused(
    players: int | None, humans: int, bots: str, reason: str
) -> None:
    with pytest.raises(CliError, match=reason):
        plan_seats(players, humans, bots)


def test_actions_are_grouped_by_kind_in_the_engines_order() -> None:
    actions = ["tile red A1", "tile red B1", "tile blue E1", "swap red", "swap red blue", "pass"]
    assert group_actions(actions) == [
        ("tile red", ["tile red A1", "tile red B1"]),
        ("tile blue", ["tile blue E1"]),
        ("swap", ["swap red", "swap red blue"]),
        ("", ["pass"]),
    ]


def test_a_long_action_list_is_compact_and_numbers_follow_the_groups() -> None:
    actions = [
        f"tile {colour} {c}{r}" for colour in ("red", "green") for c in "ABCDE" for r in range(1, 9)
    ]
    actions.append("pass")
    out = io.StringIO()
    numbered = show_actions(Console(file=out, width=80), actions)
    text = out.getvalue()
    assert numbered == actions
    assert "tile red #1-40, green #41-80" in text
    assert "pass #81" in text
    assert len(text.splitlines()) < 15  # one shared block of cells, not 81 lines


@pytest.mark.parametrize("game", GAMES)
def test_a_human_choosing_action_1_plays_a_whole_game_against_bots(
    game: str, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    run = cradle(
        "play",
        "--game",
        game,
        "--seed",
        "3",
        "--players",
        "3",
        "--save",
        str(record),
        input="1\n" * 5000,
    )
    assert run.code == 0, run.err
    assert "Final ranking" in run.out
    assert "Traceback" not in run.out
    replayed = GameRecord.load(record).replay()
    assert replayed.is_over


@pytest.mark.parametrize("game", GAMES)
def test_bots_only_game_runs_to_the_end(game: str) -> None:
    run = cradle("play", "--game", game, "--humans", "0", "--players", "4", "--seed", "8")
    assert run.code == 0, run.err
    assert "Final ranking" in run.out


def test_illegal_input_gets_the_reason_and_a_new_prompt() -> None:
    run = cradle("play", "--seed", "1", input="999\ntile red Z99\nfrobnicate\ncommit 1\nquit\ny\n")
    assert run.code == 0, run.err
    assert "There is no action 999" in run.out
    # Malformed (no action of the notation) and disallowed (not allowed now) say so apart.
    assert run.out.count("Not an action: ") == 2
    assert "'z99' is not a cell" in run.out
    assert "Not allowed now: " in run.out
    # One prompt per line typed, until quit.
    assert run.out.count("archer> ") == 5
    assert "You left the game" in run.out
    assert "Traceback" not in run.out


def test_actions_by_text_are_case_insensitive_and_recorded_canonically(tmp_path: Path) -> None:
    record = tmp_path / "r.json"
    run = cradle("play", "--seed", "1", "--save", str(record), input="  PASS \n")
    assert run.code == 0, run.err
    assert "archer: pass" in run.out
    saved = GameRecord.load(record)
    assert "pass" in saved.actions
    assert "  PASS " not in saved.actions


def test_the_first_words_of_an_action_list_its_actions_numbered() -> None:
    run = cradle("play", "--seed", "1", input="tile blue\n")
    listing = run.out.split("start with 'tile blue'")[1]
    assert "E1" in listing
    numbers = [int(word) for word in listing.split() if word.isdigit()]
    assert numbers and numbers == sorted(numbers) and numbers[0] > 1


def test_quit_asks_first_and_saves_the_record(tmp_path: Path) -> None:
    record = tmp_path / "quit.json"
    run = cradle("play", "--seed", "1", "--save", str(record), input="quit\nn\n1\nquit\nyes\n")
    assert run.code == 0, run.err
    assert run.out.count("Quit the game? [y/N]") == 2
    assert "You left the game" in run.out
    saved = GameRecord.load(record)
    assert len(saved.actions) >= 3  # the bot's opening turn and the human's action 1
    assert not saved.replay().is_over
    replay = cradle("replay", str(record))
    assert replay.code == 0
    assert "not over" in replay.out


def test_end_of_input_leaves_cleanly() -> None:
    run = cradle("play", "--seed", "1", input="")
    assert run.code == 0, run.err
    assert "End of input" in run.out
    assert "Traceback" not in run.out + run.err


def test_help_log_board_and_actions_commands() -> None:
    run = cradle("play", "--seed", "1", input="help\nlog\nboard\nactions\n")
    assert "Commands:" in run.out
    assert "bull: " in run.out.split("Commands:")[1]  # the log repeats the bot's opening
    assert run.out.count("Legal actions (") == 2
    assert run.out.count("Monuments:") == 2


def test_hot_seat_hides_the_hand_until_the_next_player_takes_the_screen() -> None:
    run = cradle("play", "--seed", "1", "--humans", "2", input="1\n" * 12)
    assert run.code == 0, run.err
    assert "Pass the screen to" in run.out
    for part in run.out.split("Pass the screen to ")[1:]:
        name = part.split()[0]
        shown = part.split("'s points:")[0].split()[-1]
        assert shown == name  # the first hand after the prompt is the new player's


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--players", "9"], "2 to 4 players"),
        (["--players", "x"], "--players"),
        (["--bots", "nosuch"], "unknown bot 'nosuch'"),
        (["--game", "chess"], "unknown game 'chess'"),
        (["--humans", "3", "--players", "2"], "--humans 3"),
        (["--bots", "random,random", "--players", "2"], "does not match"),
        (["-o", "board=huge"], "unknown board 'huge'"),
        (["--game", "gheos", "-o", "wonder=true"], "unknown Gheos option(s): wonder"),
        (["--board", "advanced"], "No such option: --board"),
        (["--save", "/no/such/folder/r.json"], "does not exist"),
        (["--no-such-flag"], "no-such-flag"),
    ],
)
def test_bad_play_flags_give_one_clean_line_and_exit_2(args: list[str], reason: str) -> None:
    assert_clean_error(cradle("play", *args), reason)


def test_unknown_command_is_a_clean_error() -> None:
    assert_clean_error(cradle("plya"), "No such command")


def test_a_replayed_record_reaches_the_same_position_as_the_game(tmp_path: Path) -> None:
    record = tmp_path / "bots.json"
    quiet = Console(file=io.StringIO())
    session = setup_session(quiet, "tigris", 4, 0, "random", 21, {}, record)
    assert session.run() == 0
    run = cradle("replay", str(record), "--json")
    assert run.code == 0, run.err
    assert json.loads(run.out) == json.loads(json.dumps(session.state.to_position()))


def test_game_options_reach_the_game_and_its_record(tmp_path: Path) -> None:
    record = tmp_path / "variant.json"
    args = ["-o", "board=advanced", "-o", "buildings=true", "-o", "english=true"]
    args += ["-o", "wonder=true", "-o", "open_scoring=true"]
    run = cradle("play", "--humans", "0", "--seed", "5", "--save", str(record), *args)
    assert run.code == 0, run.err
    options = GameRecord.load(record).options
    assert options == {
        "board": "advanced",
        "buildings": True,
        "english": True,
        "wonder": True,
        "open_scoring": True,
    }


def test_finished_record_helper_really_finishes(tmp_path: Path) -> None:
    assert GameRecord.load(finished_record(tmp_path)).replay().is_over


def test_conflicts_are_prompted_to_the_deciding_player() -> None:
    rng = random.Random(3)
    typed = "".join(f"{rng.randint(1, 40)}\n" for _ in range(3000))
    run = cradle("play", "--seed", "9", "--players", "4", input=typed)
    assert run.code == 0, run.err
    roles = set()
    for chunk in run.out.split("Revolt: ")[1:]:
        line, rest = chunk.split("\n", 1)
        decider = rest.split(" to decide: revolt")[0].split("\n")[-1].split(" (seat")[0]
        attacker, defender = line.split(" attacks")[0], line.split(", ")[1].split(" defends")[0]
        # The attacker commits first, then the defender: whoever's turn it is gets the prompt.
        expected = defender if "committed" in line else attacker
        assert decider == expected, chunk[:400]
        roles.add("defends" if decider == defender else "attacks")
    assert roles == {"attacks", "defends"}


def test_bots_are_told_the_moves_played_never_a_refused_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quiet = Console(file=io.StringIO())
    session = setup_session(quiet, "tigris", 2, 1, "random", 1, {}, None)
    listener = Listener(7)
    session.bots[1] = listener
    monkeypatch.setattr("sys.stdin", io.StringIO("tile red Z99\npass\nquit\ny\n"))
    assert session.run() == 0
    assert (0, "pass") in listener.told  # the human's move, after the refused one
    assert all(action != "tile red Z99" for _, action in listener.told)
    assert [action for _, action in listener.told] == session.record.actions


def test_a_conflict_is_answered_by_the_tile_count_typed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 56: the prompt listed "1 0  2 1  3 2" and typing 1 committed 0 tiles."""
    from cradle.core.lessons import play
    from cradle.tigris import LESSONS, lesson_start

    out = io.StringIO()
    session = setup_session(Console(file=out, width=100), "tigris", 2, 1, "random", 1, {}, None)
    revolt = next(lesson for lesson in LESSONS if lesson.name == "revolt")
    state = lesson_start("revolt")
    play(revolt, state, 1)  # the archer's priest placed: the archer commits red tiles
    assert state.legal_actions() == ["commit 0", "commit 1", "commit 2"]
    session.state = state
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    assert session.human_decision(state, 0) == "commit 1"
    shown = out.getvalue()
    assert "Tiles to commit: 0  1  2" in shown
    monkeypatch.setattr("sys.stdin", io.StringIO("5\n2\n"))
    assert session.human_decision(state, 0) == "commit 2"
    assert "You can commit 0 to 2 tiles, not 5." in out.getvalue()
