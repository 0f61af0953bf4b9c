"""Fairness per client (issue 53): live games and bot seats have a share per client as well as a
cap for the server, a game nobody played in expires, and bots' turns wait in a queue in the
database that serves the clients in turn. On SQLite and a real PostgreSQL."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

from cradle.server.app import create_app
from cradle.server.botpool import LEASE_SECONDS
from cradle.server.limits import Limits
from cradle.server.seats import NewTable
from cradle.server.store import Store
from cradle.server.store.botjobs import AHEAD_SECONDS, USAGE_SECONDS
from cradle.server.store.database import client_hash
from cradle.server.store.errors import Conflict
from cradle.server.store.games import StoredGame
from tests.helpers.app import hub_of, refused
from tests.helpers.server import (
    GAMES,
    auth,
    before_alembic,
    create,
    new_stored,
    stored_move,
    token_of,
    watch,
)

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

FIRST = "10.0.0.1"  # the address of the first test client


@pytest.fixture
def serve(any_db_url: str) -> Iterator[Callable[..., TestClient]]:
    """Start the app on SQLite or PostgreSQL with the limits the test names; its client comes
    from FIRST (``as_client`` gives others)."""
    with ExitStack() as stack:

        def start(bot_delay: float = 0.0, **limits: Any) -> TestClient:
            settings = Limits(analyse_finished=False, **limits)
            app = create_app(any_db_url, bot_delay=bot_delay, limits=settings)
            return stack.enter_context(TestClient(app, client=(FIRST, 50000)))

        yield start


def as_client(first: TestClient, host: str) -> TestClient:
    """Another client (address ``host``) of the app ``first`` runs."""
    other = TestClient(first.app, client=(host, 50000))
    other.portal = first.portal  # the running app's loop: no second start-up
    return other


GAME = {"game": "tigris", "players": 2, "seats": ["human", "human"]}


def test_a_client_has_a_share_of_live_games_and_a_newcomer_still_gets_one(
    serve: Callable[..., TestClient],
) -> None:
    a = serve(live_games_per_client=3, max_live_games=5)
    b, c, d, e, f = (as_client(a, f"10.0.0.{n}") for n in range(2, 7))
    mine = [create(a) for _ in range(3)]
    over = a.post("/api/games", json=GAME)
    assert "you have 3 games in progress" in refused(over)
    assert over.json()["params"]["games"] == 3  # a message with params: said in any language
    assert over.json()["message"].startswith("you have {games} games in progress")
    create(b)
    create(b)  # the server's five are taken
    # A newcomer takes the place of the least recently changed game of whoever holds most: a.
    create(c)
    gone = a.get(f"/api/games/{mine[0]['id']}")
    assert "server was full" in refused(gone, 410)
    move = a.post(
        f"/api/games/{mine[0]['id']}/actions",
        json={"action": "pass"},
        headers=auth(token_of(mine[0], 0)),
    )
    assert refused(move, 410)
    with watch(a, mine[0]["id"], token_of(mine[0], 0)) as ws:
        frame = ws.receive_json()
        assert frame["type"] == "error" and frame["status"] == 410
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4410
    listed = {game["id"] for game in a.get("/api/games").json()["games"]}
    assert mine[0]["id"] not in listed and len(listed) == 5
    create(d)  # a and b hold two each: one of them gives one up
    create(e)  # and then the other
    # Every live game now belongs to a different client: nobody holds more than a newcomer
    # would, so the server is full for everybody, a included.
    assert "maximum of 5 games" in refused(f.post("/api/games", json=GAME))
    assert "maximum of 5 games" in refused(a.post("/api/games", json=GAME))
    assert hub_of(a).store.new_games.live_use(time.time(), 600.0) == (5, 0)


def test_bot_seats_have_a_share_per_client_and_the_random_bot_is_free(
    serve: Callable[..., TestClient],
) -> None:
    a = serve(bot_seats_per_client=2, max_bot_seats=3)
    b, c = as_client(a, "10.0.0.2"), as_client(a, "10.0.0.3")
    two = create(a, players=3, seats=["human", "bot:greedy", "bot:greedy"])
    reason = refused(a.post("/api/games", json={**GAME, "seats": ["human", "bot:easy"]}))
    assert "your games have 2 bot seats" in reason
    create(a, players=4, seats=["human"] + ["bot:random"] * 3)  # free
    create(b, seats=["human", "bot:greedy"])  # the server's three bot seats are taken
    create(c, seats=["human", "bot:random"])  # never blocked by the bot caps
    # A newcomer's bot takes the place of the table of the client with the most bot seats.
    create(c, seats=["human", "bot:greedy"])
    assert "server was full" in refused(a.get(f"/api/games/{two['id']}"), 410)
    create(c, seats=["human", "bot:greedy"])  # c: 2 of its 2, the server: 3 of 3
    # b would hold two, and nobody holds more than that: the server is full for bots.
    reason = refused(b.post("/api/games", json={**GAME, "seats": ["human", "bot:greedy"]}))
    assert "too many bots" in reason
    create(b, seats=["human", "bot:random"])
    key = client_hash(FIRST)
    assert hub_of(a).store.new_games.live_use(time.time(), 600.0, key) == (1, 0)


def test_a_game_nobody_played_in_expires_and_stops_counting(
    serve: Callable[..., TestClient],
) -> None:
    a = serve(live_games_per_client=2, unplayed_minutes=10)
    hub = hub_of(a)
    played, idle = create(a), create(a)
    assert "you have 2 games" in refused(a.post("/api/games", json=GAME))

    def move(table: dict[str, Any]) -> None:
        seat = a.get(f"/api/games/{table['id']}").json()["to_move"]
        token = token_of(table, seat)
        view = a.get(f"/api/games/{table['id']}", headers=auth(token)).json()
        answer = a.post(
            f"/api/games/{table['id']}/actions",
            json={"action": view["legal_actions"][0]},
            headers=auth(token),
        )
        assert answer.status_code == 200, answer.text

    move(played)  # a person's move at a table nobody can join any more: it is played
    # A table waiting for someone to join is not played, even after its creator's move.
    unplayed = [idle["id"]]
    for number in range(20):
        other = as_client(a, f"10.0.1.{number}")
        waiting = create(other, seats=["human", "open"])
        unplayed.append(waiting["id"])
        if other.get(f"/api/games/{waiting['id']}").json()["to_move"] == 0:
            move(waiting)
            break
    else:
        raise AssertionError("the creator never began")
    now = time.time()
    later = now + 11 * 60
    key = client_hash(FIRST)
    assert hub.store.new_games.live_use(now, 600.0, key) == (2, 0)
    assert hub.store.new_games.live_use(later, 600.0, key) == (
        1,
        0,
    )  # before any sweep: not counted
    with watch(a, idle["id"], token_of(idle, 0)) as ws:
        version = ws.receive_json()["table"]["version"]
        ended = a.portal.call(hub.expire_unplayed, later)  # type: ignore[union-attr]
        assert sorted(ended) == sorted(unplayed)
        last = ws.receive_json()
        assert last["table"]["status"] == "expired" and last["table"]["version"] == version + 1
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    for table in (idle, waiting):
        reason = refused(a.get(f"/api/games/{table['id']}"), 410)
        assert "nobody played in it for 10 minutes" in reason
        answer = a.post(
            f"/api/games/{table['id']}/actions",
            json={"action": "pass"},
            headers=auth(token_of(table, 0)),
        )
        assert refused(answer, 410)
    assert refused(a.post(f"/api/games/{waiting['id']}/join", json={}), 410)
    listed = {game["id"] for game in a.get("/api/games").json()["games"]}
    assert listed == {played["id"]}
    assert a.get(f"/api/games/{played['id']}").status_code == 200
    create(a)  # its place is free again
    # Stored as it ended: a new server answers the same.
    stored = hub.store.games.load(idle["id"])
    assert stored is not None and stored.status == "expired"
    assert hub.store.games.version_of(idle["id"]) == version + 1


def test_a_persons_bot_has_its_own_worker_beside_a_clients_tables_of_bots(
    serve: Callable[..., TestClient],
) -> None:
    """Client A's ten tables of bots alone and client B's one table against a bot, one worker
    in each lane: A's turns (nobody waits for them) go to the niced worker, B's to the one at
    the server's priority, which never takes one of A's; so B's bot waits for none of A's
    decisions, however many tables A has."""
    import os

    from cradle.server.botpool import BACKGROUND_NICE
    from cradle.server.limits import BACKGROUND, WAITED

    a = serve(bot_processes=1, background_bot_processes=1, bot_seats_per_client=100)
    hub = hub_of(a)
    portal = a.portal
    assert portal is not None
    bots = NewTable("tigris", 2, {}, ["bot:greedy", "bot:greedy"])
    theirs = [portal.call(hub.create, bots, "client-a")["id"] for _ in range(10)]
    created = portal.call(hub.create, NewTable("tigris", 2, {}, ["human", "bot:greedy"]), "b")
    mine, token = created["id"], token_of(created, 0)
    deadline = time.monotonic() + 300
    while hub.bots_made < 6:  # the niced worker has started and the tables are going
        assert time.monotonic() < deadline, "the bots do not move"
        time.sleep(0.05)

    async def move() -> bool:
        """One of B's moves; whether it makes B's bot decide."""
        table = await hub.table(mine)
        action = hub.frame(table, 0).legal_actions[0]
        await hub.play.act(table, token, action)
        return table.bot_turn()

    decided = 0
    while decided < 3:
        assert time.monotonic() < deadline, "the game stopped"
        if hub.frame(hub.tables[mine], 0).table.to_move != 0:
            time.sleep(0.01)
            continue
        if not portal.call(move):
            continue
        made = sum(1 for _number, game in hub.bot_seats.moves if game == mine)
        while sum(1 for _number, game in hub.bot_seats.moves if game == mine) == made:
            assert time.monotonic() < deadline, "B's bot did not move"
            time.sleep(0.01)
        decided += 1
    lanes = list(hub.bots.served_lanes)
    assert {lane for lane, table in lanes if table == mine} == {WAITED}
    assert {lane for lane, table in lanes if table in theirs} == {BACKGROUND}
    assert len([table for _lane, table in lanes if table in theirs]) >= 6
    # A's decisions ran behind the server's priority, B's at it.
    server = os.getpriority(os.PRIO_PROCESS, 0)
    (person,) = hub.bots.worker_pids(WAITED)
    (background,) = hub.bots.worker_pids(BACKGROUND)
    assert os.getpriority(os.PRIO_PROCESS, person) == server
    assert os.getpriority(os.PRIO_PROCESS, background) == min(server + BACKGROUND_NICE, 19)


def stored_game(game_id: str, seats: list[str], client: str, cost: float = 0.0) -> StoredGame:
    from cradle import tigris

    seed = 0  # seat 0 begins
    state = tigris.new_game(len(seats), seed)
    assert state.to_move == 0
    return new_stored(
        game_id,
        "tigris",
        list(state.players),
        seed,
        seats,
        bot_turn=seats[int(state.to_move)].startswith("bot:"),
        bot_cost=cost,
        client=client_hash(client),
        tokens={seat: "a" * 64 for seat, kind in enumerate(seats) if kind == "human"},
        claimed={seat: True for seat, kind in enumerate(seats) if kind == "human"},
    )


def test_bots_turns_are_claimed_fairly_once_and_taken_over_after_the_lease(
    any_db_url: str,
) -> None:
    storage, other = Store(any_db_url), Store(any_db_url)
    try:
        for number in range(3):
            storage.new_games.create(stored_game(f"a{number}", ["bot:greedy", "human"], "a"))
        storage.new_games.create(stored_game("b0", ["bot:greedy", "human"], "b"))
        storage.new_games.create(stored_game("h0", ["human", "bot:greedy"], "b"))  # a person first
        now = time.time()
        first = storage.bot_jobs.claim("w1", now, LEASE_SECONDS)
        second = other.bot_jobs.claim("w2", now, LEASE_SECONDS)
        third = storage.bot_jobs.claim("w1", now, LEASE_SECONDS)
        assert first is not None and second is not None and third is not None
        # The client served least recently first: a, b, then a again; then nothing is due.
        assert [first.game_id, second.game_id, third.game_id] == ["a0", "b0", "a1"]
        assert other.bot_jobs.claim("w2", now, LEASE_SECONDS).game_id == "a2"  # type: ignore[union-attr]
        assert other.bot_jobs.claim("w2", now, LEASE_SECONDS) is None
        # w1 stops renewing a0: once its lease lapses, another worker takes the turn over.
        storage.bot_jobs.renew("a1", "w1", now + 60)
        other.bot_jobs.renew("b0", "w2", now + 60)
        other.bot_jobs.renew("a2", "w2", now + 60)
        later = now + LEASE_SECONDS + 1
        taken = other.bot_jobs.claim("w2", later, LEASE_SECONDS)
        assert taken is not None and taken.game_id == "a0" and taken.version == 0
        assert storage.bot_jobs.renew("a0", "w1", later + 60) is False  # no longer w1's
        # Both make the move: the version decides, one move is stored, the clock with it.
        stored_move(other, "a0", 0, 0, 0, "pass", "running", None, False, clock=(0, 0.25))
        with pytest.raises(Conflict):
            stored_move(storage, "a0", 0, 0, 0, "pass", "running", None, False)
        assert storage.games.load("a0").actions == ["pass"]  # type: ignore[union-attr]
        assert storage.bot_jobs.clocks("a0") == {0: 0.25}
        assert "a0" not in {job["game_id"] for job in storage.bot_jobs.jobs()}
        # A person's move that gives the turn back to the bot writes its turn again, due after
        # the bot delay, with the seat's clock as stored. The bot thinks through the delay, up
        # to AHEAD_SECONDS: a worker with that delay claims the turn so long before it is due
        # (one with none only once due), and learns when it is due (its move is shown then).
        other.bot_jobs.delay = 10.0
        written = time.time()
        stored_move(other, "a0", 1, 1, 1, "pass", "running", None, True, person=True)
        now = time.time()
        assert other.bot_jobs.claim("w2", now, LEASE_SECONDS) is None
        early = written + 10 - AHEAD_SECONDS + (now - written) + 0.01
        assert storage.bot_jobs.claim("w1", early, LEASE_SECONDS) is None
        again = other.bot_jobs.claim("w2", early, LEASE_SECONDS)
        assert again is not None and again.game_id == "a0" and again.clocks == {0: 0.25}
        assert written + 10 <= again.ready <= now + 10
        assert other.bot_jobs.next_due() == pytest.approx(early + LEASE_SECONDS)
    finally:
        storage.close()
        other.close()


def test_the_bots_time_goes_to_the_client_that_used_it_least(any_db_url: str) -> None:
    """A client's use of the bots is what its turns cost (its bots' budgets), decaying: the
    next turn is the one whose client would have used least after it, so a person's quick bot
    goes before a flood's costly ones, served or not, and heavy clients take turns."""
    storage = Store(any_db_url)
    try:
        for number in range(3):  # a: three tables of a bot that thinks 1 s a decision
            storage.new_games.create(stored_game(f"a{number}", ["bot:hard", "human"], "a", 1.0))
        first = time.time()
        order = [storage.bot_jobs.claim("w", first, 60.0).game_id]  # type: ignore[union-attr]
        storage.new_games.create(stored_game("c0", ["bot:hard", "human"], "c", 1.0))  # new, costly
        storage.new_games.create(stored_game("b0", ["bot:easy", "human"], "b"))  # new, quick
        storage.new_games.create(stored_game("b1", ["bot:easy", "human"], "b"))
        now = time.time()
        while (job := storage.bot_jobs.claim("w", now, 60.0)) is not None:
            order.append(job.game_id)
        # b would have used 0.02 s, then 0.04 s; c 1 s; a 2 s, then 3 s.
        assert order == ["a0", "b0", "b1", "c0", "a1", "a2"]
        # (a's first turn has decayed for as long as the tables after it took to write.)
        decayed = math.exp(-(now - first) / USAGE_SECONDS)
        assert storage.bot_jobs.use(client_hash("a"), now) == pytest.approx(2.0 + decayed, abs=0.01)
        assert storage.bot_jobs.use(client_hash("b"), now) == pytest.approx(0.04, abs=0.001)
        # Use decays: after a few minutes a client is as new again.
        assert storage.bot_jobs.use(client_hash("a"), now + 600) < 0.03
    finally:
        storage.close()


def test_a_turn_a_person_waits_for_goes_before_bots_alone_and_stand_ins(any_db_url: str) -> None:
    """Issue 69 item 2: the bots' turns at a table where a person holds a seat come first,
    whatever the person's client used; bots playing bots alone and a stand-in playing for someone away come
    after, in the order of use (so forty addresses' tables of bots alone never keep a person's
    bot waiting)."""
    from cradle.server.store.plays import StandInChange

    storage = Store(any_db_url)
    try:
        # p has used the bots already (a 1 s turn), more than anyone else.
        storage.new_games.create(stored_game("p1", ["bot:hard", "human"], "p", 1.0))
        assert storage.bot_jobs.claim("w", time.time(), 60.0).game_id == "p1"  # type: ignore[union-attr]
        # A table of bots alone, from a client that never used them.
        storage.new_games.create(stored_game("a0", ["bot:easy", "bot:easy"], "a"))
        # Two people, one away: its stand-in plays its turn.
        storage.new_games.create(stored_game("s0", ["human", "human"], "s"))
        stored_move(storage, "s0", 0, 0, 0, "pass", "running", None, False, person=True)
        storage.plays.stand_in(StandInChange("s0", 1, 1, 0.02))
        # p's person moves: p's bot decides next, and the person waits for it; at p's other
        # table the bot begins, and the person seated there waits too.
        storage.new_games.create(stored_game("p0", ["human", "bot:hard"], "p", 1.0))
        stored_move(
            storage, "p0", 0, 0, 0, "pass", "running", None, True, bot_cost=1.0, person=True
        )
        storage.new_games.create(stored_game("p2", ["bot:hard", "human"], "p", 1.0))
        now = time.time()
        order = []
        while (job := storage.bot_jobs.claim("w", now, 60.0)) is not None:
            order.append(job.game_id)
        assert order == ["p0", "p2", "a0", "s0"]
    finally:
        storage.close()


def test_each_lane_of_workers_claims_only_its_own_turns(any_db_url: str) -> None:
    """The workers a person waits for claim only the turns a person waits for, the niced
    ones only the others (bots alone, a stand-in's turn), each in the fair order; a claimed
    turn says its lane, and each lane knows when its own next turn is due."""
    from cradle.server.limits import BACKGROUND, WAITED
    from cradle.server.store.plays import StandInChange

    storage = Store(any_db_url)
    try:
        storage.new_games.create(stored_game("a0", ["bot:easy", "bot:easy"], "a"))
        storage.new_games.create(stored_game("a1", ["bot:easy", "bot:easy"], "a"))
        storage.new_games.create(stored_game("s0", ["human", "human"], "s"))
        stored_move(storage, "s0", 0, 0, 0, "pass", "running", None, False, person=True)
        storage.plays.stand_in(StandInChange("s0", 1, 1, 0.02))
        storage.new_games.create(stored_game("p0", ["bot:hard", "human"], "p", 1.0))
        storage.new_games.create(stored_game("q0", ["bot:easy", "human"], "q"))
        now = time.time()
        for lane in (WAITED, BACKGROUND):
            assert (storage.bot_jobs.next_due(lane) or now + 1) <= now  # due now, each lane
        background = []
        while (job := storage.bot_jobs.claim("w", now, 60.0, BACKGROUND)) is not None:
            assert job.lane == BACKGROUND
            background.append(job.game_id)
        assert background == ["a0", "s0", "a1"]  # the fair order among them: a, s, a again
        # Every turn nobody waits for is held now; the person's are still due.
        assert storage.bot_jobs.next_due(BACKGROUND) == pytest.approx(now + 60.0)
        assert storage.bot_jobs.next_due(WAITED) is not None
        assert storage.bot_jobs.next_due(WAITED) < now + 60.0  # type: ignore[operator]
        waited = []
        while (job := storage.bot_jobs.claim("w", now, 60.0, WAITED)) is not None:
            assert job.lane == WAITED
            waited.append(job.game_id)
        assert waited == ["q0", "p0"]  # q's quick bot before p's costly one
        assert storage.bot_jobs.claim("w", now, 60.0) is None
    finally:
        storage.close()


def test_a_claim_skips_a_turn_another_transaction_holds(postgres_url: str) -> None:
    from sqlalchemy import text

    storage = Store(postgres_url)
    try:
        storage.new_games.create(stored_game("x", ["bot:greedy", "human"], "a"))
        storage.new_games.create(stored_game("y", ["bot:greedy", "human"], "a"))
        with storage.database.engine.begin() as holding:  # e.g. a move being stored right now
            holding.execute(text("SELECT * FROM bot_jobs WHERE game_id = 'x' FOR UPDATE"))
            found = storage.bot_jobs.claim("w", time.time(), LEASE_SECONDS)
            assert found is not None and found.game_id == "y"
    finally:
        storage.close()


ADDRESSES = 200  # the flood's clients: 127.0.x.y, each a client of its own


def flood_address(number: int) -> str:
    return f"127.0.{1 + number // 250}.{1 + number % 250}"


@pytest.mark.long
def test_a_flood_from_many_addresses_leaves_a_person_a_game_and_a_bot_move(
    tmp_path: Any,
) -> None:
    """Issue 53: 1,000 games from 237 addresses locked everybody out for a day, and 100 tables
    of `hard` bots from 5 addresses took every bot seat and made a person wait 40 s a move.
    Here 200 addresses create games and tables of three `hard` bots as fast as they can, with
    the server's default limits; a person from another address still gets a game and its bot's
    moves within 3 s each (five people, one after the other)."""
    import threading
    from collections import Counter

    from tests.helpers.server import PlayServer, http_from

    server = PlayServer(
        f"sqlite:///{tmp_path / 'games.sqlite3'}",
        bot_delay=0.6,
        settings=("analyse_finished=false",),
    ).start()
    stop = threading.Event()
    answers: Counter[str] = Counter()
    kinds = [["human", "human"], ["human", "bot:hard", "bot:hard", "bot:hard"]]
    refusals = {"maximum of": "full", "too many bots": "bots full", "you have": "own share",
                "your games": "own bot share", "too many new games": "rate"}  # fmt: skip

    def flood(first: int) -> None:
        number = first
        while not stop.is_set():
            address = flood_address(number)
            for seats in kinds:
                body = {"game": "tigris", "players": len(seats), "seats": seats}
                try:
                    status, answer = http_from(address, "POST", server.base + "/api/games", body)
                except OSError:
                    status, answer = 0, None
                reason = (answer or {}).get("error", "") if status == 429 else ""
                found = [kind for words, kind in refusals.items() if words in reason]
                answers[found[0] if found else str(status)] += 1
            number = (number + 4) % ADDRESSES

    threads = [threading.Thread(target=flood, args=(n,), daemon=True) for n in range(4)]
    waits: list[float] = []
    try:
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 600
        # The server is full of the flood's games and bot seats (about five games each).
        while answers["full"] < 50 or answers["bots full"] < 50:
            assert time.monotonic() < deadline, answers
            time.sleep(0.5)
        for attempt in range(5):  # a new person each time (each holds its game after)
            person = f"127.200.0.{1 + attempt}"
            turn_came = time.monotonic()  # the bot's turn comes with the game, or later
            body = {"game": "tigris", "seats": ["human", "bot:easy"]}
            status, created = http_from(person, "POST", server.base + "/api/games", body)
            assert status == 200, created
            url = f"{server.base}/api/games/{created['id']}"
            token = created["seats"][0]["token"]
            seen = 0
            while len(waits) < 3 * (attempt + 1):
                status, view = http_from(person, "GET", url, token=token)
                assert status == 200, view
                if view["table"]["moves"] > seen and view["table"]["last"]["seat"] == 1:
                    waits.append(time.monotonic() - turn_came)  # the bot moved
                    turn_came = time.monotonic()  # its next move, if its turn goes on
                seen = view["table"]["moves"]
                if view["legal_actions"]:  # the person's turn: they move at once
                    action = view["legal_actions"][0]
                    status, moved = http_from(
                        person, "POST", url + "/actions", {"action": action}, token
                    )
                    assert status == 200, moved
                    seen = moved["table"]["moves"]
                    turn_came = time.monotonic()
                    continue
                assert time.monotonic() - turn_came < 10, "no bot move"
                time.sleep(0.05)
        storage = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
        try:  # the flood's `hard` bots had turns waiting all along: the queue was never idle
            backlog = sum(1 for job in storage.bot_jobs.jobs() if job["ready"] < time.time())
        finally:
            storage.close()
        shown = [round(wait, 2) for wait in waits]
        print(
            f"\nflood answers {dict(answers)}, {backlog} bots' turns waiting; the bots "
            f"answered the people in {shown} s"
        )
        assert backlog >= 20
        assert max(waits) <= 3.0, waits
        assert answers["200"] >= 1000
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        server.stop()


def test_a_database_from_before_the_queue_gets_its_bots_turns(tmp_path: Any) -> None:
    """An older server kept no bots' turns, clients or `played`: at start-up each game where a
    bot decides gets its turn, and a game with moves counts as played (it never expires)."""
    import sqlite3

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    storage = Store(url)
    storage.new_games.create(stored_game("bots", ["bot:greedy", "human"], "a"))
    storage.new_games.create(stored_game("moved", ["human", "human"], "a"))
    stored_move(storage, "moved", 0, 0, 0, "pass", "running", None, False)
    storage.close()
    with sqlite3.connect(tmp_path / "old.sqlite3") as db:
        before_alembic(db)
        for table in ("bot_jobs", "bot_clients", "bot_clocks"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP INDEX ix_games_client")
        for column in ("client", "played"):
            db.execute(f"ALTER TABLE games DROP COLUMN {column}")
    storage = Store(url)
    try:
        assert [job["game_id"] for job in storage.bot_jobs.jobs()] == ["bots"]
        later = time.time() + 3600
        assert storage.games.expire_unplayed(later, 600.0) == ["bots"]  # nobody played there
        assert storage.bot_jobs.jobs() == []
        assert storage.games.load("moved").status == "running"  # type: ignore[union-attr]
    finally:
        storage.close()


def test_damaged_rows_of_the_bots_queue_stop_no_other_turn(db_url: str) -> None:
    """The queue is derived from the games: a turn whose version is not a number is forgotten
    (the game's row says at the next start whether a bot decides), a damaged cost, use or clock
    counts as none, and every other turn is claimed as before."""
    import sqlite3

    storage = Store(db_url)
    try:
        for game_id, client in (("x", "a"), ("y", "b"), ("z", "c")):
            storage.new_games.create(stored_game(game_id, ["bot:greedy", "human"], client))
        with sqlite3.connect(db_url.removeprefix("sqlite:///")) as db:
            db.execute("UPDATE bot_jobs SET version = 'v' WHERE game_id = 'x'")
            db.execute("UPDATE bot_jobs SET cost = 'c' WHERE game_id = 'y'")
            db.execute("INSERT INTO bot_clocks VALUES ('z', 0, 'spent')")
            db.execute("INSERT INTO bot_clients VALUES (?, 'load')", (client_hash("c"),))
        now = time.time()
        claimed = []
        while (job := storage.bot_jobs.claim("w", now, LEASE_SECONDS)) is not None:
            claimed.append((job.game_id, job.clocks))
        assert sorted(claimed) == [("y", {}), ("z", {})]
        assert [job["game_id"] for job in storage.bot_jobs.jobs()] == ["y", "z"]
        assert storage.bot_jobs.next_due() == pytest.approx(now + LEASE_SECONDS)
    finally:
        storage.close()
