"""The schema on Alembic: databases made before it upgrade with their games, on SQLite and
PostgreSQL; the models agree with the revisions; servers starting together upgrade once; a
server that may not upgrade refuses with the command that does."""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import MetaData, create_engine, insert, select, text
from sqlalchemy.engine import Engine

from cradle.server import migrations
from cradle.server.app import create_app
from cradle.server.limits import Limits
from cradle.server.store import Store
from cradle.server.store.errors import StorageError
from cradle.server.store.schema import Base
from tests.helpers.server import GAMES, auth, create, read_only, run, token_of

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

DATA = Path(__file__).parent / "data"


def run_ddl(engine: Engine, path: Path) -> None:
    statements = [s.strip() for s in path.read_text().split(";")]
    with engine.begin() as connection:
        for statement in statements:
            body = "\n".join(line for line in statement.splitlines() if not line.startswith("--"))
            if body.strip():
                connection.exec_driver_sql(body)


def make_games(tmp_path: Path) -> tuple[str, dict[str, Any]]:
    """Games made by today's server on a scratch file: a running human table with a move and
    an invite, and a game bots played to the end. Returns the file's URL and what they show."""
    url = f"sqlite:///{tmp_path / 'scratch.sqlite3'}"
    with TestClient(create_app(url, bot_delay=0, limits=Limits(analyse_finished=False))) as client:
        running = create(client, players=3)
        token = token_of(running, 0)
        invites = {s["seat"]: s["invite"] for s in running["seats"] if s["invite"]}
        first = client.get(f"/api/games/{running['id']}").json()["to_move"]
        mover = token
        if first != 0:  # that seat's player joins first, with their invite
            joined = client.post(
                f"/api/games/{running['id']}/join", json={"invite": invites.pop(first)}
            )
            mover = joined.json()["token"]
        seen = client.get(f"/api/games/{running['id']}", headers=auth(mover)).json()
        action = seen["legal_actions"][0]
        moved = client.post(
            f"/api/games/{running['id']}/actions", json={"action": action}, headers=auth(mover)
        )
        assert moved.status_code == 200, moved.text
        ended = create(client, seats=["bot:random", "bot:random"])
        for _ in range(600):
            table = client.get(f"/api/games/{ended['id']}").json()["table"]
            if table["status"] == "over":
                break
            threading.Event().wait(0.05)
        record = client.get(f"/api/games/{ended['id']}/record").json()
        shown = {
            "running": running["id"],
            "token": token,
            "invite": min(invites.values()),
            "action": action,
            "ended": ended["id"],
            "record": record,
        }
    return url, shown


@pytest.fixture(scope="session")
def made_games(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    """``make_games`` once for the whole run, shared by the test processes (a bots' game to
    its end costs 2 CPU-s): the first to come makes them under a lock, in the run's own base
    folder (xdist's workers share its parent), and every test copies their rows from there."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "made-games"
    folder.mkdir(exist_ok=True)
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shown_file = folder / "shown.json"
        if not shown_file.exists():
            _url, shown = make_games(folder)
            shown_file.write_text(json.dumps(shown))
    yield f"sqlite:///{folder / 'scratch.sqlite3'}", json.loads(shown_file.read_text())


def copy_rows(source_url: str, target: Engine) -> None:
    """Every row of the source's tables into the target's, in the columns the target has."""
    source = create_engine(source_url)
    try:
        have, want = MetaData(), MetaData()
        have.reflect(source)
        want.reflect(target)
        with source.connect() as reading, target.begin() as writing:
            for table in want.sorted_tables:
                if table.name not in have.tables:
                    continue
                names = [c.name for c in table.columns if c.name in have.tables[table.name].c]
                rows = reading.execute(
                    select(*(have.tables[table.name].c[n] for n in names))
                ).mappings()
                for row in rows:
                    writing.execute(insert(table).values(dict(row)))
    finally:
        source.dispose()


def last_before_alembic(engine: Engine) -> None:
    """The schema of the last server before Alembic (main, 2026-11-29), with no version table:
    the baseline revision makes it to the statement on both databases (its tables' DDL is what
    that server's models made), so no copy of that DDL is kept beside it."""
    with engine.begin() as connection:
        migrations.upgrade(connection, "0001_baseline")
        connection.execute(text(f"DROP TABLE {migrations.VERSION_TABLE}"))


def old_database(any_empty_db_url: str, made: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A database of the last server before Alembic, with today's games in it."""
    scratch, shown = made
    engine = create_engine(any_empty_db_url)
    try:
        last_before_alembic(engine)
        copy_rows(scratch, engine)
    finally:
        engine.dispose()
    return shown


def check_games_intact(client: TestClient, shown: dict[str, Any]) -> None:
    running = client.get(f"/api/games/{shown['running']}", headers=auth(shown["token"])).json()
    assert running["table"]["moves"] == 1 and running["table"]["status"] in ("open", "running")
    assert running["seat"] == 0
    record = client.get(f"/api/games/{shown['ended']}/record").json()
    assert record == shown["record"]
    # The invite still hands its seat over, once; then the game goes on.
    joined = client.post(f"/api/games/{shown['running']}/join", json={"invite": shown["invite"]})
    assert joined.status_code == 200, joined.text
    lobby = {g["id"]: g["status"] for g in client.get("/api/games").json()["games"]}
    assert lobby[shown["ended"]] == "over"


def test_a_database_of_the_last_server_before_alembic_upgrades_with_its_games(
    any_empty_db_url: str, made_games: tuple[str, dict[str, Any]]
) -> None:
    shown = old_database(any_empty_db_url, made_games)
    with TestClient(create_app(any_empty_db_url, bot_delay=0)) as client:
        check_games_intact(client, shown)
    engine = create_engine(any_empty_db_url)
    try:
        with engine.connect() as connection:
            assert migrations.current(connection) == migrations.head()
    finally:
        engine.dispose()


def test_a_file_of_the_first_servers_gets_the_columns_added_since(
    tmp_path: Path, made_games: tuple[str, dict[str, Any]]
) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = create_engine(url)
    try:
        run_ddl(engine, DATA / "schema-first.sqlite.sql")
        scratch, shown = made_games
        copy_rows(scratch, engine)
    finally:
        engine.dispose()
    storage = Store(url)
    try:
        with storage.database.engine.connect() as connection:
            row = connection.execute(
                text("SELECT version, moves, played, bot_turn FROM games WHERE id = :id"),
                {"id": shown["running"]},
            ).one()
            invites = connection.execute(
                text(
                    "SELECT invites.expires, games.created FROM invites JOIN games "
                    "ON games.id = invites.game_id WHERE games.id = :id"
                ),
                {"id": shown["running"]},
            ).all()
    finally:
        storage.close()
    assert (row.version, row.moves, bool(row.played)) == (9, 1, True)
    assert invites and all(e == pytest.approx(c + 604800) for e, c in invites)
    with TestClient(create_app(url, bot_delay=0)) as client:
        check_games_intact(client, shown)


def test_the_revisions_are_read_as_alembic_reads_them(empty_db_url: str) -> None:
    """The server reads its revisions from the files' names and the database's revision with
    one query (no Alembic at a start at the head): both as Alembic reads them."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(migrations._config())
    line = [script.revision for script in scripts.walk_revisions()][::-1]
    assert migrations.revisions() == line and scripts.get_heads() == [migrations.head()]
    assert all(migrations.known(revision) for revision in line)
    assert not migrations.known("9999_future") and not migrations.known(line[0][:4])
    engine = create_engine(empty_db_url)
    try:
        for target in (None, line[0], line[-2], "head"):
            if target is not None:
                with engine.begin() as connection:
                    migrations.upgrade(connection, target)
            with engine.connect() as connection:
                alembic_reads = MigrationContext.configure(connection).get_current_revision()
                assert migrations.current(connection) == alembic_reads
        assert alembic_reads == migrations.head()
    finally:
        engine.dispose()


def test_the_models_agree_with_the_revisions(any_empty_db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    storage = Store(any_empty_db_url)
    try:
        with storage.database.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            differences = compare_metadata(context, Base.metadata)
    finally:
        storage.close()
    assert differences == []


def test_servers_starting_together_upgrade_once(empty_postgres_url: str) -> None:
    started: list[Store] = []
    failed: list[BaseException] = []
    gate = threading.Barrier(4)

    def start() -> None:
        gate.wait()
        try:
            started.append(Store(empty_postgres_url))
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert failed == [] and len(started) == 4
        with started[0].database.engine.connect() as connection:
            versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
        assert [v[0] for v in versions] == [migrations.head()]
    finally:
        for storage in started:
            storage.close()


def test_no_upgrade_refuses_with_the_command_that_upgrades(
    tmp_path: Path, made_games: tuple[str, dict[str, Any]]
) -> None:
    db = tmp_path / "old games.sqlite3"
    url = f"sqlite:///{db}"
    shown = old_database(url, made_games)
    with pytest.raises(StorageError, match="cradle db upgrade --db"):
        Store(url, upgrade=False)
    answer = run("serve", "--no-upgrade", "--port", "1", "--db", str(db))
    assert answer.returncode == 2 and "Traceback" not in answer.stderr
    command = f"cradle db upgrade --db '{db}'"
    assert command in answer.stderr
    done = run("db", "upgrade", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert f"upgraded from revision none to {migrations.head()}" in done.stdout
    Store(url, upgrade=False).close()
    with TestClient(create_app(url, bot_delay=0, upgrade=False)) as client:
        check_games_intact(client, shown)


def test_a_read_only_old_file_is_refused_with_the_command(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    engine = create_engine(f"sqlite:///{db}")
    try:
        last_before_alembic(engine)
    finally:
        engine.dispose()
    with (
        read_only(tmp_path),
        pytest.raises(StorageError, match=r"cannot be written here: run `cradle db upgrade"),
    ):
        Store(f"sqlite:///{db}")


def test_a_database_of_a_newer_server_is_refused(any_empty_db_url: str) -> None:
    Store(any_empty_db_url).close()
    engine = create_engine(any_empty_db_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    finally:
        engine.dispose()
    with pytest.raises(StorageError, match="newer cradle"):
        Store(any_empty_db_url)


def test_accounts_of_before_0008_get_their_skeletons_and_keys(any_empty_db_url: str) -> None:
    """Revision 0008_names_devices: every account gets its name's skeletons (the older of two
    look-alike accounts keeps the shared one) and its key under NFKC; all still sign in."""
    from cradle.server.accounts import hash_password

    engine = create_engine(any_empty_db_url)
    with engine.begin() as connection:
        migrations.upgrade(connection, "0007_action_standin")
        password = hash_password("correct horse battery", 64)
        for n, (name, key) in enumerate(
            [("admin", "admin"), ("adrnin", "adrnin"), ("ＦＵＬＬ", "ｆｕｌｌ")]
        ):
            connection.execute(
                text(
                    "INSERT INTO accounts (id, name, name_key, password, created, turn_mail) "
                    "VALUES (:id, :name, :key, :password, :created, false)"
                ),
                {"id": f"acct{n}", "name": name, "key": key, "password": password, "created": n},
            )
    with engine.begin() as connection:
        migrations.upgrade(connection)
        owners = dict(
            connection.execute(text("SELECT skeleton, account_id FROM name_skeletons")).all()
        )
        keys = dict(connection.execute(text("SELECT id, name_key FROM accounts")).all())
    engine.dispose()
    from cradle.server.text import name_skeletons

    assert {owners[s] for s in name_skeletons("admin")} == {"acct0"}  # the older keeps it
    assert keys == {"acct0": "admin", "acct1": "adrnin", "acct2": "full"}
    limits = Limits(analyse_finished=False, password_kib=64)
    with TestClient(create_app(any_empty_db_url, bot_delay=0, limits=limits)) as client:
        for name in ("admin", "adrnin", "full"):
            signed = TestClient(client.app).post(
                "/api/session", json={"name": name, "password": "correct horse battery"}
            )
            assert signed.status_code == 200, (name, signed.text)
        taken = client.post("/api/accounts", json={"name": "ADRNIN", "password": "x" * 10})
        assert taken.status_code == 409
