"""A third game for the tests, registered by them (``cradle.core.registry.GAME_MODULES``): the
race to ten. Seats take turns adding one or two to a running count; who reaches ten wins. It
follows the contract (cradle.core.contract) and nothing else, so that code serving any game can
be shown to serve a game it was never written for."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self, TypedDict

from cradle.core import contract
from cradle.core.contract import JSON, Event, GameState, Pieces, Presentation, SeatResult, View
from cradle.core.lessons import Lesson

NAME = "race"
MIN_PLAYERS = 2
MAX_PLAYERS = 3
GOAL = 10
SEATS = ("hare", "tortoise", "snail")
DRAW_COUNTERS: tuple[str, ...] = ()
LESSONS: tuple[Lesson, ...] = ()


class IllegalAction(contract.IllegalAction):
    pass


class MalformedAction(IllegalAction, contract.MalformedAction):
    pass


class DisallowedAction(IllegalAction, contract.DisallowedAction):
    pass


class RaceView(View):
    count: int
    goal: int


class RaceEvent(Event):
    count: int


class RacePiece(TypedDict):
    """The count a move reached, as a piece a client may describe."""

    value: int


@dataclass(frozen=True)
class Options:
    goal: int = GOAL


def options_from_dict(data: object) -> Options:
    if data is None:
        return Options()
    if isinstance(data, Options):
        return data
    if not isinstance(data, dict) or set(data) - {"goal"}:
        raise ValueError("the race's only option is goal")
    goal = data.get("goal", GOAL)
    if not isinstance(goal, int) or isinstance(goal, bool) or not 3 <= goal <= 30:
        raise ValueError("goal is a number from 3 to 30")
    return Options(goal)


def options_to_dict(options: object) -> JSON:
    return {"goal": options_from_dict(options).goal}


def public_action(action: str, mover: int | None, viewer: int | None) -> str:
    return action  # nothing is secret in a race


def step_pieces(before: GameState, after: GameState, events: Sequence[Event]) -> Pieces:
    return {"count": {"value": after.view(None)["count"]}}  # type: ignore[typeddict-item]


PRESENTATION = Presentation(
    title="Race to ten",
    seat_names=SEATS,
    view=RaceView,
    event=RaceEvent,
    result=SeatResult,
    piece=RacePiece,
    step_pieces=step_pieces,
)


class RaceState:
    def __init__(self, players: tuple[str, ...], goal: int, count: int = 0, turn: int = 0):
        self.players = players
        self.goal = goal
        self.count = count
        self.turn = turn

    @property
    def game(self) -> str:
        return NAME

    @property
    def to_move(self) -> int:
        return self.turn % len(self.players)

    @property
    def is_over(self) -> bool:
        return self.count >= self.goal

    def legal_actions(self) -> list[str]:
        if self.is_over:
            return []
        return [f"add {n}" for n in (1, 2) if self.count + n <= self.goal]

    def legal_action_ids(self) -> list[int]:
        return [int(action.split()[1]) - 1 for action in self.legal_actions()]

    def apply(self, action: str | int) -> list[Event]:
        if isinstance(action, int) and not isinstance(action, bool):
            action = f"add {action + 1}"
        if not isinstance(action, str):
            raise MalformedAction(f"an action is a string, not {type(action).__name__}")
        words = action.lower().split()
        if len(words) != 2 or words[0] != "add" or words[1] not in ("1", "2"):
            raise MalformedAction("write 'add 1' or 'add 2'")
        if self.is_over:
            raise DisallowedAction("the race is over")
        if self.count + int(words[1]) > self.goal:
            raise DisallowedAction(f"the count may not pass {self.goal}")
        seat = self.to_move
        self.count += int(words[1])
        self.turn += 1
        text = f"{self.players[seat]} counts to {self.count}"
        return [RaceEvent(type="add", text=text, seat=seat, count=self.count)]

    def result(self) -> list[SeatResult]:
        winner = (self.turn - 1) % len(self.players)
        return [
            SeatResult(seat=seat, score=int(seat == winner), place=1 if seat == winner else 2)
            for seat in range(len(self.players))
        ]

    def view(self, seat: int | None) -> View:
        return RaceView(
            game=NAME,
            seat=seat,
            players=list(self.players),
            active=self.to_move,
            to_move=self.to_move,
            hand_sizes={name: 0 for name in self.players},
            is_over=self.is_over,
            count=self.count,
            goal=self.goal,
        )

    def public_action(self, action: str, viewer: int | None = None) -> str:
        return action

    def clone(self) -> Self:
        return type(self)(self.players, self.goal, self.count, self.turn)

    def to_position(self) -> JSON:
        return {
            "players": list(self.players),
            "goal": self.goal,
            "count": self.count,
            "turn": self.turn,
        }

    def sample_hidden(self, seat: int, rng: random.Random) -> Self:
        return self.clone()  # nothing is hidden

    def hand(self, seat: int) -> list[str]:
        return []

    def with_hidden(self, hands: Sequence[Sequence[str]], pile: Sequence[str]) -> Self:
        return self.clone()

    def order_pile(self, front: Sequence[str]) -> None:
        return None


def new_game(
    players: int = 2,
    seed: int | None = None,
    options: object = None,
    dynasties: Sequence[str] | None = None,
    engine: str | None = None,
) -> RaceState:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a race is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
    names = tuple(dynasties) if dynasties is not None else SEATS[:players]
    return RaceState(names, options_from_dict(options).goal)


def from_position(position: object, seed: int | None = None, engine: str | None = None) -> Any:
    if not isinstance(position, dict):
        raise ValueError("a position is an object")
    return RaceState(
        tuple(position["players"]), position["goal"], position["count"], position["turn"]
    )


def lesson_start(name: str, seed: int = 56, engine: str | None = None) -> RaceState:
    raise ValueError(f"the race has no lesson {name!r}")
