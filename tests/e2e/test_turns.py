"""A turn-based game in a real browser between a laptop (1366×768) and a phone (390×844):
the new-table form (turn-based, private), the invite on the phone, the time left at the table,
the turn notices arriving at a real SMTP server (aiosmtpd), and a concession ending the game,
shown on both screens and in the lobby's "my games" with its winner and date; and a stand-in
that plays for a late seat until its person says "I'm back"."""

from __future__ import annotations

import random
import secrets
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    LAPTOP,
    PHONE,
    PageErrors,
    ask_turn_mails,
    decide,
    screenshot,
    turn,
    wait_until,
)
from tests.helpers.mail import Inbox, mailed_link
from tests.helpers.server import GAMES, PlayServer, new_stored

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

PASSWORD = "a long enough secret"
# Counts the notes the page plays (the chime when a turn comes is two).
COUNT_CHIMES = """(() => {
  window.__notes = 0;
  const make = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () { window.__notes += 1; return make.call(this); };
})()"""


def person(browser: Any, server: PlayServer, inbox: Inbox, size: dict[str, int], name: str, address: str) -> tuple[Any, PageErrors]:  # fmt: skip
    """A browser that signed up as ``name``, asked for turn mails at ``address`` and opened
    the link the server mailed there to check it (turn mails go to checked addresses only)."""
    page = browser.new_context(viewport=size).new_page()
    page.add_init_script(COUNT_CHIMES)
    errors = PageErrors(page)
    page.goto(f"{server.base}/#/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector(f"#account-link:text-is('{name}')")
    ask_turn_mails(page, server.base, address)
    page.goto(mailed_link(inbox, address, "verify", 1))
    page.wait_for_selector("#verify .ok")
    return page, errors


def mails_to(inbox: Inbox, address: str) -> list[Any]:
    """The mails to ``address`` so far (the inbox is the worker's: other tests' mails go to
    addresses of their own)."""
    with inbox.lock:
        return [mail for _sender, to, mail in inbox.mails if to == [address]]


def mail_to(inbox: Inbox, address: str, count: int) -> Any:
    """The ``count``-th mail (from 1) to ``address``, once it came."""
    wait_until(lambda: len(mails_to(inbox, address)) >= count, 180)
    mail = mails_to(inbox, address)[count - 1]
    assert mail["To"] == address, (mail["To"], address)
    return mail


def test_a_turn_based_game_between_a_laptop_and_a_phone(
    server: PlayServer, inbox: Inbox, browser: Any, artifacts: Path
) -> None:
    tag = secrets.token_hex(2)
    address = {0: f"ann{tag}@example.org", 1: f"bob{tag}@example.org"}
    laptop, laptop_errors = person(browser, server, inbox, LAPTOP, f"Ann {tag}", address[0])
    phone, phone_errors = person(browser, server, inbox, PHONE, f"Bob {tag}", address[1])

    # The form: a person at the second seat, turn-based with an hour a move, invite only.
    laptop.goto(f"{server.base}/#/")
    laptop.select_option("[data-seat='1']", "human")
    laptop.check("input[name=pace][value=turn]")
    laptop.select_option("#new-deadline", "3600")
    laptop.check("#new-private")
    assert "let a bot play" in laptop.locator("#pace-about").inner_text()
    assert "not listed in the lobby" in laptop.locator("#private-about").inner_text()
    screenshot(laptop.locator("#pace"), artifacts / "turns-form-laptop.png")
    laptop.click("#create-game")
    invite = laptop.locator("[data-invite-seat='1']")
    invite.wait_for()
    game_id = laptop.evaluate("location.hash").split("/")[2]
    # Private: not listed (the lobby's newest tables first; the worker's other tests' are public)
    assert game_id not in [table["id"] for table in server.get("/api/games")["games"]]

    # The phone takes the seat by its invite; the first person's turn is mailed.
    phone.goto(invite.input_value())
    phone.wait_for_selector("#turn-clock .clock-card")
    first = server.get(f"/api/games/{game_id}")["to_move"]
    mail = mail_to(inbox, address[first], 2)  # after the address check's
    assert f"#/play/{game_id}" in mail.get_content()
    pages = {0: laptop, 1: phone}
    waiting = pages[1 - first]
    wait_until(lambda: "has 59 min" in waiting.locator("#deadline").inner_text()
               or "has 1 h" in waiting.locator("#deadline").inner_text())  # fmt: skip
    assert "You have" in pages[first].locator("#deadline").inner_text()
    screenshot(phone, artifacts / "turns-phone-clock.png")

    # The first person plays their turn on their own screen; the other's turn is mailed, and
    # their page says so in its title and with its sound.
    pages[1 - first].evaluate("localStorage.setItem('cradle.sound', 'on')")
    assert pages[1 - first].title().startswith("Waiting for")
    rng = random.Random(3)
    while server.get(f"/api/games/{game_id}")["to_move"] == first:
        if not decide(pages[first], rng):
            pages[first].wait_for_timeout(20)
    mail_to(inbox, address[1 - first], 2)
    wait_until(lambda: turn(pages[1 - first]) == "mine")
    assert "You have" in pages[1 - first].locator("#deadline").inner_text()
    assert pages[1 - first].title() == "Your turn · cradle"
    assert pages[1 - first].evaluate("window.__notes") >= 2

    # The phone concedes, after confirming: the game ends on both screens, Bob last.
    phone.click("#concede")
    phone.wait_for_selector("#confirm-concede")
    screenshot(phone, artifacts / "turns-phone-concede.png")
    phone.click("#confirm-concede [data-action=concede]")
    for page in (phone, laptop):
        page.wait_for_selector("#end-screen")
        assert "conceded" in page.locator("#ended-by").inner_text()
    assert f"Ann {tag} wins" in laptop.locator("#end-screen h2").inner_text()
    # Nobody's turn any more: the header's count says so.
    wait_until(lambda: phone.locator("#inbox-link").inner_text() == "My games")
    screenshot(phone, artifacts / "turns-phone-end.png")
    table = server.get(f"/api/games/{game_id}")["table"]
    assert table["ended_by"] == "conceded"
    assert [line["seat"] for line in table["result"] if line.get("out")] == [1]

    # The lobby's "my games": the finished game with its winner and how it ended.
    laptop.goto(f"{server.base}/#/")
    laptop.check("#filter-mine")
    row = laptop.locator(f"[data-finished='{game_id}']")
    row.wait_for()
    assert f"Ann {tag} won" in row.inner_text() and "conceded" in row.inner_text()
    screenshot(laptop, artifacts / "turns-lobby-finished.png")
    # One mail per turn (each address's check and one turn), none once the game is over.
    assert [len(mails_to(inbox, address[seat])) for seat in (0, 1)] == [2, 2]
    assert laptop_errors.errors == [] and phone_errors.errors == []


def test_the_stand_in_plays_until_its_person_is_back(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    """A seat's time ran out: on the laptop the other lets a bot play for it until it returns;
    the table says so on both screens, and on the phone the late seat's "I'm back" ends it."""
    from cradle.games import get_game
    from cradle.server.store import Store
    from cradle.server.tokens import hash_token, new_token

    module = get_game("tigris")
    options = dict(module.options_to_dict(module.options_from_dict({})))
    state = module.new_game(2, 5, module.options_from_dict(options))
    late = int(state.to_move)
    tokens = {seat: new_token() for seat in (0, 1)}
    game_id = "standin" + secrets.token_hex(3)
    now = time.time()
    storage = Store(server.database_url)  # written as the server writes it, time ran out
    try:
        storage.new_games.create(
            new_stored(
                game_id, "tigris", list(state.players), 5, ["human", "human"], options=options,
                listed=False, created=now - 7200, updated=now - 7200,
                tokens={seat: hash_token(token) for seat, token in tokens.items()},
                claimed={0: True, 1: True}, mode="turn", deadline_s=3600, deadline=now - 3600,
            )
        )  # fmt: skip
    finally:
        storage.close()
    pages = {}
    errors = []
    for seat, size in ((1 - late, LAPTOP), (late, PHONE)):
        page = browser.new_context(viewport=size).new_page()
        errors.append(PageErrors(page))
        page.goto(f"{server.base}/#/play/{game_id}/{tokens[seat]}")
        page.wait_for_selector("#turn-clock .clock-card")
        pages[seat] = page
    other, phone = pages[1 - late], pages[late]
    who = state.players[late].capitalize()
    assert "Your time for this move ran out" in phone.locator("#deadline").inner_text()
    choice = other.locator("#timeout-bot")
    assert choice.inner_text() == f"Let a bot play for {who} until they return"
    choice.click()
    # The bot plays the late seat's turn, and stays: both screens say who stands in.
    other.wait_for_selector(f".standin-note[data-away='{late}']")
    note = other.locator(f".standin-note[data-away='{late}']").inner_text()
    assert note == f"A bot (easy) plays for {who} until they return."
    wait_until(lambda: server.get(f"/api/games/{game_id}")["to_move"] == 1 - late, 120)
    # The log says who really moved: the stand-in, for the late seat's person.
    for page in (other, phone):
        page.wait_for_selector(".log-entry .log-text")
        logged = page.locator(".log-entry .log-text").all_text_contents()
        assert logged and all(f"Easy bot for {who}" in text for text in logged), logged
    screenshot(other, artifacts / "standin-laptop.png")
    back = phone.locator("#come-back")
    back.wait_for()
    assert "a bot (easy) play for you" in phone.locator("#away-note").inner_text()
    back.scroll_into_view_if_needed()
    box = back.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    screenshot(phone, artifacts / "standin-phone.png")
    back.click()
    phone.wait_for_selector("#come-back", state="detached")
    other.wait_for_selector(".standin-note", state="detached")
    assert server.get(f"/api/games/{game_id}")["table"]["away"] == []
    assert all(found.errors == [] for found in errors)
