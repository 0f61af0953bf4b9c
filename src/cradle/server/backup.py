"""Backups of a SQLite play server's database, and their restoring (``cradle db backup`` and
``cradle db restore``; docs/server.md, "Backups").

A backup is taken with SQLite's online backup API, so the server may go on serving meanwhile:
the copy is one consistent state of the file (every committed move up to a moment, none half
written), checked (``PRAGMA integrity_check``) and written to a new file under a temporary name,
renamed into place only when whole. Restoring copies a backup the same way into a database file
no server is using (a new one, or with ``replace`` one whose server has stopped), then upgrades
its schema if the backup is older. PostgreSQL has its own tools: ``pg_dump`` and ``pg_restore``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cradle.server import migrations

PAGES_PER_STEP = 1024  # pages copied per step: the server's writes go on between steps


class BackupError(RuntimeError):
    """A backup or a restore that cannot be done; the message says why and what to do."""


@dataclass(frozen=True)
class Copied:
    """What a backup or restore copied: the games, the accounts, the schema's revision."""

    path: Path
    games: int
    accounts: int
    revision: str | None
    size: int

    def contents(self) -> str:
        """What it holds, as the CLI says it."""
        return f"{self.games} games, {self.accounts} accounts, revision {self.revision or 'none'}"


def _count(connection: sqlite3.Connection, table: str) -> int:
    try:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0


def _revision(connection: sqlite3.Connection) -> str | None:
    try:
        found = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if found is None else str(found[0])


def _check(connection: sqlite3.Connection, shown: Path) -> None:
    try:
        verdict = connection.execute("PRAGMA integrity_check").fetchone()[0]
        has_games = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'"
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{shown} is not a SQLite database ({exc})") from None
    if verdict != "ok":
        raise BackupError(f"{shown} is damaged: {verdict}")
    if has_games is None:
        raise BackupError(f"{shown} holds no cradle games (no table 'games')")


@contextlib.contextmanager
def _reading(path: Path) -> Iterator[sqlite3.Connection]:
    if not path.is_file():
        raise BackupError(f"{path} does not exist")
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        yield connection
    finally:
        connection.close()


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """``source`` into the new file ``target`` (under a temporary name until it is whole), in
    rollback-journal mode: one self-contained file."""
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    copy = sqlite3.connect(partial)
    try:
        source.backup(copy, pages=PAGES_PER_STEP)
        copy.execute("PRAGMA journal_mode = DELETE")
        _check(copy, target)
        copy.commit()
    except BaseException:
        copy.close()
        partial.unlink(missing_ok=True)
        raise
    copy.close()
    with open(partial, "rb") as written:
        os.fsync(written.fileno())
    partial.replace(target)


def _summary(path: Path) -> Copied:
    with _reading(path) as connection:
        return Copied(
            path,
            _count(connection, "games"),
            _count(connection, "accounts"),
            _revision(connection),
            path.stat().st_size,
        )


def backup(database: Path, target: Path) -> Copied:
    """A consistent copy of the SQLite file ``database`` (a server may be serving it) in the
    new file ``target``."""
    if target.exists():
        raise BackupError(f"{target} exists: a backup goes to a new file")
    if not target.parent.is_dir():
        raise BackupError(f"{target.parent} is not a folder")
    with _reading(database) as source:
        _check(source, database)
        _copy(source, target)
    return _summary(target)


def _held(database: Path) -> bool:
    """Whether a server holds ``database`` (its ``FILE.lock``, see Storage.claim)."""
    import fcntl

    lock = database.resolve().with_name(database.resolve().name + ".lock")
    if not lock.exists():
        return False
    with open(lock, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return False


def restore(backup_file: Path, database: Path, replace: bool = False) -> Copied:
    """The backup ``backup_file`` as the SQLite file ``database`` (new, or with ``replace`` one
    no server uses), its schema then upgraded to this server's."""
    with _reading(backup_file) as source:
        _check(source, backup_file)
        revision = _revision(source)
        if revision is not None and not migrations.known(revision):
            raise BackupError(
                f"{backup_file} was made by a newer cradle (revision {revision}): restore it "
                "with that version"
            )
        if database.exists():
            if not replace:
                raise BackupError(
                    f"{database} exists: restore into a new file, or add --replace once its "
                    "server has stopped"
                )
            if _held(database):
                raise BackupError(f"a cradle server is using {database}: stop it first")
        if not database.parent.is_dir():
            raise BackupError(f"{database.parent} is not a folder")
        _copy(source, database.with_name(f".{database.name}.restored"))
    # Now the old file and its log go (a log left beside the new file would be replayed into it).
    for stale in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        stale.unlink(missing_ok=True)
    database.with_name(f".{database.name}.restored").replace(database)
    if revision != migrations.head():  # an older backup's schema upgraded
        from cradle.server.store import Store

        Store(f"sqlite:///{database}", upgrade=True).close()
    return _summary(database)


def pg_dump_advice(shown: str) -> str:
    """What to run instead for a PostgreSQL database (``shown``: its URL without password)."""
    plain = shown.replace("postgresql+psycopg://", "postgresql://")
    return (
        "PostgreSQL's own tools back it up, consistently while servers run: "
        f"`pg_dump --format=custom --file cradle.dump {plain}`; restore into a new, empty "
        "database with `pg_restore --no-owner --dbname postgresql://.../NEW cradle.dump` "
        '(docs/server.md, "Backups")'
    )
