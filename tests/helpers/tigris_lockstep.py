"""Lockstep play of the two Tigris engines, and the report of their first divergence.

A :class:`Lockstep` holds one game on the Python reference and one on the native engine and
feeds both the same inputs: actions (as ids or as text in any spelling), refused inputs
(malformed text, actions of another phase, ids not legal now, wrong types), rebuilds from
positions at random points (conflicts and other pending decisions included), and the hidden
information hooks (``sample_hidden`` with equal RNGs, ``with_hidden``, ``order_pile``).
After every input it compares everything the contract shows; the first difference raises
:class:`Divergence`, whose message says where the engines part:

- the table (players, seed, options, the chooser's seed) and how the game got there;
- the step and the input that was being applied;
- the actions so far (they replay from ``new_game`` unless a rebuild was involved);
- the position before the step, as JSON (``tigris.from_position`` rebuilds it on either
  engine);
- a readable diff of what differs (``path: python ... | native ...``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cradle import tigris

ENGINES = ("python", "native")
COLOURS = ("red", "blue", "green", "black")
ALL_OPTIONS = [
    tigris.Options(board=board, buildings=b, english=e, wonder=w, open_scoring=o)
    for board in ("standard", "advanced")
    for b in (False, True)
    for e in (False, True)
    for w in (False, True)
    for o in (False, True)
]
ALL_STRINGS = tigris.all_action_strings()
# How many differing entries a diff lists before it stops.
DIFF_LINES = 25


class Divergence(AssertionError):
    """The engines disagree; the message is the report."""


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scalars(values: Any) -> bool:
    return isinstance(values, list | tuple) and all(
        not isinstance(v, dict | list | tuple) for v in values
    )


def diff(python: Any, native: Any, path: str = "") -> list[str]:
    """Where ``python`` and ``native`` differ, one line per differing leaf: dict keys by name,
    list items by index, a dict's key order; two lists of plain values (legal actions, a bag)
    as their first difference and what only one side has."""
    here = path or "(top)"
    if isinstance(python, dict) and isinstance(native, dict):
        out: list[str] = []
        for key in python.keys() | native.keys():
            sub = f"{path}.{key}" if path else str(key)
            if key not in native:
                out.append(f"{sub}: python {_short(python[key])} | native (missing)")
            elif key not in python:
                out.append(f"{sub}: python (missing) | native {_short(native[key])}")
            else:
                out += diff(python[key], native[key], sub)
        if not out and list(python) != list(native):
            out.append(f"{here}: key order python {list(python)} | native {list(native)}")
        return sorted(out)
    if _scalars(python) and _scalars(native) and list(python) != list(native):
        first = next(
            (i for i, (a, b) in enumerate(zip(python, native, strict=False)) if a != b),
            min(len(python), len(native)),
        )
        at = lambda values: _short(values[first]) if first < len(values) else "(end)"  # noqa: E731
        out = [
            f"{here}: {len(python)} items in python, {len(native)} in native; first "
            f"difference at [{first}]: python {at(python)} | native {at(native)}"
        ]
        rest_python, rest_native = list(python), list(native)
        for value in list(rest_python):
            if value in rest_native:
                rest_python.remove(value)
                rest_native.remove(value)
        if rest_python:
            out.append(f"{here}: only python has {_short(rest_python, 400)}")
        if rest_native:
            out.append(f"{here}: only native has {_short(rest_native, 400)}")
        if not rest_python and not rest_native:
            out.append(f"{here}: the same items in another order")
        return out
    if isinstance(python, list | tuple) and isinstance(native, list | tuple):
        out = []
        for i, (a, b) in enumerate(zip(python, native, strict=False)):
            out += diff(a, b, f"{path}[{i}]")
        if len(python) != len(native):
            longer, who = (python, "python") if len(python) > len(native) else (native, "native")
            extra = longer[min(len(python), len(native)) :]
            out.append(
                f"{here}: length python {len(python)} | native {len(native)}; "
                f"only {who} has {_short(extra)}"
            )
        return out
    if python != native or type(python) is not type(native):
        return [f"{here}: python {_short(python)} | native {_short(native)}"]
    return []


def _differ(python: Any, native: Any) -> bool:
    """Unequal, or equal but written differently (a dict's key order, True for 1)."""
    return bool(python != native or repr(python) != repr(native))


def _is_outcome(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and value[0] in ("ok", "raised")


def _describe(outcome: tuple[str, Any]) -> Any:
    """An outcome as the report shows it: the value, or "raised Error: reason"."""
    if outcome[0] == "ok":
        return outcome[1]
    return f"raised {outcome[1][0]}: {outcome[1][1]}"


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", value) or ("raised", (exception type name, message))."""
    try:
        return "ok", call()
    except Exception as exc:  # both engines must fail alike, whatever the failure
        return "raised", (type(exc).__name__, str(exc))


@dataclass
class Table:
    players: int
    seed: int
    options: tigris.Options
    chooser: int

    def describe(self) -> str:
        return (
            f"{self.players} players, seed {self.seed}, "
            f"options {tigris.options_to_dict(self.options)}, chooser seed {self.chooser}"
        )


@dataclass
class Lockstep:
    """One game on both engines, compared after every input."""

    table: Table
    python: Any = None
    native: Any = None
    actions: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    steps: int = 0
    # The reference's position as last compared: the position before the next step.
    position: dict[str, Any] = field(default_factory=dict)

    # A position to start from instead of the table's new game (its bag shuffled by the seed
    # when it gives none).
    start: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        t = self.table
        if self.start is None:
            self.python = tigris.new_game(t.players, t.seed, t.options, engine="python")
            self.native = tigris.new_game(t.players, t.seed, t.options, engine="native")
            self.history.append("new_game")
        else:
            self.python = tigris.from_position(self.start, seed=t.seed, engine="python")
            self.native = tigris.from_position(self.start, seed=t.seed, engine="native")
            self.history.append(f"from_position({json.dumps(self.start)}, seed={t.seed})")
        self.compare("the start")

    # --- the report

    def fail(self, what: str, step_input: str, python: Any, native: Any, before: Any) -> None:
        """Raise the report of a divergence on ``what``; ``python`` and ``native`` are what
        each engine gave (``("ok", value)`` or ``("raised", (error, reason))`` outcomes are
        unwrapped when both succeeded; ids of legal lists are shown as their actions)."""
        if _is_outcome(python) and _is_outcome(native):
            if python[0] == native[0] == "ok":
                python, native = python[1], native[1]
            else:
                python, native = _describe(python), _describe(native)
        if what.startswith("legal_action_ids") and _scalars(python) and _scalars(native):
            python = [ALL_STRINGS[i] for i in python]
            native = [ALL_STRINGS[i] for i in native]
        lines = diff(python, native) or [f"python {_short(python)} | native {_short(native)}"]
        shown = lines[:DIFF_LINES]
        if len(lines) > DIFF_LINES:
            shown.append(f"... and {len(lines) - DIFF_LINES} more")
        report = [
            f"the engines diverge on {what} at step {self.steps} ({step_input})",
            f"table: {self.table.describe()}",
            f"how the game got here: {' -> '.join(self.history)}",
            f"actions applied ({len(self.actions)}, this step's last if it was one): "
            f"{json.dumps(self.actions)}",
            "position before the step (tigris.from_position(json.loads(...), engine=...)):",
            f"  {json.dumps(before)}",
            "diff (python | native):",
            *(f"  {line}" for line in shown),
        ]
        raise Divergence("\n".join(report))

    def compare(self, step_input: str, before: Any = None) -> None:
        """Everything the contract shows must be equal on both engines."""
        a, b = self.python, self.native
        if before is None:
            before = self.position
        checks: list[tuple[str, Callable[[Any], Any]]] = [
            ("legal_action_ids()", lambda s: s.legal_action_ids()),
            ("legal_actions()", lambda s: s.legal_actions()),
            ("to_move", lambda s: s.to_move),
            ("is_over", lambda s: s.is_over),
            ("players", lambda s: s.players),
            ("actions_left", lambda s: s.actions_left),
            ("to_position()", lambda s: s.to_position()),
        ]
        for seat in [None, *range(self.table.players)]:
            checks.append((f"view({seat})", lambda s, seat=seat: s.view(seat)))
        for seat in range(self.table.players):
            checks.append((f"hand({seat})", lambda s, seat=seat: s.hand(seat)))
            checks.append((f"dynasty({seat})", lambda s, seat=seat: s.dynasty(seat)))
        # the analysis API (docs/contract.md): the same named tuples and dataclasses
        checks += [
            ("geometry()", lambda s: s.geometry()),
            ("contents()", lambda s: s.contents()),
            ("regions()", lambda s: s.regions()),
            ("region_map()", lambda s: s.region_map()),
            ("bag_size()", lambda s: s.bag_size()),
            ("decision()", lambda s: s.decision()),
            ("conflict_strengths()", lambda s: s.conflict_strengths()),
            ("ending", lambda s: s.ending),
            ("game", lambda s: s.game),
        ]
        if a.is_over:
            checks.append(("result()", lambda s: s.result()))
        for what, get in checks:
            left, right = _outcome(lambda get=get: get(a)), _outcome(lambda get=get: get(b))
            if _differ(left, right):
                self.fail(what, step_input, left, right, before)
            if what == "to_position()":
                self.position = left[1]

    # --- inputs

    def apply(self, action: str | int, label: str | None = None) -> list[dict[str, Any]]:
        """Apply ``action`` to both; the events must match, then everything is compared."""
        self.steps += 1
        label = label or f"apply({action!r})"
        before = self.position
        left = _outcome(lambda: self.python.apply(action))
        right = _outcome(lambda: self.native.apply(action))
        if _differ(left, right):
            self.fail("the events of apply()", label, left, right, before)
        if left[0] != "ok":
            raise AssertionError(f"{label} was refused by both engines: {left[1]}")
        self.actions.append(ALL_STRINGS[action] if isinstance(action, int) else action)
        self.compare(label, before)
        events: list[dict[str, Any]] = left[1]
        return events

    def offer(self, bad: Any) -> None:
        """An input that may be refused: both engines must take or refuse it alike (the same
        kind, MalformedAction or DisallowedAction, and reason), and a refusal changes nothing.
        Tried on copies."""
        self.steps += 1
        label = f"offer({bad!r})"
        before = self.position
        legal = self.python.legal_action_ids()
        a, b = self.python.clone(), self.native.clone()
        left, right = _outcome(lambda: a.apply(bad)), _outcome(lambda: b.apply(bad))
        if _differ(left, right):
            self.fail("a refused (or odd) input", label, left, right, before)
        if left[0] == "raised":
            # One of the two kinds (python-chess's split), never the bare IllegalAction.
            if left[1][0] not in ("MalformedAction", "DisallowedAction"):
                raise AssertionError(f"{label} raised {left[1]}, not a kind of IllegalAction")
            for name, state in (("python", a), ("native", b)):
                if state.to_position() != before or state.legal_action_ids() != legal:
                    self.fail(
                        f"the state after a refusal ({name} changed)",
                        label,
                        before,
                        state.to_position(),
                        before,
                    )
        # a refusal touched only the copies; an accepted input must have done the same on both
        if left[0] == "ok" and _differ(a.to_position(), b.to_position()):
            self.fail(
                "the state after an accepted input", label, a.to_position(), b.to_position(), before
            )

    def rebuild(self, *, with_bag: bool = True, seed: int = 0) -> None:
        """Both engines start again from the reference's position (``with_bag`` False: the
        bag left out, to be shuffled by ``seed`` in both)."""
        self.steps += 1
        position = self.position
        label = f"from_position(position{'' if with_bag else ' without its bag'}, seed={seed})"
        given = dict(position)
        if not with_bag:
            del given["bag"]
        left = _outcome(lambda: tigris.from_position(given, seed=seed, engine="python"))
        right = _outcome(lambda: tigris.from_position(given, seed=seed, engine="native"))
        if left[0] != right[0] or left[0] == "raised":
            self.fail("from_position()", label, left, right, position)
        self.python, self.native = left[1], right[1]
        self.history.append(f"{label} at step {self.steps}")
        self.compare(label, position)

    def hidden(self, rng: random.Random) -> None:
        """sample_hidden with equal RNGs (same result, same draws), with_hidden and
        order_pile (good and bad input) on both: same results, same errors, no change."""
        self.steps += 1
        players = self.table.players
        before = self.position
        seat = rng.randrange(players)
        seed = rng.randrange(2**32)
        label = f"sample_hidden({seat}, random.Random({seed}))"
        ra, rb = random.Random(seed), random.Random(seed)
        left = _outcome(lambda: self.python.sample_hidden(seat, ra).to_position())
        right = _outcome(lambda: self.native.sample_hidden(seat, rb).to_position())
        if _differ(left, right):
            self.fail("sample_hidden()", label, left, right, before)
        if ra.getstate() != rb.getstate():
            self.fail("the draws sample_hidden takes from its RNG", label, "-", "-", before)
        sampled = left[1]
        hands = [sampled["hands"][name] for name in sampled["players"]]
        bag = list(sampled["bag"])
        attempts: list[tuple[Any, Any]] = [(hands, bag), (hands[:-1], bag)]
        if bag:
            attempts += [
                (hands, [*bag[1:], "pink"]),
                (hands, bag[1:]),
                ([list(h) for h in hands], [*bag[:-1], [bag[-1]]]),
                (hands, {bag[0]}),
            ]
        if hands[0]:
            attempts.append(([[*hands[0][1:], "blue"], *hands[1:]], bag))
            attempts.append(([hands[0][1:], *hands[1:]], [hands[0][0], *bag]))
        attempts.append((5, bag))
        for given_hands, given_bag in attempts:
            label = f"with_hidden({_short(given_hands, 60)}, {_short(given_bag, 60)})"
            left = _outcome(
                lambda h=given_hands, g=given_bag: self.python.with_hidden(h, g).to_position()
            )
            right = _outcome(
                lambda h=given_hands, g=given_bag: self.native.with_hidden(h, g).to_position()
            )
            if _differ(left, right):
                self.fail("with_hidden()", label, left, right, before)
        tiles = list(before["bag"])
        rng.shuffle(tiles)
        fronts: list[Any] = [tiles[: rng.randrange(0, 7)], ["pink"], ["red"] * 60, 5, None]
        if tiles:
            fronts.append([tiles[0], 3])
        for front in fronts:
            label = f"order_pile({_short(front, 60)})"
            a, b = self.python.clone(), self.native.clone()
            left = _outcome(lambda a=a, front=front: (a.order_pile(front), a.to_position()))
            right = _outcome(lambda b=b, front=front: (b.order_pile(front), b.to_position()))
            if _differ(left, right):
                self.fail("order_pile()", label, left, right, before)
        self.compare("the hidden-information hooks (which change nothing)", before)


# --- random inputs

_WORDS = [
    "leader",
    "king",
    "priest",
    "farmer",
    "trader",
    "queen",
    "withdraw",
    "tile",
    "red",
    "blue",
    "green",
    "black",
    "pink",
    "catastrophe",
    "swap",
    "pass",
    "commit",
    "war",
    "monument",
    "red-blue",
    "blue-red",
    "red-red",
    "red-blue-green",
    "treasure",
    "building",
    "wonder",
    "wonderpoint",
    "decline",
    "K1",
    "k1",
    "A1",
    "P11",
    "Q1",
    "A0",
    "A12",
    "a01",
    "-",
    "0",
    "3",
    "6",
    "7",
    "007",
    "-1",
    "99999999999999999999999",
    "it's",
    'a"b',
    "x\\y",
    "\x07",
    "\x7f",
    "ß",
    "\ud800",
    "ＡＢ",
]
_SPACES = (" ", " ", " ", "  ", "\t", "\n", "\x0b", "\x1c", "\xa0", "\u3000")


def spell(action: str, rng: random.Random) -> str:
    """``action`` in another legal spelling: case and whitespace changed."""
    words = [w.upper() if rng.random() < 0.3 else w.lower() for w in action.split()]
    out = rng.choice(("", " ", "\t"))
    for i, word in enumerate(words):
        out += word + (rng.choice(_SPACES) if i < len(words) - 1 else "")
    return out + rng.choice(("", " ", "\n"))


def bad_input(state: Any, rng: random.Random) -> Any:
    """A random input that is malformed, of the wrong kind or (often) not legal now."""
    legal = set(state.legal_action_ids())
    pick = rng.randrange(7)
    if pick == 0:  # any notation string, mostly not legal now (another phase or cell)
        return rng.choice(ALL_STRINGS)
    if pick == 1:  # an id not legal now
        for _ in range(20):
            i = rng.randrange(len(ALL_STRINGS))
            if i not in legal:
                return i
        return -1
    if pick == 2:
        return rng.choice((-1, len(ALL_STRINGS), 10**20, -(10**20), 2**63, True, False))
    if pick == 3:
        return rng.choice((None, 1.5, [], {}, b"pass", object))
    if pick == 4:  # a legal action spelled oddly
        return spell(rng.choice(state.legal_actions() or ["pass"]), rng)
    words = [rng.choice(_WORDS) for _ in range(rng.randrange(0, 5))]
    sep = rng.choice(_SPACES)
    if pick == 5 and words:  # a verb with the wrong arguments
        words[0] = rng.choice(("leader", "tile", "swap", "commit", "monument", "war"))
    return sep.join(words)


def play(table: Table, *, rebuilds: int = 2, offers_every: int = 3, hidden_every: int = 25) -> int:
    """Play ``table``'s game to the end on both engines in lockstep (random legal actions
    chosen by the chooser's seed, applied by id or as text), with refused inputs, rebuilds
    from positions (pending decisions preferred) and hidden-information checks along the way.
    Returns the number of actions; raises Divergence at the first difference."""
    rng = random.Random(table.chooser)
    game = Lockstep(table)
    rebuild_at = {rng.randrange(10, 260) for _ in range(rebuilds)}
    while not game.python.is_over:
        n = len(game.actions)
        pending = game.python.to_position()["pending"] is not None
        if n in rebuild_at or (pending and rng.random() < 0.05):
            rebuild_at.discard(n)
            game.rebuild(with_bag=rng.random() < 0.8, seed=rng.randrange(1000))
        if rng.randrange(offers_every) == 0:
            game.offer(bad_input(game.python, rng))
        if rng.randrange(hidden_every) == 0:
            game.hidden(rng)
        ids = game.python.legal_action_ids()
        action = rng.choice(ids)
        form = rng.random()
        if form < 0.5:
            game.apply(action)
        elif form < 0.8:
            game.apply(ALL_STRINGS[action])
        else:
            game.apply(spell(ALL_STRINGS[action], rng), label=f"apply({ALL_STRINGS[action]!r})")
        if len(game.actions) > 3000:
            raise AssertionError(f"the game does not end: {table.describe()}")
    game.offer(bad_input(game.python, rng))
    return len(game.actions)


def tables(count: int, first_seed: int = 0) -> list[Table]:
    """``count`` tables going round every option combination and 2-4 players (32 and 3 are
    coprime: 96 tables cover every pair)."""
    return [
        Table(
            players=2 + i % 3,
            seed=first_seed + i,
            options=ALL_OPTIONS[i % len(ALL_OPTIONS)],
            chooser=10_000 + first_seed + i,
        )
        for i in range(count)
    ]
