"""The refusals the server answers with: an :class:`ApiError` carries the HTTP status and the
reason; a storage failure becomes a 503 in :func:`unavailable` and nowhere else."""

from __future__ import annotations

from cradle.server.store.errors import CorruptGame, ReadOnly, trouble

DB_RETRY_AFTER = 5.0  # seconds a client waits before trying again when the database fails


class ApiError(Exception):
    """A request the hub refuses: ``status`` is the HTTP status, ``reason`` the message."""

    def __init__(self, status: int, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.retry_after = retry_after


def forbidden(reason: str) -> ApiError:
    return ApiError(403, reason)


def bad_request(reason: str) -> ApiError:
    return ApiError(400, reason)


def unavailable(exc: BaseException, doing: str | None = None) -> ApiError:
    """The answer to a storage failure (:data:`DATABASE_ERRORS`), the one place they become
    answers: a 503 with the reason, and ``Retry-After`` when trying again may help (not for a
    game set aside, nor a write to a read-only server)."""
    if isinstance(exc, CorruptGame):
        return ApiError(503, f"game {exc.game_id} cannot be restored: {exc.reason}")
    reason = trouble(exc)
    if doing is not None:
        reason = f"{doing}: {reason}"
    if isinstance(exc, ReadOnly):
        return ApiError(503, reason)
    return ApiError(503, f"{reason}; try again soon", retry_after=DB_RETRY_AFTER)
