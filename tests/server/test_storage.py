"""The storage layer on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cradle.core.record import GameRecord
from cradle.server.store import Store
from cradle.server.store.database import database_url
from cradle.server.store.errors import Conflict
from cradle.server.store.games import StoredGame
from cradle.server.store.plays import UndoChange
from cradle.server.store.seats import SeatChange
from tests.helpers.server import before_alembic, new_stored, stored_move


@pytest.fixture
def storage(any_db_url: str) -> Iterator[Store]:
    """A store on each database, closed after the test."""
    store = Store(any_db_url)
    yield store
    store.close()


def stored(game_id: str, listed: bool = True) -> StoredGame:
    return new_stored(
        game_id, "tigris", ["archer", "bull"], 2**62 + 12345, ["human", "bot:random"], "open",
        {"board": "standard"}, listed=listed, tokens={0: "a" * 64}, claimed={0: False},
    )  # fmt: skip


def two_people(
    game_id: str,
    claimed: dict[int, bool],
    invites: dict[int, str],
    expires: dict[int, float] | None = None,
) -> StoredGame:
    """A table of two people (each human seat has its token) with ``invites`` open, which
    expire at ``expires``."""
    game = stored(game_id)
    game.seats = ["human", "human"]
    game.tokens = {0: "a" * 64, 1: "b" * 64}
    game.claimed, game.invites = claimed, invites
    if expires is not None:
        game.invite_expires = expires
    return game


def test_actions_are_stored_in_order_once(storage: Store) -> None:
    storage.new_games.create(stored("g1"))
    stored_move(storage, "g1", 0, 0, 0, "pass", "running", None, True)
    stored_move(storage, "g1", 1, 1, 1, "tile red K2", "running", None, False)
    with pytest.raises(Conflict):
        stored_move(storage, "g1", 1, 2, 1, "pass", "running", None, False)  # ply 1 again
    with pytest.raises(Conflict):
        stored_move(storage, "g1", 5, 2, 1, "pass", "running", None, False)  # a gap
    with pytest.raises(Conflict):
        stored_move(storage, "g1", 2, 1, 1, "pass", "running", None, False)  # stale version
    game = storage.games.load("g1")
    assert game is not None
    assert game.actions == ["pass", "tile red K2"] and game.action_seats == [0, 1]
    assert game.seed == 2**62 + 12345 and game.tokens == {0: "a" * 64}
    assert game.version == 2 == storage.games.version_of("g1")
    # An undo names the move count and version it expects, like a move.
    with pytest.raises(Conflict):
        storage.plays.undo(UndoChange("g1", 2, 1, "running", False))
    storage.plays.undo(UndoChange("g1", 2, 2, "running", False))
    game = storage.games.load("g1")
    assert game is not None and game.actions == ["pass"] and game.version == 3
    stored_move(storage, "g1", 1, 3, 1, "pass", "over", [{"seat": 0, "place": 1}], False)
    assert storage.games.unfinished() == []
    assert storage.games.load("nope") is None


def test_seats_are_claimed_once(storage: Store) -> None:
    storage.new_games.create(two_people("g2", {0: True, 1: False}, {0: "c" * 64}))
    storage.seats.claim(SeatChange("g2", 1, "d" * 64, 0, "running", None))
    with pytest.raises(Conflict):  # taken already
        storage.seats.claim(SeatChange("g2", 1, "e" * 64, 1, "running", None))
    with pytest.raises(Conflict):  # a wrong code
        storage.seats.claim(SeatChange("g2", 0, "e" * 64, 1, "running", "f" * 64))
    storage.seats.claim(SeatChange("g2", 0, "e" * 64, 1, "running", "c" * 64))
    with pytest.raises(Conflict):  # the code is used up
        storage.seats.claim(SeatChange("g2", 0, "f" * 64, 2, "running", "c" * 64))
    loaded = storage.games.load("g2")
    assert loaded is not None
    assert loaded.tokens == {0: "e" * 64, 1: "d" * 64} and loaded.claimed == {0: True, 1: True}
    assert loaded.invites == {} and loaded.version == 2 and loaded.status == "running"


def test_an_invite_is_stored_with_its_expiry_and_refused_once_expired(storage: Store) -> None:
    # Expired already: another process may not know it yet.
    game = two_people("g3", {0: True, 1: True}, {1: "c" * 64}, {1: time.time() - 1})
    storage.new_games.create(game)
    loaded = storage.games.load("g3")
    assert loaded is not None and loaded.invite_expires == game.invite_expires
    with pytest.raises(Conflict):
        storage.seats.claim(SeatChange("g3", 1, "d" * 64, 0, "running", "c" * 64))
    storage.new_games.create(
        two_people("g4", {0: True, 1: True}, {1: "c" * 64}, {1: time.time() + 60})
    )
    storage.seats.claim(SeatChange("g4", 1, "d" * 64, 0, "running", "c" * 64))
    loaded = storage.games.load("g4")
    assert loaded is not None and loaded.invites == {} and loaded.invite_expires == {}


def test_lobby_rows_hold_no_secrets_and_skip_unlisted(storage: Store) -> None:
    storage.new_games.create(stored("shown"))
    storage.new_games.create(stored("private", listed=False))
    rows = storage.lobby.list_games()
    assert [row["id"] for row in rows] == ["shown"]
    assert not {"seed", "table_token", "tokens"} & set(rows[0])
    # Options are public, but a long text (a custom tile set) is only named.
    assert all(len(str(value)) <= 40 for value in rows[0]["options"].values())
    assert sorted(storage.games.unfinished()) == ["private", "shown"]
    assert storage.games.count_games() == 2
    # Both count; their random bots cost nothing.
    assert storage.new_games.live_use(time.time(), 600.0) == (2, 0)


def test_the_lobby_pages(storage: Store) -> None:
    for number in range(5):
        storage.new_games.create(stored(f"g{number}"))
    first = storage.lobby.list_games(limit=2)
    assert len(first) == 2
    last = first[-1]
    second = storage.lobby.list_games(limit=2, before=(last["updated"], last["id"]))
    third = storage.lobby.list_games(limit=2, before=(second[-1]["updated"], second[-1]["id"]))
    seen = [row["id"] for row in first + second + third]
    assert sorted(seen) == [f"g{n}" for n in range(5)]
    assert storage.lobby.list_games(status="over") == []


def test_database_urls() -> None:
    assert database_url("x/y.db", None) == "sqlite:///x/y.db"
    assert database_url(None, "postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url(None, "postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(ValueError):
        database_url(None, None)


def test_an_older_database_gets_the_new_columns(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    storage = Store(url)
    old = stored("old")
    old.invites = {0: "c" * 64}
    storage.new_games.create(old)
    stored_move(storage, "old", 0, 0, 0, "pass", "running", None, True)
    storage.close()
    # What the first server's schema lacked: the version, the bot columns, the invites (and
    # the next one, the invites' expiry).
    with sqlite3.connect(tmp_path / "old.sqlite3") as db:
        before_alembic(db)  # no revision, no accounts, nothing since
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
    storage = Store(url)
    try:
        game = storage.games.load("old")
        assert game is not None and game.actions == ["pass"]
        # An invite from before expiries expires a week after its game was made.
        assert game.invites == {0: "c" * 64}
        assert game.invite_expires == {0: pytest.approx(old.created + 7 * 86400)}
        # Above any version the old server can have shown (it counted moves and seats taken).
        assert game.version == 1 + 8
        assert storage.games.unfinished(bot_turn_only=True) == [
            "old"
        ]  # looked at once, on start-up
        stored_move(storage, "old", 1, 9, 1, "pass", "running", None, False)
        assert storage.games.version_of("old") == 10
    finally:
        storage.close()


def test_a_game_is_read_as_one_version_while_it_changes(any_db_url: str) -> None:
    writer, reader = Store(any_db_url), Store(any_db_url)
    writer.new_games.create(stored("busy"))
    done = threading.Event()

    def write() -> None:
        for ply in range(150):
            stored_move(writer, "busy", ply, ply, ply % 2, "pass", "running", None, False)
        done.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        reads = 0
        while not done.is_set() or reads < 10:
            game = reader.games.load("busy")
            assert game is not None
            # Only moves were stored since version 0: every version has exactly its moves.
            assert len(game.actions) == game.version
            reads += 1
    finally:
        thread.join()
        writer.close()
        reader.close()


def test_analyses_are_queued_with_the_last_move_claimed_once_and_stored(any_db_url: str) -> None:
    storage = Store(any_db_url)
    other = Store(any_db_url)  # a second process on the same database
    try:
        storage.new_games.create(stored("g1"))
        stored_move(storage, "g1", 0, 0, 0, "pass", "running", None, False)
        assert storage.analyses.load("g1") is None
        result = [{"seat": 0, "place": 1}]
        stored_move(storage, "g1", 1, 1, 1, "pass", "over", result, False, analyse=True)
        queued = storage.analyses.load("g1")
        assert queued is not None
        assert (queued["status"], queued["done"], queued["total"], queued["data"]) == (
            "queued",
            0,
            0,
            None,
        )
        assert storage.analyses.pending(10, time.time() - 120) == ["g1"]
        assert storage.analyses.queue("g1") is False  # queued once
        claimed = storage.analyses.claim("g1", storage.origin, time.time() - 120)
        assert claimed is not None and claimed["status"] == "queued"
        data = {"format": 1, "chances": [[0.5, 0.5]], "reviews": []}
        assert storage.analyses.save("g1", storage.origin, "running", 1, 4, data)
        if storage.shared:  # the other process may not take a fresh one over, nor write it
            assert other.analyses.claim("g1", other.origin, time.time() - 120) is None
            assert not other.analyses.save("g1", other.origin, "done", 4, 4, data)
            assert storage.analyses.pending(10, time.time() - 120) == []
        found = other.analyses.load("g1")
        assert found is not None and (found["status"], found["done"], found["total"]) == (
            "running",
            1,
            4,
        )
        assert found["data"] == data
        # One that its process left behind is taken over (stale) and finished.
        assert other.analyses.claim("g1", other.origin, time.time() + 1) is not None
        assert other.analyses.save("g1", other.origin, "done", 4, 4, data)
        assert not storage.analyses.save("g1", storage.origin, "running", 2, 4, data)
        assert storage.analyses.claim("g1", storage.origin, time.time() + 1) is None  # done
        assert storage.analyses.pending(10, time.time() + 1) == []
        # A failed analysis may be asked for again.
        assert other.analyses.save("g1", other.origin, "failed", 0, 0, None)
        assert storage.analyses.queue("g1") is True
        assert storage.analyses.load("g1")["status"] == "queued"  # type: ignore[index]
    finally:
        other.close()
        storage.close()


def test_a_stored_game_gives_its_record_which_replays_to_its_state(storage: Store) -> None:
    game = stored("g1")
    storage.new_games.create(game)
    state = GameRecord("tigris", game.players, game.seed, game.options).start()
    for ply in range(4):
        seat = int(state.to_move)
        action = state.legal_actions()[-1]
        stored_move(storage, "g1", ply, ply, seat, action, "running", None, False)
        state.apply(action)
    loaded = storage.games.load("g1")
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
