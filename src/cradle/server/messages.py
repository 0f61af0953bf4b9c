"""What the server pushes on a table's WebSocket: every message is one of these models,
serialised by pydantic (the frame after each change, a refusal, a chat line, a pong)."""

from __future__ import annotations

from typing import Literal

from cradle.server.answers import Answer, ChatLine, MergedFrame, TableFrame


class ViewMessage(TableFrame):
    """The WebSocket's frame after every change (version 2)."""

    type: Literal["view"]


class MergedViewMessage(MergedFrame):
    """The WebSocket's frame after every change (version 1: merged as :class:`MergedFrame`)."""

    type: Literal["view"]


class ErrorMessage(Answer):
    """The WebSocket's answer to a frame it refused (the connection stays open): the reason,
    the HTTP status the same request would get, and the refusal's kind where it has one (an
    action: "malformed" or "disallowed")."""

    type: Literal["error"]
    error: str
    status: int
    kind: str | None = None
    # The message the reason is, and its params, for a client to say it in its language.
    message: str | None = None
    params: dict[str, str | int | float] | None = None


class ChatMessage(Answer):
    """A new line of the table's chat, pushed to those who may read it."""

    type: Literal["chat"]
    line: ChatLine


class PongMessage(Answer):
    """The answer to ``{"type": "ping"}``."""

    type: Literal["pong"]


class HelloMessage(Answer):
    """``/ws/me``'s first message: whose page it is."""

    type: Literal["hello"]
    name: str


class InboxMessage(Answer):
    """``/ws/me``: a friend's request, answer or invitation came (read the inbox again)."""

    type: Literal["inbox"]


class SignedOutMessage(Answer):
    """``/ws/me``: the page's session ended (a password changed or reset, the account
    deleted); the connection then closes."""

    type: Literal["signed_out"]
    reason: str
