"""Errors shared across layers."""

from __future__ import annotations


class CliError(Exception):
    """A user-facing failure of a command: printed as one line, then the command exits with
    ``code``. It lives here, not in cradle.cli, so that commands registered from other
    packages (the play server's ``serve``) raise it without importing the CLI."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
