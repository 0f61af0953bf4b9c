"""Corrupt stored data, column by column: the server starts, serves every other game, and
answers each damaged game with a 503 and its reason (never a 500, never a failed start).

Every column of every table is corrupted in turn, each in its own copy of a real game: a text
where a number belongs, a number where a text or JSON belongs, NULL, bad JSON, and values of
the right type that no server writes (a seat out of range, a move stored for the wrong seat).
On SQLite every one of them can be stored (the test first drops the NOT NULL constraints, as a
damaged or hand-edited file may lack them); on PostgreSQL only what its column types accept,
which the test finds out by trying.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits
from cradle.server.store import Store
from cradle.server.store.schema import Base
from tests.helpers.server import GAMES, stored_game

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

X, N, BAD = "x", 7, '{"bad'  # a text, a number, bad JSON (and None: NULL)
WRONG_MOVER = "1 - seat"  # the first move stored for the other seat (an SQL expression)

# (table, column): the values each copy gets in that column (the first row of the game's rows).
CORRUPTIONS: dict[tuple[str, str], list[Any]] = {
    ("games", "game"): [N, None, BAD],
    ("games", "players"): [X, N, None, BAD],
    ("games", "seed"): [X, None, BAD, -1],
    ("games", "options"): [X, N, None, BAD],
    ("games", "seats"): [X, N, None, BAD],
    ("games", "hotseat"): [X, N, None, BAD],
    ("games", "listed"): [X, N, None, BAD],
    ("games", "table_token"): [X, N, None, BAD],  # of a hot-seat table: it must have one
    ("games", "status"): [X, N, None, BAD],
    ("games", "moves"): [X, None, BAD, 99],
    ("games", "result"): [X, N, BAD],  # NULL is no result, which a game not over has
    ("games", "created"): [X, None, BAD, -1.0],
    ("games", "updated"): [X, None, BAD, -1.0],
    ("games", "version"): [X, None, BAD, -1],
    ("games", "bot_turn"): [X, N, None, BAD],
    ("games", "bot_seats"): [X, None, BAD, 99],
    ("games", "bot_seconds"): [X, BAD, -1.0],  # NULL: the server's budget
    ("games", "spectator_chat"): [X, N, None, BAD],
    ("games", "rated"): [X, N, None, BAD],
    ("seats", "seat"): [X, None, BAD, 99],
    ("seats", "token"): [X, N, None, BAD],
    ("seats", "claimed"): [X, N, None, BAD],
    # NULL: a guest's seat (or nobody's), with no name; a text too long is none a server writes.
    ("seats", "account_id"): ["x" * 17],
    ("seats", "name"): ["x" * 65],
    ("invites", "seat"): [X, None, BAD, 99],
    ("invites", "code"): [X, N, None, BAD],
    ("actions", "ply"): [X, None, BAD, 99],
    ("actions", "seat"): [X, None, BAD, 99, WRONG_MOVER],
    ("actions", "action"): [X, N, None, BAD],
    ("analyses", "status"): [X, N, None, BAD],
    ("analyses", "done"): [X, None, BAD, 99_999],
    ("analyses", "total"): [X, None, BAD, -1],
    ("analyses", "data"): [X, N, BAD],  # NULL: nothing found yet
    ("analyses", "updated"): [X, None, BAD, -1.0],
    # The keys: the row leaves its game.
    ("games", "id"): [X, N, None],
    ("seats", "game_id"): [X, N, None],
    ("invites", "game_id"): [X, N, None],
    ("actions", "game_id"): [X, N, None],
    ("analyses", "game_id"): [X, N, None],
    ("analyses", "owner"): [X, N, BAD],  # compared in SQL only, never read back
    ("games", "client"): [N, None, BAD],  # compared in SQL only (the caps, the bots' order)
    ("games", "played"): [X, N, None, BAD],  # counted in SQL only (the caps, expiry)
    ("invites", "expires"): [X, BAD],  # NULL: an invite that does not expire
    # Turn-based tables (NULL: a live table, no deadline running, no stand-in, not ended
    # early, no creator's seat).
    ("games", "mode"): [X, N, None, BAD],
    ("games", "deadline_s"): [X, BAD, -1.0],
    ("games", "deadline"): [X, BAD, -1.0],
    ("games", "standin"): [X, BAD, 99],
    ("games", "ended_by"): [X, N, BAD],
    ("games", "creator"): [X, BAD, 99],
    ("games", "away"): [X, None, BAD, -1, 4],  # a bit per seat: 4 is a third seat of two
    ("seats", "standin"): [X, N, BAD],  # NULL: the default level
    ("actions", "standin"): [X, N, BAD],  # NULL: the seat's own player made the move
    # A live table's clocks (NULL: none; a game without a base time has no other clock value).
    ("games", "clock_base_s"): [X, BAD, -1.0],
    ("games", "clock_increment_s"): [X, N, BAD],
    ("games", "clock_left"): [X, N, BAD],
    ("seats", "gone"): [X, BAD, -1.0],  # NULL: a page of the seat's person is open
}
# What the damaged game's URLs answer when it is not 503 (it cannot be, or need not be, told).
ANSWERS = {
    ("games", "id"): 404,  # the game is no longer at its address
    ("invites", "game_id"): 200,  # an invite lost: that code no longer works, nothing else
    ("analyses", "game_id"): 200,  # an analysis lost: "none", to be asked for again
    ("analyses", "owner"): 200,
    ("games", "client"): 200,
    ("games", "played"): 200,
}
FIRST_ROW = {"seats": "seat", "invites": "seat", "actions": "ply", "analyses": "game_id"}
GAME_TABLES = ("games", "seats", "invites", "actions", "analyses")
# A copy of a game takes every column of its rows (found in the schema: new ones too).
CLONED = {
    table: ", ".join(
        column.name
        for column in Base.metadata.tables[table].columns
        if column.name not in ("id", "game_id")
    )
    for table in GAME_TABLES
}


def test_every_column_of_a_games_rows_is_corrupted_somewhere() -> None:
    """A column added to a game's tables must join CORRUPTIONS (or the test fails)."""
    columns = {
        (table, column.name)
        for table in GAME_TABLES
        for column in Base.metadata.tables[table].columns
    }
    assert columns == set(CORRUPTIONS)


def template_of(table: str, column: str) -> str:
    if table == "analyses":
        return "over"
    return "hotseat" if column == "table_token" else "live"


def cases() -> Iterator[tuple[str, str, Any, str]]:
    """(table, column, value, id of the copy it damages)."""
    number = 0
    for (table, column), values in CORRUPTIONS.items():
        for value in values:
            number += 1
            yield table, column, value, f"bad{number:03d}-{table}-{column}"[:40]


def loosen(engine: Engine) -> None:
    """Let every column hold NULL: SQLite's schema rewritten in place (as a file made by other
    tools may have it); PostgreSQL's constraints dropped (a key's cannot be)."""
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.exec_driver_sql("PRAGMA writable_schema=ON")
            connection.exec_driver_sql(
                "UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE type = 'table'"
            )
            connection.exec_driver_sql("PRAGMA writable_schema=OFF")
            return
    for table, column in CORRUPTIONS:
        try:
            with engine.begin() as connection:
                connection.exec_driver_sql(
                    f"ALTER TABLE {table} ALTER COLUMN {column} DROP NOT NULL"
                )
        except DBAPIError:
            pass  # part of a primary key


def copy_game(engine: Engine, source: str, target: str) -> None:
    with engine.begin() as connection:
        for table, columns in CLONED.items():
            key = "id" if table == "games" else "game_id"
            connection.execute(
                text(
                    f"INSERT INTO {table} ({key}, {columns}) "
                    f"SELECT :target, {columns} FROM {table} WHERE {key} = :source"
                ),
                {"target": target, "source": source},
            )
        # Marked as a bot's turn: the start-up loads every copy (the path that stopped it).
        connection.execute(
            text("UPDATE games SET bot_turn = :yes WHERE id = :id AND status <> 'over'"),
            {"yes": True, "id": target},
        )


def corrupt(engine: Engine, table: str, column: str, value: Any, game_id: str) -> bool:
    """Store ``value`` in the game's first row of ``table``; False when the database's own
    types refuse it (that damage cannot exist there)."""
    key = "id" if table == "games" else "game_id"
    where = f"{key} = :id"
    if table in FIRST_ROW and FIRST_ROW[table] != "game_id":
        where += f" AND {FIRST_ROW[table]} = 0"
    placeholder = ":value"
    if value == WRONG_MOVER:
        placeholder, value = WRONG_MOVER, None
    elif engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            kind = connection.execute(
                text(
                    "SELECT data_type FROM information_schema.columns "
                    "WHERE table_name = :table AND column_name = :column"
                ),
                {"table": table, "column": column},
            ).scalar_one()
        placeholder = f"CAST(:value AS {kind})"  # a text the column's type parses, or refuses
        value = None if value is None else str(value)
    try:
        with engine.begin() as connection:
            changed = connection.execute(
                text(f"UPDATE {table} SET {column} = {placeholder} WHERE {where}"),
                {"value": value, "id": game_id},
            ).rowcount
    except DBAPIError:
        return False
    assert changed == 1, (table, column, game_id)
    return True


def check_every_corruption(url: str) -> tuple[int, int]:
    storage = Store(url)
    try:
        stored_game(storage, "live", 11, 6, hotseat=False)
        stored_game(storage, "hotseat", 12, 6, hotseat=True)
        stored_game(storage, "over", 13, None, hotseat=False)
    finally:
        storage.close()
    engine = create_engine(url)
    damaged: dict[str, tuple[str, str, Any]] = {}
    refused = 0
    try:
        for table, column, _value, game_id in cases():
            copy_game(engine, template_of(table, column), game_id)
        loosen(engine)
        engine.dispose()
        for table, column, value, game_id in cases():
            if corrupt(engine, table, column, value, game_id):
                damaged[game_id] = (table, column, value)
            else:
                refused += 1
    finally:
        engine.dispose()

    limits = Limits(analyse_finished=False)
    with TestClient(create_app(url, bot_delay=0, limits=limits)) as client:  # it starts
        for game_id, (table, column, value) in damaged.items():
            expected = ANSWERS.get((table, column), 503)
            ends = ("", "/history", "/record") if expected != 200 else ("", "/history")
            urls = [f"/api/games/{game_id}{end}" for end in ends]  # (a record: a seat's)
            if table == "analyses":
                assert client.get(urls[0]).status_code == 200, (column, value)
                urls = [f"/api/games/{game_id}/analysis"]
            for address in urls:
                answer = client.get(address)
                assert answer.status_code == expected, (table, column, value, answer.text)
                if expected == 503:
                    reason = answer.json()["error"]
                    assert game_id in reason and "cannot be" in reason, reason
                    assert "Retry-After" not in answer.headers  # trying again will not help
        # The undamaged games serve as before, and new ones can be made.
        for template in ("live", "hotseat"):
            assert client.get(f"/api/games/{template}").json()["table"]["moves"] == 6
        assert client.get("/api/games/over/analysis").json()["status"] == "done"
        listed: set[str] = set()
        cursor: str | None = ""
        while cursor is not None:
            page = client.get("/api/games", params={"before": cursor} if cursor else {})
            assert page.status_code == 200, page.text
            listed |= {game["id"] for game in page.json()["games"]}
            cursor = page.json()["next"]
        assert {"live", "hotseat", "over"} <= listed
        made = client.post("/api/games", json={"game": "tigris", "seats": ["human", "human"]})
        assert made.status_code == 200, made.text
    return len(damaged), refused


def test_every_corrupt_column_sets_its_game_aside_on_sqlite(db_url: str) -> None:
    damaged, refused = check_every_corruption(db_url)
    assert refused == 0 and damaged == sum(len(v) for v in CORRUPTIONS.values())


def test_every_corrupt_column_sets_its_game_aside_on_postgresql(postgres_url: str) -> None:
    damaged, refused = check_every_corruption(postgres_url)
    # PostgreSQL's types refuse a text in a number, bad JSON in JSON and the like; the NULLs,
    # the numbers out of range, the wrong texts and the wrong movers it takes.
    assert damaged >= 60 and refused > 0
