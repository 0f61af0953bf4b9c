"""Masked PPO on cradle/Tigris-v1 against cradle's bots (CleanRL style, PyTorch on the CPU).

    pip install -c constraints.txt -e '.[baseline]'   # PyTorch, Gymnasium, NumPy: the tested versions
    python examples/ppo_masked.py --seed 1 --stages random:200000,greedy:200000

Trains one policy against each stage's opponents in turn (a curriculum: ``random``, then
``greedy``), then plays ``--eval-games`` games against random, greedy and expert-rules with
the greedy (arg-max) policy and prints win rates with Wilson 95% intervals as a Markdown table
(docs/research.md says what a run produced: it does not beat random; the shipped
network, `policy/model=tigris-2p`, does). Learner seats are drawn per game; illegal
actions never happen (the logits outside ``action_masks()`` are -inf).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import cradle.envs  # noqa: F401  (registers cradle/Tigris-v1)


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stages", default="random:200000,greedy:200000", help="opponents:steps,...")
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--num-steps", type=int, default=64, help="rollout length per env")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--eval-opponents", default="random,greedy,expert-rules")
    p.add_argument("--out", type=Path, default=Path("results/ppo"))
    p.add_argument("--threads", type=int, default=1)
    return p.parse_args()


class Agent(nn.Module):
    def __init__(self, width: int, actions: int, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(width, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.policy = nn.Linear(hidden, actions)
        self.value = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.policy.weight, 0.01)
        nn.init.zeros_(self.policy.bias)

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[Categorical, torch.Tensor]:
        h = self.body(obs)
        logits = self.policy(h).masked_fill(~mask, -1e9)
        return Categorical(logits=logits), self.value(h).squeeze(-1)


def make_env(opponents: str, num_envs: int) -> gymnasium.vector.VectorEnv:
    return gymnasium.make_vec(
        "cradle/Tigris-v1", num_envs=num_envs, players=2, opponents=opponents, normalize=True
    )


def train_stage(
    agent: Agent, opt: torch.optim.Optimizer, args: argparse.Namespace, opponents: str, steps: int
) -> dict[str, float]:
    env = make_env(opponents, args.num_envs)
    n, t_len = args.num_envs, args.num_steps
    width = env.single_observation_space.shape[0]
    actions_n = env.single_action_space.n
    obs_buf = torch.zeros((t_len, n, width))
    mask_buf = torch.zeros((t_len, n, actions_n), dtype=torch.bool)
    act_buf = torch.zeros((t_len, n), dtype=torch.long)
    logp_buf, rew_buf, val_buf = (torch.zeros((t_len, n)) for _ in range(3))
    done_buf, live_buf = torch.zeros((t_len, n)), torch.zeros((t_len, n))
    obs_np, _ = env.reset(seed=args.seed)
    obs = torch.as_tensor(obs_np)
    done = torch.zeros(n)
    resetting = np.zeros(n, bool)  # NEXT_STEP autoreset: this step only starts a new game
    games = wins = 0
    done_steps = 0
    while done_steps < steps:
        for t in range(t_len):
            mask = torch.as_tensor(env.action_masks())
            # a row being reset has no legal id: any action is ignored, nothing is learned
            mask[torch.as_tensor(resetting)] = True
            with torch.no_grad():
                dist, value = agent.dist(obs, mask)
                action = dist.sample()
            obs_buf[t], mask_buf[t], act_buf[t] = obs, mask, action
            logp_buf[t], val_buf[t] = dist.log_prob(action), value
            live_buf[t] = torch.as_tensor(~resetting, dtype=torch.float32)
            done_buf[t] = done
            obs_np, reward, term, trunc, _ = env.step(action.numpy())
            rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
            finished = term | trunc
            games += int(finished.sum())
            wins += int((reward > 0).sum())
            obs = torch.as_tensor(obs_np)
            done = torch.as_tensor(finished, dtype=torch.float32)
            resetting = finished
        done_steps += t_len * n
        with torch.no_grad():
            _, next_value = agent.dist(obs, torch.ones((n, actions_n), dtype=torch.bool))
        adv = torch.zeros((t_len, n))
        last = torch.zeros(n)
        for t in reversed(range(t_len)):
            # step t+1 is a new game when step t ended one (done after step t)
            nonterminal = 1.0 - (done if t == t_len - 1 else done_buf[t + 1])
            nxt = next_value if t == t_len - 1 else val_buf[t + 1]
            delta = rew_buf[t] + args.gamma * nxt * nonterminal - val_buf[t]
            last = delta + args.gamma * args.gae_lambda * nonterminal * last
            adv[t] = last
        ret = adv + val_buf
        b = {
            "obs": obs_buf.reshape(-1, width),
            "mask": mask_buf.reshape(-1, actions_n),
            "act": act_buf.reshape(-1),
            "logp": logp_buf.reshape(-1),
            "adv": adv.reshape(-1),
            "ret": ret.reshape(-1),
            "live": live_buf.reshape(-1),
        }
        size = t_len * n
        for _ in range(args.epochs):
            order = torch.randperm(size)
            for part in order.chunk(args.minibatches):
                live = b["live"][part]
                dist, value = agent.dist(b["obs"][part], b["mask"][part])
                ratio = (dist.log_prob(b["act"][part]) - b["logp"][part]).exp()
                a = b["adv"][part]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip))
                vloss = 0.5 * (value - b["ret"][part]) ** 2
                loss = (live * (pg + args.vf_coef * vloss - args.ent_coef * dist.entropy())).sum()
                opt.zero_grad()
                (loss / live.sum().clamp(min=1)).backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        if games:
            print(
                f"  {opponents}: {done_steps:,} steps, {games} games, win rate {wins / games:.2f}",
                flush=True,
            )
            games = wins = 0
    env.close()
    return {"steps": float(done_steps)}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(agent: Agent, opponents: str, games: int, seed: int) -> dict[str, float]:
    envs = min(games, 16)
    env = make_env(opponents, envs)
    obs_np, _ = env.reset(seed=seed)
    done_games = wins = ties = 0
    while done_games < games:
        mask = torch.as_tensor(env.action_masks())
        with torch.no_grad():
            dist, _ = agent.dist(torch.as_tensor(obs_np), mask | ~mask.any(1, keepdim=True))
        obs_np, reward, term, trunc, _ = env.step(dist.probs.argmax(1).numpy())
        for i in np.flatnonzero(term | trunc):
            if done_games < games:
                done_games += 1
                wins += int(reward[i] > 0)
                ties += int(reward[i] == 0)
    env.close()
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "ties": ties,
        "rate": wins / games,
        "low": low,
        "high": high,
    }


def main() -> None:
    args = parse()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    probe = make_env("random", 1)
    agent = Agent(probe.single_observation_space.shape[0], probe.single_action_space.n, args.hidden)
    probe.close()
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    began = time.perf_counter()
    trained = 0
    for stage in args.stages.split(","):
        opponents, _, count = stage.partition(":")
        print(f"stage: against {opponents} for {int(count):,} steps", flush=True)
        trained += int(train_stage(agent, opt, args, opponents, int(count))["steps"])
    minutes = (time.perf_counter() - began) / 60
    rows = {
        o: evaluate(agent, o, args.eval_games, args.seed + 1000)
        for o in args.eval_opponents.split(",")
    }
    print(f"\n{trained:,} learner steps in {minutes:.1f} min (seed {args.seed}, {args.stages})\n")
    print("| opponent | games | wins | ties | win rate | Wilson 95% |")
    print("|---|---|---|---|---|---|")
    for o, r in rows.items():
        print(
            f"| {o} | {r['games']} | {r['wins']} | {r['ties']} | {r['rate']:.2f} | {r['low']:.2f}-{r['high']:.2f} |"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {
        "seed": args.seed,
        "stages": args.stages,
        "steps": trained,
        "minutes": minutes,
        "eval": rows,
    }
    (args.out / f"summary-seed{args.seed}.json").write_text(json.dumps(summary, indent=1))
    torch.save(agent.state_dict(), args.out / f"agent-seed{args.seed}.pt")


if __name__ == "__main__":
    main()
