"""``cradle admin``: an operator's moderation of a play server's database (docs/server.md,
"Moderation"): the reports people made, and the measures: mute, suspend or delete an account,
remove a chat line, close a report; every action logged in the database with who and why
(``cradle admin log``). It works beside running servers (a suspension ends the account's
sessions at once; a mute holds from the account's next line)."""

from __future__ import annotations

import datetime
import getpass
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from cradle.core.errors import CliError

T = TypeVar("T")

Db = Annotated[
    Path | None, typer.Option(help="The SQLite file (default: the one `cradle serve` uses).")
]
Database = Annotated[
    str | None,
    typer.Option(help="A database URL instead of --db, e.g. postgresql://user@host/cradle."),
]
By = Annotated[
    str | None, typer.Option("--by", help="The operator's name in the log (default: $USER).")
]
Why = Annotated[str, typer.Option("--why", help="Why, for the log.")]


def _store(db: Path | None, database: str | None) -> object:
    from cradle.server.cli import _need_server_extra, default_db
    from cradle.server.store import Store
    from cradle.server.store.database import database_url

    _need_server_extra()
    if db is not None and database is not None:
        raise CliError("give --db or --database, not both")
    url = database_url(db if db is not None else default_db(), database)
    try:
        return Store(url, upgrade=False)
    except Exception as exc:
        raise CliError(f"cannot open the database: {str(exc).splitlines()[0]}") from None


def _operator(by: str | None) -> str:
    if by:
        return by
    try:
        return getpass.getuser()
    except Exception:
        return os.environ.get("USER") or "operator"


def _act(db: Path | None, database: str | None, action: Callable[..., T]) -> T:
    from cradle.server.store import Store
    from cradle.server.store.errors import DATABASE_ERRORS, Refused

    store = _store(db, database)
    assert isinstance(store, Store)
    try:
        return action(store)
    except Refused as exc:
        raise CliError(exc.reason) from None
    except DATABASE_ERRORS as exc:
        raise CliError(f"the database failed: {str(exc).splitlines()[0]}") from None
    finally:
        store.close()


def _key(name: str) -> str:
    from cradle.server.accounts import name_key, normal_name

    try:
        return name_key(normal_name(name))
    except ValueError as exc:
        raise CliError(f"no account has that name ({exc})") from None


def _when(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def reports(
    db: Db = None,
    database: Database = None,
    every: Annotated[bool, typer.Option("--all", help="Closed reports too.")] = False,
) -> None:
    """The reports people made, oldest first: what, by whom, why."""
    found = _act(db, database, lambda store: store.moderation.reports(every))
    if not found:
        print("no reports" if every else "no open reports")
    for report in found:
        what = (
            f"line {report.line_id} of game {report.game_id} by {report.name}: {report.quoted!r}"
            if report.line_id is not None
            else f"player {report.name}"
        )
        state = " (closed)" if report.closed else ""
        print(f"#{report.id}{state} {_when(report.created)} {what}")
        print(f"    from {report.reporter}: {report.reason}")


def log(db: Db = None, database: Database = None) -> None:
    """The operators' actions, oldest first: when, who, what, on what, why."""
    found = _act(db, database, lambda store: store.moderation.log())
    if not found:
        print("no actions logged")
    for entry in found:
        print(f"{_when(entry.at)} {entry.operator}: {entry.action} {entry.target} ({entry.why})")


def _measure(measure: str, on: bool) -> Callable[..., None]:
    word = {
        ("muted", True): "muted",
        ("muted", False): "unmuted",
        ("suspended", True): "suspended",
        ("suspended", False): "unsuspended",
    }[(measure, on)]

    def command(
        name: Annotated[str, typer.Argument(help="The account's name.")],
        why: Why = "",
        by: By = None,
        db: Db = None,
        database: Database = None,
    ) -> None:
        shown = _act(
            db,
            database,
            lambda store: store.moderation.set_measure(_key(name), measure, on, _operator(by), why),
        )
        print(f"{word} {shown}")

    command.__doc__ = (
        {
            "muted": "Mute an account: it writes no more chat lines (anywhere).",
            "suspended": "Suspend an account: its sessions end, and it cannot sign in.",
        }[measure]
        if on
        else f"Lift an account's {measure[:-2] if measure == 'muted' else 'suspension'}."
    )
    return command


def delete(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    why: Why = "",
    by: By = None,
    db: Db = None,
    database: Database = None,
) -> None:
    """Delete an account (as its owner would: its games stay, its seats and chat lines named
    "former player")."""
    shown = _act(
        db, database, lambda store: store.moderation.delete_account(_key(name), _operator(by), why)
    )
    print(f"deleted {shown}")


def remove_line(
    line: Annotated[int, typer.Argument(help="The chat line's number (as reports show it).")],
    why: Why = "",
    by: By = None,
    db: Db = None,
    database: Database = None,
) -> None:
    """Remove a chat line (the log keeps its words)."""
    game = _act(db, database, lambda store: store.moderation.remove_line(line, _operator(by), why))
    print(f"removed line {line} of game {game}")


def close(
    report: Annotated[int, typer.Argument(help="The report's number.")],
    why: Why = "",
    by: By = None,
    db: Db = None,
    database: Database = None,
) -> None:
    """Close a report (dealt with)."""
    _act(db, database, lambda store: store.moderation.close_report(report, _operator(by), why))
    print(f"closed report {report}")


def register(app: typer.Typer) -> None:
    """Add `cradle admin …` to `cradle`."""
    admin = typer.Typer(
        help="Moderation: reports, and an operator's measures (logged).", no_args_is_help=True
    )
    admin.command("reports")(reports)
    admin.command("log")(log)
    admin.command("mute")(_measure("muted", True))
    admin.command("unmute")(_measure("muted", False))
    admin.command("suspend")(_measure("suspended", True))
    admin.command("unsuspend")(_measure("suspended", False))
    admin.command("delete")(delete)
    admin.command("remove-line")(remove_line)
    admin.command("close")(close)
    app.add_typer(admin, name="admin")
