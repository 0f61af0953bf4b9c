"""Lockstep: the Rust twin of the Gheos search knowledge (native/src/gheos/knowledge.rs) and
the Python reference (``cradle.ai.knowledge.gheos``) read the same worlds alike.

Random games (2, 3 and 4 players, the packaged tiles and a renumbered, turned set) are played
on both engines side by side, sometimes read back from their position in a conflict; after
every step the native hooks must give what the Python knowledge gives on the Python state, to
1e-9: the learned features of every seat and the learned model's rewards, whether the turn is
unsettled, and for both hand-set evaluations (values 1 and 4) the values and temperature of
the reading, the rewards, one-ply priors (a sample of the legal actions, and a refused one),
the policy's scores of every action and its choice where no tie-break can change it, the
token decisions a playout does not leave to chance; the same with settled priors (value 4
with them is the search's default), every action that starts a conflict among them. A divergence fails with the first differing step: the seed, the
players, the actions so far and the position before the step.

``CRADLE_KNOWLEDGE_GAMES`` sets how many games the default run plays (6: they reach every line
and branch of the reference that 16 reached, lab/notebook/test-cpu.md); the ``long`` run plays
hundreds (``make test-long``).
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import Counter

import pytest

from cradle import gheos
from cradle.ai.knowledge.gheos import GheosKnowledge, read
from tests.helpers.gheos import other_tile_set

_native = pytest.importorskip("cradle._native")

GAMES = int(os.environ.get("CRADLE_KNOWLEDGE_GAMES", "6"))
LONG_GAMES = 400
PRIOR_SAMPLE = 6  # tile placements whose priors are compared per step (each costs Python an apply)
TOKEN, PASS = 191010, 191011  # cradle.gheos.actions: the last two ids
FOLLOWER_NOISE, MOVE_NOISE = 0.01, 0.05  # the policy's tie-breaks (both knowledges)
KNOWLEDGES = {v: GheosKnowledge(value=v) for v in (1, 4)}
KNOWLEDGE = KNOWLEDGES[1]
# Priors after the conflict a move starts is played out (settle_conflict).
SETTLED = {v: GheosKnowledge(value=v, settle=True) for v in (1, 4)}
LEARNED = GheosKnowledge(learned=True)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def first_apart(python: list[float], native_: list[float]) -> str | None:
    if len(python) != len(native_):
        return f"python has {len(python)} numbers, native {len(native_)}"
    for i, (a, b) in enumerate(zip(python, native_, strict=True)):
        if not close(a, b):
            return f"[{i}]: python {a!r}, native {b!r}"
    return None


def python_choice(scores: list[float], noise: float) -> int | None:
    """The index the policy picks whatever its tie-breaks draw (None: they may decide)."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    if len(order) > 1 and scores[order[0]] - scores[order[1]] <= noise + 1e-9:
        return None
    return order[0]


class Twins:
    """One game on both engines; the knowledge compared after every step."""

    def __init__(self, seed: int, players: int, tiles: str | None) -> None:
        self.seed, self.players, self.tiles = seed, players, tiles
        self.python = gheos.new_game(players, seed, {"tiles": tiles}, engine="python")
        self.native = gheos.new_game(players, seed, {"tiles": tiles}, engine="native")
        assert type(self.native).__module__ == "cradle._native"
        self.actions: list[str] = []
        self.seen: Counter[str] = Counter()

    def fail(self, what: str, difference: str) -> None:
        report = {
            "seed": self.seed,
            "players": self.players,
            "tiles": "packaged" if self.tiles is None else "renumbered",
            "actions so far": self.actions,
            "position": self.python.to_position(),
        }
        raise AssertionError(
            f"the knowledges differ after {len(self.actions)} actions in {what}: {difference}\n"
            + json.dumps(report, indent=1, default=str)
        )

    def numbers(self, what: str, python: list[float], native_: list[float]) -> None:
        apart = first_apart(python, native_)
        if apart is not None:
            self.fail(what, apart)

    def compare(self, rng: random.Random) -> None:
        p, n = self.python, self.native
        if p.legal_action_ids() != n.legal_action_ids():
            self.fail("the legal ids", "the engines themselves differ")
        reading = read(p)
        for seat, row in enumerate(_native.gheos_ai_features(n)):
            self.numbers(f"the learned features of seat {seat}", reading.features(seat), row)
        learned = LEARNED.rewards(p)  # reads the model file, and hands it to the native side
        self.numbers("learned rewards", learned, _native.gheos_ai_rewards(n, True))
        if KNOWLEDGE.unsettled(p) != _native.gheos_ai_unsettled(n):
            self.fail(
                "unsettled",
                f"python {KNOWLEDGE.unsettled(p)}, native {_native.gheos_ai_unsettled(n)}",
            )
        ids = p.legal_action_ids()
        # One-ply priors: a sample of the legal actions and one the state refuses.
        picked = rng.sample(range(len(ids)), min(PRIOR_SAMPLE, len(ids)))
        for value, knowledge in KNOWLEDGES.items():
            self.judge(value, knowledge, picked, rng)
        # Settled priors: the sample and every action that starts a conflict.
        conflicts = set(p.conflict_actions())
        actions = p.legal_actions()
        more = [i for i, a in enumerate(actions) if a in conflicts and i not in picked]
        for value, knowledge in SETTLED.items():
            self.judge(value, knowledge, picked + more, rng, settle=True)
        self.seen["settled: conflict priors"] += len(conflicts)

    def judge(
        self,
        value: int,
        knowledge: GheosKnowledge,
        picked: list[int],
        rng: random.Random,
        settle: bool = False,
    ) -> None:
        """What the hand-set evaluation ``value`` says: its numbers, priors and policy."""
        p, n = self.python, self.native
        reading = read(p, value)
        v = f"value {value}{' settled' if settle else ''}: "
        self.numbers(v + "Reading.values()", reading.values(), _native.gheos_ai_values(n, value))
        if any(reading.controls_the_end(s) for s in range(reading.n)):
            self.seen[f"value {value}: a seat controls the end"] += 1
        if value == 4 and any(
            reading.usable_tokens(s) < reading.tokens[s] - 0.01 for s in range(reading.n)
        ):
            self.seen["value 4: tokens that may go unplayed"] += 1
        self.numbers(
            v + "Reading.temperature()",
            [reading.temperature()],
            [_native.gheos_ai_temperature(n, value)],
        )
        self.numbers(v + "rewards", knowledge.rewards(p), _native.gheos_ai_rewards(n, False, value))
        if p.is_over:
            self.seen["over"] += 1
            return
        ids = p.legal_action_ids()
        actions = p.legal_actions()
        kind, scores = _native.gheos_ai_policy_scores(n, value, settle)
        self.seen[f"{p.phase}:{kind}"] += 1
        refused = PASS if p.phase == "tile" else TOKEN
        self.numbers(
            v + "priors",
            knowledge.priors(p, [actions[i] for i in picked] + [p.action_string(refused)]),
            _native.gheos_ai_priors(n, [ids[i] for i in picked] + [refused], value, settle),
        )
        # The policy: its scores of every action (tiles: the sample's), then its choice.
        if kind == "followers":
            python_scores = [knowledge._follower_choice(reading, p.to_move, a) for a in actions]
            noise = FOLLOWER_NOISE
        elif kind == "token":
            plays = knowledge.token_choice(p) == "token"
            if knowledge.ending_token(p) is not None:
                self.seen[f"value {value} ending token played: {plays}"] += 1
            ruled = knowledge.playout_rule(p)
            python_rule = None if ruled is None else ruled == "token"
            native_rule = _native.gheos_ai_playout_rule(n, value)
            if python_rule != native_rule:
                self.fail(v + "the playout rule", f"python {python_rule}, native {native_rule}")
            python_scores = [1.0 if (a == "token") == plays else 0.0 for a in actions]
            noise = 0.0
            self.seen[f"value {value} plays a token: {plays}"] += 1
        elif kind == "tiles":
            python_scores = knowledge.priors(p, [actions[i] for i in picked])
            self.numbers(v + "policy scores (tiles)", python_scores, [scores[i] for i in picked])
            python_scores, noise = [], 0.0
        elif kind == "ply":
            python_scores = knowledge.priors(p, actions)
            noise = MOVE_NOISE
        else:
            assert kind == "forced", kind
            python_scores, noise = [0.0], 0.0
        if python_scores:
            self.numbers(f"{v}policy scores ({kind})", python_scores, scores)
        seed = rng.randrange(2**32)
        chosen = _native.gheos_ai_policy(n, seed, value, settle)
        if chosen not in ids:
            self.fail(v + "the policy", f"native chose {chosen}, not a legal id")
        best = python_choice(python_scores, noise) if python_scores else None
        if best is not None:
            python = knowledge.policy(p.clone(), random.Random(seed))
            if python != actions[best]:
                self.fail(v + "the scores' best", f"{actions[best]!r}, but python chose {python!r}")
            if chosen != ids[best]:
                self.fail(
                    v + "the policy",
                    f"python {actions[best]!r}, native {n.action_string(chosen)!r}",
                )
            self.seen["choices"] += 1

    def play(self, rng: random.Random) -> None:
        token_rate = rng.choice([0.5, 0.1])
        # The comparisons draw from their own generator: the games stay the same whatever
        # is compared.
        judging = random.Random(rng.getrandbits(64))
        self.compare(judging)
        while not self.python.is_over:
            ids = self.python.legal_action_ids()
            if self.python.phase == "token":
                action = ids[0] if rng.random() < token_rate else ids[1]
            else:
                action = rng.choice(ids)
            self.actions.append(self.python.action_string(action))
            self.python.apply_id(action)
            self.native.apply_id(action)
            if self.python.phase in ("pay", "migrate", "war") and rng.random() < 0.5:
                self.reread()
            self.compare(judging)

    def reread(self) -> None:
        """Both engines read the position back mid-conflict (the native areas rebuilt)."""
        data = self.python.to_position()
        self.python = gheos.from_position(data, engine="python")
        self.native = gheos.from_position(data, engine="native")
        self.seen["reread"] += 1


def play(seed: int, tiles: str | None) -> Counter[str]:
    rng = random.Random(seed)
    game = Twins(seed, 2 + seed % 3, tiles)
    game.play(rng)
    return game.seen


def test_the_rust_knowledge_reads_random_games_as_the_python_one_does() -> None:
    tiles = other_tile_set(2)
    seen: Counter[str] = Counter()
    for seed in range(GAMES):
        seen += play(seed, tiles if seed % 4 == 3 else None)
    # Every kind of decision was compared, and choices with them.
    for kind in (
        "tile:tiles",
        "civ:followers",
        "pay:followers",
        "token:token",
        "value 1 plays a token: True",
        "value 1 plays a token: False",
        "value 4 plays a token: True",
        "value 4: a seat controls the end",
        "value 4: tokens that may go unplayed",
        "settled: conflict priors",
        "value 1 ending token played: True",
        "value 1 ending token played: False",
        "over",
        "choices",
        "reread",
    ):
        assert seen[kind] > 0, f"no {kind} in {dict(seen)}"
    assert seen["migrate:ply"] + seen["migrate:forced"] > 0, dict(seen)
    assert seen["war:ply"] + seen["war:forced"] > 0, dict(seen)


@pytest.mark.long
def test_hundreds_of_games_in_knowledge_lockstep() -> None:
    tiles = [other_tile_set(k) for k in range(3)]
    for seed in range(50_000, 50_000 + LONG_GAMES):
        play(seed, tiles[seed % 3] if seed % 4 == 3 else None)


def test_a_difference_is_reported_with_its_position() -> None:
    game = Twins(5, 3, None)
    game.actions.append("place t1 1,0 r0")
    with pytest.raises(AssertionError) as caught:
        game.numbers("rewards", [0.5, 0.25, 0.25], [0.5, 0.25, 0.2500001])
    text = str(caught.value)
    assert "after 1 actions in rewards: [2]: python 0.25, native 0.2500001" in text
    assert '"seed": 5' in text and '"position"' in text
