"""Self-play data: games of a search bot against itself, written as ``.npz`` shards.

    python -m cradle.selfplay --game tigris --players 2 --bot ismcts@800 --games 100 --out DIR
    python -m cradle.selfplay ... --workers 4          # local processes
    python -m cradle.selfplay ... --ray ADDRESS        # a Ray cluster (docs/research.md)

Every seat is the bot ``--bot`` (a spec of ``cradle.ai.levels.make_bot_spec`` whose bot can
``analyse``: ``ismcts@N``, ``pimc@N``). At each decision with more than one legal action the
search's root visits become the policy target. ``ismcts@N`` (N iterations, no other settings)
plays natively, a shard's games all at once (``native_games``: the native search of the
``ismcts@N`` opponents, with an optional batched leaf evaluator, ``--evaluator
module:factory``); any other spec plays game by game through the Python bot. One shard per
``--games-per-shard`` games, ``DIR/shard-00000.npz`` on, with (P positions, ragged rows by
``offsets``):

- ``observation`` (P, W) float32: the flat tensor of the seat to move (docs/openspiel.md);
- ``legal_ids`` (sum of counts) int32 and ``offsets`` (P + 1) int64: position p's legal ids
  are ``legal_ids[offsets[p]:offsets[p + 1]]``, in the engine's order;
- ``visits`` (same length as ``legal_ids``) float32: the search's visit distribution over
  those ids (sums to 1; 0 for an id the search did not visit);
- ``seat``, ``ply``, ``game`` (P) int64: who moved, the game's decision number, the game id;
- ``result`` (P, players) float32: each seat's final ranking utility of the position's game;
- per game: ``game_ids``, ``game_seeds``, ``game_actions`` (ragged by ``game_offsets``): the
  record that replays each game (``new_game(players, seed, engine="native")`` and the ids).

A game that reaches the move cap (``spec.max_game_length``) is kept with utilities 0.
"""

from __future__ import annotations

import argparse
import importlib
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cradle.ai.bots import StallGuard, guarded_choice
from cradle.ai.cluster import RayUnreachable, connect
from cradle.ai.levels import make_bot_spec
from cradle.ai.search.result import SearchResult
from cradle.core.results import ranking_utilities
from cradle.envs.spec import FloatArray, get_spec

if TYPE_CHECKING:
    from cradle._native import Model

# A batched leaf evaluator: observations (B, W) float32 and the seats to move (B,) int64 ->
# (priors (B, A), values (B, players) relative to the seat to move; docs/research.md), as
# NumPy arrays or PyTorch tensors.
Evaluator = Callable[[np.ndarray, np.ndarray], tuple[object, object]]

NATIVE_BOT = re.compile(r"ismcts@([1-9][0-9]*)")


@dataclass(frozen=True)
class ShardTask:
    game: str
    players: int
    bot: str
    first_game: int
    games: int
    seed: int
    out: str
    # "module:factory", factory(game, players) -> Evaluator; None: the plain search
    evaluator: str | None = None
    # Per seat, a learned network (cradle.ai.model: a shipped name or a path) or None;
    # None: no seat has one.
    models: tuple[str | None, ...] | None = None
    learned: bool = False
    blend: float = 0.5
    temperature: float = 0.0
    sampled: int = 0
    noise: tuple[float, float] | None = None


def native_iterations(bot: str) -> int | None:
    """The iterations of a bot spec the native self-play plays (``ismcts@N``), else None."""
    found = NATIVE_BOT.fullmatch(bot)
    return int(found.group(1)) if found else None


# Evaluators made in this process, by (name, game, players): a model is loaded once, not per
# shard.
_EVALUATORS: dict[tuple[str, str, int], Evaluator] = {}


def load_evaluator(name: str, game: str, players: int) -> Evaluator:
    """The evaluator ``module:factory`` makes for ``game`` and ``players`` (once a process)."""
    key = (name, game, players)
    if key not in _EVALUATORS:
        _EVALUATORS[key] = _make_evaluator(name, game, players)
    return _EVALUATORS[key]


def _make_evaluator(name: str, game: str, players: int) -> Evaluator:
    module_name, _, attribute = name.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"an evaluator is named module:factory, not {name!r}")
    factory = getattr(importlib.import_module(module_name), attribute)
    evaluator: Evaluator = factory(game, players)
    if not callable(evaluator):
        raise TypeError(f"{name}({game!r}, {players}) did not return a callable")
    return evaluator


def uniform(game: str, players: int) -> Evaluator:
    """An evaluator factory whose evaluator answers equal priors and even values: neutral with
    ``blend=0`` (the search with it plays exactly as without it), the baseline a model is held
    against."""
    actions = get_spec(game).action_count

    def evaluate(observations: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = observations.shape[0]
        even = np.full((rows, players), 1.0 / players, np.float32)
        return np.ones((rows, actions), np.float32), even

    return evaluate


def _float32(x: Any) -> np.ndarray:
    """An answer of the evaluator as a C-contiguous float32 array (a PyTorch tensor too)."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(x, dtype=np.float32)


def seeds_of(seed: int, game_id: int, players: int) -> tuple[int, list[int]]:
    """Game ``game_id``'s deal seed and its seats' bot seeds, drawn from the run's seed."""
    rng = random.Random(seed * 1_000_003 + game_id)
    return rng.randrange(2**63), [rng.randrange(2**31) for _ in range(players)]


def native_games(
    game: str,
    players: int,
    iterations: int,
    game_ids: Sequence[int],
    seed: int,
    evaluator: Evaluator | None = None,
    *,
    models: Sequence[Model | None] | None = None,
    learned: bool = False,
    blend: float = 0.5,
    temperature: float = 0.0,
    sampled: int = 0,
    noise: tuple[float, float] | None = None,
) -> dict[str, np.ndarray]:
    """Play the games ``game_ids`` of the run ``seed`` at once natively, every seat the native
    ``ismcts@iterations``, and return the shard's arrays (module docstring).

    - ``models``: per seat, a learned network (``cradle._native.Model``, cradle.ai.model) its
      search uses at the leaves, or None for the plain search;
    - ``evaluator`` (instead): observations (B, W) float32 and the seats to move (B,) int64 ->
      priors (B, A) over the action ids and values (B, players) relative to each row's seat to
      move (NumPy arrays or PyTorch tensors); every search step of the batch asks it once,
      for one leaf of every game's tree;
    - with either, ``learned``: the model alone, the game's knowledge off; else its values
      mixed into each leaf's evaluation by ``blend`` (docs/research.md);
    - ``temperature``: a game's first ``sampled`` moves are drawn in proportion to the root
      visits ^ (1 / temperature), the rest the most visited;
    - ``noise``: (weight, alpha), Dirichlet noise on every root's priors."""
    from cradle import _native

    spec = get_spec(game)
    seeds = [seeds_of(seed, g, players) for g in game_ids]
    states: list[Any] = [spec.module.new_game(players, s, engine="native") for s, _ in seeds]
    wrapped = None
    if evaluator is not None:
        model = evaluator

        def wrapped(observations: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            priors, values = model(observations, seats)
            return _float32(priors), _float32(values)

    data = _native.selfplay_games(
        states,
        [bots for _, bots in seeds],
        iterations,
        spec.max_game_length(players),
        spec.action_count,
        wrapped,
        models=None if models is None else list(models),
        pure=learned,
        blend=blend,
        temperature=temperature,
        sampled=sampled,
        noise=noise,
    )
    game_offsets = data["game_offsets"]
    finals = []
    for k, (deal, _) in enumerate(seeds):
        state: Any = spec.module.new_game(players, deal, engine="native")
        for action in data["game_actions"][game_offsets[k] : game_offsets[k + 1]]:
            state.apply(int(action))
        finals.append(ranking_utilities(state.result()) if state.is_over else [0.0] * players)
    ids = np.asarray(game_ids, np.int64)
    width = spec.observation_size(players)
    return {
        "observation": data["observation"].reshape(-1, width),
        "legal_ids": data["legal_ids"],
        "visits": data["visits"],
        "offsets": data["offsets"],
        "seat": data["seat"],
        "ply": data["ply"],
        "game": ids[data["game"]],
        "result": np.asarray(finals, np.float32).reshape(-1, players)[data["game"]],
        "game_ids": ids,
        "game_seeds": np.asarray([s for s, _ in seeds], np.uint64),
        "game_actions": data["game_actions"],
        "game_offsets": game_offsets,
        "players": np.int64(players),
    }


def play_shard(task: ShardTask) -> dict[str, float]:
    """Play ``task.games`` games and write their shard; returns counts and seconds."""
    iterations = native_iterations(task.bot)
    if iterations is not None:
        began = time.perf_counter()
        evaluator = (
            load_evaluator(task.evaluator, task.game, task.players) if task.evaluator else None
        )
        ids = range(task.first_game, task.first_game + task.games)
        models = None
        if task.models is not None:
            from cradle.ai.model import load

            models = [None if m is None else load(m) for m in task.models]
        arrays: dict[str, Any] = native_games(
            task.game,
            task.players,
            iterations,
            ids,
            task.seed,
            evaluator,
            models=models,
            learned=task.learned,
            blend=task.blend,
            temperature=task.temperature,
            sampled=task.sampled,
            noise=task.noise,
        )
        np.savez_compressed(task.out, **arrays)
        seconds = time.perf_counter() - began
        return {
            "positions": float(len(arrays["seat"])),
            "games": float(task.games),
            "seconds": seconds,
        }
    if task.evaluator or task.models or task.temperature or task.noise:
        raise ValueError(
            "an evaluator, models, a temperature and noise need the native self-play "
            "(--bot ismcts@N)"
        )
    spec = get_spec(task.game)
    width = spec.observation_bounds(task.players)[0].shape[0]
    cap = spec.max_game_length(task.players)
    began = time.perf_counter()
    observations: list[FloatArray] = []
    legal: list[list[int]] = []
    visits: list[list[float]] = []
    seats: list[int] = []
    plies: list[int] = []
    game_of: list[int] = []
    results: list[FloatArray] = []
    game_seeds: list[int] = []
    game_actions: list[list[int]] = []
    for k in range(task.games):
        game_id = task.first_game + k
        game_seed, bot_seeds = seeds_of(task.seed, game_id, task.players)
        state: Any = spec.module.new_game(task.players, game_seed, engine="native")
        bots = [make_bot_spec(task.bot, s) for s in bot_seeds]
        guards = [StallGuard(relapse=2) for _ in range(task.players)]
        first_row = len(seats)
        actions: list[int] = []
        while not state.is_over and len(actions) < cap:
            seat = state.to_move
            ids = state.legal_action_ids()
            found: list[SearchResult] = []

            def analyse(
                s: Any, who: int, only: list[str] | None, bot: Any = bots[seat], out: Any = found
            ) -> Any:
                result = bot.analyse(s, who, only)
                out.append(result)
                return result

            action = guarded_choice(state, seat, guards[seat], analyse)
            if found:
                counts = dict.fromkeys(ids, 0.0)
                for row in found[0].actions:
                    counts[spec.encode_legal(state, [row.action])[0]] = float(row.visits)
                total = sum(counts.values())
                vector = np.zeros(width, np.float32)
                spec.fill_observation(state.view(seat), seat, vector)
                observations.append(vector)
                legal.append(ids)
                visits.append([counts[i] / total for i in ids])
                seats.append(seat)
                plies.append(len(actions))
                game_of.append(game_id)
            chosen = spec.encode_legal(state, [action])[0]
            state.apply(action)
            actions.append(chosen)
        utilities = ranking_utilities(state.result()) if state.is_over else [0.0] * task.players
        final: FloatArray = np.asarray(utilities, np.float32)
        results += [final] * (len(seats) - first_row)
        game_seeds.append(game_seed)
        game_actions.append(actions)
    lengths = [len(row) for row in legal]
    game_lengths = [len(a) for a in game_actions]
    np.savez_compressed(
        task.out,
        observation=np.asarray(observations, np.float32).reshape(-1, width),
        legal_ids=np.asarray([i for row in legal for i in row], np.int32),
        visits=np.asarray([v for row in visits for v in row], np.float32),
        offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        seat=np.asarray(seats, np.int64),
        ply=np.asarray(plies, np.int64),
        game=np.asarray(game_of, np.int64),
        result=np.asarray(results, np.float32).reshape(-1, task.players),
        game_ids=np.arange(task.first_game, task.first_game + task.games, dtype=np.int64),
        game_seeds=np.asarray(game_seeds, np.uint64),
        game_actions=np.asarray([i for a in game_actions for i in a], np.int64),
        game_offsets=np.concatenate([[0], np.cumsum(game_lengths)]).astype(np.int64),
        players=np.int64(task.players),
    )
    seconds = time.perf_counter() - began
    return {"positions": float(len(seats)), "games": float(task.games), "seconds": seconds}


def tasks_for(
    game: str,
    players: int,
    bot: str,
    games: int,
    per_shard: int,
    seed: int,
    out: Path,
    evaluator: str | None = None,
    **native: object,
) -> list[ShardTask]:
    """The shards' tasks; ``native``: the native self-play's settings (ShardTask's fields
    from ``models`` on)."""
    return [
        ShardTask(
            game,
            players,
            bot,
            first,
            min(per_shard, games - first),
            seed,
            str(out / f"shard-{first // per_shard:05d}.npz"),
            evaluator,
            **native,  # type: ignore[arg-type]
        )
        for first in range(0, games, per_shard)
    ]


def run(
    tasks: Sequence[ShardTask], workers: int, ray_address: str | None
) -> list[dict[str, float]]:
    """Play the shards in this process (``workers`` 1), in local processes, or as Ray tasks on
    the cluster at ``ray_address`` (``local``: a Ray instance started here for the run)."""
    if ray_address:
        import ray

        started = connect(ray_address, workers)
        try:
            remote = ray.remote(play_shard)
            done: list[dict[str, float]] = ray.get([remote.remote(t) for t in tasks])
            return done
        finally:
            if started:
                ray.shutdown()
    if workers <= 1:
        return [play_shard(t) for t in tasks]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(play_shard, tasks))


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m cradle.selfplay", description=__doc__)
    p.add_argument("--game", default="tigris", choices=["tigris", "gheos"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--bot", default="ismcts@800")
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--games-per-shard", type=int, default=16)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--ray", default=None, help="a Ray address, or 'local'")
    p.add_argument(
        "--evaluator",
        default=None,
        help="module:factory, factory(game, players) returning a batched leaf evaluator "
        "(ismcts@N only; docs/research.md)",
    )
    p.add_argument(
        "--model",
        action="append",
        default=None,
        help="a learned network for every seat (a shipped name or a path; ismcts@N only), or "
        "one per seat: --model A --model B ('none': that seat's plain search)",
    )
    p.add_argument("--learned", action="store_true", help="the network alone, knowledge off")
    p.add_argument("--blend", type=float, default=0.5, help="the network's share of a leaf value")
    p.add_argument("--temperature", type=float, default=0.0, help="draw the first moves by visits")
    p.add_argument("--sampled", type=int, default=0, help="moves a game drawn by temperature")
    p.add_argument(
        "--noise", default=None, help="Dirichlet noise at the roots: WEIGHT,ALPHA (0.25,0.3)"
    )
    args = p.parse_args(argv)
    module = get_spec(args.game).module
    if not module.MIN_PLAYERS <= args.players <= module.MAX_PLAYERS:
        p.error(f"{args.game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players")
    if args.games < 1 or args.games_per_shard < 1:
        p.error("--games and --games-per-shard must be at least 1")
    probe = make_bot_spec(args.bot, 0)  # a bad spec fails here, before any game
    if not hasattr(probe, "analyse"):
        p.error(f"{args.bot!r} does not search (use ismcts@N or pimc@N)")
    if args.evaluator:
        if native_iterations(args.bot) is None:
            p.error("--evaluator needs the native self-play: --bot ismcts@N")
        try:  # a bad name fails here, before any game
            load_evaluator(args.evaluator, args.game, args.players)
        except (ImportError, AttributeError, ValueError, TypeError) as error:
            p.error(f"--evaluator {args.evaluator}: {error}")
    native: dict[str, object] = {
        "learned": args.learned,
        "blend": args.blend,
        "temperature": args.temperature,
        "sampled": args.sampled,
    }
    if args.model or args.temperature or args.sampled or args.noise or args.learned:
        if native_iterations(args.bot) is None:
            p.error("--model, --learned, --temperature, --sampled and --noise need --bot ismcts@N")
    if args.model:
        if args.evaluator:
            p.error("--model or --evaluator, not both")
        names = args.model * args.players if len(args.model) == 1 else args.model
        if len(names) != args.players:
            p.error(f"--model once for every seat, or once per seat ({args.players})")
        models = tuple(None if m.lower() == "none" else m for m in names)
        from cradle.ai.model import load

        for m in models:
            if m is not None:
                try:
                    load(m)
                except ValueError as error:
                    p.error(f"--model: {error}")
        native["models"] = models
    elif args.learned and not args.evaluator:
        p.error("--learned needs --model or --evaluator")
    if args.noise:
        try:
            weight, alpha = (float(x) for x in args.noise.split(","))
        except ValueError:
            p.error(f"--noise is WEIGHT,ALPHA, not {args.noise!r}")
        native["noise"] = (weight, alpha)
    if args.temperature < 0 or args.sampled < 0 or not 0 <= args.blend <= 1:
        p.error("--temperature and --sampled are at least 0, --blend 0 to 1")
    args.out.mkdir(parents=True, exist_ok=True)
    tasks = tasks_for(
        args.game,
        args.players,
        args.bot,
        args.games,
        args.games_per_shard,
        args.seed,
        args.out,
        args.evaluator,
        **native,
    )
    began, cpu = time.perf_counter(), time.process_time()
    try:
        done = run(tasks, args.workers, args.ray)
    except RayUnreachable as error:
        p.exit(2, f"{p.prog}: {error}\n")
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    positions = int(sum(d["positions"] for d in done))
    here = args.workers <= 1 and not args.ray
    per_cpu = f", {positions / cpu:.1f} per CPU-second here" if here else ""
    print(
        f"{args.games} games, {positions} positions in {len(tasks)} shards under {args.out} "
        f"({positions / seconds:.1f} positions/s{per_cpu})"
    )


if __name__ == "__main__":
    main()
