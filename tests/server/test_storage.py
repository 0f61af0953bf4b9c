"""The storage layer on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import time

import pytest

from cradle.server.storage import Storage, StorageError, StoredGame, database_url


def stored(game_id: str, listed: bool = True) -> StoredGame:
    now = time.time()
    return StoredGame(
        id=game_id,
        game="tigris",
        players=["archer", "bull"],
        seed=2**62 + 12345,
        options={"board": "standard"},
        seats=["human", "bot:random"],
        hotseat=False,
        listed=listed,
        table_token=None,
        status="open",
        created=now,
        updated=now,
        tokens={0: "a" * 64},
        claimed={0: False},
    )


def test_actions_are_stored_in_order_once(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    try:
        storage.create_game(stored("g1"))
        storage.append_action("g1", 0, 0, "pass", "running", None)
        storage.append_action("g1", 1, 1, "tile red K2", "running", None)
        with pytest.raises(StorageError):
            storage.append_action("g1", 1, 1, "pass", "running", None)  # ply 1 again
        with pytest.raises(StorageError):
            storage.append_action("g1", 5, 1, "pass", "running", None)  # a gap
        game = storage.load("g1")
        assert game is not None
        assert game.actions == ["pass", "tile red K2"] and game.action_seats == [0, 1]
        assert game.seed == 2**62 + 12345 and game.tokens == {0: "a" * 64}
        storage.truncate_actions("g1", 1, "running")
        game = storage.load("g1")
        assert game is not None and game.actions == ["pass"]
        storage.append_action("g1", 1, 1, "pass", "over", [{"seat": 0, "place": 1}])
        assert storage.load_unfinished() == []
        assert storage.load("nope") is None
    finally:
        storage.close()


def test_lobby_rows_hold_no_secrets_and_skip_unlisted(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    try:
        storage.create_game(stored("shown"))
        storage.create_game(stored("private", listed=False))
        storage.claim_seat("shown", 0, "b" * 64)
        rows = storage.list_games()
        assert [row["id"] for row in rows] == ["shown"]
        assert not {"seed", "table_token", "tokens", "options"} & set(rows[0])
        assert storage.load("shown").tokens == {0: "b" * 64}  # type: ignore[union-attr]
        assert sorted(g.id for g in storage.load_unfinished()) == ["private", "shown"]
        assert storage.count_games() == 2
    finally:
        storage.close()


def test_database_urls() -> None:
    assert database_url("x/y.db", None) == "sqlite:///x/y.db"
    assert database_url(None, "postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url(None, "postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(ValueError):
        database_url(None, None)
