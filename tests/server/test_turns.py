"""Turn-based tables (deadlines, the stand-in bot, ending without a seat), conceding, idle
games ending by themselves, private tables, a creator removing a table, and the lobby's
filters and finished games: on SQLite and PostgreSQL, with a settable clock, never sleeps."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.botqueue import WorkerSettings, make_move
from cradle.server.store import Store
from tests.helpers.app import hub_of, move, set_clock, started, two_processes, view
from tests.helpers.server import GAMES, auth, create, token_of, wait_for

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

HOUR = 3600
TURN = {"players": 2, "seats": ["human", "human"], "mode": "turn", "deadline_s": HOUR}


def deciding(client: TestClient, created: dict[str, Any]) -> tuple[int, str]:
    """The seat deciding now and its token."""
    seat: int = view(client, created["id"])["to_move"]
    return seat, token_of(created, seat)


def post(client: TestClient, path: str, token: str | None, body: Any = None) -> Any:
    return client.post(path, json={} if body is None else body, headers=auth(token))


def refused(answer: Any, status: int, words: str) -> None:
    assert answer.status_code == status, answer.text
    assert words in answer.json()["error"], answer.json()


# -- creation ---------------------------------------------------------------------------------


def test_a_turn_based_table_has_a_deadline_per_move(serve: Callable[..., TestClient]) -> None:
    client = serve()
    began = time.time()
    created = create(client, **TURN)
    game_id = created["id"]
    table = view(client, game_id)["table"]
    assert table["mode"] == "turn" and table["deadline_s"] == HOUR
    assert began + HOUR <= table["deadline"] <= time.time() + HOUR
    _seat, first = deciding(client, created)
    after = move(client, game_id, first)["table"]
    assert after["deadline"] >= table["deadline"]  # a fresh deadline for the next decision
    # The default is a day; a live table has none.
    default = create(client, players=2, seats=["human", "human"], mode="turn")
    assert view(client, default["id"])["table"]["deadline_s"] == 86400
    live = view(client, create(client)["id"])["table"]
    assert live["mode"] == "live" and live["deadline"] is None and live["deadline_s"] is None


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({**TURN, "deadline_s": HOUR - 1}, "deadline_s"),
        ({**TURN, "deadline_s": 7 * 86400 + 1}, "deadline_s"),
        ({**TURN, "deadline_s": 5000.5}, "deadline_s"),
        ({**TURN, "mode": "slow"}, "mode"),
        ({"players": 2, "seats": ["human", "human"], "deadline_s": HOUR}, "turn-based"),
        ({**TURN, "hotseat": True}, "played live"),
        ({**TURN, "standin": "grandmaster"}, "unknown stand-in"),
        ({**TURN, "private": "yes"}, "private"),
        ({"players": 2, "seats": ["human", "open"], "private": True}, "no open seats"),
    ],
)
def test_bad_turn_settings_are_refused_and_store_nothing(
    client: TestClient, body: dict[str, Any], words: str
) -> None:
    answer = client.post("/api/games", json={"game": "tigris", **body})
    refused(answer, 400, words)
    assert client.get("/api/games").json()["games"] == []


def test_a_private_table_is_not_listed_and_is_reached_by_its_invite(client: TestClient) -> None:
    created = create(client, **TURN, private=True)
    game_id = created["id"]
    assert client.get("/api/games").json()["games"] == []
    assert view(client, game_id)["table"]["private"] is True
    # Those who hold its link find it among "my games" (by its id).
    mine = client.get("/api/games", params={"ids": game_id}).json()["games"]
    assert [row["id"] for row in mine] == [game_id]
    refused(post(client, f"/api/games/{game_id}/join", None), 403, "no open seat")
    invite = created["seats"][1]["invite"]
    joined = post(client, f"/api/games/{game_id}/join", None, {"invite": invite})
    assert joined.status_code == 200 and joined.json()["seat"] == 1


# -- deadlines --------------------------------------------------------------------------------


def test_when_a_deadline_passes_the_others_let_the_stand_in_play_its_turn(
    serve: Callable[..., TestClient],
) -> None:
    client = serve()
    created = create(client, **TURN, standin="medium")
    game_id = created["id"]
    seat, late = deciding(client, created)
    other = token_of(created, 1 - seat)
    before = view(client, game_id)
    # Not yet: the deadline has not passed; nor for the late seat itself, nor a spectator.
    refused(post(client, f"/api/games/{game_id}/timeout", other, {"choice": "bot"}), 403,
            "deadline has not passed")  # fmt: skip
    set_clock(client, before["table"]["deadline"] + 1)
    refused(post(client, f"/api/games/{game_id}/timeout", late, {"choice": "bot"}), 403,
            "your own turn")  # fmt: skip
    refused(post(client, f"/api/games/{game_id}/timeout", None, {"choice": "bot"}), 403,
            "token of a seat")  # fmt: skip
    refused(post(client, f"/api/games/{game_id}/timeout", other, {"choice": "wait"}), 400,
            "choice")  # fmt: skip
    assert view(client, game_id) == before  # refusals change nothing
    answer = post(client, f"/api/games/{game_id}/timeout", other, {"choice": "bot"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["table"]["standin"] == seat
    assert answer.json()["table"]["away"] == [seat]
    assert answer.json()["table"]["standins"][seat] == "medium"
    # The stand-in plays the late seat's turn while it decides, then the other seat decides.
    wait_for(lambda: view(client, game_id)["to_move"] == 1 - seat, 120)
    after = view(client, game_id, other)["table"]
    assert after["moves"] >= 1 and after["standin"] is None and after["status"] == "running"
    assert after["deadline"] is not None and after["away"] == [seat]
    record = client.get(f"/api/games/{game_id}/record", headers=auth(other)).json()
    assert set(record["seats"]) == {seat}
    # The log says who really moved: the stand-in, for the late seat's person.
    steps = client.get(f"/api/games/{game_id}/history").json()["steps"]
    assert steps and {step["standin"] for step in steps} == {"medium"}
    # At the late seat's next turn its person has the deadline again: a move of theirs
    # brings them back (the stand-in plays for them no more).
    pass_turn_to(client, created, seat)
    assert view(client, game_id, late)["legal_actions"]
    assert view(client, game_id)["table"]["standin"] is None
    move(client, game_id, late)
    assert view(client, game_id)["table"]["away"] == []
    steps = client.get(f"/api/games/{game_id}/history", headers=auth(late)).json()["steps"]
    assert steps[-1]["seat"] == seat and steps[-1]["standin"] is None  # the person's own
    assert view(client, game_id)["table"]["last"]["standin"] is None


def pass_turn_to(client: TestClient, created: dict[str, Any], seat: int) -> None:
    """The other seats move until ``seat`` decides."""
    for _ in range(10):
        mover = view(client, created["id"])["to_move"]
        if mover == seat:
            return
        move(client, created["id"], token_of(created, mover))
    raise AssertionError(f"seat {seat} did not come to decide")


def stand_in(client: TestClient, created: dict[str, Any]) -> tuple[int, str]:
    """Let the deciding seat's deadline pass and the other seat choose its stand-in; that
    seat and its token."""
    seat, late = deciding(client, created)
    set_clock(client, view(client, created["id"])["table"]["deadline"] + 1)
    answer = post(client, f"/api/games/{created['id']}/timeout", token_of(created, 1 - seat),
                  {"choice": "bot"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    return seat, late


def test_the_stand_in_plays_each_lapsed_turn_until_its_person_is_back(
    serve: Callable[..., TestClient],
) -> None:
    client = serve()
    created = create(client, **TURN)
    game_id = created["id"]
    seat, late = stand_in(client, created)
    wait_for(lambda: view(client, game_id)["to_move"] == 1 - seat, 120)
    # The late seat's next turn: its person has a deadline; the sweep leaves it until then.
    pass_turn_to(client, created, seat)
    table = view(client, game_id)["table"]
    assert table["away"] == [seat] and table["standin"] is None and table["deadline"]
    hub = hub_of(client)
    assert client.portal is not None
    assert client.portal.call(hub.turns.stand_in_lapsed, table["deadline"] - 1) == []
    # Once it passes, the stand-in plays that turn too, nobody choosing again.
    assert client.portal.call(hub.turns.stand_in_lapsed, table["deadline"] + 1) == [game_id]
    assert view(client, game_id)["table"]["standin"] == seat
    wait_for(lambda: view(client, game_id)["to_move"] == 1 - seat, 120)
    assert client.portal.call(hub.turns.stand_in_lapsed, table["deadline"] + 1) == []
    # "I'm back": only the seat's own token, with an empty body.
    other = token_of(created, 1 - seat)
    path = f"/api/games/{game_id}/return"
    refused(post(client, path, other), 403, "no stand-in plays for your seat")
    refused(post(client, path, None), 403, "token of a seat")
    refused(client.post(path, json={"seat": seat}, headers=auth(late)), 400, "seat")
    assert view(client, game_id)["table"]["away"] == [seat]
    answer = post(client, path, late)
    assert answer.status_code == 200, answer.text
    assert answer.json()["table"]["away"] == [] and answer.json()["seat"] == seat
    refused(post(client, path, late), 403, "no stand-in plays for your seat")
    # Back: a lapsed turn of theirs waits for the others' choice again.
    pass_turn_to(client, created, seat)
    deadline = view(client, game_id)["table"]["deadline"]
    assert client.portal.call(hub.turns.stand_in_lapsed, deadline + 1) == []
    assert view(client, game_id, late)["legal_actions"]


def test_back_while_the_stand_in_holds_the_turn_takes_it_over(db_url: str) -> None:
    # No bot plays in this process: the stand-in's turn waits in the queue.
    with started(db_url, run_bots=False) as client:
        created = create(client, **TURN)
        game_id = created["id"]
        seat, late = stand_in(client, created)
        storage = hub_of(client).store
        assert [job["game_id"] for job in storage.bot_jobs.jobs()] == [game_id]
        refused(client.post(f"/api/games/{game_id}/actions", json={"action": "pass"},
                            headers=auth(token_of(created, 1 - seat))), 403, "not seat")  # fmt: skip
        began = time.time()
        answer = post(client, f"/api/games/{game_id}/return", late)
        assert answer.status_code == 200, answer.text
        table = answer.json()["table"]
        assert table["standin"] is None and table["away"] == []
        assert table["deadline"] >= began + HOUR  # the turn is theirs again, with a fresh clock
        assert answer.json()["legal_actions"] and storage.bot_jobs.jobs() == []
        # The version moved on: a worker that had claimed the turn stores nothing.
        assert storage.games.load(game_id).standin is None  # type: ignore[union-attr]


def test_a_move_of_the_person_away_brings_them_back(db_url: str) -> None:
    with started(db_url, run_bots=False) as client:
        created = create(client, **TURN)
        game_id = created["id"]
        _seat, late = stand_in(client, created)
        move(client, game_id, late)  # before the stand-in played: the person is back
        table = view(client, game_id)["table"]
        assert table["away"] == [] and table["standin"] is None
        stored = hub_of(client).store.games.load(game_id)
        assert stored is not None and stored.away == set() and stored.standin is None


def test_a_lapsed_seat_away_is_played_by_a_process_that_never_loaded_it(db_url: str) -> None:
    with started(db_url) as client:
        created = create(client, **TURN)
        game_id = created["id"]
        seat, _late = stand_in(client, created)
        wait_for(lambda: view(client, game_id)["to_move"] == 1 - seat, 120)
        pass_turn_to(client, created, seat)
        deadline = view(client, game_id)["table"]["deadline"]
    # A new process: the sweep reads the database, the table is not loaded.
    with started(db_url) as client:
        hub = hub_of(client)
        assert game_id not in hub.tables
        assert client.portal is not None
        assert client.portal.call(hub.turns.stand_in_lapsed, deadline + 1) == [game_id]
        wait_for(lambda: view(client, game_id)["to_move"] == 1 - seat, 120)
        assert view(client, game_id)["table"]["away"] == [seat]
        # The idle end reads the database too.
        updated = view(client, game_id)["table"]["updated"]
    with started(db_url) as client:
        hub = hub_of(client)
        assert client.portal is not None
        assert client.portal.call(hub.turns.end_idle, updated + 3 * HOUR + 1) == [game_id]
        assert view(client, game_id)["table"]["ended_by"] == "abandoned"


def bot_moves(url: str) -> int:
    """Make the queued bots' moves as a `cradle bots` worker does; how many."""
    storage = Store(url)
    made = 0
    try:
        while (job := storage.bot_jobs.claim("test", time.time(), 60)) is not None:
            assert make_move(storage, job, "test", WorkerSettings(url, bot_delay=0)) == "moved"
            made += 1
    finally:
        storage.close()
    return made


def test_two_processes_let_a_lapsed_stand_in_play_once(postgres_url: str) -> None:
    # A worker makes the bots' moves.
    with two_processes(postgres_url, run_bots=False) as (one, two):
        created = create(one, **TURN)
        game_id = created["id"]
        seat, _late = stand_in(one, created)
        assert bot_moves(postgres_url) >= 1
        wait_for(lambda: view(one, game_id)["to_move"] == 1 - seat, 120)
        pass_turn_to(one, created, seat)
        view(two, game_id)  # both processes hold the table
        lapsed = view(one, game_id)["table"]["deadline"] + 1
        assert one.portal is not None and two.portal is not None
        first = one.portal.call(hub_of(one).turns.stand_in_lapsed, lapsed)
        second = two.portal.call(hub_of(two).turns.stand_in_lapsed, lapsed)
        assert first + second == [game_id]
        stored = hub_of(one).store.games.load(game_id)
        assert stored is not None and stored.standin == seat and stored.away == {seat}
        assert [job["game_id"] for job in hub_of(one).store.bot_jobs.jobs()] == [game_id]
        assert bot_moves(postgres_url) >= 1
        for client in (one, two):
            wait_for(lambda client=client: view(client, game_id)["to_move"] == 1 - seat, 120)


def test_back_on_another_process_right_after_the_choice(postgres_url: str) -> None:
    with two_processes(postgres_url, run_bots=False) as (one, two):
        created = create(one, **TURN)
        game_id = created["id"]
        view(two, game_id)  # the second process holds the table: its copy is behind next
        assert two.portal is not None
        listening = [
            t for t in hub_of(two).runtime.background if "listen" in t.get_coro().__qualname__
        ]  # type: ignore[union-attr]
        assert len(listening) == 1
        two.portal.call(listening[0].cancel)  # it hears nothing of the first one's writes
        _seat, late = stand_in(one, created)
        answer = post(two, f"/api/games/{game_id}/return", late)
        assert answer.status_code == 200, answer.text
        assert answer.json()["table"]["away"] == [] and answer.json()["table"]["standin"] is None


def test_the_others_may_end_the_game_without_a_seat_whose_deadline_passed(
    serve: Callable[..., TestClient],
) -> None:
    client = serve()
    created = create(client, players=3, seats=["human"] * 3, mode="turn", deadline_s=HOUR)
    game_id = created["id"]
    set_clock(client, view(client, game_id)["table"]["deadline"] + 1)
    late, late_token = deciding(client, created)
    others = [seat for seat in range(3) if seat != late]
    answer = post(client, f"/api/games/{game_id}/timeout", token_of(created, others[1]),
                  {"choice": "end"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    table = view(client, game_id)["table"]  # what a spectator reads
    assert table["status"] == "over" and table["ended_by"] == "timeout"
    places = {line["seat"]: line for line in table["result"]}
    assert places[late]["place"] == 3 and places[late]["out"] == "timeout"
    assert sorted(places[seat]["place"] for seat in others) in ([1, 1], [1, 2])
    refused(post(client, f"/api/games/{game_id}/timeout", token_of(created, others[0]),
                 {"choice": "end"}), 403, "over")  # fmt: skip
    refused(client.post(f"/api/games/{game_id}/actions", json={"action": "pass"},
                        headers=auth(late_token)), 403, "over")  # fmt: skip
    assert client.get(f"/api/games/{game_id}/record").status_code == 200  # public once over


def test_live_tables_have_no_deadline_to_act_on(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    set_clock(client, time.time() + 10 * 86400)
    refused(post(client, f"/api/games/{game_id}/timeout", token_of(created, 1), {"choice": "end"}),
            403, "only turn-based")  # fmt: skip


def test_an_unjoined_seat_cannot_be_timed_out(client: TestClient) -> None:
    created = create(client, players=2, seats=["open", "human"], mode="turn", deadline_s=HOUR)
    game_id = created["id"]
    assert view(client, game_id)["table"]["deadline"] is None  # no clock until all are seated
    set_clock(client, time.time() + 10 * 86400)
    answer = post(client, f"/api/games/{game_id}/timeout", token_of(created, 1), {"choice": "end"})
    if view(client, game_id)["to_move"] == 0:
        refused(answer, 403, "not been taken")
    else:
        refused(answer, 403, "your own turn")
    joined = post(client, f"/api/games/{game_id}/join", None, {"standin": "hard"})
    assert joined.status_code == 200, joined.text
    assert view(client, game_id)["table"]["deadline"] is not None  # the clock starts


# -- conceding ------------------------------------------------------------------------------


def test_any_player_may_concede_and_ends_last(serve: Callable[..., TestClient]) -> None:
    client = serve()
    created = create(client, players=3, seats=["human", "human", "bot:random"])
    game_id = created["id"]
    refused(post(client, f"/api/games/{game_id}/concede", None), 403, "token of a seat")
    refused(client.post(f"/api/games/{game_id}/concede", json={"x": 1},
                        headers=auth(token_of(created, 1))), 400, "x")  # fmt: skip
    answer = post(client, f"/api/games/{game_id}/concede", token_of(created, 1))  # not its turn
    assert answer.status_code == 200, answer.text
    table = view(client, game_id)["table"]
    assert table["status"] == "over" and table["ended_by"] == "conceded"
    last = [line for line in table["result"] if line["place"] == 3]
    assert [line["seat"] for line in last] == [1] and last[0]["out"] == "conceded"
    refused(post(client, f"/api/games/{game_id}/concede", token_of(created, 0)), 403, "over")
    lobby = client.get("/api/games", params={"status": "over"}).json()["games"]
    assert [row["ended_by"] for row in lobby] == ["conceded"]


def test_a_conceded_game_is_over_after_a_restart(db_url: str) -> None:
    with started(db_url) as client:
        created = create(client)
        game_id = created["id"]
        assert (
            post(client, f"/api/games/{game_id}/concede", token_of(created, 0)).status_code == 200
        )
        before = view(client, game_id)
    with started(db_url) as client:
        after = view(client, game_id)
        assert after["table"]["result"] == before["table"]["result"]
        assert after["table"]["ended_by"] == "conceded" and after["to_move"] is None
        replay = client.get(f"/api/games/{game_id}/replay").json()
        assert replay["result"] == before["table"]["result"]


# -- idle games end by themselves -------------------------------------------------------------


def test_a_table_nobody_moved_on_for_three_deadlines_ends(serve: Callable[..., TestClient]) -> None:
    client = serve()
    created = create(client, **TURN)
    game_id = created["id"]
    seat, token = deciding(client, created)
    move(client, game_id, token)
    updated = view(client, game_id)["table"]["updated"]
    hub = hub_of(client)
    assert client.portal is not None
    assert client.portal.call(hub.turns.end_idle, updated + 3 * HOUR - 1) == []
    live = create(client)  # a live table is not concerned
    assert client.portal.call(hub.turns.end_idle, updated + 3 * HOUR + 1) == [game_id]
    table = view(client, game_id)["table"]
    assert table["status"] == "over" and table["ended_by"] == "abandoned"
    assert [line["seat"] for line in table["result"] if line.get("out")] == [seat]  # 2nd action
    assert client.portal.call(hub.turns.end_idle, updated + 3 * HOUR + 1) == []
    assert view(client, live["id"])["table"]["status"] == "running"


def test_two_processes_end_an_idle_game_once(postgres_url: str) -> None:
    with two_processes(postgres_url) as (one, two):
        created = create(one, **TURN)
        game_id = created["id"]
        view(two, game_id)  # both processes hold the table
        later = view(one, game_id)["table"]["updated"] + 3 * HOUR + 1
        assert one.portal is not None and two.portal is not None
        first = one.portal.call(hub_of(one).turns.end_idle, later)
        second = two.portal.call(hub_of(two).turns.end_idle, later)
        assert first + second == [game_id]
        versions = {view(client, game_id)["table"]["version"] for client in (one, two)}
        assert len(versions) == 1  # one ending, seen by both
        assert hub_of(two).store.games.load(game_id).ended_by == "abandoned"  # type: ignore[union-attr]


def test_a_move_and_an_ending_on_two_processes_store_one(postgres_url: str) -> None:
    with two_processes(postgres_url) as (one, two):
        created = create(one, **TURN)
        game_id = created["id"]
        view(two, game_id)
        seat, token = deciding(one, created)
        move(one, game_id, token)  # two's copy is behind now
        answer = post(two, f"/api/games/{game_id}/concede", token_of(created, 1 - seat))
        assert answer.status_code == 200, answer.text
        stored = hub_of(one).store.games.load(game_id)
        assert stored is not None and stored.moves == 1 and stored.ended_by == "conceded"
        wait_for(lambda: view(one, game_id)["table"]["status"] == "over", 120)


# -- removing a table ---------------------------------------------------------------------------


def test_the_creator_removes_an_unstarted_table(client: TestClient) -> None:
    created = create(client, players=3, seats=["human", "open", "human"], mode="turn")
    game_id = created["id"]
    other = token_of(created, 2)
    for token in (None, other):
        refused(client.delete(f"/api/games/{game_id}", headers=auth(token)), 403, "creator")
    assert [row["id"] for row in client.get("/api/games").json()["games"]] == [game_id]
    answer = client.delete(f"/api/games/{game_id}", headers=auth(token_of(created, 0)))
    assert answer.status_code == 200 and answer.json() == {"id": game_id, "status": "removed"}
    refused(client.get(f"/api/games/{game_id}"), 410, "removed by its creator")
    assert client.get("/api/games").json()["games"] == []


def test_a_begun_table_is_not_removed(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    move(client, game_id, deciding(client, created)[1])
    refused(client.delete(f"/api/games/{game_id}", headers=auth(token_of(created, 0))), 403,
            "concede instead")  # fmt: skip
    hotseat = client.post(
        "/api/games",
        json={"game": "tigris", "players": 2, "seats": ["human", "human"], "hotseat": True},
    )
    table_token = hotseat.json()["table_token"]
    removed = client.delete(f"/api/games/{hotseat.json()['id']}", headers=auth(table_token))
    assert removed.status_code == 200


def test_open_tables_nobody_joins_expire(serve: Callable[..., TestClient]) -> None:
    client = serve(unplayed_minutes=10)
    live = create(client, players=2, seats=["human", "open"])["id"]
    turn = create(client, players=2, seats=["human", "open"], mode="turn", deadline_s=HOUR)["id"]
    hub = hub_of(client)
    assert client.portal is not None
    assert client.portal.call(hub.expire_unplayed, time.time() + 11 * 60) == [live]
    # A turn-based table waits for its players three deadlines.
    assert client.portal.call(hub.expire_unplayed, time.time() + 3 * HOUR + 60) == [turn]


# -- the lobby --------------------------------------------------------------------------------


def test_the_lobby_filters_and_shows_finished_games(serve: Callable[..., TestClient]) -> None:
    if "gheos" not in GAMES:
        pytest.skip("needs Gheos too")
    client = serve()
    two = create(client, players=2, seats=["human", "open"])["id"]
    three = create(client, players=3, seats=["human", "open", "open"], mode="turn")["id"]
    gheos = create(client, "gheos", players=2, seats=["human", "open"])["id"]
    mine = create(client)
    post(client, f"/api/games/{mine['id']}/concede", token_of(mine, 1))

    def ids(**params: Any) -> list[str]:
        answer = client.get("/api/games", params=params)
        assert answer.status_code == 200, answer.text
        return sorted(row["id"] for row in answer.json()["games"])

    assert ids(game="gheos") == [gheos]
    assert ids(players=3) == [three]
    assert ids(mode="turn") == [three]
    assert ids(game="tigris", mode="live", status="open") == [two]
    assert ids(ids=f"{two},{gheos}") == sorted([two, gheos])
    default = client.get("/api/meta").json()["games"]
    board = next(g for g in default if g["name"] == "tigris")["options"]
    name, value = next(iter(board.items()))
    assert set(ids(variant=f"{name}={value}", game="tigris")) == {two, three, mine["id"]}
    assert ids(variant=f"{name}=no-such-value") == []
    refused(client.get("/api/games", params={"variant": "nonsense"}), 400, "NAME=VALUE")
    refused(client.get("/api/games", params={"mode": "slow"}), 400, "mode")
    finished = client.get("/api/games", params={"status": "over"}).json()["games"]
    assert [row["id"] for row in finished] == [mine["id"]]
    assert finished[0]["result"] and finished[0]["updated"] and finished[0]["moves"] == 0
