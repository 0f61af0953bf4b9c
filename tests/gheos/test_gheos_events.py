"""The game's log: the first event of each kind in three seeded random games (2, 3 and 4
players), in full. The browser, the terminal and replays show these texts; the native engine
must give the same."""

from __future__ import annotations

import random
from typing import Any

from cradle import gheos

FIRST_OF_EACH_KIND: dict[str, dict[str, Any]] = {
    "place": {
        "type": "place",
        "text": "north places t28 on 0,1 (r1)",
        "cell": "0,1",
        "tile": "t28",
        "rotation": 1,
    },
    "start": {
        "type": "start",
        "text": "north starts the blue civilization on the continent at 0,0:ne and takes 0 "
        "blue followers",
        "civ": "blue",
        "at": "0,0:ne",
        "followers": 0,
    },
    "token": {
        "type": "token",
        "text": "north plays a scoring token and scores 0 (2 tokens left)",
        "player": "north",
        "points": 0,
    },
    "draw": {"type": "draw", "text": "north draws a tile"},
    "take": {"type": "take", "text": "north takes a white follower", "civ": "white"},
    "replace": {
        "type": "replace",
        "text": "east replaces t28 on 0,1 with t16 (r0); t28 leaves the game",
        "cell": "0,1",
        "tile": "t16",
        "rotation": 0,
        "removed": "t28",
    },
    "temple": {
        "type": "temple",
        "text": "east scores 2 for the cup temple on the blue continent",
        "player": "east",
        "points": 2,
    },
    "end": {"type": "end", "text": "every scoring token has been played: the game ends"},
    "final_scoring": {
        "type": "final_scoring",
        "text": "final scoring (cups): north 9, east 7",
        "points": {"north": 9, "east": 7},
    },
    "result": {
        "type": "result",
        "text": "result: 1. east 22 points, 2. north 16 points",
        "ranking": [
            {"seat": 1, "player": "east", "points": 22, "followers": 6, "score": 22, "place": 1},
            {"seat": 0, "player": "north", "points": 16, "followers": 5, "score": 16, "place": 2},
        ],
    },
    "epoch": {
        "type": "epoch",
        "text": "north draws epoch tile 1 (the game ends with the 7th): epoch scoring",
        "epoch": 1,
    },
    "epoch_scoring": {
        "type": "epoch_scoring",
        "text": "pyramids score: north 5, east 3, south 3",
        "points": {"north": 5, "east": 3, "south": 3},
    },
    "conflict": {"type": "conflict", "text": "this starts a war; south pays one follower"},
    "pay": {
        "type": "pay",
        "text": "south returns a black follower to the supply",
        "colour": "black",
    },
    "war": {
        "type": "war",
        "text": "war between green and white: white wins",
        "civs": ["green", "white"],
        "winner": "white",
    },
    "civ_removed": {
        "type": "civ_removed",
        "text": "the green civilization lost: its marker and all its followers return "
        "to the supply (north 1, east 1, south 2)",
        "civ": "green",
    },
    "migration": {
        "type": "migration",
        "text": "the black civilization migrates to the continent at -1,-2:se",
        "civ": "black",
        "to": "-1,-2:se",
    },
    "skip": {"type": "skip", "text": "north can neither start a civilization nor take a follower"},
}


def test_the_first_event_of_each_kind_in_seeded_games() -> None:
    seen: dict[str, Any] = {}
    for seed in range(3):
        state = gheos.new_game(2 + seed, seed, engine="python")
        rng = random.Random(seed)
        while not state.is_over:
            for event in state.apply(rng.choice(state.legal_actions())):
                seen.setdefault(event["type"], event)
    assert seen == FIRST_OF_EACH_KIND
