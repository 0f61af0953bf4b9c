"""`cradle duel`: two bots play many games with seats swapped; the score with a 95% interval.

Bot A takes seat ``i % players`` in game ``i`` and bot B every other seat, so each seat (the
first player included) is A's equally often. A scores 1 for a win, 1/k for first place shared
by k seats, 0 otherwise; the interval is Wilson's score interval on that rate.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from rich.console import Console

from cradle import extra_hint
from cradle.ai.bots import Bot, UnknownBot, make_bot
from cradle.ai.match import IllegalChoice, play
from cradle.cli.common import CliError, fresh_seed, load_game, make_options
from cradle.core.contract import JSON, GameModule, GameState
from cradle.core.results import wilson_interval


@dataclass
class DuelResult:
    game: str
    a: str
    b: str
    players: int
    games: int = 0
    wins: int = 0
    draws: int = 0  # first place shared
    losses: int = 0
    score: float = 0.0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.score, self.games)

    def summary(self) -> dict[str, object]:
        low, high = self.interval()
        return {
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "players": self.players,
            "games": self.games,
            "a_wins": self.wins,
            "a_shared_wins": self.draws,
            "a_losses": self.losses,
            "a_score": round(self.rate, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "seconds": round(self.seconds, 2),
        }


def play_one(
    module: GameModule, players: int, seed: int, options: object, bots: list[Bot]
) -> GameState:
    """One game to the end; returns the final state."""
    state = module.new_game(players, seed, options)
    try:
        play(state, bots)
    except IllegalChoice as exc:
        raise CliError(
            f"bot {bots[exc.seat].name} chose an illegal action {exc.action!r} "
            f"(game seed {seed}): {exc.reason}",
            code=1,
        ) from None
    return state


def run_duel(
    game: str,
    a: str,
    b: str,
    games: int,
    players: int,
    options: JSON,
    seed: int | None,
    console: Console | None = None,
) -> DuelResult:
    if games < 1:
        raise CliError("--games must be at least 1")
    module = load_game(game)
    if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
        raise CliError(
            f"--players: {module.NAME} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} "
            f"players, not {players}"
        )
    game_options = make_options(module, options)
    try:
        make_bot(a, 0)
        make_bot(b, 0)
    except UnknownBot as exc:
        raise CliError(str(exc)) from None
    seed = fresh_seed() if seed is None else seed
    rng = random.Random(seed)
    result = DuelResult(module.NAME, a, b, players)
    start = time.perf_counter()
    for index in range(games):
        game_seed = rng.randrange(2**31)
        a_seat = index % players
        bots = [make_bot(a if seat == a_seat else b, game_seed + seat) for seat in range(players)]
        final = play_one(module, players, game_seed, game_options, bots)
        places = {row["seat"]: row["place"] for row in final.result()}
        firsts = sum(1 for place in places.values() if place == 1)
        result.games += 1
        if places[a_seat] != 1:
            result.losses += 1
        elif firsts == 1:
            result.wins += 1
            result.score += 1.0
        else:
            result.draws += 1
            result.score += 1.0 / firsts
        if console is not None and (index + 1) % 25 == 0 and index + 1 < games:
            low, high = result.interval()
            console.print(
                f"  {index + 1}/{games} games: {a} {result.rate:.3f} [{low:.3f}, {high:.3f}]",
                highlight=False,
            )
    result.seconds = time.perf_counter() - start
    return result


def report(result: DuelResult) -> str:
    low, high = result.interval()
    verdict = (
        f"{result.a} is stronger"
        if low > 1 / result.players
        else f"{result.b} is stronger"
        if high < 1 / result.players
        else "no difference shown at 95%"
    )
    return (
        f"{result.game}: {result.a} vs {result.b}, {result.games} games "
        f"({result.players} seats, swapped): {result.a} scores {result.rate:.3f} "
        f"(95% CI {low:.3f}-{high:.3f}; even would be {1 / result.players:.3f}); "
        f"{result.wins} won, {result.draws} shared, {result.losses} lost; {verdict} "
        f"[{result.seconds:.1f} s]"
    )


def run_env_bench(
    game: str,
    env: str,
    seconds: float,
    counts: list[int],
    options: JSON,
    seed: int | None,
) -> list[str]:
    """`cradle bench --env`: adapter overhead per player count; a text line, then JSON lines."""
    import json

    if not seconds > 0:
        raise CliError("--seconds must be more than 0")
    module = load_game(game)
    try:
        from cradle.envs.bench import ENVS, describe, measure
    except ImportError as exc:
        raise CliError(f"the research adapters need the extras: {exc}") from None
    if env not in ENVS:
        raise CliError(f"--env must be one of {', '.join(ENVS)}, not {env!r}")
    for players in counts:
        if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise CliError(
                f"--players: {module.NAME} is for {module.MIN_PLAYERS} to "
                f"{module.MAX_PLAYERS} players, not {players}"
            )
    seed = fresh_seed() if seed is None else seed
    lines = []
    for players in counts:
        try:
            summary = measure(module.NAME, env, players, options, seconds / len(counts), seed)
        except ImportError as exc:
            # OpenSpiel's games need its extra; every other env Gymnasium's (pettingzoo)
            extra = "openspiel" if env == "openspiel" else "pettingzoo"
            raise CliError(f"--env {env} needs {extra_hint(extra)}: {exc}") from None
        lines += [describe(summary), json.dumps(summary)]
    return lines
