"""``python -m lab``: the list of experiment commands; ``python -m lab NAME ARGS...`` runs one."""

from __future__ import annotations

import importlib
import sys

# name -> what it answers (each is also ``python -m lab.NAME``)
COMMANDS = {
    "ladder": "hard against outside opponents, rated (make ladder)",
    "sprt": "is a change stronger: a sequential test at equal time",
    "review": "a longer search's opinion of a bot's recorded decisions",
    "starts": "a bot's two-player results split by who started; runs paired game by game",
    "course": "how a bot's recorded Gheos games went: points by source, margins, followers",
    "timing": "whether playing a Gheos scoring token earlier would have won more",
    "wars": "which Gheos civilizations die in wars, by how they are threatened",
    "hand_reading": "how much a Gheos player's moves say about the tile it keeps",
    "calibration": "how well Gheos' evaluations call the winner, and their best temperature",
    "colour_balance": "each bot's final lowest colour and colour gap in Tigris pairs",
    "training": "self-play and the learned evaluation's model file (make models)",
    "openspiel_arena": "matches against OpenSpiel's ISMCTSBot at equal time",
    "belief": "how well the public belief reads the Tigris hands",
    "waiting": "a level's thinking per decision and per turn",
    "revolts": "hard's conflicts against the styles that exploit (won, lost, lost on ties)",
    "vector_arrays": "the vector env's steps per CPU-second with its arrays recycled or fresh",
    "signin_flood": "the owner's sign-in under the probe's lockout attack and hash flood, timed",
    "model_speed": "the search's iterations per CPU-second with a learned network, and without",
    "testcpu": "the test suite's CPU-seconds, per test (a pytest plugin) and in all (run)",
    "procsplit": "a command's CPU-seconds by kind of process (servers, browsers, node, pytest)",
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {about}" for name, about in COMMANDS.items())
    return f"usage: python -m lab COMMAND [ARGS]...\n\ncommands:\n{rows}\n"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0
    name = argv[0].replace("-", "_")
    if name not in COMMANDS:
        print(f"unknown command {argv[0]!r}\n\n{usage()}", end="", file=sys.stderr)
        return 2
    module = importlib.import_module(f"lab.{name}")
    sys.argv = [f"python -m lab {name}", *argv[1:]]
    module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
