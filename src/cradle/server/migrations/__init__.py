"""The schema of the play server's database, as Alembic revisions (``versions/``).

Every change to the tables is a revision file whose ``down_revision`` is the head before it;
:func:`upgrade` brings a database to the head, :func:`current` and :func:`head` say where it is
and where this server needs it. The first revision (``baseline``) is the schema of the last
server before Alembic, and it also brings any database an older server made up to it (the
columns added by hand before, with the values the rows already there get), so every database a
cradle server ever made upgrades from nothing. ``cradle db upgrade`` runs :func:`upgrade`;
the server runs it at start (see :class:`cradle.server.store.database.Database`). A revision
says only ``revision, down_revision`` and ``upgrade``: databases only move forward (a
downgrade is a backup restored), so none has a ``downgrade``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import sqlalchemy as sa
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

HERE = Path(__file__).resolve().parent
VERSION_TABLE = "alembic_version"


def of_game(key: bool = True) -> sa.Column[str]:
    """The column of the game a row belongs to (its rows go with it): part of the row's key
    (``key``), else a column of its own that every row fills."""
    games = sa.ForeignKey("games.id", ondelete="CASCADE")
    if key:
        return sa.Column("game_id", sa.String(40), games, primary_key=True)
    return sa.Column("game_id", sa.String(40), games, nullable=False)


def of_account(key: bool = False) -> sa.Column[str]:
    """The column of the account a row belongs to (its rows go with it): a column of its own
    that every row fills, else (``key``) part of the row's key."""
    accounts = sa.ForeignKey("accounts.id", ondelete="CASCADE")
    if key:
        return sa.Column("account_id", sa.String(16), accounts, primary_key=True)
    return sa.Column("account_id", sa.String(16), accounts, nullable=False)


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.attributes["connection"] = connection
    return config


@functools.cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head() -> str:
    """The revision this server's code needs (one head: revisions form a line)."""
    found = _scripts().get_heads()
    if len(found) != 1:
        raise RuntimeError(f"the migrations have {len(found)} heads, not one: {found}")
    return found[0]


def known(revision: str) -> bool:
    """Whether ``revision`` is one of this server's (a newer server's is not)."""
    try:
        return _scripts().get_revision(revision) is not None
    except Exception:
        return False


def current(connection: Connection) -> str | None:
    """The revision the database is at; None for an empty database or one made before
    Alembic (they upgrade from the start: the baseline takes what is there)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, target: str = "head") -> None:
    """Bring the database to ``target`` inside the caller's transaction (which, on
    PostgreSQL, holds the lock that keeps processes starting together in turn)."""
    from alembic import command

    command.upgrade(_config(connection), target)
