"""The guided first game of Tigris & Euphrates: one small position per rule, the learner
(archer, seat 0) to move, the bull as the opponent (cradle.core.lessons; tests/tigris/test_lessons.py
plays each step and checks what its text claims).

Cells are on the standard board; the rulebook's facts are told in the project's own words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cradle.core.lessons import LESSON_SEED, Lesson, find
from cradle.tigris.engine import from_position
from cradle.tigris.state import TigrisState

if TYPE_CHECKING:
    from cradle._native import TigrisState as NativeTigrisState

ARCHER, BULL = "archer", "bull"
# Three treasures far from the lessons' cells: the game ends once two or fewer are left.
_FAR = {"A11": "red*", "C11": "red*", "E11": "red*"}
_BAG = ["red", "blue", "green", "black"] * 10


def _leader(dynasty: str, role: str) -> str:
    return f"leader:{dynasty}:{role}"


def _position(
    board: dict[str, str],
    hand: list[str],
    *,
    far: bool = True,
    points: dict[str, dict[str, int]] | None = None,
) -> dict[str, Any]:
    cells = {**(_FAR if far else {}), **board}
    position: dict[str, Any] = {
        "players": [ARCHER, BULL],
        "active": 0,
        "actions_left": 2,
        "board": cells,
        "hands": {ARCHER: hand, BULL: []},
        "bag": list(_BAG),
    }
    if points is not None:
        position["points"] = points
    return position


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        name="tiles",
        title="Tiles and points",
        intro=(
            "Each turn you take two actions. Placing a tile from your hand is one. Your king "
            "stands beside a temple: together they are a kingdom. Put a market (green) on the "
            "lit square next to your king."
        ),
        tries=("tile green H5",),
        hints=("Pick the green tile in your hand, then the lit square H5.",),
        done=(
            "The market joined your kingdom and scored 1 green point. A tile scores for the "
            "leader of its own colour in the kingdom; with no trader there, the king takes it. "
            "Points are kept behind your screen."
        ),
        wrong=(
            "Farms (blue) go only on the river, every other tile only on land: try a market "
            "on the river or a farm on land to see the engine refuse it."
        ),
        refused=("tile green D4", "tile blue H5"),
        cells=("H5",),
        position=_position(
            {"G6": "red", "H6": _leader(ARCHER, "king")},
            ["green", "green", "blue", "black", "red", "red"],
        ),
    ),
    Lesson(
        name="leaders",
        title="Leaders and kingdoms",
        intro=(
            "Leaders are placed on land next to a temple (red). Place your priest on F6, beside "
            "the temple, then a temple next to him."
        ),
        tries=("leader priest F6", "tile red G6"),
        hints=("Pick your priest (beside the board), then F6.", "The red tile onto G6."),
        done=(
            "Your priest made a kingdom, and the temple you added scored 1 red point for him. "
            "A leader never scores by itself: the tiles around him do."
        ),
        wrong="A leader must stand next to a temple: J6 has none, so the engine refuses it.",
        refused=("leader priest J6",),
        cells=("F6", "G6"),
        position=_position({"F5": "red"}, ["red", "red", "red", "blue", "green", "black"]),
    ),
    Lesson(
        name="revolt",
        title="A revolt",
        intro=(
            "The bull's priest rules this kingdom. Place your own priest on G6 in the same "
            "kingdom: two priests of one kingdom means a revolt. Each side counts the temples "
            "touching its leader, then adds red tiles from hand."
        ),
        tries=("leader priest G6", "commit *"),
        hints=(
            "Your priest onto G6.",
            "Your priest touches 2 temples, the bull's 1: commit any red tiles you like.",
        ),
        done=(
            "You won the revolt: the bull's priest went home and you scored 1 red point. "
            "Committed tiles leave the game, and a tie goes to the defender."
        ),
        cells=("G6", "H6"),
        position=_position(
            {
                "F5": "red",
                "G5": "red",
                "H5": "red",
                "F6": "red",
                "H6": _leader(BULL, "priest"),
            },
            ["red", "red", "blue", "green", "black", "black"],
        ),
    ),
    Lesson(
        name="war",
        title="A war",
        intro=(
            "Two kingdoms, each with a trader. Put a tile on H6, between them: it joins the "
            "kingdoms, and two traders in one kingdom go to war. Each side counts the markets "
            "(green) on its own side, then adds markets from hand."
        ),
        tries=("tile black H6", "commit *"),
        hints=("Your black tile onto H6.", "You have 2 markets on your side, the bull 1: commit."),
        done=(
            "You won the war: the bull's trader and the market on his side left the board, "
            "and you scored 1 green point for the trader and 1 for each market removed. The "
            "tile that joined the kingdoms scores nothing."
        ),
        cells=("H6",),
        position=_position(
            {
                "E5": "red",
                "E6": _leader(ARCHER, "trader"),
                "F6": "green",
                "G6": "green",
                "I6": "green",
                "J6": _leader(BULL, "trader"),
                "J5": "red",
            },
            ["black", "green", "green", "blue", "red", "red"],
        ),
    ),
    Lesson(
        name="monument",
        title="A monument",
        intro=(
            "Three temples form an L. Put a fourth on G6 to make a square of one colour: you "
            "may then build a monument on it. Choose the red and black one, then pass."
        ),
        tries=("tile red G6", "monument red-black F5", "pass"),
        hints=(
            "Your red tile onto G6.",
            "Choose the red-black monument.",
            "Pass: your turn ends and the monument pays.",
        ),
        done=(
            "The four temples turned face down under the monument (they no longer count as "
            "temples). At the end of your turn your king, in the monument's kingdom, scored 1 "
            "black point: a monument pays your leaders of its colours every turn you end there."
        ),
        cells=("G6", "F5"),
        position=_position(
            {
                "F5": "red",
                "G5": "red",
                "F6": "red",
                "I5": "red",
                "H5": _leader(ARCHER, "king"),
            },
            ["red", "red", "blue", "green", "black", "black"],
        ),
    ),
    Lesson(
        name="catastrophe",
        title="A catastrophe",
        intro=(
            "The bull's king stands by a single temple. Drop a catastrophe on that temple (J5): "
            "the square is ruined for good."
        ),
        tries=("catastrophe J5",),
        hints=("Use a catastrophe (beside your hand) on J5.",),
        done=(
            "The temple is gone and the bull's king, with no temple left beside him, went back "
            "to his supply. You have one catastrophe left: each player gets two a game."
        ),
        wrong="A catastrophe may not fall on a leader: J6 is refused.",
        refused=("catastrophe J6",),
        cells=("J5",),
        position=_position(
            {"J5": "red", "J6": _leader(BULL, "king"), "G5": "red", "G6": _leader(ARCHER, "king")},
            ["red", "blue", "green", "black", "black", "black"],
        ),
    ),
    Lesson(
        name="swap",
        title="Swapping tiles",
        intro=(
            "A hand you cannot use is not stuck: swapping is an action. Discard any of your "
            "tiles (say the black ones) and draw as many from the bag."
        ),
        tries=("swap *",),
        hints=("Choose Swap, pick the tiles to throw away and confirm.",),
        done=(
            "Your discards left the game face down, and you drew the same number: your hand "
            "holds six tiles again."
        ),
        cells=(),
        position=_position(
            {"G5": "red", "G6": _leader(ARCHER, "king")},
            ["black", "black", "black", "black", "blue", "blue"],
        ),
    ),
    Lesson(
        name="scoring",
        title="The final scoring",
        intro=(
            "The game ends when only two treasures are left on the board. Place a temple on "
            "C11: your trader's kingdom then holds two treasures and he takes one. Then pass."
        ),
        tries=("tile red C11", "treasure *", "pass"),
        hints=("Your red tile onto C11.", "Take a treasure.", "Pass: the game ends."),
        done=(
            "Only two treasures are left, so the game ended with your turn. Each player counts "
            "only his weakest colour, after placing treasures where they help most. The bull "
            "has more points, but his weakest colour holds 2; yours holds 3 with the treasure: "
            "you win. Balance your colours!"
        ),
        cells=("C11",),
        position=_position(
            {
                "B10": "red*",
                "B11": _leader(ARCHER, "trader"),
                "D11": "red*",
                "K11": "red*",
            },
            ["red", "red", "blue", "green", "black", "black"],
            far=False,
            points={
                ARCHER: {"red": 5, "blue": 3, "green": 4, "black": 2},
                BULL: {"red": 9, "blue": 2, "green": 8, "black": 7},
            },
        ),
    ),
)


def lesson_start(
    name: str, seed: int = LESSON_SEED, engine: str | None = None
) -> TigrisState | NativeTigrisState:
    """The state a lesson starts from; ValueError for a name not in ``LESSONS``."""
    return from_position(find(LESSONS, name).position, seed=seed, engine=engine)
