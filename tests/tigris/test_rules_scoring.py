"""Final scoring: wild treasures, the lowest colour, the tie-break and shared places."""

from __future__ import annotations

from typing import Any

from cradle.tigris import TigrisState
from tests.helpers.tigris import make_state

PLAYERS = ("archer", "bull", "pot", "lion")


def _finished(
    scores: dict[str, tuple[int, int, int, int]], treasures: dict[str, int] | None = None
) -> TigrisState:
    """A finished game with these points (red, blue, green, black) and treasures taken."""
    players = tuple(name for name in PLAYERS if name in scores)
    return make_state(
        {},
        players=players,
        far_treasures=False,
        points={
            name: dict(zip(("red", "blue", "green", "black"), values, strict=True))
            for name, values in scores.items()
        },
        treasures=treasures or {},
        over=True,
    )


def _by_name(s: TigrisState) -> dict[str, dict[str, Any]]:
    return {row["dynasty"]: row for row in s.result()}


def test_the_score_is_the_lowest_colour() -> None:
    s = _finished({"archer": (10, 10, 10, 1), "bull": (2, 2, 2, 2)})
    rows = _by_name(s)
    assert rows["archer"]["score"] == 1
    assert rows["bull"]["score"] == 2
    assert rows["bull"]["place"] == 1 and rows["archer"]["place"] == 2
    assert rows["archer"]["points"] == {"red": 10, "blue": 10, "green": 10, "black": 1}


def test_treasures_are_wild_points_assigned_to_lift_the_lowest_colours() -> None:
    # 3 treasures: green 2 -> 4 and red 3 -> 4 gives a lowest colour of 4
    s = _finished({"archer": (3, 5, 2, 4), "bull": (4, 4, 4, 3)}, {"archer": 3, "bull": 0})
    rows = _by_name(s)
    assert rows["archer"]["score"] == 4
    assert rows["archer"]["treasures"] == 3
    assert rows["bull"]["score"] == 3
    assert rows["archer"]["place"] == 1 and rows["bull"]["place"] == 2


def test_ties_compare_the_second_lowest_colour_then_the_next() -> None:
    s = _finished(
        {
            "archer": (3, 5, 7, 9),
            "bull": (20, 3, 5, 6),  # same lowest and second lowest, third lower
            "pot": (4, 3, 30, 30),  # second lowest 4: last of those with 3
            "lion": (3, 5, 7, 8),  # only the highest colour is lower than archer's
        }
    )
    rows = _by_name(s)
    assert {name: row["score"] for name, row in rows.items()} == {
        "archer": 3,
        "bull": 3,
        "pot": 3,
        "lion": 3,
    }
    places = {name: row["place"] for name, row in rows.items()}
    # sorted colours: archer 3 5 7 9, lion 3 5 7 8, bull 3 5 6 20, pot 3 4 30 30
    assert places == {"archer": 1, "lion": 2, "bull": 3, "pot": 4}


def test_fully_tied_players_share_the_place() -> None:
    s = _finished(
        {"archer": (1, 2, 3, 4), "bull": (4, 3, 2, 1), "pot": (1, 2, 3, 3)},
        {"archer": 0, "bull": 0, "pot": 1},  # pot's treasure lifts red: 2 2 3 3
    )
    rows = _by_name(s)
    assert rows["pot"]["score"] == 2
    assert rows["pot"]["place"] == 1
    assert rows["archer"]["place"] == rows["bull"]["place"]
    assert rows["archer"]["place"] > 1


def test_two_winners_share_first_place() -> None:
    s = _finished({"archer": (5, 6, 7, 8), "bull": (8, 7, 6, 5), "pot": (5, 6, 7, 7)})
    rows = _by_name(s)
    assert rows["archer"]["place"] == 1 and rows["bull"]["place"] == 1
    assert rows["pot"]["place"] > 1


def test_everyone_sees_all_points_once_the_game_is_over() -> None:
    s = _finished({"archer": (1, 2, 3, 4), "bull": (4, 4, 4, 4)})
    view = s.view(None)
    assert view["points"]["archer"] == {"red": 1, "blue": 2, "green": 3, "black": 4}
    assert view["points"]["bull"] == {"red": 4, "blue": 4, "green": 4, "black": 4}
    assert view["result"] == s.result()
    assert s.legal_actions() == []
