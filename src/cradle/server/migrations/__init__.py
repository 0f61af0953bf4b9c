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

Alembic itself (with Mako and Pygments, a fifth of a server's imports) is imported only to
upgrade, SQLAlchemy only by what needs it: a server whose database is at the head reads the
revision with one query, and the head from the files' names (each revision is named as its
file, numbered in order; the tests check that against Alembic's own reading of the files).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlalchemy as sa
    from alembic.config import Config
    from sqlalchemy.engine import Connection

HERE = Path(__file__).resolve().parent
VERSION_TABLE = "alembic_version"


def of_game(key: bool = True) -> sa.Column[str]:
    """The column of the game a row belongs to (its rows go with it): part of the row's key
    (``key``), else a column of its own that every row fills."""
    import sqlalchemy as sa

    games = sa.ForeignKey("games.id", ondelete="CASCADE")
    if key:
        return sa.Column("game_id", sa.String(40), games, primary_key=True)
    return sa.Column("game_id", sa.String(40), games, nullable=False)


def of_account(key: bool = False) -> sa.Column[str]:
    """The column of the account a row belongs to (its rows go with it): a column of its own
    that every row fills, else (``key``) part of the row's key."""
    import sqlalchemy as sa

    accounts = sa.ForeignKey("accounts.id", ondelete="CASCADE")
    if key:
        return sa.Column("account_id", sa.String(16), accounts, primary_key=True)
    return sa.Column("account_id", sa.String(16), accounts, nullable=False)


def _config(connection: Connection | None = None) -> Config:
    """Alembic's configuration of these revisions (on ``connection``: what ``env.py`` runs
    them on)."""
    from alembic.config import Config

    found = Config()
    found.set_main_option("script_location", str(HERE))
    found.attributes["connection"] = connection
    return found


def revisions() -> list[str]:
    """This server's revisions, oldest first: the files of ``versions/``, each named as its
    revision and numbered in order (so they form one line)."""
    return sorted(path.stem for path in (HERE / "versions").glob("[0-9]*.py"))


def head() -> str:
    """The revision this server's code needs."""
    return revisions()[-1]


def known(revision: str) -> bool:
    """Whether ``revision`` is one of this server's (a newer server's is not)."""
    return revision in revisions()


def current(connection: Connection) -> str | None:
    """The revision the database is at; None for an empty database or one made before
    Alembic (they upgrade from the start: the baseline takes what is there)."""
    import sqlalchemy as sa

    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return None
    found = connection.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    if len(found) > 1:
        raise RuntimeError(f"{VERSION_TABLE} names {len(found)} revisions, not one")
    return str(found[0][0]) if found else None


def upgrade(connection: Connection, target: str = "head") -> None:
    """Bring the database to ``target`` inside the caller's transaction (which, on
    PostgreSQL, holds the lock that keeps processes starting together in turn)."""
    from alembic import command

    command.upgrade(_config(connection), target)
