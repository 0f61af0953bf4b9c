"""`cradle tournament`: round-robin games between bots, results files and ratings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cradle import extra_hint
from cradle.cli.common import CliError, check_budget, fresh_seed, load_game, make_options
from cradle.core.contract import JSON

if TYPE_CHECKING:
    from cradle.ai.tournament import Report


def check_bots(specs: list[str]) -> None:
    """Build each bot once, so a bad name fails before any game starts."""
    from cradle.ai.bots import UnknownBot
    from cradle.ai.levels import make_bot_spec

    for spec in specs:
        try:
            make_bot_spec(spec, 0)
        except UnknownBot as exc:
            raise CliError(f"--bots: {exc}") from None


def run_tournament(
    console: Console,
    game: str,
    bots_text: str,
    players: int,
    rounds: int,
    seconds: float | None,
    iterations: int | None,
    workers: int | None,
    ray_address: str | None,
    out: Path,
    seed: int | None,
    options: JSON,
) -> Report:
    from cradle.ai import tournament as t
    from cradle.ai.tournament import TableRecord

    module = load_game(game)
    if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
        raise CliError(
            f"--players: {module.NAME} is for {module.MIN_PLAYERS} to "
            f"{module.MAX_PLAYERS} players, not {players}"
        )
    specs = [s.strip() for s in bots_text.split(",") if s.strip()]  # a model's path keeps its case
    if len(specs) < 2:
        raise CliError("--bots: name at least two bots, separated by commas")
    if len(set(specs)) != len(specs):
        raise CliError("--bots: each bot once (the schedule seats them several times)")
    if rounds < 1:
        raise CliError("--games must be at least 1")
    check_budget(seconds, iterations)
    check_bots(specs)
    make_options(module, options)  # a bad option fails here, not in every worker
    workers = workers if workers is not None else max(1, os.cpu_count() or 1)
    if workers < 1:
        raise CliError("--workers must be at least 1")
    if ray_address is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise CliError(f"--ray needs Ray: {extra_hint('ray')}") from None
    try:
        import matplotlib  # noqa: F401
        import openskill  # noqa: F401
    except ImportError:
        raise CliError(f"tournaments need {extra_hint('ai')}") from None
    seed = fresh_seed() if seed is None else seed
    tasks = t.schedule(module.NAME, specs, players, rounds, seed, options, seconds, iterations)
    where = f"Ray at {ray_address}" if ray_address else f"{workers} local process(es)"
    console.print(
        f"{module.NAME}, {players} players: {len(tasks)} games "
        f"({rounds} seed(s) × {len(t.lineups(specs, players))} lineup(s) × {players} seatings) "
        f"on {where}, seed {seed}"
    )
    with Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        job = bar.add_task("games", total=len(tasks))

        done: list[int] = []

        def advance(record: TableRecord) -> None:
            bar.advance(job)
            done.append(1)
            if not console.is_terminal:
                # Logs of long runs: one line per finished game instead of a redrawn bar.
                places = ", ".join(
                    f"{bot} {place}"
                    for bot, place in zip(record["seating"], record["places"], strict=True)
                )
                console.print(
                    f"game {len(done)}/{len(tasks)} (seed {record['seed']}): {places}",
                    markup=False,
                )

        try:
            if ray_address is not None:
                records = t.run_ray(tasks, ray_address, workers, advance)
            else:
                records = t.run_local(tasks, workers, advance)
        except RuntimeError as exc:
            raise CliError(str(exc), code=1) from None
    settings = t.settings_dict(
        game=module.NAME,
        players=players,
        bots=specs,
        rounds=rounds,
        seed=seed,
        seconds=seconds,
        iterations=iterations,
        options=options,
        title=f"{module.NAME}, {players} players, {len(records)} games",
    )
    report = t.summary(records, settings)
    written = t.write_results(out, report)
    console.print(ratings_table(report))
    console.print(head_to_head_table(report))
    console.print("wrote " + ", ".join(str(p) for p in written))
    return report


def ratings_table(report: Report) -> Table:
    table = Table(title="ratings (openskill, 95% interval)", box=box.SIMPLE_HEAD)
    for heading in ("bot", "mu", "interval", "seats", "mean reward", "s/decision"):
        table.add_column(heading, justify="left" if heading == "bot" else "right")
    times = report["seconds_per_decision"]
    for bot, r in report["ratings"].items():
        table.add_row(
            bot,
            f"{r['mu']:.1f}",
            f"{r['low']:.1f} – {r['high']:.1f}",
            str(r["seats"]),
            f"{r['mean_reward']:.3f}" if r["mean_reward"] is not None else "-",
            f"{times.get(bot, 0.0):.3f}",
        )
    return table


def head_to_head_table(report: Report) -> Table:
    table = Table(title="head to head: share of meetings won (ties half)", box=box.SIMPLE_HEAD)
    table.add_column("bot")
    table.add_column("against")
    for heading in ("score", "95% interval", "meetings"):
        table.add_column(heading, justify="right")
    for bot, row in report["head_to_head"].items():
        for other, cell in row.items():
            table.add_row(
                bot,
                other,
                f"{cell['score']:.0%}",
                f"{cell['low']:.0%} – {cell['high']:.0%}",
                str(cell["meetings"]),
            )
    return table
