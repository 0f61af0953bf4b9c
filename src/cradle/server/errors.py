"""The refusals the server answers with: an :class:`ApiError` carries the HTTP status and the
reason; a storage failure becomes a 503 in :func:`unavailable` and nowhere else.

A reason a player may read is a message of the translation catalogues (marked ``N_``) with
named ``params``: the answer carries the English sentence (``error``) and, beside it, the
message and its params, which the web client renders in its language (docs/translating.md)."""

from __future__ import annotations

from collections.abc import Mapping

from cradle.core.contract import DisallowedAction, IllegalAction
from cradle.core.words import N_
from cradle.server.metrics import DB_FAILURES
from cradle.server.refusal import Refusal, worded
from cradle.server.store.errors import Corrupt, ReadOnly, trouble

DB_RETRY_AFTER = 5.0  # seconds a client waits before trying again when the database fails

Param = str | int | float


def wire_params(params: Mapping[str, object] | None) -> dict[str, Param]:
    """A message's params as JSON values: numbers and text as they are, anything else as text."""
    return {
        name: value if isinstance(value, (str, int, float)) else str(value)
        for name, value in (params or {}).items()
    }


def field_refusal(field: str, exc: ValueError, status: int = 400) -> ApiError:
    """A refusal of ``field``: the English sentence says the field ("password: ..."); the
    message and params, for a client's language, are the rule's own sentence."""
    refused = ApiError(status, f"{field}: {exc}")
    if isinstance(exc, Refusal):
        refused.message, refused.params = exc.message, wire_params(exc.params)
    return refused


class ApiError(Exception):
    """A request the hub refuses: ``status`` is the HTTP status, ``reason`` the message;
    ``kind`` a word a client may branch on (an action's refusal: "malformed" or
    "disallowed"), and ``first_status`` the status of version 1 of the API where it differs
    (:func:`status_for`). With ``params``, ``reason`` is a message with those named
    placeholders (``message``; ``reason`` becomes its English sentence)."""

    def __init__(
        self,
        status: int,
        reason: str,
        retry_after: float | None = None,
        kind: str | None = None,
        first_status: int | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(worded(reason, params))
        self.status = status
        self.message = reason
        self.params = wire_params(params)
        self.reason = worded(reason, params)
        self.retry_after = retry_after
        self.kind = kind
        self.first_status = first_status

    def status_for(self, api: int) -> int:
        """The status a client of version ``api`` of the API gets (docs/server.md)."""
        if api < 2 and self.first_status is not None:
            return self.first_status
        return self.status

    def body(self) -> dict[str, object]:
        """The JSON answer: ``{"error", "message", "params", "kind"?}``."""
        found: dict[str, object] = {
            "error": self.reason,
            "message": self.message,
            "params": self.params,
        }
        if self.kind is not None:
            found["kind"] = self.kind
        return found


def refused_action(exc: IllegalAction) -> ApiError:
    """What a game's refusal of an action becomes (python-chess's split): 400 "malformed" for
    no action of the notation, 409 "disallowed" for one the rules do not allow now; version 1
    of the API answers 400 for both, as it always did."""
    if str(exc) and worded(exc.template, exc.params) == str(exc):
        reason, params = exc.template, exc.params  # the engine's message and its params
    else:  # a refusal given as its English sentence only (an older or foreign engine)
        reason, params = str(exc) or N_("illegal action"), {}
    if isinstance(exc, DisallowedAction):
        return ApiError(409, reason, kind="disallowed", first_status=400, params=params)
    return ApiError(400, reason, kind="malformed", params=params)


def forbidden(reason: str, **params: object) -> ApiError:
    return ApiError(403, reason, params=params)


def bad_request(reason: str, **params: object) -> ApiError:
    return ApiError(400, reason, params=params)


def unavailable(exc: BaseException, doing: str | None = None) -> ApiError:
    """The answer to a storage failure (:data:`DATABASE_ERRORS`), the one place they become
    answers: a 503 with the reason, and ``Retry-After`` when trying again may help (not for a
    game set aside, nor a write to a read-only server). ``doing``: what could not be done, a
    message of the catalogues like the failure's reason (:func:`trouble`), so that the whole
    answer reads in the client's language."""
    if isinstance(exc, Corrupt):  # a game set aside, an account's row: its own words
        DB_FAILURES.labels("corrupt").inc()
        return ApiError(503, exc.said, params=exc.params)
    DB_FAILURES.labels(type(exc).__name__).inc()
    if isinstance(exc, ReadOnly):  # its reason says that nothing can be changed here
        return ApiError(503, trouble(exc))
    params = {"reason": trouble(exc)} if doing is None else {"doing": doing, "reason": trouble(exc)}
    if doing is None:
        said = N_("{reason}; try again soon")
    else:
        said = N_("{doing}: {reason}; try again soon")
    return ApiError(503, said, retry_after=DB_RETRY_AFTER, params=params)
