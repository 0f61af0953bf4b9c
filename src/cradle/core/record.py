"""Game records: options, seed, seat order and the list of actions, saved as JSON.

A record replays to the identical state because a game is fully determined by its options,
its seed (which fixes the bag / stacks and the first player) and the actions taken.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cradle.core.contract import JSON, Event, GameState
from cradle.core.lessons import LESSON_OPTION

RECORD_FORMAT = 1


class RecordError(ValueError):
    """A record that cannot be read or replayed."""


@dataclass(frozen=True)
class ReplayStep:
    """One action of a replayed record: ``state`` is the game after it (the same object at
    every step, advanced in place: clone it to keep it)."""

    ply: int  # 1 for the first action
    seat: int  # the seat that took the action
    action: str
    events: list[Event]
    state: GameState


@dataclass
class GameRecord:
    game: str
    players: list[str]
    seed: int
    options: JSON = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)

    def to_dict(self) -> JSON:
        return {
            "format": RECORD_FORMAT,
            "game": self.game,
            "players": list(self.players),
            "seed": self.seed,
            "options": dict(self.options),
            "actions": list(self.actions),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: object) -> GameRecord:
        if not isinstance(data, dict):
            raise RecordError("a game record must be a JSON object")
        for key in ("game", "players", "seed", "actions"):
            if key not in data:
                raise RecordError(f"the game record has no {key!r}")
        game, players, seed, actions = (
            data["game"],
            data["players"],
            data["seed"],
            data["actions"],
        )
        options = data.get("options") or {}
        if not isinstance(game, str):
            raise RecordError("'game' must be a string")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise RecordError("'players' must be a list of names")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise RecordError("'seed' must be an integer")
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise RecordError("'actions' must be a list of action strings")
        if not isinstance(options, dict):
            raise RecordError("'options' must be an object")
        return cls(game=game, players=players, seed=seed, options=options, actions=actions)

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
        return cls.from_dict(data)

    def start(self) -> GameState:
        """The game as it was set up, before the first action; RecordError if it cannot be."""
        from cradle.core.registry import get_game

        try:
            module = get_game(self.game)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        try:
            lesson = self.options.get(LESSON_OPTION)
            if lesson is not None:
                # A guided game's step: its named position, dealt with the record's seed.
                if not isinstance(lesson, str):
                    raise ValueError(f"a lesson is named by a string, not {lesson!r}")
                state: GameState = module.lesson_start(lesson, self.seed)
                if list(state.players) != list(self.players):
                    raise ValueError(f"lesson {lesson!r} is played by {list(state.players)}")
                return state
            options = module.options_from_dict(self.options)
            state = module.new_game(len(self.players), self.seed, options, dynasties=self.players)
        except (ValueError, TypeError) as exc:
            raise RecordError(f"cannot set up the game: {exc}") from None
        return state

    def states(self) -> Iterator[ReplayStep]:
        """Every action replayed from :meth:`start`, in order; RecordError at the first one
        that is not legal (the steps before it have been yielded)."""
        return self.steps_from(self.start())

    def steps_from(self, state: GameState) -> Iterator[ReplayStep]:
        """:meth:`states` from ``state``, the game as :meth:`start` set it up (advanced in
        place)."""
        for ply, action in enumerate(self.actions, start=1):
            seat = int(state.to_move)
            try:
                events = list(state.apply(action) or [])
            except ValueError as exc:
                raise RecordError(f"action {ply} ({action!r}) is illegal: {exc}") from None
            yield ReplayStep(ply, seat, action, events, state)

    def replay(self) -> GameState:
        """Replay every action from the start; raises RecordError at the first bad one."""
        state = self.start()
        for _step in self.steps_from(state):
            pass
        return state
