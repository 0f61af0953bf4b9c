"""Turn notices by e-mail: the settings, a mail handed to a real SMTP server (aiosmtpd) with
and without a login, the "no more mails" link's refusals, and the notices the database owes:
written with the move that begins a turn (a server's, or a `cradle bots` worker's), claimed
once by one of several processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import warnings
from dataclasses import replace
from email.utils import parsedate_to_datetime
from typing import Any

import pytest
from sqlalchemy import update

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.mail import (
    NOTICE_SECONDS,
    MailSettings,
    NotSent,
    account_mail,
    send_mail,
    turn_mail,
)
from cradle.server.store import Store
from cradle.server.store.notices import DueMail, TurnBegins, owe_notice
from cradle.server.store.schema import AccountRow, GameRow
from cradle.server.tokens import new_token
from tests.helpers.mail import (
    PUBLIC,
    csrf,
    mail_settings,
    mailing_app,
    play_until_turn_passes,
    smtp_server,
    table_of_two,
)
from tests.helpers.server import GAMES, create, free_port, token_of, wait_for

pytestmark = [
    pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine"),
    # aiosmtpd warns of a login without TLS: on the loopback, in a test, that is the point.
    pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning"),
]


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"url": "http://mail:25"}, "smtp://"),
        ({"url": "smtp://"}, "smtp://"),
        ({"url": "smtp://mail:99999"}, "port"),
        ({"sender": "nobody"}, "sender"),
        ({"sender": "a@b\r\nBcc: x@y"}, "sender"),
        ({"public_url": "cradle.example"}, "public URL"),
        ({"url": "smtps://mail", "starttls": True}, "STARTTLS"),
        ({"user": "me"}, "password"),
    ],
)
def test_bad_mail_settings_are_refused(given: dict[str, Any], words: str) -> None:
    base = {"url": "smtp://mail:25", "sender": "cradle@example.org", "public_url": PUBLIC}
    with pytest.raises(ValueError, match=words):
        MailSettings(**{**base, **given})


def notice(address: str, seat: int = 1, deadline_s: float = 7200) -> DueMail:
    # The seat's name as the game has it (the stored players), lower case.
    return DueMail("g123", "tigris", seat, 0, ["archer", "bull"][seat], deadline_s, address)


def test_a_turn_notice_reaches_the_smtp_server_with_its_links() -> None:
    with smtp_server() as inbox:
        mail = mail_settings(inbox.url)
        send_mail(mail, turn_mail(mail, notice("ann@example.org"), "CODE123"))
        [received] = inbox.wait(1)
    assert inbox.mails[0][1] == ["ann@example.org"]
    assert received["From"] == "cradle@example.org"
    assert received["Subject"] == "Your turn in Tigris & Euphrates (Bull)"
    # Dated by the sender (RFC 5322): within a minute of now.
    sent = parsedate_to_datetime(received["Date"])
    assert abs(sent.timestamp() - time.time()) < 60 and sent.tzinfo is not None
    body = received.get_content()
    assert "you play as Bull." in body
    assert "https://cradle.example/#/play/g123" in body
    assert "https://cradle.example/#/unsubscribe/CODE123" in body
    assert "2 hours for each move" in body
    assert received["List-Unsubscribe"] == "<https://cradle.example/#/unsubscribe/CODE123>"


def test_a_stored_list_of_addresses_is_never_mailed() -> None:
    """An address an older server stored as a list (``x,bob@example.org``) mails nobody."""
    mail = mail_settings("smtp://mail:25")
    for stored in ("x,bob@example.org", "ann@example.org;bob@example.org", "a\x00b@example.org"):
        with pytest.raises(ValueError):
            turn_mail(mail, notice(stored), "C")


def test_the_notice_of_a_seat_away_says_its_stand_in_plays() -> None:
    mail = mail_settings("smtp://mail:25")
    away = turn_mail(mail, replace(notice("ann@example.org"), away=True), "C").get_content()
    assert "A bot plays for you while you are away" in away and "(2 hours) runs out" in away
    here = turn_mail(mail, notice("ann@example.org"), "C").get_content()
    assert "while you are away" not in here and "2 hours for each move" in here


def test_the_smtp_login_is_used_when_configured() -> None:
    with smtp_server(user="cradle", password="s3cret") as inbox:
        wrong = mail_settings(inbox.url, user="cradle", password="nope")
        with pytest.raises(Exception, match=r"535|uthentication"):
            send_mail(wrong, turn_mail(wrong, notice("ann@example.org", 0), "C"))
        right = mail_settings(inbox.url, user="cradle", password="s3cret")
        send_mail(right, turn_mail(right, notice("ann@example.org", 0), "C"))
        inbox.wait(1)
    assert inbox.logins == ["cradle"]


def test_an_unknown_stop_link_is_refused(client: TestClient) -> None:
    answer = client.post("/api/mail/stop", json={"code": "no-such-code"})
    assert answer.status_code == 404 and "unknown or was used" in answer.json()["error"]
    answer = client.post("/api/mail/stop", json={"code": 5})
    assert answer.status_code == 400


# -- notices at turn-based tables, sent through a real SMTP server ----------------------------

PASSWORD = "correct horse battery"


def person(app: Any, name: str, address: str | None, language: str | None = None) -> TestClient:
    """A browser of ``app`` signed up as ``name``, wanting turn notices at ``address``, which
    it checked (written straight into the database: the check's own mail and link are
    tests/server/test_trust.py's, and would be one more mail in these inboxes), whose pages are
    in ``language`` (its Accept-Language)."""
    browser = TestClient(app)
    if language is not None:
        browser.headers["Accept-Language"] = language
    assert browser.post("/api/accounts", json={"name": name, "password": PASSWORD}).is_success
    if address is not None:
        account = browser.get("/api/me").json()["account"]["id"]
        with app.state.hub.store.database.transaction() as connection:
            connection.execute(
                update(AccountRow)
                .where(AccountRow.id == account)
                .values(email=address, email_verified=True)
            )
        answer = browser.patch("/api/me", json={"turn_mail": True}, headers=csrf(browser))
        assert answer.status_code == 200, answer.text
        assert answer.json()["account"]["email_verified"] is True
    return browser


def stop_code(mail: Any) -> str:
    link: str = mail["List-Unsubscribe"].strip("<>")
    return link.rsplit("/", 1)[1]


def test_each_turn_is_mailed_once_and_the_link_stops_the_mails(any_db_url: str) -> None:
    with mailing_app(any_db_url) as (app, client, inbox):
        ann = person(app, "Ann", "ann@example.org")
        bob = person(app, "Bob", "bob@example.org")
        address = {0: "ann@example.org", 1: "bob@example.org"}
        game_id, tokens = table_of_two(app, ann, bob)
        # Everyone is seated: the first person's turn begins, and is mailed.
        first = client.get(f"/api/games/{game_id}").json()["to_move"]
        [mail] = inbox.wait(1)
        assert mail["To"] == address[first]
        assert f"#/play/{game_id}" in mail.get_content()
        # A turn of several actions is one turn: one mail, when the next one begins.
        second = play_until_turn_passes(client, game_id, tokens)
        mails = inbox.wait(2)
        assert [m["To"] for m in mails] == [address[first], address[second]]
        # The link stops the mails of its account, once, without signing in.
        stranger = TestClient(app)
        assert stranger.post("/api/mail/stop", json={"code": stop_code(mails[1])}).is_success
        again = stranger.post("/api/mail/stop", json={"code": stop_code(mails[1])})
        assert again.status_code == 404
        mine = ann if second == 0 else bob
        assert mine.get("/api/me").json()["account"]["turn_mail"] is False
        # The unsubscribed seat's next turn is not mailed; the other's is.
        back = play_until_turn_passes(client, game_id, tokens)
        assert back == first
        assert inbox.wait(3)[2]["To"] == address[first]
        play_until_turn_passes(client, game_id, tokens)
        play_until_turn_passes(client, game_id, tokens)
        assert inbox.wait(4)[3]["To"] == address[first]
        hub = client.app.state.hub  # type: ignore[attr-defined]
        # the count moves when the SMTP conversation ends, just after the mail arrived
        wait_for(lambda: hub.store.notices.due() == [] and hub.notices.sent >= 4, 120)
        assert hub.notices.sent == 4 and len(inbox.mails) == 4
        assert all(m[1] == [m[2]["To"]] for m in inbox.mails)


def test_guests_and_live_tables_get_no_mail(db_url: str) -> None:
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    with smtp_server() as inbox:
        app = create_app(
            db_url,
            bot_delay=0,
            limits=Limits(analyse_finished=False, password_kib=64),
            mail=mail_settings(inbox.url),
        )
        with TestClient(app) as client:
            guest = create(client, players=2, seats=["human", "human"], mode="turn")
            hub = client.app.state.hub  # type: ignore[attr-defined]
            to_move = client.get(f"/api/games/{guest['id']}").json()["to_move"]
            play_until_turn_passes(client, guest["id"], [token_of(guest, seat) for seat in (0, 1)])
            assert to_move is not None and hub.store.notices.due() == []  # no mail is owed
            ann = person(app, "Ann", "ann@example.org")
            bob = person(app, "Bob", "bob@example.org")
            live, _tokens = table_of_two(app, ann, bob, mode="live", deadline_s=None)
            # A turn-based table's notice afterwards arrives alone: the live one sent none.
            table_of_two(app, ann, bob)
            [mail] = inbox.wait(1)
            assert "#/play/" in mail.get_content() and live not in mail.get_content()
            wait_for(lambda: hub.notices.sent == 1, 120)
            assert len(inbox.mails) == 1


def test_two_processes_never_mail_one_turn_twice(postgres_url: str) -> None:
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    with smtp_server() as inbox:

        def app() -> Any:
            return create_app(
                postgres_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64),
                mail=mail_settings(inbox.url),
            )  # fmt: skip

        one_app, two_app = app(), app()
        with TestClient(one_app) as one, TestClient(two_app) as two:
            ann = person(one_app, "Ann", "ann@example.org")
            bob = person(one_app, "Bob", "bob@example.org")
            game_id, tokens = table_of_two(one_app, ann, bob)
            two.get(f"/api/games/{game_id}")  # the second process serves the table too
            inbox.wait(1)
            turns = 1
            for _ in range(3):  # each process plays some turns; each turn's mail is awaited
                play_until_turn_passes(one, game_id, tokens)
                inbox.wait(turns + 1)
                play_until_turn_passes(two, game_id, tokens)
                turns += 2
                inbox.wait(turns)
            hubs = [c.app.state.hub for c in (one, two)]  # type: ignore[attr-defined]
            # Both look for owed notices; the claims in the database made one mail of each.
            # (the counts move when the SMTP conversation ends, just after the mail arrived)
            wait_for(
                lambda: (
                    hubs[0].store.notices.due() == []
                    and sum(hub.notices.sent for hub in hubs) >= turns
                ),
                30,
            )
            assert sum(hub.notices.claimed for hub in hubs) == turns
            assert sum(hub.notices.sent for hub in hubs) == turns
            assert len(inbox.mails) == turns


def test_owed_notices_are_claimed_once_by_racing_processes(any_db_url: str) -> None:
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    app = create_app(
        any_db_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64)
    )
    with TestClient(app) as client:
        ann = person(app, "Ann", "ann@example.org")
        bob = person(app, "Bob", "bob@example.org")
        game_id, _tokens = table_of_two(app, ann, bob)
        storage = client.app.state.hub.store  # type: ignore[attr-defined]
        owed = {(seat, turn) for _game, seat, turn in storage.notices.due()}  # none sends here
        with storage.database.transaction() as connection:
            # Ann is away (her stand-in plays her lapsed turns): her mails say so.
            connection.execute(update(GameRow).where(GameRow.id == game_id).values(away=1))
            for turn in range(100, 140):
                owe_notice(connection, game_id, time.time(), None, False,
                                    TurnBegins(turn % 2, turn))  # fmt: skip
                owed.add((turn % 2, turn))
        claimed: list[tuple[int, int, str, bool]] = []
        failed: list[BaseException] = []
        lock = threading.Lock()

        def claim() -> None:  # a process of its own: its own connections
            mine = Store(any_db_url)
            try:
                while (mail := mine.notices.claim_due(new_token(), time.time())) is not None:
                    with lock:
                        claimed.append((mail.seat, mail.turn, mail.address, mail.away))
            except BaseException as exc:
                failed.append(exc)
            finally:
                mine.close()

        racers = [threading.Thread(target=claim) for _ in range(4)]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(60)
        assert failed == []
        assert sorted((seat, turn) for seat, turn, _, _ in claimed) == sorted(owed)
        assert all(address == ["ann", "bob"][seat] + "@example.org" and away == (seat == 0)
                   for seat, _turn, address, away in claimed)  # fmt: skip
        assert storage.notices.due() == []
        # A turn mailed is never owed again.
        with storage.database.transaction() as connection:
            owe_notice(connection, game_id, time.time(), None, False, TurnBegins(0, 100))
        assert storage.notices.due() == []


class Browser:
    """A client of a server process that keeps its cookies (a signed-in web page)."""

    def __init__(self, base: str) -> None:
        import http.cookiejar
        import urllib.request

        self.base = base
        self.csrf = ""
        cookies = urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        self.opener = urllib.request.build_opener(cookies)

    def send(self, method: str, path: str, body: Any = None) -> Any:
        import json
        import urllib.request

        headers = {"Content-Type": "application/json", "X-CSRF-Token": self.csrf}
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        with self.opener.open(request, timeout=30) as answer:
            return json.loads(answer.read())


@pytest.mark.long  # three processes start: half a minute
def test_a_bot_workers_move_begins_a_turn_two_servers_mail_once(postgres_url: str) -> None:
    """A `cradle bots` worker (no table loaded) stores the bot's move that begins Ann's turn:
    one of the two server processes sends its one mail."""
    from tests.helpers.server import PlayServer, http

    cradle = [sys.executable, "-c", "from cradle.cli.main import main; main()"]
    with smtp_server() as inbox:
        options = ("run_bots=false", "analyse_finished=false", f"smtp_url={inbox.url}",
                   "mail_from=cradle@example.org", f"public_url={PUBLIC}")  # fmt: skip
        servers: list[PlayServer] = []
        worker = None
        try:
            servers = [PlayServer(postgres_url, settings=options).start() for _ in range(2)]
            ann = Browser(servers[0].base)  # signed in by its cookie, as a web page is
            ann.send("POST", "/api/accounts", {"name": "Ann", "password": PASSWORD})
            ann.csrf = ann.send("GET", "/api/me")["csrf"]
            ann.send("PATCH", "/api/me", {"email": "ann@example.org", "turn_mail": True})
            made = ann.send(
                "POST",
                "/api/games",
                {"game": "tigris", "seats": ["human", "bot:random"], "mode": "turn",
                 "deadline_s": 3600},
            )  # fmt: skip
            game_id, token = made["id"], made["seats"][0]["token"]
            worker = subprocess.Popen([*cradle, "bots", "--database", postgres_url,
                                       "--bot-delay", "0", "--workers", "1"])  # fmt: skip
            for turn in range(1, 4):
                # Ann plays her turn (on either server) if it is hers; the worker moves.
                server = servers[turn % 2]
                frame = server.get(f"/api/games/{game_id}", token)
                while frame["to_move"] == 0:
                    action = frame["legal_actions"][0]
                    http("POST", f"{server.base}/api/games/{game_id}/actions",
                         {"action": action}, token)  # fmt: skip
                    frame = server.get(f"/api/games/{game_id}", token)
                mails = inbox.wait(turn, 60)
                assert all(m["To"] == "ann@example.org" for m in mails)
                assert f"#/play/{game_id}" in mails[-1].get_content()
            time.sleep(3 * NOTICE_SECONDS)  # both servers looked again: nothing more is owed
            assert len(inbox.mails) == 3
            stops = {stop_code(m) for _from, _to, m in inbox.mails}
            assert len(stops) == 3  # a code of its own in each mail
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(30)
            for server in servers:
                server.stop()


def test_a_move_stored_elsewhere_owes_a_notice_a_server_sends_once(postgres_url: str) -> None:
    """The bot's move is stored as a `cradle bots` worker stores it (no server's hands), at a
    table no server process has loaded: the turn it begins is mailed once, by one of two server
    processes, and neither loads the table to do it."""
    from cradle.server.app import create_app
    from cradle.server.botqueue import WorkerSettings, make_move
    from cradle.server.limits import Limits

    with smtp_server() as inbox:

        def app() -> Any:
            return create_app(
                postgres_url, bot_delay=0, mail=mail_settings(inbox.url),
                limits=Limits(analyse_finished=False, password_kib=64, run_bots=False),
            )  # fmt: skip

        one_app, two_app = app(), app()
        with TestClient(one_app) as one, TestClient(two_app):
            ann = person(one_app, "Ann", "ann@example.org")
            made = ann.post(
                "/api/games",
                json={"game": "tigris", "seats": ["human", "bot:random"], "mode": "turn",
                      "deadline_s": 3600},
                headers=csrf(ann),
            )  # fmt: skip
            assert made.status_code == 200, made.text
            game_id, token = made.json()["id"], made.json()["seats"][0]["token"]
            if one.get(f"/api/games/{game_id}").json()["to_move"] == 0:
                play_until_turn_passes(one, game_id, [token, ""])
            assert inbox.mails == []  # nobody owes Ann a mail for the turn she began at
            hubs = [one_app.state.hub, two_app.state.hub]
            for hub in hubs:  # no process has the table in memory any more
                hub.tables.pop(game_id, None)
            worker = Store(postgres_url)
            try:
                while (job := worker.bot_jobs.claim("w", time.time(), 60)) is not None:
                    assert make_move(worker, job, "w", WorkerSettings(postgres_url, 0)) == "moved"
            finally:
                worker.close()
            [mail] = inbox.wait(1)
            assert mail["To"] == "ann@example.org" and game_id in mail.get_content()
            storage = one.app.state.hub.store  # type: ignore[attr-defined]
            wait_for(lambda: storage.notices.due() == [], 120)
            time.sleep(2 * NOTICE_SECONDS)  # both processes looked again: nothing more
            assert len(inbox.mails) == 1
            assert all(game_id not in hub.tables for hub in hubs)


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (3600, "1 hour"),
        (6 * 3600, "6 hours"),
        (86400, "1 day"),
        (7 * 86400, "7 days"),
        (900, "15 minutes"),
    ],
)
def test_the_time_per_move_is_said_in_words_that_agree(seconds: float, words: str) -> None:
    mail = mail_settings("smtp://mail:25")
    body = turn_mail(mail, notice("ann@example.org", deadline_s=seconds), "C").get_content()
    assert f"You have {words} for each move;" in body
    assert "1 hours" not in body and "1 days" not in body


@pytest.mark.parametrize(
    ("language", "seconds", "words", "subject"),
    [
        ("es", 3600, "Tienes 1 hora para cada jugada;", "Tu turno en Tigris & Euphrates (Toro)"),
        (
            "es",
            2 * 86400,
            "Tienes 2 días para cada jugada;",
            "Tu turno en Tigris & Euphrates (Toro)",
        ),
        (
            "pt_BR",
            6 * 3600,
            "Você tem 6 horas para cada jogada;",
            "Sua vez em Tigris & Euphrates (Touro)",
        ),
        ("pt_PT", 3600, "Tem 1 hora para cada jogada;", "A sua vez em Tigris & Euphrates (Touro)"),
    ],
)
def test_a_turn_mail_in_another_language_counts_by_its_plural_rule(
    language: str, seconds: float, words: str, subject: str
) -> None:
    """The mail's words are gettext messages (cradle.i18n): a catalogue's language gives the
    whole mail in it, the seat's name and the time per move too (pt_PT falls back on pt_BR for
    the words it writes alike)."""
    mail = turn_mail(
        mail_settings("smtp://mail:25"),
        notice("ann@example.org", deadline_s=seconds),
        "C",
        language,
    )
    assert mail["Subject"] == subject
    body = mail.get_content()
    assert words in body
    assert "your turn" not in body.lower() and "https://cradle.example/#/play/g123" in body


def test_each_person_is_mailed_in_their_accounts_language(any_db_url: str) -> None:
    """Issue 66: a turn mail goes out in its recipient's language: the one their browser read
    when they signed up, then the one they chose in the account screen."""
    with mailing_app(any_db_url) as (app, client, inbox):
        ann = person(app, "Ann", "ann@example.org", "es-ES,es;q=0.9")
        bob = person(app, "Bob", "bob@example.org", "pt-BR")
        game_id, tokens = table_of_two(app, ann, bob)
        first = client.get(f"/api/games/{game_id}").json()["to_move"]
        # Each turn's mail is waited for before the turn is played: a turn that passed before
        # its mail went out is owed none (on a loaded machine the mail loop may come later).
        inbox.wait(1)
        second = play_until_turn_passes(client, game_id, tokens)
        mails = {m["To"]: m for m in inbox.wait(2)}
        spanish, portuguese = mails["ann@example.org"], mails["bob@example.org"]
        assert {first, second} == {0, 1}
        assert spanish["Subject"].startswith("Tu turno en Tigris & Euphrates")
        assert spanish["Content-Language"] == "es"
        assert "Juégalo aquí" in spanish.get_content()
        assert portuguese["Subject"].startswith("Sua vez em Tigris & Euphrates")
        assert portuguese["Content-Language"] == "pt-BR"
        # Ann chooses European Portuguese: her next mail speaks it.
        chosen = ann.patch("/api/me", json={"language": "pt-PT"}, headers=csrf(ann))
        assert chosen.status_code == 200, chosen.text
        play_until_turn_passes(client, game_id, tokens)
        inbox.wait(3)
        play_until_turn_passes(client, game_id, tokens)
        last = [m for m in inbox.wait(4) if m["To"] == "ann@example.org"][-1]
        assert last["Subject"].startswith("A sua vez em Tigris & Euphrates")
        assert last["Content-Language"] == "pt-PT"


# -- mail that is not lost: the SMTP server down, or answering "later" ------------------------


def test_what_the_smtp_server_did_not_take_is_told_apart() -> None:
    """A server answering "later" (4xx) or down may be tried again; a 5xx refusal may not."""
    with smtp_server(refusals=("451 4.3.0 try later", "550 5.1.1 no such mailbox")) as inbox:
        mail = mail_settings(inbox.url)
        for again in (True, False):
            with pytest.raises(NotSent) as refused:
                send_mail(mail, turn_mail(mail, notice("ann@example.org"), "C"))
            assert refused.value.again is again
        send_mail(mail, turn_mail(mail, notice("ann@example.org"), "C"))
        inbox.wait(1)
    with pytest.raises(NotSent) as down:
        send_mail(mail, turn_mail(mail, notice("ann@example.org"), "C"))
    assert down.value.again is True and "cannot be reached" in str(down.value)
    with pytest.raises(ValueError, match="back-off"):
        mail_settings(inbox.url, retry_first=5.0, retry_most=1.0)


def test_turn_notices_wait_out_an_smtp_server_that_is_down_and_go_once(any_db_url: str) -> None:
    """With the SMTP server stopped, owed notices are tried again with a growing back-off (a
    turn that passed meanwhile is owed no more); once it is started, each still owed arrives
    once."""
    from cradle.server.app import create_app
    from cradle.server.limits import Limits

    port = free_port()  # nothing listens there yet: the SMTP server is "down"
    down = mail_settings(f"smtp://127.0.0.1:{port}", retry_first=0.1, retry_most=0.4)
    app = create_app(
        any_db_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64), mail=down
    )
    with TestClient(app) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        ann = person(app, "Ann", "ann@example.org")
        bob = person(app, "Bob", "bob@example.org")
        game_id, tokens = table_of_two(app, ann, bob, private=False)
        first = client.get(f"/api/games/{game_id}").json()["to_move"]
        wait_for(lambda: hub.notices.claimed >= 2, 60)  # tried, and tried again
        # Between its tries it is owed again (while a try is under way, it is claimed).
        wait_for(lambda: [(g, seat) for g, seat, _t in hub.store.notices.due()] == [(game_id, first)], 60)  # fmt: skip
        # The first seat plays its turn while the server is down: its notice is owed no more.
        second = play_until_turn_passes(client, game_id, tokens)
        wait_for(lambda: [seat for _g, seat, _t in hub.store.notices.due()] == [second], 60)
        tried = hub.notices.claimed
        wait_for(lambda: hub.notices.claimed >= tried + 2, 60)  # the back-off goes on
        assert hub.notices.sent == 0
        with smtp_server(port=port) as inbox:
            [mail] = inbox.wait(1)
            wait_for(lambda: hub.notices.sent == 1 and hub.store.notices.due() == [], 60)
            assert len(inbox.mails) == 1
        assert mail["To"] == ["ann@example.org", "bob@example.org"][second]
        assert f"#/play/{game_id}" in mail.get_content()


@pytest.mark.parametrize(
    ("kind", "language", "subject", "words", "tag"),
    [
        ("reset", "es", "Elige una contraseña nueva para Ann", "abre este enlace", "es"),
        ("verify", "pt-BR", "Confirme seu endereço de e-mail para Ann", "abra este link", "pt-BR"),
        ("invite", "es", "Bob te invita a una partida de Gheos", "Ocupa el asiento", "es"),
        # European Portuguese: its own words where they differ from Brazil's (palavra-passe,
        # ligação, no "você"), not pt-BR's.
        ("reset", "pt-PT", "Escolha uma nova palavra-passe para Ann", "esta ligação", "pt-PT"),
        (
            "verify",
            "pt-PT",
            "Confirme o seu endereço de e-mail para Ann",
            "Se não indicou",
            "pt-PT",
        ),
        (
            "invite",
            "pt-PT",
            "Bob envia-lhe um convite para uma partida de Gheos",
            "numa mesa",
            "pt-PT",
        ),
        ("reset", None, "Choose a new password for Ann", "open this link", "en"),
    ],
)
def test_account_mails_speak_the_recipients_language(
    kind: str, language: str | None, subject: str, words: str, tag: str
) -> None:
    """Issue 66: a reset link, an address check and a friend's invitation go out in the
    recipient's account's language (English for an account without one), whole sentences
    from the catalogues with their links in place."""
    link = "https://cradle.example/#/reset/c0de"
    params = {"name": "Ann", "email": "ann@example.org", "sender": "Bob", "title": "Gheos",
              "link": link, "account": "https://cradle.example/#/account"}  # fmt: skip
    mail = account_mail(
        mail_settings("smtp://mail:25"), kind, "ann@example.org", language, **params
    )
    assert mail["Subject"] == subject
    assert mail["Content-Language"] == tag
    body = mail.get_content()
    assert words in body and link in body and "{" not in body
    if tag == "pt-PT":  # none of Brazil's words where Portugal says it otherwise
        brazilian = ("senha", "você", "este link", "redefinir", "informou")
        assert not [word for word in brazilian if word in body.lower()], body
