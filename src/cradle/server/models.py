"""What clients send: request bodies and WebSocket frames as pydantic models, and the JSON
reader every one of them goes through (size, depth and number checks before anything else).

Every field is bounded here, before anything is built from it: each number has a range, each
string, list and object a length (tests/server/test_bounds.py enforces it for every model).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Annotated, Literal, NoReturn, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

M = TypeVar("M", bound=BaseModel)

MAX_DEPTH = 16  # nesting of arrays and objects in anything a client sends
MAX_SEATS = 8
ACTION_CHARS = 200
TOKEN_CHARS = 128
GAME_CHARS = 20
SEAT_CHARS = 40  # "human", "open" or "bot:NAME"
LESSON_CHARS = 40  # a lesson's name (checked against the game's own list)
NAME_CHARS = 100  # a person's name as sent (3-24 characters once trimmed and normalised)
PASSWORD_CHARS = 256
EMAIL_CHARS = 254
LANGUAGE_CHARS = 16  # a BCP 47 tag of a catalogue: "pt-BR"
MAX_OPTIONS = 16  # a table's options (every game has fewer)
OPTION_NAME_CHARS = 40
OPTION_CHARS = 8192  # a text option: Gheos's custom tile set is the longest
OPTION_NUMBER = 10**6  # a numeric option's magnitude
CHAT_CHARS = 2000  # a chat line's body (the chat's own limit is stricter, see server.chat)
NUMBER_DIGITS = 40  # digits of a JSON number (2^128 has 39): longer ones are refused unread
BOT_NAME_CHARS = 40  # a bot's name (a stand-in's level)
DEADLINE_MIN = 3600  # a turn-based table's time per move: one hour ...
DEADLINE_MAX = 7 * 86400  # ... to seven days
CLOCK_BASE_MAX = 3 * 3600  # a live table's clock: at most three hours per person ...
CLOCK_INCREMENT_MAX = 600  # ... and ten minutes more per turn
DEADLINE_DEFAULT = 86400  # when the creator names none
# The versions of the API a client may speak (docs/server.md, "Versions"): 1 without saying.
ApiVersion = Literal[1, 2]
API_VERSIONS: tuple[int, ...] = get_args(ApiVersion)


class BadInput(ValueError):
    """Input refused before it reached the game: ``field`` names the part, when there is one.
    With ``params``, ``reason`` is a message with those named placeholders (as
    :class:`cradle.server.errors.ApiError`'s)."""

    def __init__(self, reason: str, field: str | None = None, **params: object) -> None:
        super().__init__(reason.format(**params) if params else reason)
        self.message = reason
        self.params = params
        self.reason = reason.format(**params) if params else reason
        self.field = field


# A table option's value: the games' options are words, switches and (some day) numbers.
OptionValue = (
    Annotated[str, Field(max_length=OPTION_CHARS)]
    | bool
    | Annotated[int, Field(ge=-OPTION_NUMBER, le=OPTION_NUMBER)]
    | Annotated[float, Field(ge=-OPTION_NUMBER, le=OPTION_NUMBER, allow_inf_nan=False)]
    | None
)


class ClockBody(BaseModel):
    """A live table's time control: each person's ``base_s`` seconds, and ``increment_s`` more
    each time their turn ends."""

    model_config = ConfigDict(extra="forbid", strict=True)

    base_s: Annotated[int, Field(ge=1, le=CLOCK_BASE_MAX)]
    increment_s: Annotated[int, Field(ge=0, le=CLOCK_INCREMENT_MAX)] = 0


class CreateBody(BaseModel):
    """``POST /api/games``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    game: Annotated[str, Field(max_length=GAME_CHARS)]
    # The game's own range is checked by the hub; this one keeps absurd counts out first.
    players: Annotated[int, Field(ge=1, le=MAX_SEATS)] = 2
    options: Annotated[
        dict[Annotated[str, Field(max_length=OPTION_NAME_CHARS)], OptionValue],
        Field(max_length=MAX_OPTIONS),
    ] = Field(default_factory=dict)
    # "human" (the creator's seat), "open" (offered in the lobby) or "bot:NAME".
    seats: (
        Annotated[list[Annotated[str, Field(max_length=SEAT_CHARS)]], Field(max_length=MAX_SEATS)]
        | None
    ) = None
    hotseat: bool = False
    listed: bool = True
    bot_seconds: Annotated[float, Field(gt=0, le=3600, allow_inf_nan=False)] | None = None
    # "live" (as ever) or "turn": turn-based, each person has ``deadline_s`` per decision.
    mode: Literal["live", "turn"] = "live"
    deadline_s: Annotated[int, Field(ge=DEADLINE_MIN, le=DEADLINE_MAX)] | None = None
    clock: ClockBody | None = None  # a live table's clocks (none: no clock)
    # Invite only: not listed in the lobby (the same as "listed": false).
    private: bool = False
    # The bot level that may play for the creator's seat when its deadline passes.
    standin: Annotated[str, Field(max_length=BOT_NAME_CHARS)] | None = None
    spectator_chat: bool = False  # spectators read and write the chat too
    rated: bool = False  # every seat a signed-in player's, no undo, no hints: rated
    # A guest's name for their seat (a signed-in creator's seat shows the account's name).
    name: Annotated[str, Field(max_length=NAME_CHARS)] | None = None


class ChatBody(BaseModel):
    """``POST /api/games/{id}/chat``: a line (its own limit, after trimming, is 500)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: Annotated[str, Field(max_length=CHAT_CHARS)]


class ReportBody(BaseModel):
    """``POST /api/games/{id}/chat/{line}/report`` or ``/api/players/{name}/report``: what
    is wrong, for the operator (a line's rules apply: 500 characters, no invisible ones)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    reason: Annotated[str, Field(max_length=CHAT_CHARS)]


class MuteBody(BaseModel):
    """``POST /api/games/{id}/mute``: mute (or, with ``muted: false``, hear again) a speaker."""

    model_config = ConfigDict(extra="forbid", strict=True)

    speaker: Annotated[str, Field(max_length=80)]
    muted: bool = True


class LessonBody(BaseModel):
    """``POST /api/lessons``: a table for one step of a guided first game."""

    model_config = ConfigDict(extra="forbid", strict=True)

    game: Annotated[str, Field(max_length=GAME_CHARS)]
    lesson: Annotated[str, Field(max_length=LESSON_CHARS)]
    name: Annotated[str, Field(max_length=NAME_CHARS)] | None = None  # a guest's, for the seat


class ActionBody(BaseModel):
    """``POST /api/games/{id}/actions`` and ``/explain``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: Annotated[str, Field(max_length=ACTION_CHARS)]
    # Ignored (the token goes in the Authorization header): older clients sent it here too.
    token: Annotated[str, Field(max_length=TOKEN_CHARS)] | None = None


class JoinBody(BaseModel):
    """``POST /api/games/{id}/join``: an invite code, or nothing for an open seat."""

    model_config = ConfigDict(extra="forbid", strict=True)

    invite: Annotated[str, Field(max_length=TOKEN_CHARS)] | None = None
    name: Annotated[str, Field(max_length=NAME_CHARS)] | None = None  # a guest's name
    # The bot level that may play for this seat when its deadline passes (default "easy").
    standin: Annotated[str, Field(max_length=BOT_NAME_CHARS)] | None = None


class StopMailBody(BaseModel):
    """``POST /api/mail/stop``: the one-time code of a turn notice's "no more mails" link."""

    model_config = ConfigDict(extra="forbid", strict=True)

    code: Annotated[str, Field(max_length=TOKEN_CHARS)]


class Credentials(BaseModel):
    """``POST /api/accounts`` and ``POST /api/session``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: Annotated[str, Field(max_length=NAME_CHARS)]
    password: Annotated[str, Field(max_length=PASSWORD_CHARS)]


class SignUp(BaseModel):
    """``POST /api/accounts``: a name, a password, and an address to check (optional)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: Annotated[str, Field(max_length=NAME_CHARS)]
    password: Annotated[str, Field(max_length=PASSWORD_CHARS)]
    email: Annotated[str, Field(max_length=EMAIL_CHARS)] | None = None


class ResetRequest(BaseModel):
    """``POST /api/password-reset``: the account's name, or its address."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: Annotated[str, Field(max_length=NAME_CHARS)] | None = None
    email: Annotated[str, Field(max_length=EMAIL_CHARS)] | None = None


class NewPassword(BaseModel):
    """``POST /api/password-reset/{code}``: the new password."""

    model_config = ConfigDict(extra="forbid", strict=True)

    password: Annotated[str, Field(max_length=PASSWORD_CHARS)]


class NameBody(BaseModel):
    """``POST /api/friends``, ``POST /api/blocks``, ``POST /api/games/{id}/invite``: a
    person's name."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: Annotated[str, Field(max_length=NAME_CHARS)]


class PasswordChange(BaseModel):
    """``POST /api/me/password``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    password: Annotated[str, Field(max_length=PASSWORD_CHARS)]  # the present one
    new_password: Annotated[str, Field(max_length=PASSWORD_CHARS)]


class AccountDeletion(BaseModel):
    """``DELETE /api/me``: the password, once more."""

    model_config = ConfigDict(extra="forbid", strict=True)

    password: Annotated[str, Field(max_length=PASSWORD_CHARS)]


class AccountSettings(BaseModel):
    """``PATCH /api/me``: the address mail goes to (a new one is checked first), whether turn
    notices and friends' invitations are mailed, and the language of the account's pages and
    mails (a tag of ``GET /static/i18n/languages.json``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    email: Annotated[str, Field(max_length=EMAIL_CHARS)] | None = None
    turn_mail: bool | None = None
    invite_mail: bool | None = None  # friends' invitations to seats mailed too
    language: Annotated[str, Field(max_length=LANGUAGE_CHARS)] | None = None


class SeatBody(BaseModel):
    """``POST /api/games/{id}/seat``: which of the account's seats (default: its first)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seat: Annotated[int, Field(ge=0, le=MAX_SEATS)] | None = None


class ContinueBody(BaseModel):
    """``POST /api/games/{id}/continue``: the code of a "continue on another device" link."""

    model_config = ConfigDict(extra="forbid", strict=True)

    code: Annotated[str, Field(max_length=TOKEN_CHARS)]


class TimeoutBody(BaseModel):
    """``POST /api/games/{id}/timeout``: what the others do about a seat whose deadline
    passed: let its stand-in bot play for it until its person comes back, or end the game
    without it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    choice: Literal["bot", "end"]


class EmptyBody(BaseModel):
    """A POST that takes nothing (a hint, an analysis): ``{}`` or no body."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(BaseModel):
    """The first WebSocket message: the seat's token, or nothing to watch; and the version of
    the API the client speaks (docs/server.md, "Versions"; 1 without it)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    token: Annotated[str, Field(max_length=TOKEN_CHARS)] | None = None
    api: ApiVersion = 1


class ClientMessage(BaseModel):
    """A WebSocket message after the first: a move, an undo or a ping."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: Annotated[str, Field(max_length=ACTION_CHARS)] | None = None
    undo: bool | None = None
    type: Annotated[str, Field(max_length=20)] | None = None  # "ping"


def _refuse_constant(name: str) -> NoReturn:
    raise BadInput(f"{name} is not a JSON number")


def _read_int(text: str) -> int:
    if len(text.lstrip("-")) > NUMBER_DIGITS:
        raise BadInput(f"a number has at most {NUMBER_DIGITS} digits")
    return int(text)


def _read_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e999: JSON has no infinity
        raise BadInput(f"{text[:30]} is out of range")
    return value


def depth_of(value: object) -> int:
    """How deeply arrays and objects nest in ``value`` (no recursion: it is the input's)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[object]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_json(raw: bytes | str) -> object:
    """Parse a client's JSON; BadInput for anything malformed, too deep or absurd."""
    try:
        value: object = json.loads(
            raw, parse_constant=_refuse_constant, parse_int=_read_int, parse_float=_read_float
        )
    except RecursionError:
        raise BadInput(f"the JSON nests deeper than {MAX_DEPTH} levels") from None
    except BadInput:
        raise
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        shown = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)[:80]
        raise BadInput(f"not valid JSON: {shown}") from None
    if depth_of(value) > MAX_DEPTH:
        raise BadInput(f"the JSON nests deeper than {MAX_DEPTH} levels")
    try:  # an escaped lone surrogate ("\ud800") is no text: hashing or storing it would fail
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("not valid JSON: a lone surrogate is no character") from None
    return value


def parse(model: type[M], data: object) -> M:
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
