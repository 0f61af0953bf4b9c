"""Corrupt people's rows (docs/server.md, "Damaged data"): a damaged account, rating or session
value is set aside like a damaged game: that account's pages answer 503 with the reason, the
leaderboard leaves the bad row out, an unreadable session has expired; never a 500, and every
other person is served. On SQLite and PostgreSQL (there, only what its column types accept)."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, insert, select, text
from sqlalchemy.exc import DBAPIError

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits

X, INF = "x", math.inf
# (table, column): the damaged values each copy of the world gets in Bob's row.
CORRUPTIONS: dict[tuple[str, str], list[Any]] = {
    ("accounts", "created"): [X, None, -1.0, INF],
    ("accounts", "turn_mail"): [X, 7, None],
    ("ratings", "mu"): [X, None, INF],
    ("ratings", "sigma"): [X, None, -1.0, 0.0],
    ("ratings", "games"): [X, None, -1],
    ("ratings", "updated"): [X, None, -1.0],
    ("sessions", "expires"): [X, None, INF, -INF],
}


@pytest.fixture
def people(any_db_url: str) -> Iterator[tuple[str, dict[str, TestClient]]]:
    """Alice and Bob signed in (each its own browser), each with a rating in Gheos."""
    app = create_app(
        any_db_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64)
    )
    with TestClient(app) as first:
        browsers = {"Alice": first, "Bob": TestClient(app, client=("10.1.2.3", 5000))}
        for name, client in browsers.items():
            answer = client.post("/api/accounts", json={"name": name, "password": "a good one"})
            assert answer.status_code == 200, answer.text
        engine = create_engine(any_db_url)
        with engine.begin() as connection:
            for mu, name in ((30.0, "Alice"), (20.0, "Bob")):
                connection.execute(
                    text(
                        "INSERT INTO ratings (account_id, game, players, mu, sigma, games, "
                        "updated) SELECT id, 'gheos', 2, :mu, 5.0, 3, :now FROM accounts "
                        "WHERE name = :name"
                    ),
                    {"mu": mu, "name": name, "now": time.time()},
                )
            if engine.dialect.name == "sqlite":  # a hand-edited file may lack them
                connection.exec_driver_sql("PRAGMA writable_schema=ON")
                connection.exec_driver_sql(
                    "UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') "
                    "WHERE type = 'table'"
                )
                connection.exec_driver_sql("PRAGMA writable_schema=OFF")
        if engine.dialect.name == "postgresql":
            for table, column in CORRUPTIONS:
                with engine.begin() as connection:
                    connection.exec_driver_sql(
                        f"ALTER TABLE {table} ALTER COLUMN {column} DROP NOT NULL"
                    )
        engine.dispose()
        yield any_db_url, browsers


def damage(url: str, table: str, column: str, value: Any) -> bool:
    """Store ``value`` in Bob's row of ``table``; False when the column's type refuses it."""
    key = "id" if table == "accounts" else "account_id"
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    f"UPDATE {table} SET {column} = :value "
                    f"WHERE {key} = (SELECT id FROM accounts WHERE name = 'Bob')"
                ),
                {"value": value},
            )
        return True
    except DBAPIError:
        return False
    finally:
        engine.dispose()


def leaderboard(client: TestClient) -> list[str]:
    answer = client.get("/api/ratings", params={"game": "gheos"})
    assert answer.status_code == 200, answer.text
    return [row["name"] for row in answer.json()["ratings"]]


@pytest.mark.parametrize(
    ("table", "column"), list(CORRUPTIONS), ids=[f"{t}.{c}" for t, c in CORRUPTIONS]
)
def test_a_damaged_persons_row_is_set_aside_never_a_500(
    people: tuple[str, dict[str, TestClient]], table: str, column: str
) -> None:
    url, browsers = people
    alice, bob = browsers["Alice"], browsers["Bob"]
    assert leaderboard(alice) == ["Alice", "Bob"]
    tried = 0
    for value in CORRUPTIONS[(table, column)]:
        if not damage(url, table, column, value):
            continue  # this database's types cannot hold it
        tried += 1
        me = bob.get("/api/me")
        profile = alice.get("/api/players/Bob")
        if table == "sessions":
            # An expiry that cannot be read has passed: Bob is a guest again, for good.
            assert me.status_code == 200 and me.json()["account"] is None, me.text
            assert profile.status_code == 200, profile.text
            signed = bob.post("/api/session", json={"name": "Bob", "password": "a good one"})
            assert signed.status_code == 200, signed.text
            assert bob.get("/api/me").json()["account"]["name"] == "Bob"
            continue
        if table == "accounts":
            assert me.status_code == 503, me.text
            assert "the account Bob cannot be read" in me.json()["error"]
        else:
            assert me.status_code == 200, me.text
        if column == "turn_mail":  # not on the public page: it is served
            assert profile.status_code == 200, profile.text
        else:
            assert profile.status_code == 503, profile.text
            reason = profile.json()["error"]
            assert reason.startswith("the account Bob cannot be read: its "), reason
            assert "Retry-After" not in profile.headers
        # Everyone else is served; the leaderboard leaves out only a damaged rating.
        assert alice.get("/api/players/Alice").status_code == 200
        assert alice.get("/api/me").json()["account"]["name"] == "Alice"
        names = leaderboard(alice)
        assert names == (["Alice"] if table == "ratings" else ["Alice", "Bob"])
    assert tried >= 1


def test_a_rated_games_end_with_a_damaged_rating_stands_unrated(any_db_url: str) -> None:
    """The end of a rated game whose player's stored rating cannot be read is stored (the
    game ends) and moves no rating: none is computed from nonsense."""
    from cradle.server.accounts import create_account
    from cradle.server.store import Store
    from cradle.server.store.games import StoredGame
    from cradle.server.store.ratings import rate_game
    from cradle.server.store.schema import RatingChangeRow, RatingRow
    from cradle.server.tokens import hash_token, new_token

    store = Store(any_db_url)
    try:
        now = time.time()
        people = [create_account(store.accounts, n, "not-a-hash", now) for n in ("Ann", "Ben")]
        store.new_games.create(
            StoredGame(
                id="rated", game="gheos", players=["Red", "Blue"], seed=7, options={},
                seats=["human", "human"], hotseat=False, listed=True, table_token=None,
                status="running", created=now, updated=now,
                tokens={0: hash_token(new_token()), 1: hash_token(new_token())},
                claimed={0: True, 1: True},
                accounts={0: people[0].id, 1: people[1].id}, rated=True,
            )
        )  # fmt: skip
        with store.database.transaction() as connection:
            for person, sigma in zip(people, (5.0, -1.0), strict=True):
                connection.execute(
                    insert(RatingRow).values(
                        account_id=person.id, game="gheos", players=2, mu=25.0, sigma=sigma,
                        games=1, updated=now,
                    )
                )  # fmt: skip
        result = [{"seat": 0, "place": 1}, {"seat": 1, "place": 2}]
        with store.database.transaction() as connection:
            rate_game(store.database, connection, "rated", result, now + 1)
            changes = connection.execute(select(RatingChangeRow)).all()
            kept = connection.execute(select(RatingRow)).all()
        assert changes == []
        assert sorted((row.sigma, row.games) for row in kept) == [(-1.0, 1), (5.0, 1)]
    finally:
        store.close()
