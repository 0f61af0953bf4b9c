"""What the research commands (``python -m lab ladder``, ``sprt``, ``review``, ...)
share: how each module's ``main`` runs its Typer app."""

from __future__ import annotations

import typer


def run_command(app: typer.Typer, module: str, argv: list[str] | None) -> None:
    """Run ``module``'s command; with ``argv`` (a list of arguments) it returns instead of
    exiting, as the tests call it."""
    if argv is None:
        app(prog_name="python -m " + module.replace(".", " ", 1))
    else:
        app(args=argv, standalone_mode=False)
