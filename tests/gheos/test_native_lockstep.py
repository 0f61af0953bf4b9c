"""Lockstep: the native engine and the Python reference play the same random games side by side.

After every action both must agree on everything the contract shows: the legal ids (in order)
and strings, the events, ``to_position()``, every seat's view and the spectators', the
summary, who moves and whether it is over, and at the end ``result()``. Along the way, games
are read back from positions on both engines (pending wars and migrations included), random
illegal input is refused by both with the same reason and changes nothing, and the hidden
information hooks (``sample_hidden``, ``with_hidden``, ``order_pile``) are compared with
equal random generators. A divergence fails with the first differing step: the seed, the
players, the actions so far, the position before the step and a readable diff.

``CRADLE_LOCKSTEP_GAMES`` sets how many games the default run plays (8: tests/gheos reaches
every line and branch of the reference that it reached with 16, lab/notebook/test-cpu.md);
the ``long`` run plays thousands (``make test-long``).
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest

from cradle import gheos
from cradle.core import native
from tests.helpers.gheos import other_tile_set

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

GAMES = int(os.environ.get("CRADLE_LOCKSTEP_GAMES", "8"))
LONG_GAMES = 3000
CHUNKS = 4
# Games searched for rare conflicts (every replacement of every turn tried on a copy).
RARE_GAMES = 12
LONG_RARE_GAMES = 1500
REPLACE = 23874  # the first replacement id (cradle.gheos.actions.REPLACE)
COLOURS = ("red", "green", "yellow", "blue", "black", "white")


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two JSON-like values first differ, as a readable line (None: equal)."""
    if type(a) is not type(b):
        return f"{path or 'value'}: python {a!r} ({type(a).__name__}), native {b!r} ({type(b).__name__})"
    if isinstance(a, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                side = "native" if key not in a else "python"
                return f"{path}.{key}: only the {side} engine has it"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list | tuple):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: python has {len(a)} items, native {len(b)}"
        return None
    return None if a == b else f"{path or 'value'}: python {a!r}, native {b!r}"


def outcome(apply: Any) -> tuple[str, Any]:
    """What an attempt did: ("ok", its result) or (exception type name, message)."""
    try:
        return "ok", apply()
    except (ValueError, TypeError, IndexError) as error:
        return type(error).__name__, str(error)


class Lockstep:
    """One game on both engines, checked after every step."""

    def __init__(self, seed: int, players: int, options: dict[str, Any]) -> None:
        self.seed, self.players, self.options = seed, players, options
        self.python = gheos.new_game(players, seed, options, engine="python")
        self.native = gheos.new_game(players, seed, options, engine="native")
        assert type(self.native).__module__ == "cradle._native"
        self.actions: list[Any] = []
        self.before: dict[str, Any] = self.python.to_position()
        self.step = "new_game"

    def fail(self, what: str, difference: str) -> None:
        report = {
            "seed": self.seed,
            "players": self.players,
            "options": self.options,
            "step": self.step,
            "actions so far": self.actions,
            "position before the step": self.before,
        }
        raise AssertionError(
            f"the engines differ after {self.step} in {what}: {difference}\n"
            + json.dumps(report, indent=1, default=str)
        )

    def same(self, what: str, python: Any, native: Any) -> None:
        difference = first_difference(python, native)
        if difference is not None:
            self.fail(what, difference)

    def compare(self) -> None:
        p, n = self.python, self.native
        self.same(
            "to_move, is_over, phase",
            (p.to_move, p.is_over, p.phase),
            (n.to_move, n.is_over, n.phase),
        )
        self.same("players", p.players, n.players)
        self.same("to_position()", p.to_position(), n.to_position())
        self.same("legal_action_ids()", p.legal_action_ids(), n.legal_action_ids())
        self.same("legal_actions()", p.legal_actions(), n.legal_actions())
        self.same("summary()", p.summary(), n.summary())
        for seat in [None, *range(self.players)]:
            self.same(f"view({seat})", p.view(seat), n.view(seat))
            if seat is not None:
                self.same(f"hand({seat})", p.hand(seat), n.hand(seat))
        if p.is_over:
            self.same("result()", p.result(), n.result())
        # the analysis API (docs/contract.md): the same named tuples on both engines
        for what in ("tiles_on_map", "areas", "civilizations", "stack_size"):
            self.same(f"{what}()", getattr(p, what)(), getattr(n, what)())
        for seat in range(self.players):
            self.same(f"player({seat})", p.player(seat), n.player(seat))
        self.same(
            "game, epochs, end_epoch",
            (p.game, p.epochs, p.end_epoch),
            (n.game, n.epochs, n.end_epoch),
        )
        # views are a function of the position, not of the history that led to it (the
        # native views equal the reference's, checked above; `reread` rebuilds both engines)
        again = gheos.from_position(p.to_position(), engine="python")
        for seat in [None, *range(self.players)]:
            self.same(f"view({seat}) after a position round trip", p.view(seat), again.view(seat))

    def apply(self, action: Any) -> None:
        self.before = self.python.to_position()
        self.step = f"action {len(self.actions)} ({action!r})"
        self.actions.append(action)
        self.same(
            "events",
            outcome(lambda: self.python.apply(action)),
            outcome(lambda: self.native.apply(action)),
        )
        self.compare()

    def reread(self, rng: random.Random) -> None:
        """Both engines read the reference's position back (with or without its stack)."""
        data = self.python.to_position()
        self.before = data
        seed = None
        if rng.random() < 0.3 and data["phase"] != "over":
            del data["stack"]  # the rest is shuffled by the seed, the same way on both
            seed = rng.randrange(10**6)
        self.step = f"from_position after {len(self.actions)} actions (seed {seed})"
        self.python = gheos.from_position(data, seed, engine="python")
        self.native = gheos.from_position(data, seed, engine="native")
        self.compare()

    def try_illegal(self, attempt: Any) -> None:
        """Both refuse ``attempt`` alike and stay as they were (or both accept it alike)."""
        self.step = f"trying {attempt!r} after {len(self.actions)} actions"
        p, n = self.python.clone(), self.native.clone()
        self.before = before = p.to_position()
        legal = p.legal_action_ids()
        tried = outcome(lambda: p.apply(attempt))
        self.same("the attempt", tried, outcome(lambda: n.apply(attempt)))
        # Refused as one of the two kinds (python-chess's split), never as the bare base.
        assert tried[0] in ("ok", "MalformedAction", "DisallowedAction"), (attempt, tried)
        self.same("the state after the attempt", p.to_position(), n.to_position())
        self.same("the legal ids after the attempt", p.legal_action_ids(), n.legal_action_ids())
        if p.to_position() == before:
            self.same("legal ids after a refusal", legal, n.legal_action_ids())

    def hidden_hooks(self, rng: random.Random) -> None:
        p, n = self.python, self.native
        seat = rng.randrange(self.players)
        key = rng.randrange(10**9)
        self.step = f"sample_hidden({seat}) after {len(self.actions)} actions"
        r1, r2 = random.Random(key), random.Random(key)
        ps, ns = p.sample_hidden(seat, r1), n.sample_hidden(seat, r2)
        self.same("sample_hidden", ps.to_position(), ns.to_position())
        self.same("the generator after sample_hidden", r1.random(), r2.random())
        self.same("legal ids of the sample", ps.legal_action_ids(), ns.legal_action_ids())
        # with_hidden: the sample's hidden tiles put into this state.
        hands = [ps.hand(s) for s in range(self.players)]
        pile = ps.to_position()["stack"]
        self.step = f"with_hidden after {len(self.actions)} actions"
        pw = outcome(lambda: p.with_hidden(hands, pile).to_position())
        nw = outcome(lambda: n.with_hidden(hands, pile).to_position())
        self.same("with_hidden", pw, nw)
        bad_hands = [list(h) for h in hands]
        if bad_hands[0]:
            bad_hands[0][0] = rng.choice(["t0", "epoch", "t99", 7, ["t1"]])
        self.same(
            "with_hidden refusing",
            outcome(lambda: p.with_hidden(bad_hands, pile)),
            outcome(lambda: n.with_hidden(bad_hands, pile)),
        )
        # order_pile on clones: a random front of the stack's tiles, sometimes a bad one.
        stack = p.to_position()["stack"]
        front = rng.sample(stack, min(len(stack), rng.randrange(4)))
        if rng.random() < 0.2:
            front.append(rng.choice(["t0", "nonsense", "epoch", *p.hand(seat)]))
        self.step = f"order_pile({front}) after {len(self.actions)} actions"
        pc, nc = p.clone(), n.clone()
        self.same(
            "order_pile",
            outcome(lambda: pc.order_pile(front)),
            outcome(lambda: nc.order_pile(front)),
        )
        self.same("the state after order_pile", pc.to_position(), nc.to_position())


def illegal_attempts(state: Any, rng: random.Random) -> list[Any]:
    """Malformed strings, wrong steps, spellings of legal actions bent a little, and ids that
    are not legal now."""
    legal = state.legal_actions()
    ids = state.legal_action_ids()
    attempts: list[Any] = [
        rng.choice(["", "   ", "dance", "PLACE", "place t2", "token now", "pass x", "migrate"]),
        rng.choice(["take red", "token", "pass", "pay green", "winner blue", "start red 0,0:s"]),
        rng.choice(["place t1 1,0 r0", "replace t1 0,0 r0", "place t٣ 1,0 r0", "place t² 1,0 r0"]),
        rng.choice([-1, 191012, 10**30, True, 3.0, None, ["pass"]]),
        rng.randrange(191012),
    ]
    if legal:
        words = rng.choice(legal).split()
        i = rng.randrange(len(words))
        words[i] = rng.choice(
            [
                "t" + str(rng.randrange(60)),
                "t" + "0" * rng.randrange(3) + words[i][1:],
                f"{rng.randrange(-3, 4)},{rng.randrange(-3, 4)}",
                f"+{rng.randrange(3)},{rng.randrange(-2, 3)}",
                "1_0,0",
                "99,0",
                "r3",
                "pink",
                words[i].upper(),
                words[i] + ":" + rng.choice(["s", "n", "se", "nw", "x", ""]),
                words[i].split(":")[0],
                rng.choice(COLOURS),
                "0" * 40 + "1,0",
            ]
        )
        attempts.append(rng.choice(["\x0b", "  ", "\u00a0", "\x1f"]).join(words))
    if ids:
        i = rng.choice(ids)
        attempts += [i + rng.choice([1, 2, 3, -1, -3, 3 * 3979, 23874]), rng.choice(ids) + 0]
    return attempts


def play(seed: int, tiles: str | None = None) -> int:
    """One random lockstep game; returns its number of actions."""
    rng = random.Random(seed)
    players = 2 + seed % 3
    game = Lockstep(seed, players, {"tiles": tiles})
    game.compare()
    token_rate = rng.choice([0.5, 0.1, 0.02])
    reread_at = rng.randrange(60)
    while not game.python.is_over:
        state = game.python
        if len(game.actions) == reread_at or (
            state.phase in ("pay", "migrate", "war") and rng.random() < 0.5
        ):
            game.reread(rng)
        if rng.random() < 0.15:
            for attempt in illegal_attempts(game.python, rng):
                game.try_illegal(attempt)
        if rng.random() < 0.1:
            game.hidden_hooks(rng)
        legal = game.python.legal_action_ids()
        if game.python.phase == "token":
            action: Any = legal[0] if rng.random() < token_rate else legal[1]
        else:
            action = rng.choice(legal)
        if rng.random() < 0.5:
            action = game.python.action_string(action)  # the notation, sometimes bent in case
            if rng.random() < 0.2:
                action = "  " + action.upper() + " "
        game.apply(action)
    game.try_illegal(rng.choice(["pass", 191011, "token"]))
    return len(game.actions)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_in_lockstep(chunk: int) -> None:
    tiles = other_tile_set(1)
    actions = 0
    seeds = range(chunk, GAMES, CHUNKS)  # chunks, so that test workers share them
    for seed in seeds:
        actions += play(seed, tiles if seed % 4 == 3 else None)
    assert actions > len(seeds) * 20


@pytest.mark.long
def test_thousands_of_games_in_lockstep() -> None:
    tiles = [other_tile_set(k) for k in range(3)]
    for seed in range(10_000, 10_000 + LONG_GAMES):
        play(seed, tiles[seed % 3] if seed % 4 == 3 else None)


def test_the_first_difference_is_reported_readably() -> None:
    assert (
        first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]})
        == ".a[1].b: python 2, native 3"
    )
    assert first_difference([1, 2], [1]) == ": python has 2 items, native 1"
    assert first_difference({"a": 1}, {"a": 1}) is None
    game = Lockstep(3, 2, {"tiles": None})
    with pytest.raises(AssertionError) as caught:
        game.same("events", [{"type": "place"}], [{"type": "replace"}])
    report = str(caught.value)
    assert "seed" in report and "position before the step" in report and "[0].type" in report


def test_seeds_deal_the_same_game_on_both_engines() -> None:
    for seed in [0, 1, 7, -7, 2**32, 2**32 - 1, 2**70 + 5, True, "text", 2.5, b"bytes"]:
        for players in (2, 3, 4):
            python = gheos.new_game(players, seed, engine="python")  # type: ignore[arg-type]
            native_state = gheos.new_game(players, seed, engine="native")  # type: ignore[arg-type]
            assert native_state.to_position() == python.to_position(), (seed, players)


def rare_conflicts(seeds: range) -> int:
    """Every replacement that leaves a choice (a tied migration or war), moves a civilization
    into a war or removes two, found in native random games, is made on both engines from
    the same position, and so is every answer to it."""
    compared = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = gheos.new_game(2 + seed % 3, seed, engine="native")
        while not state.is_over:
            ids = state.legal_action_ids()
            for action in ids if state.phase == "tile" else []:
                if action < REPLACE:
                    continue
                trial = state.clone()
                events = trial.apply(action)
                kinds = [e["type"] for e in events]
                moved = kinds.count("migration") + kinds.count("civ_removed")
                if trial.phase not in ("migrate", "war") and moved < 2 and "war" not in kinds:
                    continue
                # Both from the position: the reference replays the native game's choice.
                game = Lockstep(seed, len(state.players), {"tiles": None})
                position = state.to_position()
                game.python = gheos.from_position(position, engine="python")
                game.native = gheos.from_position(position, engine="native")
                game.apply(action)
                for answer in game.python.legal_action_ids():
                    python, native_state = game.python.clone(), game.native.clone()
                    game.apply(answer)
                    game.python, game.native = python, native_state
                    game.actions.pop()
                compared += 1
            state.apply_id(ids[rng.randrange(len(ids))])
    return compared


def test_rare_conflicts_and_every_answer_in_lockstep() -> None:
    assert rare_conflicts(range(RARE_GAMES)) > 20


@pytest.mark.long
def test_many_rare_conflicts_in_lockstep() -> None:
    assert rare_conflicts(range(1000, 1000 + LONG_RARE_GAMES)) > 5000
