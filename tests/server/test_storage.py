"""The storage layer on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from cradle.core.record import GameRecord
from cradle.server.storage import Conflict, Storage, StoredGame, database_url


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
        storage.append_action("g1", 0, 0, 0, "pass", "running", None, True)
        storage.append_action("g1", 1, 1, 1, "tile red K2", "running", None, False)
        with pytest.raises(Conflict):
            storage.append_action("g1", 1, 2, 1, "pass", "running", None, False)  # ply 1 again
        with pytest.raises(Conflict):
            storage.append_action("g1", 5, 2, 1, "pass", "running", None, False)  # a gap
        with pytest.raises(Conflict):
            storage.append_action("g1", 2, 1, 1, "pass", "running", None, False)  # stale version
        game = storage.load("g1")
        assert game is not None
        assert game.actions == ["pass", "tile red K2"] and game.action_seats == [0, 1]
        assert game.seed == 2**62 + 12345 and game.tokens == {0: "a" * 64}
        assert game.version == 2 == storage.version_of("g1")
        # An undo names the move count and version it expects, like a move.
        with pytest.raises(Conflict):
            storage.undo_action("g1", 2, 1, "running", False)
        storage.undo_action("g1", 2, 2, "running", False)
        game = storage.load("g1")
        assert game is not None and game.actions == ["pass"] and game.version == 3
        storage.append_action("g1", 1, 3, 1, "pass", "over", [{"seat": 0, "place": 1}], False)
        assert storage.unfinished() == []
        assert storage.load("nope") is None
    finally:
        storage.close()


def test_seats_are_claimed_once(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    try:
        game = stored("g2")
        game.seats = ["human", "human"]
        game.tokens = {0: "a" * 64, 1: "b" * 64}
        game.claimed = {0: True, 1: False}
        game.invites = {0: "c" * 64}
        storage.create_game(game)
        storage.claim_seat("g2", 1, "d" * 64, 0, "running", None)
        with pytest.raises(Conflict):  # taken already
            storage.claim_seat("g2", 1, "e" * 64, 1, "running", None)
        with pytest.raises(Conflict):  # a wrong code
            storage.claim_seat("g2", 0, "e" * 64, 1, "running", "f" * 64)
        storage.claim_seat("g2", 0, "e" * 64, 1, "running", "c" * 64)
        with pytest.raises(Conflict):  # the code is used up
            storage.claim_seat("g2", 0, "f" * 64, 2, "running", "c" * 64)
        loaded = storage.load("g2")
        assert loaded is not None
        assert loaded.tokens == {0: "e" * 64, 1: "d" * 64} and loaded.claimed == {0: True, 1: True}
        assert loaded.invites == {} and loaded.version == 2 and loaded.status == "running"
    finally:
        storage.close()


def test_an_invite_is_stored_with_its_expiry_and_refused_once_expired(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    try:
        game = stored("g3")
        game.seats = ["human", "human"]
        game.tokens = {0: "a" * 64, 1: "b" * 64}
        game.claimed = {0: True, 1: True}
        game.invites = {1: "c" * 64}
        game.invite_expires = {1: time.time() - 1}  # another process may not know it yet
        storage.create_game(game)
        loaded = storage.load("g3")
        assert loaded is not None and loaded.invite_expires == game.invite_expires
        with pytest.raises(Conflict):
            storage.claim_seat("g3", 1, "d" * 64, 0, "running", "c" * 64)
        game = stored("g4")
        game.seats, game.claimed = ["human", "human"], {0: True, 1: True}
        game.tokens = {0: "a" * 64, 1: "b" * 64}  # every human seat has its token
        game.invites, game.invite_expires = {1: "c" * 64}, {1: time.time() + 60}
        storage.create_game(game)
        storage.claim_seat("g4", 1, "d" * 64, 0, "running", "c" * 64)
        loaded = storage.load("g4")
        assert loaded is not None and loaded.invites == {} and loaded.invite_expires == {}
    finally:
        storage.close()


def test_lobby_rows_hold_no_secrets_and_skip_unlisted(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    try:
        storage.create_game(stored("shown"))
        storage.create_game(stored("private", listed=False))
        rows = storage.list_games()
        assert [row["id"] for row in rows] == ["shown"]
        assert not {"seed", "table_token", "tokens", "options"} & set(rows[0])
        assert sorted(storage.unfinished()) == ["private", "shown"]
        assert storage.count_games() == 2
        # Both count; their random bots cost nothing.
        assert storage.live_use(time.time(), 600.0) == (2, 0)
    finally:
        storage.close()


def test_the_lobby_pages(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    try:
        for number in range(5):
            storage.create_game(stored(f"g{number}"))
        first = storage.list_games(limit=2)
        assert len(first) == 2
        last = first[-1]
        second = storage.list_games(limit=2, before=(last["updated"], last["id"]))
        third = storage.list_games(limit=2, before=(second[-1]["updated"], second[-1]["id"]))
        seen = [row["id"] for row in first + second + third]
        assert sorted(seen) == [f"g{n}" for n in range(5)]
        assert storage.list_games(status="over") == []
    finally:
        storage.close()


def test_database_urls() -> None:
    assert database_url("x/y.db", None) == "sqlite:///x/y.db"
    assert database_url(None, "postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url(None, "postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(ValueError):
        database_url(None, None)


def test_an_older_database_gets_the_new_columns(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    storage = Storage(url)
    old = stored("old")
    old.invites = {0: "c" * 64}
    storage.create_game(old)
    storage.append_action("old", 0, 0, 0, "pass", "running", None, True)
    storage.close()
    # What the first server's schema lacked: the version, the bot columns, the invites (and
    # the next one, the invites' expiry).
    with sqlite3.connect(tmp_path / "old.sqlite3") as db:
        # A file from before Alembic: no revision, no accounts, nothing since.
        db.execute("DROP TABLE alembic_version")
        for table in ("chat_lines", "chat_mutes", "rating_changes", "ratings"):
            db.execute(f"DROP TABLE {table}")  # 0003_chat, 0004_ratings
        for column in ("spectator_chat", "rated"):
            db.execute(f"ALTER TABLE games DROP COLUMN {column}")
        for table in ("sessions", "accounts", "transfers"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP INDEX ix_seats_account_id")
        for column in ("account_id", "name"):
            db.execute(f"ALTER TABLE seats DROP COLUMN {column}")
        db.execute("DROP INDEX ix_games_bot_turn")
        for column in ("version", "bot_turn", "bot_seats", "bot_seconds"):
            db.execute(f"ALTER TABLE games DROP COLUMN {column}")
        db.execute("DROP TABLE invites")
        db.execute(
            "CREATE TABLE invites (game_id VARCHAR(40) NOT NULL REFERENCES games (id) "
            "ON DELETE CASCADE, seat INTEGER NOT NULL, code VARCHAR(64) NOT NULL, "
            "PRIMARY KEY (game_id, seat))"
        )
        db.execute("INSERT INTO invites VALUES ('old', 0, ?)", ("c" * 64,))
    storage = Storage(url)
    try:
        game = storage.load("old")
        assert game is not None and game.actions == ["pass"]
        # An invite from before expiries expires a week after its game was made.
        assert game.invites == {0: "c" * 64}
        assert game.invite_expires == {0: pytest.approx(old.created + 7 * 86400)}
        # Above any version the old server can have shown (it counted moves and seats taken).
        assert game.version == 1 + 8
        assert storage.unfinished(bot_turn_only=True) == ["old"]  # looked at once, on start-up
        storage.append_action("old", 1, 9, 1, "pass", "running", None, False)
        assert storage.version_of("old") == 10
    finally:
        storage.close()


def test_a_game_is_read_as_one_version_while_it_changes(any_db_url: str) -> None:
    writer, reader = Storage(any_db_url), Storage(any_db_url)
    writer.create_game(stored("busy"))
    done = threading.Event()

    def write() -> None:
        for ply in range(150):
            writer.append_action("busy", ply, ply, ply % 2, "pass", "running", None, False)
        done.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        reads = 0
        while not done.is_set() or reads < 10:
            game = reader.load("busy")
            assert game is not None
            # Only moves were stored since version 0: every version has exactly its moves.
            assert len(game.actions) == game.version
            reads += 1
    finally:
        thread.join()
        writer.close()
        reader.close()


def test_analyses_are_queued_with_the_last_move_claimed_once_and_stored(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    other = Storage(any_db_url)  # a second process on the same database
    try:
        storage.create_game(stored("g1"))
        storage.append_action("g1", 0, 0, 0, "pass", "running", None, False)
        assert storage.load_analysis("g1") is None
        result = [{"seat": 0, "place": 1}]
        storage.append_action("g1", 1, 1, 1, "pass", "over", result, False, analyse=True)
        queued = storage.load_analysis("g1")
        assert queued is not None
        assert (queued["status"], queued["done"], queued["total"], queued["data"]) == (
            "queued",
            0,
            0,
            None,
        )
        assert storage.pending_analyses(10, time.time() - 120) == ["g1"]
        assert storage.queue_analysis("g1") is False  # queued once
        claimed = storage.claim_analysis("g1", storage.origin, time.time() - 120)
        assert claimed is not None and claimed["status"] == "queued"
        data = {"format": 1, "chances": [[0.5, 0.5]], "reviews": []}
        assert storage.save_analysis("g1", storage.origin, "running", 1, 4, data)
        if storage.shared:  # the other process may not take a fresh one over, nor write it
            assert other.claim_analysis("g1", other.origin, time.time() - 120) is None
            assert not other.save_analysis("g1", other.origin, "done", 4, 4, data)
            assert storage.pending_analyses(10, time.time() - 120) == []
        found = other.load_analysis("g1")
        assert found is not None and (found["status"], found["done"], found["total"]) == (
            "running",
            1,
            4,
        )
        assert found["data"] == data
        # One that its process left behind is taken over (stale) and finished.
        assert other.claim_analysis("g1", other.origin, time.time() + 1) is not None
        assert other.save_analysis("g1", other.origin, "done", 4, 4, data)
        assert not storage.save_analysis("g1", storage.origin, "running", 2, 4, data)
        assert storage.claim_analysis("g1", storage.origin, time.time() + 1) is None  # done
        assert storage.pending_analyses(10, time.time() + 1) == []
        # A failed analysis may be asked for again.
        assert other.save_analysis("g1", other.origin, "failed", 0, 0, None)
        assert storage.queue_analysis("g1") is True
        assert storage.load_analysis("g1")["status"] == "queued"  # type: ignore[index]
    finally:
        other.close()
        storage.close()


def test_a_stored_game_gives_its_record_which_replays_to_its_state(any_db_url: str) -> None:
    storage = Storage(any_db_url)
    try:
        game = stored("g1")
        storage.create_game(game)
        state = GameRecord("tigris", game.players, game.seed, game.options).start()
        for ply in range(4):
            seat = int(state.to_move)
            action = state.legal_actions()[-1]
            storage.append_action("g1", ply, ply, seat, action, "running", None, False)
            state.apply(action)
        loaded = storage.load("g1")
        assert loaded is not None
        record = loaded.record()
        assert (record.game, record.players, record.seed, record.options) == (
            "tigris",
            ["archer", "bull"],
            2**62 + 12345,
            {"board": "standard"},
        )
        assert record.actions == loaded.actions and len(record.actions) == 4
        assert record.replay().view(None) == state.view(None)
        record.actions.append("pass")  # a copy: the game as read stays as it was
        record.options["board"] = "changed"
        assert len(loaded.actions) == 4 and loaded.options == {"board": "standard"}
    finally:
        storage.close()
