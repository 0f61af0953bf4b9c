"""The training loop of ``python -m cradle.learn``.

Each iteration:

1. **Self-play** with the best model so far (none at first: the plain search, whose games are
   the first lesson; with ``--learned`` a fresh network instead, the knowledge off): the native
   batched self-play of ``cradle.selfplay`` (``ismcts@--search`` in every seat), the first
   ``--sampled`` moves of a game drawn from the root visits at ``--temperature``, Dirichlet
   noise (``--noise-weight``, ``--noise-alpha``) at every root, no resignation (games are
   played out). One shard per iteration, ``DIR/shards/iteration-NNNN.npz``. With
   ``--teacher SPEC`` the shard is a teacher's games instead (cradle.learn.teacher: a native
   bot against ``--teacher-opponents``, its chosen action the policy target): imitation.
2. **Training** on the replay window (the last ``--window`` iterations' shards): ``--steps``
   minibatches of ``--batch`` positions, AdamW, the policy against the search's visits, the
   values against the rank rewards.
3. **Export** to ``DIR/models/iteration-NNNN.safetensors`` (the checkpoint format).
4. **Gate**: the new model against the best (none: the plain search), every seating of the
   new one on the same deals and seeds; at least ``--gate-threshold`` of the points makes it
   the best (``DIR/best.safetensors``). Then the **anchor**: the new model against the plain
   search, the same way: the strength the plot shows.

``DIR/log.jsonl`` has a line per iteration (losses, the gate's and the anchor's scores, the
seconds), ``DIR/strength.png`` the anchor's Elo by iteration; ``DIR/state.json`` and
``DIR/train.pkl`` let a stopped run go on where it was (``--out`` the same directory).
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from cradle.envs.spec import get_spec
from cradle.envs.tensors import observation_scales
from cradle.selfplay import native_games


class Progress(Protocol):
    """A progress bar (tqdm's)."""

    def update(self, n: float | None = 1) -> bool | None: ...


Entry = dict[str, float | int | bool | str | None]


@dataclass(frozen=True)
class Plan:
    """The run's settings (stored with it: a resumed run keeps them)."""

    game: str
    players: int
    iterations: int
    games: int
    search: int
    hidden: tuple[int, ...]
    window: int
    steps: int
    batch: int
    learning_rate: float
    weight_decay: float
    learned: bool
    blend: float
    temperature: float
    sampled: int
    noise_weight: float
    noise_alpha: float
    gate_games: int
    gate_threshold: float
    anchor_games: int
    chunk: int
    seed: int
    teacher: str | None = None
    teacher_opponents: tuple[str, ...] = ()


TINY = {
    "games": 2,
    "search": 8,
    "hidden": (16, 16),
    "steps": 4,
    "batch": 32,
    "gate_games": 1,
    "anchor_games": 1,
    "sampled": 4,
    "chunk": 2,
}


def parse(argv: Sequence[str] | None) -> tuple[Plan, Path, bool]:
    p = argparse.ArgumentParser(
        prog="python -m cradle.learn", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    p.add_argument("--game", default="tigris", choices=["tigris", "gheos"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--iterations", type=int, default=10, help="iterations of the loop")
    p.add_argument("--out", type=Path, default=None, help="the run's directory")
    p.add_argument("--tiny", action="store_true", help="a tiny network and run (seconds)")
    p.add_argument("--games", type=int, default=64, help="self-play games an iteration")
    p.add_argument("--search", type=int, default=100, help="search iterations a decision")
    p.add_argument("--hidden", default="128,64", help="hidden layers' widths")
    p.add_argument("--window", type=int, default=4, help="iterations of shards trained on")
    p.add_argument("--steps", type=int, default=500, help="minibatches an iteration")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--learned", action="store_true", help="the model alone (knowledge off)")
    p.add_argument("--blend", type=float, default=0.5, help="the model's share of a leaf value")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--sampled", type=int, default=30, help="moves a game drawn by temperature")
    p.add_argument("--noise-weight", type=float, default=0.25)
    p.add_argument("--noise-alpha", type=float, default=0.3)
    p.add_argument("--gate-games", type=int, default=16, help="deals of the gate")
    p.add_argument("--gate-threshold", type=float, default=0.5)
    p.add_argument("--anchor-games", type=int, default=16, help="deals against the plain search")
    p.add_argument("--chunk", type=int, default=16, help="games a native call plays at once")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--teacher",
        default=None,
        help="imitation: a native bot (expert-rules, greedy, ismcts@N) whose games and "
        "choices are the shards, instead of self-play",
    )
    p.add_argument(
        "--teacher-opponents",
        default=None,
        help="the teacher's opponents, specs separated by commas, one per game in turn "
        "(default: the teacher itself)",
    )
    args = p.parse_args(argv)
    given = list(argv) if argv is not None else sys.argv[1:]
    explicit = {a[2:].split("=")[0].replace("-", "_") for a in given if a.startswith("--")}
    values = vars(args)
    if args.tiny:
        for key, value in TINY.items():
            if key not in explicit:
                values[key] = value
    hidden = values["hidden"]
    if isinstance(hidden, str):
        try:
            hidden = tuple(int(w) for w in hidden.split(","))
        except ValueError:
            p.error(f"--hidden is widths separated by commas, not {hidden!r}")
    if not hidden or any(w < 1 for w in hidden):
        p.error("--hidden needs at least one layer, each at least 1 wide")
    module = get_spec(args.game).module
    if not module.MIN_PLAYERS <= args.players <= module.MAX_PLAYERS:
        p.error(f"{args.game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players")
    for name in ("iterations", "games", "search", "window", "steps", "batch", "chunk"):
        if values[name] < 1:
            p.error(f"--{name} must be at least 1")
    if not 0 <= args.blend <= 1 or not 0 <= args.noise_weight <= 1 or args.noise_alpha <= 0:
        p.error("--blend and --noise-weight are 0 to 1, --noise-alpha above 0")
    opponents: tuple[str, ...] = ()
    if args.teacher is not None:
        from cradle.learn.teacher import check_spec

        opponents = tuple((args.teacher_opponents or args.teacher).split(","))
        for name in (args.teacher, *opponents):
            try:
                check_spec(name)
            except ValueError as e:
                p.error(f"--teacher and --teacher-opponents are native bots: {e}")
    elif args.teacher_opponents is not None:
        p.error("--teacher-opponents needs --teacher")
    out = args.out or Path(f"runs/learn-{args.game}-{args.players}p")
    plan = Plan(
        game=args.game,
        players=args.players,
        iterations=args.iterations,
        games=values["games"],
        search=values["search"],
        hidden=tuple(hidden),
        window=args.window,
        steps=values["steps"],
        batch=values["batch"],
        learning_rate=args.learning_rate,
        weight_decay=args.weight_decay,
        learned=args.learned,
        blend=args.blend,
        temperature=args.temperature,
        sampled=values["sampled"],
        noise_weight=args.noise_weight,
        noise_alpha=args.noise_alpha,
        gate_games=values["gate_games"],
        gate_threshold=args.gate_threshold,
        anchor_games=values["anchor_games"],
        chunk=values["chunk"],
        seed=args.seed,
        teacher=args.teacher,
        teacher_opponents=opponents,
    )
    return plan, out, args.tiny


def elo(score: float) -> float:
    """The Elo difference of a score (clamped off 0 and 1)."""
    s = min(max(score, 1e-3), 1 - 1e-3)
    return 400 * math.log10(s / (1 - s))


class Run:
    """One run's directory, its state and its log."""

    def __init__(self, plan: Plan, out: Path, command: str) -> None:
        import jax

        from cradle.learn import network

        self.plan, self.out, self.command = plan, out, command
        self.spec = get_spec(plan.game)
        self.actions = self.spec.action_count
        self.inputs = self.spec.observation_size(plan.players)
        self.scales = observation_scales(self.spec, plan.players).astype(np.float32)
        for folder in ("shards", "models"):
            (out / folder).mkdir(parents=True, exist_ok=True)
        self.opt = network.optimiser(plan.learning_rate, plan.weight_decay)
        self.step = network.make_step(self.opt)
        state_file = out / "state.json"
        if state_file.exists():
            saved = json.loads(state_file.read_text())
            older: dict[str, object] = {
                "teacher": None,
                "teacher_opponents": [],
            }  # runs from before the option
            if without_iterations(older | saved["plan"]) != without_iterations(plan_json(plan)):
                raise SystemExit(
                    f"{out} holds a run with other settings: resume it with them (more "
                    "--iterations go on further) or use another --out"
                )
            self.done: int = saved["done"]
            self.best: str | None = saved["best"]
            with (out / "train.pkl").open("rb") as f:
                self.params, self.opt_state = pickle.load(f)
        else:
            self.done, self.best = 0, None
            key = jax.random.PRNGKey(plan.seed)
            self.params = network.init(key, self.inputs, plan.hidden, self.actions, plan.players)
            self.opt_state = self.opt.init(self.params)
            if plan.learned:  # the knowledge off: self-play starts from the fresh network
                self.best = str(self.export(0))

    def path(self, iteration: int) -> Path:
        return self.out / "models" / f"iteration-{iteration:04d}.safetensors"

    def export(self, iteration: int) -> Path:
        from cradle.learn import network

        path = self.path(iteration)
        meta = {
            "game": self.plan.game,
            "players": str(self.plan.players),
            "iteration": str(iteration),
            "command": self.command,
            "learned": str(int(self.plan.learned)),
        }
        network.export(self.params, self.scales, path, meta)
        return path

    def save(self) -> None:
        import jax

        with (self.out / "train.pkl.tmp").open("wb") as f:
            pickle.dump(jax.device_get((self.params, self.opt_state)), f)
        (self.out / "train.pkl.tmp").replace(self.out / "train.pkl")
        state = {"plan": plan_json(self.plan), "done": self.done, "best": self.best}
        (self.out / "state.json.tmp").write_text(json.dumps(state, indent=1))
        (self.out / "state.json.tmp").replace(self.out / "state.json")

    # -- self-play, gate -----------------------------------------------------------------

    def games(
        self,
        seats: Sequence[str | None],
        ids: range,
        seed: int,
        explore: bool,
        bar: Progress,
    ) -> dict[str, np.ndarray]:
        """Games ``ids`` of the run ``seed`` with a model (a path, None: the plain search)
        per seat, in chunks of ``--chunk`` games; ``explore``: self-play's temperature and
        noise."""
        from cradle.ai.model import load

        plan = self.plan
        models = [None if s is None else load(s) for s in seats]
        parts = []
        for first in range(ids.start, ids.stop, plan.chunk):
            chunk = range(first, min(first + plan.chunk, ids.stop))
            parts.append(
                native_games(
                    plan.game,
                    plan.players,
                    plan.search,
                    chunk,
                    seed,
                    models=models if any(m is not None for m in models) else None,
                    learned=plan.learned,
                    blend=plan.blend,
                    temperature=plan.temperature if explore else 0.0,
                    sampled=plan.sampled if explore else 0,
                    noise=(plan.noise_weight, plan.noise_alpha) if explore else None,
                )
            )
            bar.update(len(chunk))
        return merge(parts)

    def taught(self, ids: range, seed: int, bar: Progress) -> dict[str, np.ndarray]:
        """Games ``ids`` of the teacher (``--teacher``) in chunks of ``--chunk`` games."""
        from cradle.learn.teacher import teacher_games

        plan = self.plan
        assert plan.teacher is not None
        parts = []
        for first in range(ids.start, ids.stop, plan.chunk):
            chunk = range(first, min(first + plan.chunk, ids.stop))
            parts.append(
                teacher_games(
                    plan.game, plan.players, plan.teacher, plan.teacher_opponents, chunk, seed
                )
            )
            bar.update(len(chunk))
        return merge(parts)

    def match(self, new: str, old: str | None, deals: int, seed: int, bar: Progress) -> float:
        """``new``'s share of the points against ``old`` (None: the plain search): in every
        seat in turn, the others ``old``, the same deals and seeds for every seating."""
        points = 0.0
        for seat in range(self.plan.players):
            seats: list[str | None] = [old] * self.plan.players
            seats[seat] = new
            played = self.games(seats, range(deals), seed, explore=False, bar=bar)
            # each game's final utilities, read off its first position
            first = np.searchsorted(played["game"], played["game_ids"])
            finals = played["result"][np.minimum(first, len(played["game"]) - 1)]
            if not np.array_equal(played["game"][first], played["game_ids"]):
                raise RuntimeError("a game without a decision: no result to read")
            points += float(np.sum((finals[:, seat] + 1.0) / 2.0))
        return points / (deals * self.plan.players)

    # -- training ------------------------------------------------------------------------

    def train(self, iteration: int, bar: Progress) -> tuple[float, float, int]:
        from cradle.learn import replay

        plan = self.plan
        first = max(0, iteration - plan.window + 1)
        paths = [self.shard(i) for i in range(first, iteration + 1)]
        positions = replay.load([p for p in paths if p.exists()])
        rng = np.random.default_rng(plan.seed * 7919 + iteration)
        policy_losses, value_losses = [], []
        for _ in range(plan.steps):
            rows = rng.integers(0, len(positions), size=min(plan.batch, len(positions)))
            x, mask, target, values = replay.batch(positions, rows, self.actions, self.scales)
            self.params, self.opt_state, pl, vl = self.step(
                self.params, self.opt_state, x, mask, target, values
            )
            policy_losses.append(float(pl))
            value_losses.append(float(vl))
            bar.update(1)
        tail = max(1, len(policy_losses) // 4)  # the last quarter's mean
        return (
            float(np.mean(policy_losses[-tail:])),
            float(np.mean(value_losses[-tail:])),
            len(positions),
        )

    def shard(self, iteration: int) -> Path:
        return self.out / "shards" / f"iteration-{iteration:04d}.npz"

    # -- the loop --------------------------------------------------------------------------

    def iterate(self, iteration: int) -> Entry:
        from tqdm import tqdm

        plan = self.plan
        began = time.perf_counter()
        cpu = time.process_time()
        shard = self.shard(iteration)
        seed = plan.seed * 1_000_003 + iteration
        if not shard.exists():
            seats = [self.best] * plan.players
            if plan.teacher is not None:
                with tqdm(total=plan.games, desc=f"{iteration}: teacher", unit="game") as bar:
                    arrays = self.taught(range(plan.games), seed, bar)
            else:
                with tqdm(total=plan.games, desc=f"{iteration}: self-play", unit="game") as bar:
                    arrays = self.games(seats, range(plan.games), seed, explore=True, bar=bar)
            temporary = shard.with_name(shard.stem + ".tmp.npz")
            np.savez_compressed(temporary, **arrays)  # type: ignore[arg-type]
            temporary.replace(shard)
        with tqdm(total=plan.steps, desc=f"{iteration}: training", unit="step") as bar:
            policy_loss, value_loss, positions = self.train(iteration, bar)
        new = str(self.export(iteration + 1))
        matches = plan.players * (plan.gate_games + plan.anchor_games)
        with tqdm(total=matches, desc=f"{iteration}: gate", unit="game") as bar:
            gate = self.match(new, self.best, plan.gate_games, seed + 17, bar)
            anchor = self.match(new, None, plan.anchor_games, seed + 29, bar)
        promoted = gate >= plan.gate_threshold
        if promoted:
            self.best = new
            best = self.out / "best.safetensors"
            best.with_name("best.tmp").write_bytes(Path(new).read_bytes())
            best.with_name("best.tmp").replace(best)
        return {
            "iteration": iteration,
            "positions": positions,
            "policy_loss": policy_loss,
            "value_loss": value_loss,
            "gate": gate,
            "promoted": promoted,
            "anchor": anchor,
            "anchor_elo": elo(anchor),
            "best": self.best,
            "seconds": time.perf_counter() - began,
            "cpu_seconds": time.process_time() - cpu,
        }

    def run(self) -> None:
        log = self.out / "log.jsonl"
        for iteration in range(self.done, self.plan.iterations):
            entry = self.iterate(iteration)
            with log.open("a") as f:
                f.write(json.dumps(entry) + "\n")
            self.done = iteration + 1
            self.save()
            plot(log, self.out / "strength.png")
            print(
                f"iteration {iteration}: policy loss {entry['policy_loss']:.3f}, value loss "
                f"{entry['value_loss']:.3f}, gate {entry['gate']:.3f}"
                f"{' (promoted)' if entry['promoted'] else ''}, against the plain search "
                f"{entry['anchor']:.3f} (Elo {entry['anchor_elo']:+.0f})",
                flush=True,
            )


def plan_json(plan: Plan) -> dict[str, object]:
    out: dict[str, object] = json.loads(json.dumps(plan.__dict__))
    return out


def without_iterations(plan: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in plan.items() if k != "iterations"}


def merge(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Shards of consecutive games as one (ragged arrays re-offset)."""
    if len(parts) == 1:
        return dict(parts[0])
    out: dict[str, np.ndarray] = {}
    for key in parts[0]:
        if key == "players":
            out[key] = parts[0][key]
        elif key in ("offsets", "game_offsets"):
            pieces, shift = [parts[0][key][:1]], 0
            for part in parts:
                pieces.append(part[key][1:] + shift)
                shift += int(part[key][-1])
            out[key] = np.concatenate(pieces)
        else:
            out[key] = np.concatenate([part[key] for part in parts])
    return out


def plot(log: Path, out: Path) -> None:
    """The anchor's Elo (the new model against the plain search) by iteration, and the
    gate's score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    if not entries:
        return
    its = [e["iteration"] for e in entries]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    top.plot(its, [e["anchor_elo"] for e in entries], marker="o")
    top.axhline(0, color="grey", linewidth=0.5)
    top.set_ylabel("Elo against the plain search")
    top.set_title("Strength by iteration")
    bottom.plot(its, [e["gate"] for e in entries], marker="o", label="gate (new vs best)")
    bottom.plot(its, [e["policy_loss"] for e in entries], marker=".", label="policy loss")
    bottom.plot(its, [e["value_loss"] for e in entries], marker=".", label="value loss")
    bottom.set_xlabel("iteration")
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    plan, out, _ = parse(argv)
    command = "python -m cradle.learn " + shlex.join(
        list(argv) if argv is not None else sys.argv[1:]
    )
    run = Run(plan, out, command)
    if run.done >= plan.iterations:
        print(f"{out}: all {plan.iterations} iterations done; best: {run.best}")
        return
    run.run()
    print(f"best model: {run.best or 'none promoted (the plain search stays ahead)'}")
