"""The database under the store: its engine, schema revision, transactions and notices.

SQLite is the default (one server process per file: :meth:`Database.claim`); a file that
cannot be written is served read-only (:attr:`Database.read_only`). PostgreSQL (through
psycopg 3, ``postgresql+psycopg://...``) serves one database to many processes: each write
notifies the others (``NOTIFY cradle_games``), delivered when its transaction commits.

Everything here is synchronous; the server calls it from worker threads, never the event loop.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import secrets
import shlex
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import ConnectionPoolEntry

from cradle.core.words import N_
from cradle.server import migrations
from cradle.server.store.errors import ReadOnly, StorageError, trouble

NOTIFY_CHANNEL = "cradle_games"
SCHEMA_KEY = 0x63726164  # the advisory lock held while the tables are created ("crad")


@dataclass(frozen=True)
class Notice:
    """What a write tells the other processes (PostgreSQL ``NOTIFY``): the game, its new
    version, the writing process, the stored time and, for a move, ``ply seat action``."""

    game_id: str
    version: int
    origin: str
    updated: float
    move: str = ""

    def payload(self) -> str:
        return f"{self.game_id} {self.version} {self.origin} {self.updated!r} {self.move}".rstrip()

    @classmethod
    def parse(cls, payload: str) -> Notice | None:
        parts = payload.split(" ", 4)
        if len(parts) < 4 or not parts[1].isdigit():
            return None
        try:
            updated = float(parts[3])
        except ValueError:
            return None
        return cls(parts[0], int(parts[1]), parts[2], updated, parts[4] if len(parts) > 4 else "")

    def added_move(self) -> tuple[int, int, str] | None:
        """(ply, seat, action) when the change was a move, else None."""
        ply, _, rest = self.move.partition(" ")
        seat, _, action = rest.partition(" ")
        if not (ply.isdigit() and seat.isdigit() and action):
            return None
        return int(ply), int(seat), action


def database_url(db_file: str | Path | None, database: str | None) -> str:
    """The SQLAlchemy URL for ``--database URL`` or ``--db FILE`` (SQLite)."""
    if database:
        if database.startswith("postgresql://") or database.startswith("postgres://"):
            # psycopg 3 is the driver we ship; SQLAlchemy's bare scheme means psycopg2.
            return "postgresql+psycopg://" + database.split("://", 1)[1]
        return database
    if db_file is None:
        raise ValueError("give a database file or URL")
    return f"sqlite:///{Path(db_file)}"


def shown_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("://", 1)[0] + "://…"


def client_hash(client: str) -> str:
    """What is stored of a client key: a hash, so the database holds no addresses."""
    return hashlib.sha256(f"cradle-client:{client}".encode()).hexdigest()[:32]


class Database:
    """The engine of one server process on its database, and every write's transaction."""

    def __init__(self, url: str, upgrade: bool = True) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, object] = {}
        self.path: Path | None = None
        # A SQLite file this process cannot write (a read-only file system, an immutable file)
        # is served as it is: reads work, every write raises ReadOnly.
        self.read_only = False
        engine_url = url
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:" and not path.startswith("file:"):
                self.path = Path(path)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.read_only = _cannot_write(self.path)
                if self.read_only:
                    engine_url = _read_only_url(self.path)
        self.engine: Engine = create_engine(engine_url, **kwargs)
        if self.is_sqlite:
            pragmas = _sqlite_read_only_pragmas if self.read_only else _sqlite_pragmas
            event.listen(self.engine, "connect", pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        else:
            _ping_when_idle(self.engine)
        self.origin = secrets.token_hex(8)  # names this process's writes in notices
        self._lock_file: IO[str] | None = None
        try:
            self._set_up(upgrade)
        except Exception:
            self.engine.dispose()
            raise

    @property
    def shared(self) -> bool:
        """Whether other server processes may use this database at the same time."""
        return not self.is_sqlite

    def close(self) -> None:
        self.engine.dispose()
        if self._lock_file is not None:
            self._lock_file.close()  # closing the file releases the lock
            self._lock_file = None

    def _set_up(self, upgrade: bool) -> None:
        """Bring the schema to this server's revision (cradle.server.migrations), or refuse
        with the command that does it when this server may not (``upgrade`` False, or a file
        it cannot write)."""
        need = migrations.head()
        with self.engine.connect() as connection:
            found = migrations.current(connection)
        if found == need:
            return
        if found is not None and not migrations.known(found):
            raise StorageError(
                f"{self.shown()} is at revision {found}, which this server does not know: a "
                "newer cradle made it (run that version, or a newer one, on it)"
            )
        if self.read_only or not upgrade:
            why = "cannot be written" if self.read_only else "is not upgraded by this server"
            raise StorageError(
                f"{self.shown()} is at revision {found or 'none'} and this server needs {need}, "
                f"and it {why} here: run `{self.upgrade_command()}`, then start the server"
            )
        with self.engine.begin() as connection:
            if self.shared:  # processes starting together take turns; the first upgrades
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_KEY})
            migrations.upgrade(connection)

    def shown(self) -> str:
        """The database as messages name it (a file's path; a URL without its password)."""
        return str(self.path) if self.path is not None else shown_url(self.url)

    def upgrade_command(self) -> str:
        """The command that upgrades this database (a URL's password left out)."""
        if self.path is not None:
            return f"cradle db upgrade --db {shlex.quote(str(self.path))}"
        return f"cradle db upgrade --database {shlex.quote(shown_url(self.url))}"

    def claim(self) -> None:
        """Make this process the only server on a SQLite file; StorageError if one runs.

        SQLite serves one process: two servers on one file would each keep their own copy of
        the tables. The lock is an advisory ``flock`` on ``FILE.lock``, released by the
        kernel when the process ends, however it ends.
        """
        if not self.is_sqlite or self.path is None or self._lock_file is not None:
            return
        if self.read_only:
            return  # the lock file cannot be made beside it; and this server changes nothing
        import fcntl

        # The file's real name, whatever links lead to it: a second server given a symbolic
        # link (to the file or a folder above it) meets the same lock.
        real = self.path.resolve()
        lock_path = real.with_name(real.name + ".lock")
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 (held until close)
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            shown = str(self.path) if real == self.path.absolute() else f"{self.path} ({real})"
            raise StorageError(
                f"another cradle server ({holder}) is using {shown}: SQLite serves one "
                "server process; stop it, or use PostgreSQL (--database) for several"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self._lock_file = handle

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        """Every write's transaction: ReadOnly on a database this server may not write, and
        StorageError (with a reason a client may read) when the database fails."""
        if self.read_only:
            raise ReadOnly(
                f"{self.path} cannot be written",
                N_(
                    "this server is read-only (its database cannot be written): games can be "
                    "watched and replayed, not changed"
                ),
            )
        try:
            with self.engine.begin() as connection:
                yield connection
        except StorageError:
            raise
        except (DBAPIError, PoolTimeout) as exc:
            raise StorageError(f"cannot store the change: {exc}", trouble(exc)) from exc

    def lock(self, connection: Connection, key: int, within: str | None = None) -> None:
        """Hold the advisory lock ``key`` (with ``within``'s hash: one per game) until the
        transaction ends (PostgreSQL; SQLite serialises its writes anyway)."""
        if not self.shared:
            return
        if within is None:
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
        else:
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key, hashtext(:within))"),
                {"key": key, "within": within},
            )

    def notify(self, connection: Connection, payload: str) -> None:
        """Tell every process listening (PostgreSQL), when the transaction commits (and only
        then)."""
        if self.shared:
            connection.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": NOTIFY_CHANNEL, "payload": payload},
            )

    def announce(self, payload: str) -> None:
        """Tell the other processes ``payload`` now (a notice of its own transaction)."""
        if self.is_sqlite:
            return
        with self.transaction() as connection:
            self.notify(connection, payload)

    def notify_change(
        self, connection: Connection, game_id: str, version: int, now: float, move: str = ""
    ) -> None:
        """The notice of a change to a game (:class:`Notice`)."""
        self.notify(connection, Notice(game_id, version, self.origin, now, move).payload())

    def write(
        self,
        game_id: str,
        version: int,
        work: Callable[[Connection, float], None],
        move: str = "",
        notified: bool = False,
    ) -> float:
        """Run ``work(connection, now)`` in one transaction that moves the game from ``version``
        to ``version + 1`` and notifies the other processes; returns ``now``, the time stored as
        the game's ``updated`` (the caller shows the same one). ``move``: the notice's
        description of an added move, so that other processes need not read the game.
        ``notified``: ``work`` sends the notice itself (:meth:`notice_of`, in a statement it
        runs anyway: a round trip less)."""
        now = time.time()
        with self.transaction() as connection:
            work(connection, now)
            if not notified:
                self.notify_change(connection, game_id, version + 1, now, move)
        return now

    def notice_of(self, game_id: str, version: int, now: float, move: str = "") -> str:
        """The payload :meth:`notify_change` sends."""
        return Notice(game_id, version, self.origin, now, move).payload()

    def listen_conninfo(self) -> str:
        """The libpq connection string for LISTEN (psycopg's own, without SQLAlchemy's dialect)."""
        return make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)


def upsert(connection: Connection) -> Any:
    """The dialect's ``INSERT`` with ``ON CONFLICT`` (SQLite's or PostgreSQL's)."""
    if connection.dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as found
    else:
        from sqlalchemy.dialects.postgresql import insert as found  # type: ignore[assignment]
    return found


PING_IDLE_SECONDS = 1.0  # a pooled connection unused this long is checked before use


def _ping_when_idle(engine: Engine) -> None:
    """Check a pooled PostgreSQL connection before use when it lay unused for
    PING_IDLE_SECONDS or more (a database restarted meanwhile left it dead): a new one replaces
    it. One in steady use is not checked (a round trip less per transaction); if it died all
    the same, the statement fails (503) and SQLAlchemy replaces every connection of the pool."""

    def connected(_dbapi: object, record: ConnectionPoolEntry) -> None:
        record.info["unused_since"] = time.monotonic()

    def checked_out(dbapi: DBAPIConnection, record: ConnectionPoolEntry, _proxy: object) -> None:
        since = record.info.get("unused_since")
        if since is not None and time.monotonic() - since < PING_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi)
        except Exception as exc:  # the pool makes a new connection instead
            raise DisconnectionError(f"a pooled connection was dead: {exc}") from exc

    event.listen(engine, "connect", connected)
    event.listen(engine, "checkin", connected)
    event.listen(engine, "checkout", checked_out)


def _cannot_write(path: Path) -> bool:
    """Whether this process may not write the SQLite file at ``path`` (nor, when it does not
    exist yet, create it): the file or its folder, where SQLite keeps its write-ahead log.
    ``os.access`` asks the kernel, which also counts read-only mounts and immutable files."""
    real = path.resolve()
    if not real.exists():
        if not os.access(real.parent, os.W_OK):
            raise StorageError(f"cannot create {path}: its folder cannot be written")
        return False
    return not (os.access(real, os.W_OK) and os.access(real.parent, os.W_OK))


def _read_only_url(path: Path) -> str:
    """The URL that opens a SQLite file this process cannot write, for reading only.

    With a write-ahead log beside it (the last server was killed), SQLite reads the log too.
    Without one, the file holds everything, and ``immutable`` lets SQLite open it although it
    cannot create the log's index in a read-only folder.
    """
    from urllib.parse import quote

    real = path.resolve()
    wal = real.with_name(real.name + "-wal")
    immutable = "" if wal.exists() else "&immutable=1"
    return f"sqlite:///file:{quote(str(real))}?mode=ro{immutable}&uri=true"


def _sqlite_begin(connection: Connection) -> None:
    # Python's sqlite3 opens a transaction only before a write, so the statements of a read
    # would each see the latest commit; BEGIN here makes every transaction, reads included,
    # one snapshot (what SQLAlchemy's documentation prescribes for pysqlite).
    connection.exec_driver_sql("BEGIN")


def _sqlite_pragmas(connection: sqlite3.Connection, _record: object) -> None:
    # WAL keeps readers off the writer's back; NORMAL sync is durable against a killed
    # process (the OS holds the written pages), which is the crash the server must survive.
    connection.isolation_level = None  # transactions are begun by _sqlite_begin instead
    # The bots' queue orders by exp(); a SQLite built without its math functions gets ours.
    connection.create_function("exp", 1, math.exp, deterministic=True)
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_read_only_pragmas(connection: sqlite3.Connection, _record: object) -> None:
    # A file that cannot be written: no journal mode to set; query_only makes sure of it.
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()
