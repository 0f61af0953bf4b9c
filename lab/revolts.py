"""Is the search exploitable in conflicts? ``hard`` (or a candidate) against the styles.

The fixed protocol of lab/notebook/revolts.md: ``--bot`` meets each opponent (the styles
``red-keeper``, ``turtle``, ``warmonger``, and ``pimc``, ``expert-rules``) in 2-player games,
both seatings per seed, and in 4-player games against three copies of the opponent, the bot
in each seat once per seed; the seeds are shared by every opponent and every bot tried. Each
game's record goes to ``<out>/revolts.jsonl`` as it ends (a stopped run goes on); the report
(score with its Wilson interval, and conflicts won, lost and lost on a tie, as attacker and as
defender, for the bot) to ``<out>/revolts.md``.

    python -m lab revolts --bot hard --games 60 --workers 2 --out results/revolts-hard
    python -m lab revolts --bot "hard/sure=1/belief=1" --games 60 --out results/revolts-new
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from cradle.ai.search.parallel import map_local
from cradle.ai.tournament import GameTask, TableRecord, play_game
from cradle.core.results import wilson_interval
from cradle.tigris import Revolt, War, as_tigris
from lab.command import run_command
from lab.records import PlayedGame

OPPONENTS = ("red-keeper", "turtle", "warmonger", "pimc", "expert-rules")
RESULTS = "revolts.jsonl"
KINDS = ("revolt", "war")
OUTCOMES = ("won", "lost", "tied")  # tied: lost on a tie (ties go to the defender)


@dataclass(frozen=True)
class Meeting:
    """One game: ``bot`` in ``seat``, the opponent in every other seat."""

    bot: str
    opponent: str
    players: int
    seed: int
    seat: int

    @property
    def seating(self) -> tuple[str, ...]:
        return tuple(self.bot if s == self.seat else self.opponent for s in range(self.players))

    @property
    def key(self) -> str:
        return f"{self.players}/{self.seed}/{self.seat}/{self.bot}|{self.opponent}"


def schedule(
    bot: str, opponents: Sequence[str], games: int, players: Sequence[int], seed: int
) -> list[Meeting]:
    """At least ``games`` games per pairing and player count, whole rotations of the seats."""
    seeds = random.Random(seed)
    out: list[Meeting] = []
    for count in players:
        rotations = -(-games // count)
        shared = [seeds.randrange(2**31) for _ in range(rotations)]
        for opponent in opponents:
            for game_seed in shared:
                out.extend(Meeting(bot, opponent, count, game_seed, s) for s in range(count))
    return out


def conflicts(record: TableRecord) -> list[dict[str, object]]:
    """Every revolt and war of a recorded Tigris game replayed: kind, attacker, defender,
    the two strengths after the commitments, and the winner."""
    played = PlayedGame.from_line(record)
    if played is None:
        return []
    state = played.record.start()
    game = as_tigris(state)
    decision, strengths = game.decision(), game.conflict_strengths()  # before the next action
    out: list[dict[str, object]] = []
    attack = 0
    for step in played.record.steps_from(state):
        if isinstance(decision, Revolt | War) and strengths and step.action.startswith("commit "):
            committed = int(step.action.split()[1])
            if decision.attacker_commit is None:
                attack = strengths[0] + committed
            else:
                defence = strengths[1] + committed
                out.append(
                    {
                        "kind": decision.kind,
                        "attacker": decision.attacker,
                        "defender": decision.defender,
                        "attack": attack,
                        "defence": defence,
                        "winner": decision.attacker if attack > defence else decision.defender,
                    }
                )
        game = as_tigris(step.state)
        decision, strengths = game.decision(), game.conflict_strengths()
    return out


def play(meeting: Meeting) -> dict[str, object]:
    record = play_game(GameTask(0, "tigris", meeting.seed, meeting.seating))
    return {
        "key": meeting.key,
        "seat": meeting.seat,
        "opponent": meeting.opponent,
        "players": meeting.players,
        "record": record,
        "conflicts": conflicts(record),
    }


def tally(rows: Sequence[dict[str, object]]) -> dict[str, dict[str, float]]:
    """Per opponent and player count: games, the bot's score (the share of the others it
    finished ahead of), and its conflicts by kind, role and outcome."""
    table: dict[str, dict[str, float]] = {}
    for row in rows:
        record: TableRecord = row["record"]  # type: ignore[assignment]
        seat = int(row["seat"])  # type: ignore[call-overload]
        name = f"{row['opponent']} ({row['players']}p)"
        entry = table.setdefault(name, {"games": 0.0, "score": 0.0})
        places = record["places"]
        others = [p for s, p in enumerate(places) if s != seat]
        entry["games"] += 1
        entry["score"] += sum(
            1.0 if places[seat] < p else 0.5 if places[seat] == p else 0.0 for p in others
        ) / len(others)
        for conflict in row["conflicts"]:  # type: ignore[attr-defined]
            role = (
                "attacker"
                if conflict["attacker"] == seat
                else ("defender" if conflict["defender"] == seat else None)
            )
            if role is None:
                continue
            won = conflict["winner"] == seat
            tied = conflict["attack"] == conflict["defence"]
            outcome = "won" if won else "tied" if tied else "lost"
            key = f"{conflict['kind']} {role} {outcome}"
            entry[key] = entry.get(key, 0.0) + 1
    return table


def report(bot: str, table: dict[str, dict[str, float]]) -> str:
    lines = [
        f"# {bot} against the styles",
        "",
        "| pairing | games | score | 95% interval | revolts as attacker won/lost/tied "
        "| as defender won/lost/tied | wars as attacker w/l/t | as defender w/l/t |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in sorted(table.items()):
        games = int(entry["games"])
        low, high = wilson_interval(entry["score"], games)

        def cell(kind: str, role: str, entry: dict[str, float] = entry) -> str:
            return "/".join(str(int(entry.get(f"{kind} {role} {o}", 0))) for o in OUTCOMES)

        lines.append(
            f"| {name} | {games} | {entry['score'] / games:.2f} | {low:.2f}–{high:.2f} | "
            f"{cell('revolt', 'attacker')} | {cell('revolt', 'defender')} | "
            f"{cell('war', 'attacker')} | {cell('war', 'defender')} |"
        )
    return "\n".join(lines) + "\n"


app = typer.Typer(add_completion=False)


@app.command()
def revolts(
    bot: Annotated[str, typer.Option(help="The bot on trial (a spec).")] = "hard",
    opponent: Annotated[list[str] | None, typer.Option(help="Opponents (default: all).")] = None,
    games: Annotated[int, typer.Option(help="Games per pairing and player count.")] = 60,
    players: Annotated[list[int] | None, typer.Option(help="Player counts.")] = None,
    seed: Annotated[int, typer.Option(help="The seed of the shared seeds.")] = 2059,
    workers: Annotated[int, typer.Option(help="Processes.")] = 1,
    out: Annotated[Path, typer.Option(help="Folder of the records and the report.")] = Path(
        "results/revolts"
    ),
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / RESULTS
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done = {row["key"] for row in rows}
    todo = [
        m
        for m in schedule(bot, opponent or OPPONENTS, games, players or [2, 4], seed)
        if m.key not in done
    ]
    with path.open("a") as sink:

        def keep(row: dict[str, object]) -> None:
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            rows.append(row)

        map_local(play, todo, workers, progress=keep)
    text = report(bot, tally(rows))
    (out / "revolts.md").write_text(text)
    print(text, end="")


def main(argv: list[str] | None = None) -> None:
    run_command(app, __name__, argv)


if __name__ == "__main__":
    main()
