"""What clients send: request bodies and WebSocket frames as pydantic models, and the JSON
reader every one of them goes through (size, depth and number checks before anything else)."""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

M = TypeVar("M", bound=BaseModel)

MAX_DEPTH = 16  # nesting of arrays and objects in anything a client sends
MAX_SEATS = 8
ACTION_CHARS = 200
TOKEN_CHARS = 128


class BadInput(ValueError):
    """Input refused before it reached the game: ``field`` names the part, when there is one."""

    def __init__(self, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.field = field


class CreateBody(BaseModel):
    """``POST /api/games``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    game: Annotated[str, Field(max_length=20)]
    players: int = 2
    options: dict[str, JsonValue] = Field(default_factory=dict)
    # "human" (the creator's seat), "open" (offered in the lobby) or "bot:NAME".
    seats: (
        Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=MAX_SEATS)] | None
    ) = None
    hotseat: bool = False
    listed: bool = True
    bot_seconds: Annotated[float, Field(gt=0, le=3600)] | None = None


class ActionBody(BaseModel):
    """``POST /api/games/{id}/actions`` (a ``token`` field is ignored: it goes in a header)."""

    model_config = ConfigDict(extra="ignore", strict=True)

    action: Annotated[str, Field(max_length=ACTION_CHARS)]


class JoinBody(BaseModel):
    """``POST /api/games/{id}/join``: an invite code, or nothing for an open seat."""

    model_config = ConfigDict(extra="forbid", strict=True)

    invite: Annotated[str, Field(max_length=TOKEN_CHARS)] | None = None


class EmptyBody(BaseModel):
    """A POST that takes nothing (a hint, an analysis): ``{}`` or no body."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(BaseModel):
    """The first WebSocket message: the seat's token, or nothing to watch."""

    model_config = ConfigDict(extra="forbid", strict=True)

    token: Annotated[str, Field(max_length=TOKEN_CHARS)] | None = None


class Frame(BaseModel):
    """A WebSocket message after the first: a move, an undo or a ping."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: Annotated[str, Field(max_length=ACTION_CHARS)] | None = None
    undo: bool | None = None
    type: Annotated[str, Field(max_length=20)] | None = None


def _refuse_constant(name: str) -> Any:
    raise BadInput(f"{name} is not a JSON number")


def depth_of(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (no recursion: it is the input's)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_json(raw: bytes | str) -> Any:
    """Parse a client's JSON; BadInput for anything malformed, too deep or absurd."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except RecursionError:
        raise BadInput(f"the JSON nests deeper than {MAX_DEPTH} levels") from None
    except BadInput:
        raise
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        shown = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)[:80]
        raise BadInput(f"not valid JSON: {shown}") from None
    if depth_of(value) > MAX_DEPTH:
        raise BadInput(f"the JSON nests deeper than {MAX_DEPTH} levels")
    return value


def parse(model: type[M], data: Any) -> M:
    """``data`` as ``model``; BadInput names the first field that is wrong and why."""
    if not isinstance(data, dict):
        raise BadInput("the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or None
        message = str(error["msg"])
        raise BadInput(f"{where}: {message}" if where else message, where) from None
