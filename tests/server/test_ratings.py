"""People's ratings (docs/server.md, "Ratings"): what may be rated, undo and hints refused in a
rated game, the ratings a rated game's end moves (once, whatever races to end it), the
leaderboard and the profile; unrated games and games with bots change no rating."""

from __future__ import annotations

import random
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.games import get_game
from cradle.server.accounts import create_account
from cradle.server.app import create_app
from cradle.server.limits import Limits
from cradle.server.ratings import Skill, rate
from cradle.server.store import Store
from cradle.server.store.errors import Conflict
from cradle.server.store.ratings import rate_game
from cradle.server.store.schema import RatingChangeRow, RatingRow
from cradle.server.tokens import hash_token, new_token
from tests.helpers.server import GAMES, auth, new_stored, stored_move, token_of

pytestmark = pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")


class Person:
    """A browser of a signed-in player: its own cookies, its CSRF token on every write."""

    def __init__(self, client: TestClient, name: str) -> None:
        self.client = client
        self.name = name
        answer = client.post("/api/accounts", json={"name": name, "password": "correct horse"})
        assert answer.status_code == 200, answer.text
        self.csrf = answer.json()["csrf"]

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **auth(token)}
        return self.client.post(path, json=body, headers=headers)


@pytest.fixture
def app_url(any_db_url: str) -> Iterator[tuple[TestClient, TestClient]]:
    """Two browsers (separate cookies) on one server."""
    app = create_app(
        any_db_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64)
    )
    with TestClient(app) as first:
        yield first, TestClient(app, client=("10.1.2.3", 5000))


def rated_table(alice: Person, bob: Person, game: str = "gheos") -> tuple[str, list[str]]:
    """A rated two-player table: Alice made it, Bob joined through his invite."""
    answer = alice.post("/api/games", {"game": game, "seats": ["human", "human"], "rated": True})
    assert answer.status_code == 200, answer.text
    created = answer.json()
    joined = bob.post(f"/api/games/{created['id']}/join", {"invite": created["seats"][1]["invite"]})
    assert joined.status_code == 200, joined.text
    return created["id"], [token_of(created, 0), joined.json()["token"]]


def play_out(client: TestClient, game_id: str, tokens: list[str], seed: int = 1) -> dict[str, Any]:
    """Random legal moves until the game ends; its last frame."""
    rng = random.Random(seed)
    frame: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
    while frame["table"]["status"] != "over":
        token = tokens[frame["to_move"]]
        if not token:  # a bot's turn: it moves by itself
            time.sleep(0.02)
            frame = client.get(f"/api/games/{game_id}").json()
            continue
        mine = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        action = rng.choice(mine["legal_actions"])
        moved = client.post(
            f"/api/games/{game_id}/actions", json={"action": action}, headers=auth(token)
        )
        assert moved.status_code == 200, moved.text
        frame = moved.json()
    return frame


def test_a_rated_game_moves_both_ratings_once(app_url: tuple[TestClient, TestClient]) -> None:
    first, second = app_url
    alice, bob = Person(first, "Alice"), Person(second, "Björk Ñ")
    game_id, tokens = rated_table(alice, bob)
    seen = first.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()
    assert seen["table"]["rated"] is True and seen["table"]["hints"] is False
    mover = seen["to_move"]
    hint = first.post(f"/api/games/{game_id}/hint", json={}, headers=auth(tokens[mover]))
    assert hint.status_code == 403 and "rated" in hint.json()["error"]
    end = play_out(first, game_id, tokens)
    result = {line["seat"]: line["place"] for line in end["table"]["result"]}
    # Every answer that names the seats carries the people's names (the web client shows them).
    for path in ("history", "replay", "analysis"):
        named = first.get(f"/api/games/{game_id}/{path}").json()
        assert named["names"] == ["Alice", "Björk Ñ"], path
    board = first.get("/api/ratings?game=gheos&players=2").json()
    assert board["game"] == "gheos" and board["players"] == 2
    rows = {row["name"]: row for row in board["ratings"]}
    assert set(rows) == {"Alice", "Björk Ñ"}
    assert all(row["games"] == 1 and row["players"] == 2 for row in rows.values())
    expected = rate([Skill(), Skill()], [result[0], result[1]])
    assert rows["Alice"]["rating"] == expected[0].shown
    assert rows["Björk Ñ"]["rating"] == expected[1].shown
    winner = "Alice" if result[0] < result[1] else "Björk Ñ"
    if result[0] != result[1]:
        assert board["ratings"][0]["name"] == winner and board["ratings"][0]["rank"] == 1
    assert first.get("/api/ratings?game=tigris").json()["ratings"] == []
    # The profile: the rating, its change for the chart, the game with each place.
    found = first.get("/api/players/BJÖRK ñ").json()  # names are one whatever their case
    assert found["name"] == "Björk Ñ"
    assert [(r["game"], r["players"], r["games"]) for r in found["ratings"]] == [("gheos", 2, 1)]
    change = found["history"][0]
    assert len(found["history"]) == 1 and change["game_id"] == game_id
    assert change["before"] == Skill().shown and change["rating"] == expected[1].shown
    game = found["games"][0]
    assert game["id"] == game_id and game["seat"] == 1 and game["rated"] is True
    assert game["place"] == result[1] and game["players"] == ["Alice", "Björk Ñ"]
    assert game["change"] == round(expected[1].shown - Skill().shown, 2)
    # Read back by a new server (restarts count nothing again).
    storage = first.app.state.hub.store  # type: ignore[attr-defined]
    with storage.database.engine.connect() as connection:
        changes = connection.execute(RatingChangeRow.__table__.select()).all()
    assert len(changes) == 2
    assert first.get("/api/players/nobody-here").status_code == 404
    # A deleted account leaves the leaderboard (its ratings go with it); its games stay.
    gone = second.request(
        "DELETE", "/api/me", json={"password": "correct horse"}, headers={"X-CSRF-Token": bob.csrf}
    )
    assert gone.status_code == 200, gone.text
    left = first.get("/api/ratings?game=gheos&players=2").json()["ratings"]
    assert [row["name"] for row in left] == ["Alice"]
    assert first.get("/api/players/Björk Ñ").status_code == 404
    assert first.get("/api/players/Alice").json()["games"][0]["players"][1] == "former player"


def test_undo_is_refused_in_a_rated_game(app_url: tuple[TestClient, TestClient]) -> None:
    first, second = app_url
    alice, bob = Person(first, "Alice"), Person(second, "Bobby")
    game_id, tokens = rated_table(alice, bob)
    mover = first.get(f"/api/games/{game_id}").json()["to_move"]
    mine = first.get(f"/api/games/{game_id}", headers=auth(tokens[mover])).json()
    moved = first.post(
        f"/api/games/{game_id}/actions",
        json={"action": mine["legal_actions"][0]},
        headers=auth(tokens[mover]),
    ).json()
    assert moved["table"]["can_undo"] is False
    undone = first.post(f"/api/games/{game_id}/undo", json={}, headers=auth(tokens[mover]))
    assert undone.status_code == 403 and "rated" in undone.json()["error"]


def test_what_cannot_be_rated_is_refused(app_url: tuple[TestClient, TestClient]) -> None:
    first, second = app_url
    body = {"game": "gheos", "seats": ["human", "human"], "rated": True}
    guest = first.post("/api/games", json=body)
    assert guest.status_code == 400 and "signed in" in guest.json()["error"]
    alice = Person(first, "Alice")
    for refused, reason in (
        ({**body, "seats": ["human", "bot:random"]}, "bots"),
        ({**body, "hotseat": True}, "hot-seat"),
    ):
        answer = alice.post("/api/games", refused)
        assert answer.status_code == 400 and reason in answer.json()["error"], answer.text
    created = alice.post("/api/games", body).json()
    invite = created["seats"][1]["invite"]
    # A guest cannot take a seat of a rated game, nor its creator a second one.
    as_guest = TestClient(first.app, client=("10.9.9.9", 1))
    refused = as_guest.post(f"/api/games/{created['id']}/join", json={"invite": invite})
    assert refused.status_code == 403 and "sign in" in refused.json()["error"]
    twice = alice.post(f"/api/games/{created['id']}/join", {"invite": invite})
    assert twice.status_code == 403 and "already" in twice.json()["error"]
    bob = Person(second, "Bob")
    assert bob.post(f"/api/games/{created['id']}/join", {"invite": invite}).status_code == 200


def test_lobby_rows_and_my_games_say_which_games_are_rated(
    app_url: tuple[TestClient, TestClient],
) -> None:
    """``rated`` in the lobby's rows and ``/api/me/games``: a table made rated whose seats are
    held by different accounts or wait for one (open, invited); never a table with a bot, a
    guest, or a seat whose account is gone. Read from a loaded table and from the database."""
    first, second = app_url
    alice, bob = Person(first, "Alice"), Person(second, "Bob")
    rated_id, tokens = rated_table(alice, bob)  # both seated
    waiting = alice.post(
        "/api/games", {"game": "gheos", "seats": ["human", "human"], "rated": True}
    ).json()  # its invite not taken yet
    lobby_open = alice.post(
        "/api/games", {"game": "gheos", "seats": ["human", "open"], "rated": True}
    ).json()
    plain = alice.post("/api/games", {"game": "gheos", "seats": ["human", "human"]}).json()
    against = alice.post("/api/games", {"game": "gheos", "seats": ["human", "bot:random"]}).json()
    guest = TestClient(first.app, client=("10.7.7.7", 1))  # no account
    guests = guest.post("/api/games", json={"game": "gheos", "seats": ["human", "human"]}).json()
    expected = {
        rated_id: True,
        waiting["id"]: True,
        lobby_open["id"]: True,
        plain["id"]: False,
        against["id"]: False,
        guests["id"]: False,
    }

    def lobby(limit: int = 50) -> dict[str, bool]:  # another limit: not the cached page
        rows = first.get(f"/api/games?limit={limit}").json()["games"]
        return {row["id"]: row["rated"] for row in rows if row["id"] in expected}

    def mine(person: Person) -> dict[str, bool]:
        games = person.client.get("/api/me/games").json()["games"]
        return {game["id"]: game["rated"] for game in games}

    assert lobby() == expected  # the tables this process has loaded
    alice_games = {k: v for k, v in expected.items() if k != guests["id"]}
    assert mine(alice) == alice_games
    assert mine(bob) == {rated_id: True}
    seen = first.get(f"/api/games/{rated_id}", headers=auth(tokens[0])).json()
    assert seen["table"]["rated"] is True
    # A table no process has loaded is read from the database: the same answers.
    storage: Store = first.app.state.hub.store  # type: ignore[attr-defined]
    account = first.get("/api/me").json()["account"]["id"]

    def stored() -> tuple[dict[str, bool], dict[str, bool]]:
        rows = storage.lobby.list_games(50)
        listed = {row["id"]: row["rated"] for row in rows if row["id"] in expected}
        return listed, {
            row["id"]: row["rated"] for row in storage.account_data.games_of(account, 50)
        }

    assert stored() == (expected, alice_games)
    # Bob deletes his account: the game he sat at rates nobody any more.
    gone = second.request(
        "DELETE", "/api/me", json={"password": "correct horse"}, headers={"X-CSRF-Token": bob.csrf}
    )
    assert gone.status_code == 200, gone.text
    assert lobby(49)[rated_id] is False
    assert mine(alice)[rated_id] is False
    listed, held = stored()
    assert listed[rated_id] is False and held[rated_id] is False
    assert listed[waiting["id"]] is True  # the others wait as before


def test_unrated_games_and_games_against_bots_change_no_rating(
    app_url: tuple[TestClient, TestClient],
) -> None:
    first, second = app_url
    alice, bob = Person(first, "Alice"), Person(second, "Bob")
    created = alice.post("/api/games", {"game": "gheos", "seats": ["human", "human"]}).json()
    joined = bob.post(f"/api/games/{created['id']}/join", {"invite": created["seats"][1]["invite"]})
    play_out(first, created["id"], [token_of(created, 0), joined.json()["token"]])
    against = alice.post("/api/games", {"game": "gheos", "seats": ["human", "bot:random"]}).json()
    play_out(first, against["id"], [token_of(against, 0), ""])
    assert first.get("/api/ratings?game=gheos").json()["ratings"] == []
    profile = first.get("/api/players/Alice").json()
    assert profile["ratings"] == [] and profile["history"] == []
    assert {g["id"] for g in profile["games"]} == {created["id"], against["id"]}
    kinds = {g["id"]: g["seats"] for g in profile["games"]}  # a bot is named by its level
    assert kinds == {created["id"]: ["human", "human"], against["id"]: ["human", "bot:random"]}
    assert all(g["rated"] is False and g["change"] is None for g in profile["games"])


def test_bad_rating_queries_are_refused(client: TestClient) -> None:
    assert client.get("/api/ratings").status_code == 400  # which game?
    assert client.get("/api/ratings?game=chess").status_code == 400
    assert client.get("/api/ratings?game=gheos&players=0").status_code == 400
    assert client.get("/api/ratings?game=gheos&players=99").status_code == 400
    assert client.get("/api/players/" + "x" * 101).status_code == 400
    assert client.get("/api/players/%3Cscript%3E").status_code == 404


def test_two_processes_ending_one_game_rate_it_once(any_db_url: str) -> None:
    """Two storages (two processes' views of one database) store the game's last move at once:
    one write wins, the other meets a Conflict, and the ratings move once."""
    one, two = Store(any_db_url), Store(any_db_url)
    try:
        accounts = [
            create_account(one.accounts, name, "not-a-hash", time.time()) for name in ("Ann", "Ben")
        ]
        module = get_game("gheos")
        options = dict(module.options_to_dict(module.options_from_dict({})))
        state = module.new_game(2, 7, module.options_from_dict(options))
        one.new_games.create(
            new_stored(
                "race", "gheos", list(state.players), 7, ["human", "human"], options=options,
                tokens={0: hash_token(new_token()), 1: hash_token(new_token())},
                claimed={0: True, 1: True}, accounts={0: accounts[0].id, 1: accounts[1].id},
                rated=True,
            )
        )  # fmt: skip
        rng = random.Random(3)
        ply = 0
        while True:
            seat = int(state.to_move)
            action = rng.choice(list(state.legal_actions()))
            after = state.clone()
            after.apply(action)
            if after.is_over:
                break
            stored_move(one, "race", ply, ply, seat, action, "running", None, False)
            state, ply = after, ply + 1
        result = after.result()
        outcomes: list[str] = []

        def end(storage: Store) -> None:
            try:
                stored_move(storage, "race", ply, ply, seat, action, "over", result, False)
                outcomes.append("stored")
            except Conflict:
                outcomes.append("conflict")

        racers = [threading.Thread(target=end, args=(s,)) for s in (one, two)]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(60)
        assert sorted(outcomes) == ["conflict", "stored"]
        with one.database.engine.connect() as connection:
            ratings = connection.execute(RatingRow.__table__.select()).all()
            changes = connection.execute(RatingChangeRow.__table__.select()).all()
        assert len(changes) == 2 and sorted(r.games for r in ratings) == [1, 1]
        # The same end stored again (a replayed notice, a retry) counts nothing twice.
        with one.database.transaction() as connection:
            rate_game(one.database, connection, "race", result, time.time())
        with one.database.engine.connect() as connection:
            assert len(connection.execute(RatingChangeRow.__table__.select()).all()) == 2
    finally:
        one.close()
        two.close()


HOUR = 3600


@pytest.mark.parametrize("ending", ["conceded", "timeout", "abandoned"])
def test_a_rated_game_ended_early_moves_both_ratings_once(
    app_url: tuple[TestClient, TestClient], ending: str
) -> None:
    """A concession, the others ending it without a seat whose deadline passed, and a game
    nobody moved in for three deadlines: each ends a rated game, and each moves both ratings,
    once, in the transaction that ends it: the seat that left loses."""
    first, second = app_url
    alice, bob = Person(first, "Alice"), Person(second, "Bob")
    answer = alice.post(
        "/api/games",
        {"game": "gheos", "seats": ["human", "human"], "rated": True, "mode": "turn",
         "deadline_s": HOUR},
    )  # fmt: skip
    assert answer.status_code == 200, answer.text
    created = answer.json()
    game_id = created["id"]
    joined = bob.post(f"/api/games/{game_id}/join", {"invite": created["seats"][1]["invite"]})
    tokens = [token_of(created, 0), joined.json()["token"]]
    play = random.Random(3)
    for _ in range(2):  # a few moves first: the game is under way
        frame = first.get(f"/api/games/{game_id}").json()
        token = tokens[frame["to_move"]]
        legal = first.get(f"/api/games/{game_id}", headers=auth(token)).json()["legal_actions"]
        moved = first.post(
            f"/api/games/{game_id}/actions",
            json={"action": play.choice(legal)},
            headers=auth(token),
        )
        assert moved.status_code == 200, moved.text
    table = first.get(f"/api/games/{game_id}").json()["table"]
    late = table["to_move"]
    hub = first.app.state.hub  # type: ignore[attr-defined]
    if ending == "conceded":
        out = 1
        answer = bob.post(f"/api/games/{game_id}/concede", {}, tokens[1])
    elif ending == "timeout":
        out = late
        hub.clock = lambda: table["deadline"] + 1
        waiting = [alice, bob][1 - late]  # the seat that waits ends it
        answer = waiting.post(f"/api/games/{game_id}/timeout", {"choice": "end"}, tokens[1 - late])
    else:
        out = late
        assert first.portal is not None
        ended = first.portal.call(hub.turns.end_idle, table["updated"] + 3 * HOUR + 1)
        assert ended == [game_id]
        answer = first.get(f"/api/games/{game_id}")
    assert answer.status_code == 200, answer.text
    end = answer.json()["table"]
    assert end["status"] == "over" and end["ended_by"] == ending
    places = {line["seat"]: line["place"] for line in end["result"]}
    assert places == {out: 2, 1 - out: 1}
    expected = rate([Skill(), Skill()], [places[0], places[1]])
    names = ["Alice", "Bob"]
    board = {row["name"]: row for row in first.get("/api/ratings?game=gheos").json()["ratings"]}
    assert set(board) == set(names)
    for seat, name in enumerate(names):
        assert board[name]["games"] == 1
        assert board[name]["rating"] == expected[seat].shown
        history = first.get(f"/api/players/{name}").json()["history"]
        assert [change["game_id"] for change in history] == [game_id]
    assert board[names[out]]["rating"] < board[names[1 - out]]["rating"]
    # The end is stored once: acting on it again is refused and counts nothing twice.
    again = alice.post(f"/api/games/{game_id}/concede", {}, tokens[0])
    assert again.status_code in (403, 410), again.text
    store = hub.store
    with store.database.engine.connect() as connection:
        assert len(connection.execute(RatingChangeRow.__table__.select()).all()) == 2
        assert sorted(r.games for r in connection.execute(RatingRow.__table__.select())) == [1, 1]
