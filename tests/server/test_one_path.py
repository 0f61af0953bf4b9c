"""Every change to a game goes one path (cradle.server.referee), tried by random sequences of
changes across two server processes on one PostgreSQL (Hypothesis's RuleBasedStateMachine):
people's moves and undos through either process, the bots' moves (the servers' own workers),
a deadline lapsing and the others' choice (the stand-in plays, or the game ends without the
late seat), concessions, and a server killed with SIGKILL and started again.

After every step, read from the database: every acknowledged move is stored, once, at the move
number it was acknowledged at (and nothing a person did not have acknowledged); each game's
version never goes back; each rated game that ended moved both ratings, once (and a rated game
in progress none); and, once the bots and the mail loops are done, every person's turn that
owes a mail got exactly one, from whichever process (a real SMTP server, aiosmtpd).

Time passing is written into the database (a deadline moved into the past, with the game's
version moved on so every process reads it again): deadlines are hours long.

Sized by CRADLE_SERVER_MACHINE_EXAMPLES and CRADLE_SERVER_MACHINE_STEPS (a few in make test,
more with -m long); docs/testing.md has the tiers.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import secrets
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import func, select, update

from cradle.server.limits import UNLIMITED_CLIENTS
from cradle.server.store import Store
from cradle.server.store.games import StoredGame
from cradle.server.store.schema import (
    AccountRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
    TurnNoticeRow,
)
from cradle.server.table import replay_record
from tests.helpers.mail import Inbox, smtp_server
from tests.helpers.server import GAMES, PlayServer, new_database, wait_for

pytestmark = pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")

EXAMPLES = int(os.environ.get("CRADLE_SERVER_MACHINE_EXAMPLES", "2"))
STEPS = int(os.environ.get("CRADLE_SERVER_MACHINE_STEPS", "12"))
LONG_EXAMPLES, LONG_STEPS = 40, 30  # make test-long
HOUR = 3600
PASSWORD = "a long enough secret"
MAX_GAMES = 3  # tables one example plays at most
MAX_KILLS = 1  # servers one example kills at most
CHOICE = st.integers(0, 10**6)  # a choice among what there is, read modulo its number


class Browser:
    """A person's browser: the session cookie (one for every process: cookies know no port)
    and the CSRF token on each write."""

    def __init__(self) -> None:
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.csrf = ""

    def call(
        self, method: str, url: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json", "X-CSRF-Token": self.csrf}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=120) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read() or b"null")


@dataclass
class World:
    """Two server processes on one PostgreSQL, the SMTP server they mail through, and the
    test's own view of the database."""

    url: str
    servers: list[PlayServer]
    store: Store
    inbox: Inbox
    settings: tuple[str, ...]

    def restart(self, number: int) -> None:
        """SIGKILL the process (no shutdown code runs) and start another in its place."""
        self.servers[number].kill()
        self.servers[number] = PlayServer(self.url, settings=self.settings).start()


@pytest.fixture(scope="module")
def world(postgres_cluster: str) -> Iterator[World]:
    url = new_database(postgres_cluster)
    with smtp_server() as inbox:
        unlimited = {**UNLIMITED_CLIENTS, "signins_per_minute": 1e9, "signins_burst": 10**9}
        options = (
            *(f"{key}={value}" for key, value in unlimited.items()),
            "password_kib=64",
            "bot_seconds=0.05",  # the stand-ins think briefly: what they play does not matter
            f"smtp_url={inbox.url}",
            "mail_from=cradle@example.org",
            "public_url=http://cradle.example/",
        )
        servers: list[PlayServer] = []
        store = Store(url)
        try:
            servers = [PlayServer(url, settings=options).start() for _ in range(2)]
            yield World(url, servers, store, inbox, options)
        finally:
            for server in servers:
                server.stop()
            store.close()


@dataclass
class Game:
    """A table as the test knows it: its seats' tokens ("" for a bot), the people at them,
    and each move a person had acknowledged, with the move number it was stored at."""

    id: str
    tokens: list[str]
    people: list[int | None]
    rated: bool
    acked: list[tuple[int, str]] = field(default_factory=list)
    version: int = 0
    over: bool = False


def turn_start(stored: StoredGame, seat: int) -> int:
    """The move number at which ``seat``, deciding now, began its turn."""
    start = len(stored.actions)
    while start > 0 and stored.action_seats[start - 1] == seat:
        start -= 1
    return start


class OnePath(RuleBasedStateMachine):
    """Random changes of a few tables across two processes; the invariants after each."""

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world
        self.people: list[Browser] = []
        self.addresses: list[str] = []
        self.games: list[Game] = []
        self.accounts: list[str] = []
        self.kills = 0

    def base(self, via: int) -> str:
        return self.world.servers[via].base

    @initialize()
    def sign_up(self) -> None:
        """Two people with accounts that want turn notices by mail, at addresses they checked
        (written straight into the database: the check's own mail is test_trust.py's)."""
        tag = secrets.token_hex(3)
        for name in ("Ann", "Bob"):
            browser = Browser()
            status, answer = browser.call(
                "POST", self.base(0) + "/api/accounts",
                {"name": f"{name} {tag}", "password": PASSWORD},
            )  # fmt: skip
            assert status == 200, answer
            browser.csrf = answer["csrf"]
            self.accounts.append(answer["account"]["id"])
            address = f"{name.lower()}-{tag}@example.org"
            status, answer = browser.call(
                "PATCH", self.base(1) + "/api/me", {"email": address, "turn_mail": True}
            )
            assert status == 200, answer
            with self.world.store.database.transaction() as connection:
                connection.execute(
                    update(AccountRow)
                    .where(AccountRow.id == self.accounts[-1])
                    .values(email_verified=True)
                )
            self.people.append(browser)
            self.addresses.append(address)

    # -- the changes --------------------------------------------------------------------------

    @precondition(lambda self: len(self.games) < MAX_GAMES)
    @rule(kind=st.sampled_from(["rated", "people", "bot"]), via=st.integers(0, 1))
    def open_table(self, kind: str, via: int) -> None:
        """A turn-based table: Ann and Bob (rated or not), or Ann and the random bot."""
        seats = ["human", "bot:random"] if kind == "bot" else ["human", "human"]
        body = {"game": "gheos", "seats": seats, "mode": "turn", "deadline_s": HOUR,
                "rated": kind == "rated"}  # fmt: skip
        ann, bob = self.people
        status, created = ann.call("POST", self.base(via) + "/api/games", body)
        assert status == 200, created
        tokens = [created["seats"][0]["token"], ""]
        if kind != "bot":
            invite = {"invite": created["seats"][1]["invite"]}
            path = f"/api/games/{created['id']}/join"
            status, joined = bob.call("POST", self.base(1 - via) + path, invite)
            assert status == 200, joined
            tokens[1] = joined["token"]
        people = [0, None if kind == "bot" else 1]
        self.games.append(Game(created["id"], tokens, people, kind == "rated"))

    def frame(self, game: Game, via: int, token: str | None = None) -> dict[str, Any]:
        status, frame = self.people[0].call(
            "GET", f"{self.base(via)}/api/games/{game.id}", token=token
        )
        assert status == 200, frame
        return dict(frame)

    def deciding(self, game: Game, via: int) -> tuple[dict[str, Any], int | None]:
        """The game's frame and the person deciding (None: nobody, a bot, or over)."""
        frame = self.frame(game, via)
        seat = frame["to_move"]
        if frame["table"]["status"] != "running" or seat is None or not game.tokens[seat]:
            return frame, None
        return frame, seat

    def pick(self, number: int) -> Game | None:
        """Game ``number`` (modulo how many there are) if it is still being played. Every
        choice is drawn from fixed ranges before a rule runs and read modulo what there is:
        what there is depends on the servers (their seeds, the bots), and Hypothesis must
        draw the same way whatever they did."""
        game = self.games[number % len(self.games)]
        return None if game.over else game

    @precondition(lambda self: self.games)
    @rule(number=CHOICE, picks=st.lists(CHOICE, min_size=1, max_size=8), via=st.integers(0, 1))
    def move(self, number: int, picks: list[int], via: int) -> None:
        """The people deciding make a legal move each (one per pick), one after the other (a
        bot's turn between two is waited for)."""
        game = self.pick(number)
        if game is None:
            return
        for pick in picks:
            frame, seat = self.deciding(game, via)
            while seat is None and frame["table"]["status"] == "running":
                time.sleep(0.05)  # a bot decides: its move comes
                frame, seat = self.deciding(game, via)
            if seat is None:
                game.over = frame["table"]["status"] == "over"
                return
            legal = self.frame(game, via, game.tokens[seat])["legal_actions"]
            if not legal:
                return
            action = legal[pick % len(legal)]
            people = self.people[game.people[seat] or 0]
            path = f"{self.base(via)}/api/games/{game.id}/actions"
            status, answer = people.call("POST", path, {"action": action}, game.tokens[seat])
            if status != 200:  # the stand-in took the turn meanwhile
                assert status in (400, 403), answer
                return
            assert answer["table"]["last"]["action"] == action
            game.acked.append((answer["table"]["moves"] - 1, action))
            game.over = answer["table"]["status"] == "over"
            if game.over:
                return

    @precondition(lambda self: self.games)
    @rule(number=CHOICE, via=st.integers(0, 1))
    def undo(self, number: int, via: int) -> None:
        """The person deciding takes their last move back (refused where the rule says no)."""
        game = self.pick(number)
        if game is None:
            return
        _frame, seat = self.deciding(game, via)
        if seat is None:
            return
        people = self.people[game.people[seat] or 0]
        path = f"{self.base(via)}/api/games/{game.id}/undo"
        status, answer = people.call("POST", path, {}, game.tokens[seat])
        if status == 200:
            assert not game.rated
            game.acked = [(ply, a) for ply, a in game.acked if ply < answer["table"]["moves"]]
        else:
            assert status == 403, answer

    @precondition(lambda self: self.games)
    @rule(number=CHOICE, choice=st.sampled_from(["bot", "end"]), via=st.integers(0, 1))
    def lapse(self, number: int, choice: str, via: int) -> None:
        """The deciding person's deadline passes; another person chooses: their stand-in
        plays for them until they are back, or the game ends without them."""
        game = self.pick(number)
        if game is None:
            return
        frame, late = self.deciding(game, via)
        if late is None or late in frame["table"]["away"]:
            return
        others = [s for s, t in enumerate(game.tokens) if t and s != late]
        if not others:
            return  # only a bot is left to choose
        with self.world.store.database.transaction() as connection:
            connection.execute(
                update(GameRow)
                .where(GameRow.id == game.id, GameRow.deadline.is_not(None))
                .values(deadline=time.time() - 1, version=GameRow.version + 1)
            )
        other = others[0]
        people = self.people[game.people[other] or 0]
        path = f"{self.base(via)}/api/games/{game.id}/timeout"
        status, answer = people.call("POST", path, {"choice": choice}, game.tokens[other])
        assert status == 200, answer
        game.over = answer["table"]["status"] == "over"

    @precondition(lambda self: self.games)
    @rule(number=CHOICE, seat=st.integers(0, 1), via=st.integers(0, 1))
    def concede(self, number: int, seat: int, via: int) -> None:
        """A person gives up a game under way (four moves in, at least)."""
        game = self.pick(number)
        if game is None or len(game.acked) < 4 or not game.tokens[seat]:
            return
        people = self.people[game.people[seat] or 0]
        path = f"{self.base(via)}/api/games/{game.id}/concede"
        status, answer = people.call("POST", path, {}, game.tokens[seat])
        assert status in (200, 403), answer  # 403: its bot ended it meanwhile
        game.over = True

    @precondition(lambda self: self.kills < MAX_KILLS and self.games)
    @rule(via=st.integers(0, 1))
    def kill(self, via: int) -> None:
        """A server process is killed (SIGKILL) and another started in its place."""
        self.kills += 1
        self.world.restart(via)

    # -- the invariants -----------------------------------------------------------------------

    @invariant()
    def stored_once_and_versions_go_on(self) -> None:
        """Every acknowledged move is stored where it was acknowledged, once; nothing a person
        did not have acknowledged is stored as theirs; versions never go back."""
        for game in self.games:
            stored = self.world.store.games.load(game.id)
            assert stored is not None
            assert stored.version >= game.version
            game.version = stored.version
            theirs = [
                (ply, action)
                for ply, (action, seat, standin) in enumerate(
                    zip(stored.actions, stored.action_seats, stored.action_standins, strict=True)
                )
                if game.tokens[seat] and standin is None
            ]
            assert theirs == game.acked

    @invariant()
    def rated_endings_rate_once(self) -> None:
        """Each rated game that ended moved both ratings, once; one in progress, none."""
        ended = 0
        with self.world.store.database.engine.connect() as connection:
            for game in self.games:
                stored = self.world.store.games.load(game.id)
                assert stored is not None
                changes = connection.scalar(
                    select(func.count())
                    .select_from(RatingChangeRow)
                    .where(RatingChangeRow.game_id == game.id)
                )
                over = stored.status == "over"
                assert changes == (2 if game.rated and over else 0), (game.id, stored.status)
                ended += game.rated and over
            # Ann and Bob play every rated game: each counts each ended one once.
            for account in self.accounts:
                counted = connection.scalar(
                    select(func.coalesce(func.sum(RatingRow.games), 0)).where(
                        RatingRow.account_id == account
                    )
                )
                assert counted == ended

    @invariant()
    def one_mail_per_turn_that_owes_one(self) -> None:
        """Once the bots moved and the mail loops sent what is owed: every turn mailed was
        mailed once (one mail per claimed turn, to its seat's person), and the turn of each
        person deciding now was mailed (if a change began it: a table's first turn, its
        creator's, begins with the table)."""
        store = self.world.store
        wait_for(lambda: store.bot_jobs.jobs() == [] and store.notices.due() == [])
        ids = [game.id for game in self.games]
        with store.database.engine.connect() as connection:
            claimed = connection.execute(
                select(TurnNoticeRow.game_id, TurnNoticeRow.seat, TurnNoticeRow.turn).where(
                    TurnNoticeRow.game_id.in_(ids)
                )
            ).all()
        wait_for(lambda: len(self.mails()) >= len(claimed))
        expected = [(str(g), self.address_at(str(g), int(s))) for g, s, _turn in claimed]
        assert Counter(self.mails()) == Counter(expected)
        notices = {(str(g), int(s), int(t)) for g, s, t in claimed}
        for game in self.games:
            stored = store.games.load(game.id)
            assert stored is not None
            if stored.status != "running" or stored.bot_turn:
                continue
            state = replay_record(stored.record()).state
            seat = int(state.to_move)
            if stored.playing()[seat] != "human":
                continue
            start = turn_start(stored, seat)
            if start == 0 and game.people[1] is None:
                continue  # the creator's first turn at a table of bots: it began with it
            assert (game.id, seat, start) in notices, (game.id, seat, start)

    # -- helpers -----------------------------------------------------------------------------

    def mails(self) -> list[tuple[str, str]]:
        """(game, address) of each mail this example's games got."""
        ids = {game.id for game in self.games}
        found = []
        with self.world.inbox.lock:
            for _sender, recipients, mail in self.world.inbox.mails:
                link = re.search(r"#/play/([\w-]+)", mail.get_content())
                if link and link.group(1) in ids:
                    found.append((link.group(1), recipients[0]))
        return found

    def address_at(self, game_id: str, seat: int) -> str:
        game = next(g for g in self.games if g.id == game_id)
        person = game.people[seat]
        assert person is not None
        return self.addresses[person]


def run_machine(world: World, examples: int, steps: int) -> None:
    run_state_machine_as_test(
        lambda: OnePath(world),
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )


def test_every_change_goes_one_path_across_two_processes(world: World) -> None:
    run_machine(world, EXAMPLES, STEPS)


@pytest.mark.long
def test_every_change_goes_one_path_across_two_processes_long(world: World) -> None:
    run_machine(world, LONG_EXAMPLES, LONG_STEPS)
