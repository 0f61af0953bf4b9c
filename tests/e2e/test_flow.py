"""Issue 55's own walk, end to end, as friends play: two `cradle serve` processes on one real
PostgreSQL, a real SMTP server (aiosmtpd), and Debian's Chromium with a laptop (1366×768) on
the first process and a phone (390×844) on the second.

Ann signs up on the laptop and Bob on the phone; both ask for turn mails. Ann makes a rated,
turn-based Tigris table with a seat for anyone; Bob joins it from the lobby. They play a few
moves each by clicks, chat (hostile markup shown as text on the other process' page), and the
rest of the game through the API with each browser's own cookie and CSRF token. A turn left
waiting is mailed, whichever process began it, and no turn twice; the header's count and the
inbox follow the turns; the end moves both ratings on the leaderboard and the profiles. A
second game: a guest moves their seat to another device with the one-time link, and the other
player concedes it.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cradle.core.record import GameRecord
from tests.helpers.e2e import (
    PHONE,
    PageErrors,
    ask_turn_mails,
    decide,
    screenshot,
    turn,
    wait_until,
)
from tests.helpers.mail import Inbox, mailed_link, smtp_server
from tests.helpers.server import GAMES, CradleServe, http_from, postgres_bin, postgres_server

pytestmark = [
    pytest.mark.long,
    pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine"),
]

LAPTOP = {"width": 1366, "height": 768}  # the laptop
PASSWORD = "a long enough secret"
HOSTILE = "<script>alert('flow')</script><img src=x onerror=\"alert('flow')\"> gg"


@pytest.fixture(scope="module")
def inbox() -> Iterator[Inbox]:
    """The module's own SMTP server: its tests count every mail it received."""
    with smtp_server() as found:
        yield found


@pytest.fixture(scope="module")
def servers(inbox: Inbox) -> Iterator[tuple[CradleServe, CradleServe]]:
    """Two `cradle serve` processes on one PostgreSQL database, both mailing turn notices."""
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (make test installs Debian's package)")
    options = (
        "--smtp-url", inbox.url, "--mail-from", "cradle@example.org", "--bot-delay", "0.02",
        "--no-analyse", "--bot-processes", "1", "--assist-processes", "1",
        # Every browser here is one client (127.0.0.1): the API plays a whole game quickly.
        "--moves-per-second", "500",
    )  # fmt: skip
    with postgres_server() as url:
        first = CradleServe(url, *options).start()
        try:
            second = CradleServe(url, *options).start()
            try:
                yield first, second
            finally:
                second.stop()
        finally:
            first.stop()


class Person:
    """One browser context (its own cookies) talking to one server process."""

    def __init__(
        self, browser: Any, server: CradleServe, size: dict[str, int], phone: bool
    ) -> None:
        options: dict[str, Any] = {"viewport": size}
        if phone:
            options.update(is_mobile=True, has_touch=True)
        self.context = browser.new_context(**options)
        self.server = server
        self.size = size
        self.page = self.context.new_page()
        self.errors = PageErrors(self.page)
        self.dialogs: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def goto(self, fragment: str) -> None:
        self.page.goto(f"{self.server.base}/{fragment}")

    def sign_up(self, name: str, address: str, inbox: Inbox) -> None:
        """Sign up in the page, ask for turn mails at ``address`` on the account page, and
        confirm the address by the link mailed to it (nothing else is mailed before)."""
        page = self.page
        self.goto("#/signup")
        page.fill("#signup-name", name)
        page.fill("#signup-password", PASSWORD)
        page.click("#signup-submit")
        page.wait_for_selector(f"#account-link:text-is('{name}')")
        ask_turn_mails(page, self.server.base, address)
        page.goto(mailed_link(inbox, address, "verify", 1))
        page.wait_for_selector("#verify .ok")

    def me(self) -> Any:
        return self.request("GET", "/api/me")

    def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """A request with this browser's cookie (and CSRF token), as its web client sends it."""
        headers = {"Content-Type": "application/json"}
        if method != "GET":
            headers["X-CSRF-Token"] = self.request("GET", "/api/me")["csrf"]
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        answer = self.context.request.fetch(
            f"{self.server.base}{path}",
            method=method,
            headers=headers,
            data=None if body is None else json.dumps(body),
        )
        assert answer.ok, (method, path, answer.status, answer.text())
        return answer.json()

    def token(self, game_id: str) -> str:
        """The seat token this browser's web client keeps for ``game_id``."""
        found: str = self.page.evaluate(
            f"JSON.parse(localStorage['cradle.tables'])['{game_id}'].token"
        )
        return found

    def in_view(self, selector: str) -> None:
        """``selector`` is shown inside the viewport (nothing to scroll to see it)."""
        width, height = self.size["width"], self.size["height"]
        boxes: list[Any] = []

        def inside() -> bool:
            # Asked again while the page redraws it (the header follows every frame).
            box = self.page.locator(selector).first.bounding_box()
            boxes.append(box)
            return (
                box is not None
                and box["x"] >= 0
                and box["y"] >= 0
                and (box["x"] + box["width"] <= width and box["y"] + box["height"] <= height)
            )

        try:
            wait_until(inside, 5)
        except AssertionError:
            raise AssertionError(f"{selector} is not in view: {boxes[-1]} in {self.size}") from None

    def check_clean(self) -> None:
        assert self.errors.errors == [], self.errors.errors
        assert self.dialogs == [], self.dialogs


def header_says(person: Person, text: str) -> None:
    """The header's count says ``text``; it is in view once the person looks up to it."""
    wait_until(lambda: person.page.locator("#inbox-link").inner_text() == text, 120)
    person.page.evaluate("window.scrollTo(0, 0)")
    person.in_view("#inbox-link")


def turn_runs(record: dict[str, Any]) -> list[tuple[int, int]]:
    """(seat, the move it began at) of each turn of a finished game (a seat's run of decisions
    is one turn)."""
    runs: list[tuple[int, int]] = []
    for step in GameRecord.from_dict(record).states():
        if not runs or runs[-1][0] != step.seat:
            runs.append((step.seat, step.ply - 1))
    return runs


def mailed_turns(database_url: str, game_id: str) -> set[tuple[int, int]]:
    """(seat, the move it began at) of each turn whose notice a process claimed and sent."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sqlalchemy.text("SELECT seat, turn FROM turn_notices WHERE game_id = :id"),
                {"id": game_id},
            ).all()
    finally:
        engine.dispose()
    return {(int(seat), int(turn)) for seat, turn in rows}


def play_by_clicks(people: dict[int, Person], game_id: str, each: int, rng: random.Random) -> None:
    """Each person plays by clicks on their own page until each made ``each`` moves."""
    made = dict.fromkeys(people, 0)
    view = people[0].request("GET", f"/api/games/{game_id}")
    deadline = time.monotonic() + 120
    while min(made.values()) < each:
        assert time.monotonic() < deadline, f"the clicks made no progress: {made}"
        seat, moves = view["to_move"], view["table"]["moves"]
        page = people[seat].page
        if not decide(page, rng):
            page.wait_for_timeout(30)
        view = people[0].request("GET", f"/api/games/{game_id}")
        made[seat] += view["table"]["moves"] - moves


def test_friends_play_a_rated_turn_based_game_across_two_processes(
    servers: tuple[CradleServe, CradleServe], inbox: Inbox, browser: Any, artifacts: Path
) -> None:
    first, second = servers
    tag = secrets.token_hex(2)
    names = {0: f"Ann {tag}", 1: f"Bob {tag}"}
    address = {0: f"ann{tag}@example.org", 1: f"bob{tag}@example.org"}
    ann = Person(browser, first, LAPTOP, phone=False)
    bob = Person(browser, second, PHONE, phone=True)
    ann.sign_up(names[0], address[0], inbox)
    bob.sign_up(names[1], address[1], inbox)
    checks = len(inbox.mails)  # the two address checks' mails; the turn mails come after
    screenshot(bob.page, artifacts / "flow-phone-signed-up.png")

    # Ann's table: rated, turn-based (a day a move), its second seat for anyone in the lobby.
    ann.goto("#/")
    ann.page.select_option("[data-seat='1']", "open")
    ann.page.check("input[name=pace][value=turn]")
    ann.page.select_option("#new-deadline", "86400")
    ann.page.check("#new-rated")
    ann.page.click("#create-game")
    ann.page.wait_for_selector("#board svg")
    game_id = ann.page.evaluate("location.hash").split("/")[2]

    # Bob finds it in the lobby of the other process and joins it.
    bob.goto("#/")
    join = bob.page.locator(f"li.game-row[data-game-id='{game_id}'] button:text-is('Join')")
    join.wait_for(timeout=30000)
    assert "turn-based" in bob.page.locator(f"li[data-game-id='{game_id}']").inner_text()
    join.click()
    bob.page.wait_for_selector("#board svg")
    assert bob.page.evaluate("location.hash") == f"#/play/{game_id}"
    people = {0: ann, 1: bob}
    tokens = {0: ann.token(game_id), 1: bob.token(game_id)}
    view = ann.request("GET", f"/api/games/{game_id}", token=tokens[0])
    assert view["table"]["rated"] and view["table"]["mode"] == "turn"
    mover = view["to_move"]

    # The first turn is mailed to whoever has it; the header counts it on their screen only.
    mail = inbox.wait(checks + 1)[checks]
    assert mail["To"] == address[mover] and f"#/play/{game_id}" in mail.get_content()
    header_says(people[mover], "Your turn: 1")
    header_says(people[1 - mover], "My games")
    wait_until(lambda: turn(people[mover].page) == "mine", 120)
    screenshot(people[mover].page, artifacts / f"flow-{'laptop' if mover == 0 else 'phone'}-first-turn.png")  # fmt: skip

    # A few moves each by clicks, each screen following the other process' moves.
    play_by_clicks(people, game_id, 3, random.Random(11))
    screenshot(bob.page, artifacts / "flow-phone-after-clicks.png")
    screenshot(ann.page, artifacts / "flow-laptop-after-clicks.png")

    # Ann chats hostile markup on the first process; Bob's page on the second shows the text.
    ann.page.fill("#chat-input", HOSTILE)
    ann.page.click("#chat-send")
    bob.page.wait_for_selector("#chat-unread:not([hidden])", timeout=30000)
    bob.in_view("#chat-toggle")
    bob.page.click("#chat-toggle")
    bob.page.wait_for_selector("#chat.open")
    lines = bob.page.locator("#chat-lines .chat-text")
    wait_until(lambda: HOSTILE in lines.all_text_contents())
    bob.page.wait_for_timeout(500)
    assert lines.all_text_contents() == [HOSTILE]  # once, though two processes carry it
    bob.in_view("#chat-lines .chat-text")
    screenshot(bob.page, artifacts / "flow-phone-chat.png")
    for person in (ann, bob):
        chat = person.page.locator("#chat-lines")
        assert chat.locator("script, img").count() == 0
        assert person.page.evaluate("document.querySelectorAll('img[src=x]').length") == 0
        assert person.dialogs == []
    bob.page.click("#chat-toggle")  # closes the sheet

    # Bob's inbox lists the game, "your turn" first when it is his.
    bob.goto("#/inbox")
    row = bob.page.locator(f"#inbox .inbox-game[data-id='{game_id}']")
    row.wait_for()
    to_move = bob.request("GET", f"/api/games/{game_id}")["to_move"]
    wait_until(lambda: ("your-turn" in (row.get_attribute("class") or "")) == (to_move == 1))
    bob.in_view(f"#inbox .inbox-game[data-id='{game_id}']")
    screenshot(bob.page, artifacts / "flow-phone-inbox.png")
    bob.page.locator(f"#inbox .inbox-game[data-id='{game_id}'] a").click()
    bob.page.wait_for_selector("#board svg")

    # The rest through the API, each person with their own cookie, CSRF token and seat, on
    # their own process; the header's count follows the turn now and then.
    rng = random.Random(7)
    moves = 0
    previous = None
    waited = 0
    while True:
        view = people[0].request("GET", f"/api/games/{game_id}")
        if view["table"]["status"] == "over":
            break
        seat = view["to_move"]
        if seat != previous and previous is not None and waited < 4:
            # A turn the other person's process began: its mail comes while it is not played
            # (a turn played before any process mailed it is no longer owed one).
            begun = (seat, view["table"]["moves"])
            wait_until(lambda begun=begun: begun in mailed_turns(first.database_url, game_id), 120)
            waited += 1
        previous = seat
        person = people[seat]
        legal = person.request("GET", f"/api/games/{game_id}", token=tokens[seat])["legal_actions"]
        # Few swaps: tiles and leaders keep the game moving to its end.
        placing = [a for a in legal if a.startswith(("tile", "leader"))]
        choice = rng.choice(placing if placing and rng.random() < 0.8 else legal)
        person.request("POST", f"/api/games/{game_id}/actions", {"action": choice}, tokens[seat])
        moves += 1
        if moves % 60 == 0:
            now = person.request("GET", f"/api/games/{game_id}")
            if now["table"]["status"] != "over" and now["to_move"] is not None:
                header_says(people[now["to_move"]], "Your turn: 1")
                header_says(people[1 - now["to_move"]], "My games")
        assert moves < 2000, "the game does not end"

    # Both screens end, with what the game did to both ratings, in view.
    for person in (ann, bob):
        person.page.wait_for_selector("#end-screen #rating-note li", timeout=30000)
        assert person.page.locator("#rating-note li").count() == 2
        person.in_view("#end-screen h2")
        # These servers run with --no-analyse: the end screen does not promise an analysis.
        note = person.page.locator("#analysis-note")
        wait_until(lambda note=note: "does not analyse" in note.inner_text())
        header_says(person, "My games")
    screenshot(bob.page, artifacts / "flow-phone-end.png")
    screenshot(ann.page, artifacts / "flow-laptop-end.png")

    # Every turn was mailed once, to its player, whichever process began it; none twice.
    # Each claimed turn (a row per game, seat and turn) is one mail: never two for a turn.
    record = ann.request("GET", f"/api/games/{game_id}/record", token=tokens[0])
    runs = set(turn_runs(record))
    turns = mailed_turns(first.database_url, game_id)
    assert turns <= runs and len(turns) >= 5, (sorted(turns), sorted(runs))
    expected = {address[seat]: sum(1 for s, _t in turns if s == seat) for seat in (0, 1)}
    inbox.wait(checks + len(turns), seconds=60)
    time.sleep(2)  # a second mail for a turn would come now
    mails = inbox.mails[checks:]
    got = {to: sum(1 for m in mails if m[2]["To"] == to) for to in address.values()}
    assert got == expected and len(mails) == len(turns), (got, expected)
    assert all(f"#/play/{game_id}" in m.get_content() for _f, _to, m in mails)

    # Bob's last mail's "no more mails" link, opened on his phone, stops them.
    last = next(m for _f, _to, m in reversed(inbox.mails) if m["To"] == address[1])
    stop = re.search(r"http://\S+/#/unsubscribe/\S+", last.get_content())
    assert stop is not None and str(last["List-Unsubscribe"]).strip() == f"<{stop.group()}>"
    bob.page.goto(stop.group())
    bob.page.wait_for_selector("#unsubscribe h1:text-is('No more turn mails')")
    bob.in_view("#unsubscribe h1")
    assert bob.me()["account"]["turn_mail"] is False

    # The leaderboard (laptop, first process) and both profiles show the new ratings.
    board = ann.request("GET", "/api/ratings?game=tigris&players=2")["ratings"]
    assert {row["name"] for row in board} == set(names.values())
    assert all(row["games"] == 1 for row in board)
    ann.goto("#/ratings/tigris/2")
    ann.page.wait_for_selector(".leaderboard tbody tr")
    assert ann.page.locator(".tabs [data-tab='tigris'].primary").count() == 1
    shown = ann.page.locator(".leaderboard tbody tr")
    assert shown.count() == 2
    assert [shown.nth(i).get_attribute("data-player") for i in range(2)] == [
        row["name"] for row in board
    ]
    ann.in_view(".leaderboard tbody tr:last-child")
    screenshot(ann.page, artifacts / "flow-laptop-leaderboard.png")
    for person, name in ((ann, names[1]), (bob, names[1]), (bob, names[0])):
        person.goto(f"#/player/{name}")
        person.page.wait_for_selector("#profile-ratings tr[data-group='tigris/2']")
        rating = next(row["rating"] for row in board if row["name"] == name)
        assert f"{rating:.2f}" in person.page.locator("#profile-ratings .rating").inner_text()
        assert person.page.locator("#rating-chart .rating-dot").count() == 1
        assert person.page.locator(f"#profile-games li[data-game='{game_id}']").count() == 1
    screenshot(bob.page, artifacts / "flow-phone-profile.png", full_page=True)
    for person in (ann, bob):
        person.check_clean()
        person.context.close()


def test_a_guest_moves_a_seat_then_the_other_player_concedes(
    servers: tuple[CradleServe, CradleServe], inbox: Inbox, browser: Any, artifacts: Path
) -> None:
    first, second = servers
    tag = secrets.token_hex(2)
    # Cy and the guest on the second process, the guest's phone on the first: the seat's move
    # and the concession each cross from one process to the other.
    ann = Person(browser, second, LAPTOP, phone=False)
    ann.sign_up(f"Cy {tag}", f"cy{tag}@example.org", inbox)
    mailed = len(inbox.mails)
    ann.goto("#/")
    ann.page.select_option("[data-seat='1']", "human")
    ann.page.check("input[name=pace][value=turn]")
    ann.page.click("#create-game")
    invite = ann.page.locator("[data-invite-seat='1']")
    invite.wait_for()
    game_id = ann.page.evaluate("location.hash").split("/")[2]

    # A guest takes the seat, then moves it to a phone.
    guest = Person(browser, second, LAPTOP, phone=False)
    guest.goto("#/signin")
    guest.page.fill("#guest-guest", f"Guest {tag}")
    guest.page.click("#guest-submit")
    guest.page.wait_for_selector(f".guest-name:text-is('Guest {tag}')")
    guest.page.goto(invite.input_value())
    guest.page.wait_for_selector("#board svg")
    old_token = guest.token(game_id)
    guest.page.click("#transfer-open")
    guest.page.wait_for_selector("#transfer-qr")
    guest.in_view("#transfer-qr")
    link = guest.page.input_value("#transfer-link")
    assert f"/#/continue/{game_id}/" in link
    screenshot(guest.page, artifacts / "flow-guest-transfer.png")
    phone = Person(browser, first, PHONE, phone=True)
    phone.page.goto(link.replace(second.base, first.base))
    phone.page.wait_for_selector("#board svg")
    assert phone.page.evaluate("location.hash") == f"#/play/{game_id}"
    phone.page.wait_for_selector(f".guest-name:text-is('Guest {tag}')")
    status, _answer = http_from("127.0.0.1", "GET", f"{first.base}/api/games/{game_id}", token=old_token)  # fmt: skip
    assert status == 403  # the old device's token no longer holds the seat
    # The old device, on the other process, is told at once where its seat went.
    guest.page.wait_for_selector("#seat-refused:has-text('played on another device')")
    guest.in_view("#seat-refused h1")
    assert guest.page.locator("#hand-tiles").count() == 0
    again = Person(browser, second, PHONE, phone=True)
    again.page.goto(link)
    again.page.wait_for_selector("text=This link does not open a seat")

    # A move each by clicks, Cy's on the second process, the phone's on the first.
    people = {0: ann, 1: phone}
    play_by_clicks(people, game_id, 1, random.Random(3))

    # Cy concedes: the phone's page ends, the guest wins; nobody's rating moves.
    ann.page.click("#concede")
    ann.page.wait_for_selector("#confirm-concede")
    ann.in_view("#confirm-concede")
    ann.page.click("#confirm-concede [data-action=concede]")
    for person in (ann, phone):
        person.page.wait_for_selector("#end-screen", timeout=30000)
        assert "conceded" in person.page.locator("#ended-by").inner_text()
        person.in_view("#ended-by")
    assert f"Guest {tag} wins" in phone.page.locator("#end-screen h2").inner_text()
    screenshot(phone.page, artifacts / "flow-phone-conceded.png")
    screenshot(guest.page, artifacts / "flow-guest-old-device.png")
    assert guest.page.locator("#end-screen").count() == 0  # it no longer follows the seat
    table = ann.request("GET", f"/api/games/{game_id}")["table"]
    assert table["ended_by"] == "conceded" and not table["rated"]
    profile = ann.request("GET", f"/api/players/Cy%20{tag}")
    assert profile["ratings"] == []
    # Cy's turns were mailed to Cy; the guest's, to nobody (a guest has no address).
    time.sleep(2)
    sent = [m["To"] for _f, _to, m in inbox.mails[mailed:]]
    assert sent and set(sent) == {f"cy{tag}@example.org"}, sent
    for label, person in (("ann", ann), ("guest", guest), ("phone", phone)):
        assert person.errors.errors == [] and person.dialogs == [], (label, person.errors.errors)
        person.context.close()
    # The used link's refusal (403) is the one error the browser logs there.
    assert again.errors.errors == [
        "Failed to load resource: the server responded with a status of 403 (Forbidden)"
    ]
    again.context.close()
