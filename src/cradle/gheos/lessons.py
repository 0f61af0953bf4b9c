"""The guided first game of Gheos: one small position per rule, the learner (north, seat 0)
to move, east as the opponent (cradle.core.lessons; tests/gheos/test_lessons.py plays each
step and checks what its text claims).

Tile numbers are those of the packaged tile set (data/tiles.txt); ``0,0`` holds the start tile
t0 at r0: its landmass (a wheat and a cup) touches the cells 1,0 and 0,-1, its coast (with the
pyramid) the cell 0,1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cradle.core.lessons import LESSON_SEED, Lesson, find
from cradle.gheos.engine import from_position
from cradle.gheos.state import GheosState
from cradle.gheos.tiles import TILE_COUNT
from cradle.gheos.types import EPOCH_TILES

if TYPE_CHECKING:
    from cradle._native import GheosState as NativeState

NORTH, EAST = "north", "east"


def _position(
    board: dict[str, str],
    hand: list[str],
    *,
    civs: dict[str, str] | None = None,
    followers: dict[str, dict[str, int]] | None = None,
    phase: str = "tile",
    stack_top: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A whole position: east holds the two lowest tiles nobody else uses, the rest (after
    ``stack_top``) make the stack, the epoch tiles not drawn at its bottom."""
    board = {"0,0": "t0 r0", **board}
    used = {text.split()[0] for text in board.values()} | set(hand)
    used |= {t for t in stack_top if t != "epoch"}
    free = [f"t{n}" for n in range(TILE_COUNT) if f"t{n}" not in used]
    epochs = EPOCH_TILES - stack_top.count("epoch")
    return {
        "players": [NORTH, EAST],
        "active": 0,
        "phase": phase,
        "board": board,
        "hands": {NORTH: hand, EAST: free[:2]},
        "stack": [*stack_top, *free[2:], *(["epoch"] * epochs)],
        "removed": [],
        "civilizations": civs or {},
        "followers": followers or {},
        "points": {},
        "tokens": {},
        "epochs": 0,
        "pending": None,
    }


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        name="continent",
        title="Tiles, continents and a civilization",
        intro=(
            "A turn starts with a tile from your hand, laid edge to edge with the table. Lay "
            "the all-land tile with one wheat on the lit cell left of the start tile: the two "
            "landmasses join into a continent. Then start a civilization there and pass."
        ),
        tries=("place t1 0,-1 *", "start *", "pass"),
        hints=(
            "Pick the tile with one wheat in your hand, then the lit cell.",
            "Start a civilization (any colour) on the new continent.",
            "Pass: no scoring token this time.",
        ),
        done=(
            "A landmass spanning two tiles is a continent. Your civilization took one follower "
            "per wheat on it: two. You may start at most one civilization a turn, and only on "
            "a continent nobody holds."
        ),
        wrong="A tile must share an edge with the table: a cell far away is refused.",
        refused=("place t1 3,3 r0",),
        cells=("0,-1",),
        position=_position({}, ["t1", "t30"]),
    ),
    Lesson(
        name="followers",
        title="Followers and scoring tokens",
        intro=(
            "Red rules this continent and you hold one red follower. Instead of starting a "
            "civilization you may take a follower: take a red one, then play a scoring token."
        ),
        tries=("place t42 0,1 *", "take red", "token"),
        hints=(
            "First lay the tile of three small coasts on the lit cell right of the start tile.",
            "Take a red follower.",
            "Play a scoring token.",
        ),
        done=(
            "A token pays you, and only you, the cups on each civilization's continent for "
            "every follower you hold of it: 2 red followers × 2 cups = 4 points. You have three "
            "tokens a game; once every player has played all of theirs, the game ends."
        ),
        cells=("0,1",),
        position=_position(
            {"0,-1": "t2 r0", "0,-2": "t1 r0"},
            ["t42", "t30"],
            civs={"red": "0,0:s"},
            followers={NORTH: {"red": 1}},
        ),
    ),
    Lesson(
        name="replace",
        title="Replacing a tile",
        intro=(
            "Instead of adding a tile you may lay it over one on the table: the old one leaves "
            "the game. Lay the all-land tile with two cups over the lit one left of the start tile "
            "(one cup)."
        ),
        tries=("replace t5 0,-1 *",),
        hints=("Pick the tile with two cups, then the lit tile.",),
        done=(
            "The old tile left the game and yours lies in its place. A tile with a pyramid can never be "
            "replaced: the start tile has one."
        ),
        wrong="The start tile holds a pyramid: replacing it is refused.",
        refused=("replace t5 0,0 r0",),
        cells=("0,-1",),
        position=_position({"0,-1": "t2 r0"}, ["t5", "t30"]),
    ),
    Lesson(
        name="war",
        title="A war",
        intro=(
            "Red holds the continent on the left, blue the one on the right. Lay the all-land tile "
            "with two swords and a temple on the "
            "lit cell between them: the continents merge and their civilizations fight. "
            "Starting a war costs you one of your followers."
        ),
        tries=("place t19 -1,0 *", "pay *"),
        hints=("The tile with the temple onto the lit cell between them.", "Pay one follower."),
        done=(
            "Blue had two swords on its former continent, red one: blue won, and red left the "
            "board with every red follower. The new tile's swords did not count. Its cup "
            "temple then scored you one point per cup on the continent: 2."
        ),
        cells=("-1,0",),
        position=_position(
            {"0,-1": "t3 r0", "-1,-1": "t1 r0", "0,1": "t2 r0", "-1,1": "t6 r0"},
            ["t19", "t30"],
            civs={"red": "0,0:s", "blue": "0,0:ne"},
            followers={NORTH: {"red": 2, "blue": 1}, EAST: {"red": 1, "blue": 2}},
        ),
    ),
    Lesson(
        name="migration",
        title="A migration",
        intro=(
            "Red's continent runs through the lit tile. Lay the tile of three coasts over it: "
            "the continent splits and red must move."
        ),
        tries=("replace t44 0,-1 r2",),
        hints=(
            "Turn the tile of three coasts twice (its wheat coast then faces left), then lay it "
            "on the lit tile.",
        ),
        done=(
            "The continent split in two; red moved to the part with more wheat (the new tile's "
            "wheat counts), and you paid a red follower for the migration."
        ),
        cells=("0,-1",),
        position=_position(
            {"0,-1": "t2 r0", "0,-2": "t1 r0"},
            ["t44", "t33"],
            civs={"red": "0,0:s"},
            followers={NORTH: {"red": 1}, EAST: {"red": 2}},
        ),
    ),
    Lesson(
        name="epoch",
        title="An epoch",
        intro=(
            "Your turn is nearly over: pass instead of playing a token. You draw back to two "
            "tiles, and the next tile on the stack is an epoch."
        ),
        tries=("pass",),
        hints=("Pass.",),
        done=(
            "The epoch paid every player, for each follower, the pyramids on that "
            "civilization's continent: you 2 (two followers, one pyramid), east 1. The sixth "
            "epoch ends a two-player game, the seventh with three, the eighth with four."
        ),
        cells=(),
        position=_position(
            {"0,-1": "t10 r0"},
            ["t33"],
            civs={"red": "0,0:s"},
            followers={NORTH: {"red": 2}, EAST: {"red": 1}},
            phase="token",
            stack_top=("epoch", "t42"),
        ),
    ),
)


def lesson_start(
    name: str, seed: int = LESSON_SEED, engine: str | None = None
) -> GheosState | NativeState:
    """The state a lesson starts from; ValueError for a name not in ``LESSONS``."""
    return from_position(find(LESSONS, name).position, seed=seed, engine=engine)
