"""The `cradle` command: play, bench, replay and render.

Every failure the user can cause (bad flags, bad files, unknown game or bot) ends with one
line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from cradle.cli.common import (
    CliError,
    GameOpt,
    OptionOpt,
    SeedOpt,
    option_dict,
    parse_counts,
)
from cradle.core.contract import JSON


class CradleGroup(TyperGroup):
    """Turns usage errors and CliError into a one-line message and an exit code."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            code = super().main(
                args=args,
                prog_name=prog_name or "cradle",
                complete_var=complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except CliError as exc:
            fail(exc.message, exc.code)
        except typer.TyperException as exc:
            # Click's usage errors (bad flag, bad value, unknown command) derive from this.
            fail(exc.format_message(), int(getattr(exc, "exit_code", 2)))
        except typer.Abort:
            fail("aborted", 1)
        except Exception as exc:
            # A bug, not a user error: still one line, with the way to see the traceback.
            if os.environ.get("CRADLE_DEBUG"):
                raise
            fail(f"internal error: {type(exc).__name__}: {exc} (CRADLE_DEBUG=1 shows where)", 1)
        sys.exit(code if isinstance(code, int) else 0)


TilesOpt = Annotated[
    Path | None,
    typer.Option("--tiles", help="Gheos: your own tile-set file (format in docs/gheos.md)."),
]


def chosen_options(option: list[str] | None, game: str, tiles: Path | None) -> JSON:
    """The options asked for with ``-o`` (:func:`option_dict`), plus Gheos's tile set from
    --tiles: the file's text (the option carries a set's text, never a path, so records replay
    anywhere)."""
    options = option_dict(option)
    if tiles is None:
        return options
    if game.strip().lower() != "gheos":
        raise CliError(f"--tiles: only Gheos has a tile set, not {game}")
    try:
        text = tiles.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise CliError(f"--tiles: cannot read {tiles}: {reason}") from None
    return {**options, "tiles": text if "\n" in text else text + "\n"}


def fail(message: str, code: int) -> None:
    first_line = message.strip().splitlines()[0] if message.strip() else "failed"
    print(f"cradle: error: {first_line}", file=sys.stderr)
    sys.exit(code)


app = typer.Typer(
    cls=CradleGroup,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Click's plain help: rich's boxed tables cut long option names ("--live-games-per-c…") in
    # an 80-column terminal; the plain list wraps the words and keeps every name whole.
    rich_markup_mode=None,
    help="Tigris & Euphrates and Gheos: play, benchmark, replay and render.",
)


@app.callback(invoke_without_command=True)
def root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        print(ctx.get_help())


@app.command()
def play(
    game: GameOpt = "tigris",
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Number of seats (default: 2).")
    ] = None,
    humans: Annotated[
        int, typer.Option("--humans", help="Human seats, sharing this terminal (hot seat).")
    ] = 1,
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help="A bot for every other seat (random), a count (3) or one per seat (random,greedy).",
        ),
    ] = "random",
    seed: SeedOpt = None,
    save: Annotated[
        Path | None,
        typer.Option("--save", help="Write the game record here at the end or on quit."),
    ] = None,
    option: OptionOpt = None,
    tiles: TilesOpt = None,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="The language to play in: en, es, pt_BR or pt_PT (default: the locale's).",
        ),
    ] = None,
) -> None:
    """Play in the terminal: against bots, or hot seat with --humans."""
    from cradle import i18n
    from cradle.cli.play import setup_session

    try:
        i18n.use(lang)
    except ValueError as exc:
        raise CliError(f"--lang: {exc}") from None
    options = chosen_options(option, game, tiles)
    session = setup_session(Console(), game, players, humans, bots, seed, options, save)
    raise typer.Exit(session.run())


@app.command()
def bench(
    game: GameOpt = "tigris",
    seconds: Annotated[
        float,
        typer.Option(
            "--seconds", help="Total time budget in seconds, split between the player counts."
        ),
    ] = 25.0,
    players: Annotated[
        str, typer.Option("--players", "-p", help="Player counts to measure, e.g. 2,4.")
    ] = "2,4",
    seed: SeedOpt = None,
    option: OptionOpt = None,
    tiles: TilesOpt = None,
    env: Annotated[
        str | None,
        typer.Option(
            "--env",
            help="Measure a research adapter: openspiel or pettingzoo (overhead over the engine), vector (steps/s), single (learner steps/s against bots).",
        ),
    ] = None,
    ai: Annotated[
        bool, typer.Option("--ai", help="Measure the AI instead: ISMCTS iterations per second.")
    ] = False,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="Engines to compare in one run, e.g. native,python (playouts, id and "
            "string loops, or with --ai the search; the JSON line gives the native speed-up).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="With --ai: search with this learned network (a shipped name or a path).",
        ),
    ] = None,
    learned: Annotated[
        bool,
        typer.Option("--learned", help="With --ai --model: the network alone, knowledge off."),
    ] = False,
) -> None:
    """Random self-play speed; ends with one JSON line of games/s, actions/s, legal_actions/s
    (per second and per CPU-second) and the load average."""
    from cradle.cli.bench import json_line, run_bench

    counts = list(dict.fromkeys(parse_counts(players, "--players")))
    options = chosen_options(option, game, tiles)
    if env is not None:
        from cradle.cli.duel import run_env_bench

        for line in run_env_bench(game, env, seconds, counts, options, seed):
            print(line, flush=True)
        return
    if ai:
        from cradle.cli.bench import parse_engines, run_ai_bench

        engines = parse_engines(engine) if engine is not None else None
        summary = run_ai_bench(
            Console(), game, seconds, counts, options, seed, engines, model, learned
        )
        print(json_line(summary), flush=True)
        return
    if engine is not None:
        from cradle.cli.bench import parse_engines, run_engines_bench

        engines = parse_engines(engine)
        summary = run_engines_bench(Console(), game, seconds, counts, options, seed, engines)
        print(json_line(summary), flush=True)
        return
    summary = run_bench(Console(), game, seconds, counts, options, seed)
    print(json_line(summary), flush=True)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A game record (JSON) saved by play --save.")],
    show: Annotated[
        bool, typer.Option("--show", help="Print every action, its events and the final board.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only the final position (to_position) as JSON.")
    ] = False,
) -> None:
    """Replay a game record to its final state and print the result."""
    from cradle.cli.replay import run_replay

    run_replay(Console(), file, show, as_json)


@app.command()
def render(
    game: Annotated[
        str | None, typer.Option("--game", "-g", help="tigris or gheos (default: tigris).")
    ] = None,
    seed: SeedOpt = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Render the position this record ends in.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="SVG file to write (default: GAME.svg).")
    ] = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats of a new game.")] = 2,
    option: OptionOpt = None,
    tiles: TilesOpt = None,
) -> None:
    """Write an SVG picture of a position (spectators' view)."""
    from cradle.cli.replay import run_render

    options = chosen_options(option, game or "tigris", tiles)
    run_render(Console(), game, seed, record, out, players, options)


@app.command()
def duel(
    game: GameOpt = "tigris",
    a: Annotated[str, typer.Option("--a", help="Bot A (e.g. greedy).")] = "greedy",
    b: Annotated[str, typer.Option("--b", help="Bot B, in every other seat.")] = "random",
    games: Annotated[int, typer.Option("--games", "-n", help="Games to play.")] = 200,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats per game.")] = 2,
    seed: SeedOpt = None,
    option: OptionOpt = None,
) -> None:
    """Bot A against bot B with seats swapped: A's score and its 95% interval, then JSON."""
    import json

    from cradle.cli.duel import report, run_duel

    options = option_dict(option)
    result = run_duel(game, a, b, games, players, options, seed, Console())
    print(report(result), flush=True)
    print(json.dumps(result.summary()), flush=True)


@app.command()
def tournament(
    game: GameOpt = "tigris",
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help="Bots to rate, by name or name@budget (ismcts@2s, pimc@300), comma-separated.",
        ),
    ] = "ismcts,pimc,greedy,random",
    players: Annotated[int, typer.Option("--players", "-p", help="Seats at each table.")] = 2,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Rounds: seeds, each played in every seating.")
    ] = 2,
    seconds: Annotated[
        float | None, typer.Option("--seconds", help="Budget per decision of pimc and ismcts.")
    ] = None,
    iterations: Annotated[
        int | None,
        typer.Option("--iterations", help="Budget per decision in iterations instead."),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Local processes (default: cores).")
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option("--ray", help="Run on the Ray cluster at ADDRESS ('local' starts one here)."),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", help="Folder for results.json, results.csv, ratings.png.")
    ] = Path("tournament"),
    seed: SeedOpt = None,
    option: OptionOpt = None,
    tiles: TilesOpt = None,
) -> None:
    """Round-robin between bots with seat rotation and shared seeds; openskill ratings."""
    from cradle.cli.tournament import run_tournament

    options = chosen_options(option, game, tiles)
    run_tournament(
        Console(), game, bots, players, games, seconds, iterations, workers, ray, out, seed, options
    )


@app.command()
def hint(
    game: GameOpt = "tigris",
    record: Annotated[
        Path | None,
        typer.Option("--record", help="Advise on the position this game record ends in."),
    ] = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats of a new game.")] = 2,
    seat: Annotated[
        int | None, typer.Option("--seat", help="The seat asking (must be the seat to move).")
    ] = None,
    count: Annotated[int, typer.Option("--count", "-n", help="How many actions to list.")] = 3,
    seconds: Annotated[
        float | None, typer.Option("--seconds", help="Thinking time (default 1 s).")
    ] = None,
    iterations: Annotated[
        int | None, typer.Option("--iterations", help="Thinking budget in iterations instead.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the hints as JSON.")] = False,
    seed: SeedOpt = None,
    option: OptionOpt = None,
    tiles: TilesOpt = None,
) -> None:
    """The best few actions for the seat to move, with their chances and reasons."""
    from cradle.cli.hint import position_from, run_hint

    options = chosen_options(option, game, tiles)
    state = position_from(game, record, players, seed, options)
    run_hint(Console(), state, seat, count, seconds, iterations, seed, as_json)


# `serve`, `loadtest` and `admin` live with the play server (they import its extra only when run).
from cradle.server.admin import register as register_admin_commands  # noqa: E402
from cradle.server.cli import register as register_server_commands  # noqa: E402

register_server_commands(app)
register_admin_commands(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
