"""Game records: options, seed, seat order and the list of actions, saved as JSON.

A record replays to the identical state because a game is fully determined by its options,
its seed (which fixes the bag / stacks and the first player) and the actions taken.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from cradle.core.contract import JSON, GameState

RECORD_FORMAT = 1


class RecordError(ValueError):
    """A record that cannot be read or replayed."""


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

    def replay(self) -> GameState:
        """Replay every action from the start; raises RecordError at the first bad one."""
        from cradle.core.registry import get_game

        module = get_game(self.game)
        try:
            options = module.options_from_dict(self.options)
            state: GameState = module.new_game(
                len(self.players), self.seed, options, dynasties=self.players
            )
        except ValueError as exc:
            raise RecordError(f"cannot set up the game: {exc}") from None
        for number, action in enumerate(self.actions, start=1):
            try:
                state.apply(action)
            except ValueError as exc:
                raise RecordError(f"action {number} ({action!r}) is illegal: {exc}") from None
        return state
