"""`cradle bots` on one PostgreSQL database: two worker processes make every bot move exactly
once, serving the clients in turn (the turns nobody waits for on niced workers of their own, a
person's on the others), and a worker killed mid-thought has its turn taken over.

No test here depends on the machine's speed: the waits are long (they end as soon as what they
wait for happens), and the kill is tested on a queue that holds only the turn taken over (with
other clients' cheap turns waiting, the fair order would put it behind them for as long as
their use of the bots stays below its cost, which on a loaded machine is a long time)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from cradle.core.record import GameRecord
from cradle.server.botpool import BACKGROUND_NICE
from cradle.server.store import Store
from tests.helpers.server import (
    GAMES,
    PlayServer,
    check_bots_played_as_if_never_stopped,
    http_from,
    new_stored,
    stop_process,
    wait_for,
)

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

CRADLE = [sys.executable, "-c", "from cradle.cli.main import main; main()"]


@dataclass(frozen=True)
class Move:
    game: str
    ply: int
    client: str
    at: float
    owner: str


class Workers:
    """A `cradle bots --verbose` process; its workers' lines, one per move made."""

    def __init__(self, url: str, *flags: str) -> None:
        self.process = subprocess.Popen(
            [*CRADLE, "bots", "--database", url, "--bot-delay", "0", "--verbose", *flags],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.moves: list[Move] = []
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            parts = line.split()
            if len(parts) == 6 and parts[0] == "moved":
                self.moves.append(
                    Move(parts[1], int(parts[2]), parts[3], float(parts[4]), parts[5])
                )

    def stop(self) -> None:
        stop_process(self.process, 30)
        self.reader.join(timeout=10)


def create(server: PlayServer, source: str, seats: list[str], **body: Any) -> str:
    status, answer = http_from(
        source, "POST", server.base + "/api/games", {"game": "tigris", "seats": seats, **body}
    )
    assert status == 200, answer
    game_id: str = answer["id"]
    return game_id


def seated_against(game_id: str, client: str, store: Store) -> str:
    """A table where a person holds seat 1 and a `greedy` bot begins."""
    from cradle import tigris
    from cradle.server.store.database import client_hash

    state = tigris.new_game(2, 0)
    assert state.to_move == 0
    store.new_games.create(
        new_stored(
            game_id, "tigris", list(state.players), 0, ["bot:greedy", "human"], bot_turn=True,
            client=client_hash(client), tokens={1: "a" * 64}, claimed={1: True},
        )
    )  # fmt: skip
    return game_id


def test_two_bot_worker_processes_share_the_turns_fairly_once(postgres_url: str) -> None:
    settings = ("run_bots=false", "bot_seats_per_client=100", "analyse_finished=false")
    server = PlayServer(postgres_url, bot_delay=0.0, settings=settings).start()
    groups: list[Workers] = []
    storage = Store(postgres_url)
    try:
        bots = ["bot:greedy", "bot:greedy"]
        theirs = [create(server, "127.0.0.2", bots) for _ in range(6)]  # client A: six tables
        b = create(server, "127.0.0.3", bots)  # clients B and C: one each
        c = create(server, "127.0.0.4", bots)
        person = seated_against("person", "127.0.0.6", storage)  # a person waits for this one
        time.sleep(1.0)
        # The server makes no bot move itself (--no-bots): every turn waits in the queue.
        assert server.get(f"/api/games/{b}")["table"]["moves"] == 0
        assert len(storage.bot_jobs.jobs()) == 9
        # The niced workers at our priority here: 120 moves of bots alone must not wait for a
        # machine at load 20 to leave them a core (the niceness is checked below).
        flags = ("--bot-seconds", "3", "--background-nice", "0")
        groups = [Workers(postgres_url, *flags) for _ in range(2)]

        def made() -> list[Move]:
            return sorted((m for group in groups for m in group.moves), key=lambda m: m.at)

        wait_for(lambda: len(made()) >= 120 and any(m.game == person for m in made()), 300)
        # Fair across clients: B's and C's one table each get a third of the moves, like A's
        # six together (first come, first served by table would give them an eighth).
        first = made()[:120]
        share = Counter("a" if m.game in theirs else m.game for m in first)
        assert share[b] >= 30 and share[c] >= 30, share
        assert {m.owner for m in first} and len({g.process.pid for g in groups}) == 2
        # Tables of bots alone: each group's one worker of their lane; the person's bot: a
        # worker of the other lane, which took none of theirs.
        alone = [{m.owner for m in group.moves if m.game != person} for group in groups]
        assert all(len(owners) == 1 for owners in alone), alone
        persons = {m.owner for m in made() if m.game == person}
        assert persons and not persons & set.union(*alone)

        for group in groups:
            group.stop()
        # Every bot move stored was made once, by one worker, and is the one its seeded bot
        # makes there: no turn lost or made twice by two workers or a version conflict.
        lines = Counter((m.game, m.ply) for m in made())
        assert max(lines.values()) == 1
        for game_id in [*theirs, b, c]:  # (the person's table waits for its person)
            stored = storage.games.load(game_id)
            assert stored is not None
            assert {ply for game, ply in lines if game == game_id} == set(
                range(len(stored.actions))
            )
            record = GameRecord(
                game="tigris", players=stored.players, seed=stored.seed, actions=stored.actions
            )
            check_bots_played_as_if_never_stopped(record, bots)
            # The server heard every move (NOTIFY) and serves the game as stored.
            assert server.get(f"/api/games/{game_id}")["table"]["moves"] == len(stored.actions)
    finally:
        for group in groups:
            group.stop()
        storage.close()
        server.stop()


def test_a_worker_killed_mid_thought_has_its_turn_taken_over(postgres_url: str) -> None:
    """The worker thinking on a slow table's turn is killed (SIGKILL): its lease lapses and the
    worker its `cradle bots` started in its place makes the move, once (one `cradle bots`: a
    second one's worker would take the turn over by the same claim, at the cost of its
    processes)."""
    from cradle import tigris
    from cradle.server.store.database import client_hash

    store = Store(postgres_url)
    groups: list[Workers] = []
    try:
        seats = ["bot:expert", "bot:expert"]
        state = tigris.new_game(2, 7)
        store.new_games.create(
            new_stored(
                "slow", "tigris", list(state.players), 7, seats, bot_seconds=3.0, bot_turn=True,
                bot_cost=3.0, client=client_hash("127.0.0.5"),
            )
        )  # fmt: skip
        groups = [Workers(postgres_url, "--bot-seconds", "3")]
        owner = ""
        deadline = time.monotonic() + 300
        while not owner:
            assert time.monotonic() < deadline, "nobody claimed the slow table's turn"
            owner = ([job["owner"] for job in store.bot_jobs.jobs()] or [""])[0] or ""
            time.sleep(0.02)
        # Bots alone: a worker of the niced lane took the turn, BACKGROUND_NICE behind us.
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        niced = os.getpriority(os.PRIO_PROCESS, int(owner.rsplit(":", 1)[1]))
        assert niced == min(ours + BACKGROUND_NICE, 19)
        os.kill(int(owner.rsplit(":", 1)[1]), signal.SIGKILL)

        def made() -> list[Move]:
            return [m for group in groups for m in group.moves if m.game == "slow"]

        wait_for(lambda: any(m.ply == 0 for m in made()), 300)
        taken = [m for m in made() if m.ply == 0]
        assert len(taken) == 1 and taken[0].owner != owner
        for group in groups:
            group.stop()
        stored = store.games.load("slow")
        assert stored is not None and stored.actions
        assert max(Counter(m.ply for m in made()).values()) == 1  # no move made twice
    finally:
        for group in groups:
            group.stop()
        store.close()


def test_workers_sharing_an_unbuffered_stdout_print_whole_lines() -> None:
    """`cradle bots --verbose` under PYTHONUNBUFFERED: its workers write to one pipe at once,
    and every line they write arrives whole (print() wrote a line and its end apart, and two
    workers' lines ran into each other)."""
    import io

    from cradle.server.botqueue import tell_moved

    lines = 3000
    read_end, write_end = os.pipe()
    writers = []
    for worker in range(2):
        pid = os.fork()
        if pid == 0:  # a worker: stdout on the pipe, unbuffered as `python -u` makes it
            try:
                os.close(read_end)
                sys.stdout = io.TextIOWrapper(io.FileIO(write_end, "w"), write_through=True)
                for ply in range(lines):
                    tell_moved(f"g{worker}", ply, "127.0.0.1", f"host:{worker}")
            finally:
                os._exit(0)
        writers.append(pid)
    os.close(write_end)
    with open(read_end) as pipe:
        told = pipe.read().splitlines()
    for pid in writers:
        os.waitpid(pid, 0)
    moves = Counter(line.split()[1] for line in told if len(line.split()) == 6)
    assert len(told) == 2 * lines and moves == {"g0": lines, "g1": lines}


def test_a_worker_thinks_through_the_delay_and_stores_the_move_when_due(db_url: str) -> None:
    """A `cradle bots` worker claims a person's bot's turn as it comes (the delay ahead, at
    most AHEAD_SECONDS), decides, and stores the move only once the turn is due."""
    from cradle.server.botqueue import WorkerSettings, make_move
    from cradle.server.limits import WAITED

    store = Store(db_url)
    try:
        store.bot_jobs.delay = 1.5
        seated_against("g1", "127.0.0.1", store)  # written now, due 1.5 s later
        job = store.bot_jobs.claim("w", time.time(), 60.0)
        assert job is not None and job.lane == WAITED and job.ready > time.time()
        assert make_move(store, job, "w", WorkerSettings(db_url, bot_delay=1.5)) == "moved"
        assert time.time() >= job.ready  # stored no sooner than due
        stored = store.games.load("g1")
        assert stored is not None and len(stored.actions) == 1
    finally:
        store.close()
