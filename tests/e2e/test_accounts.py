"""Accounts in a real browser, on a laptop (1366×768) and a phone (390×844): sign up, the same
seat played from a second device after signing in there, the inbox and its count in the header,
names instead of the game's seat names, and a guest moving a seat to another device by link."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    LAPTOP,
    PHONE,
    PageErrors,
    decide,
    screenshot,
    turn,
    version,
    wait_until,
)
from tests.helpers.server import GAMES, PlayServer, http_from

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

PASSWORD = "a long enough secret"

# A game made by this page's browser (its cookie and CSRF token, as the web client sends them).
CREATE = """async (body) => {
  const me = await (await fetch("/api/me")).json();
  const headers = {"Content-Type": "application/json"};
  if (me.csrf) headers["X-CSRF-Token"] = me.csrf;
  const answer = await fetch("/api/games", {method: "POST", headers, body: JSON.stringify(body)});
  return await answer.json();
}"""


def new_page(browser: Any, size: dict[str, int]) -> tuple[Any, PageErrors]:
    page = browser.new_context(viewport=size).new_page()
    return page, PageErrors(page)


def sign_up(page: Any, server: PlayServer, name: str) -> None:
    page.goto(f"{server.base}/#/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector(f"#account-link:text-is('{name}')")


def play_one_move(page: Any) -> None:
    rng = random.Random(5)
    wait_until(lambda: turn(page) == "mine", 120)
    before = version(page)
    while version(page) == before:
        decide(page, rng)


def test_sign_up_then_play_the_same_seat_on_another_device(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    """Signed up on a laptop, signed in on a phone: the phone's inbox lists the game, the
    phone plays the seat, and the laptop plays it again after a reload."""
    first, second, tag = LAPTOP, PHONE, "laptop"
    name = f"Ada {secrets.token_hex(3)}"
    laptop, laptop_errors = new_page(browser, first)
    sign_up(laptop, server, name)
    screenshot(laptop, artifacts / f"accounts-{tag}-signed-up.png")
    laptop.click("#account-link")
    laptop.wait_for_selector("#mail-email")
    screenshot(laptop, artifacts / f"accounts-{tag}-account-page.png", full_page=True)
    laptop.fill("#mail-email", "ada@example.org")
    laptop.click("#mail-submit")
    laptop.wait_for_selector("#toast.info:not([hidden])")  # "Saved"
    created = laptop.evaluate(CREATE, {"game": "tigris", "seats": ["human", "bot:random"]})
    game_id = created["id"]
    laptop.evaluate(f"location.hash = '#/play/{game_id}'")
    # the account page's confirmation does not follow onto the table (it hid the hand):
    # gone at once, well before its own 2 s
    laptop.wait_for_function("document.getElementById('toast').hidden", timeout=1000)
    laptop.wait_for_selector("#hand-tiles .tile-btn")
    assert name in laptop.locator("#banner").inner_text()  # the name, not the dynasty's

    # The second device signs in: the inbox lists the game, "your turn" in the header.
    phone, phone_errors = new_page(browser, second)
    phone.goto(f"{server.base}/#/signin")
    phone.fill("#signin-name", name.upper())  # names are one in any case
    phone.fill("#signin-password", PASSWORD)
    phone.click("#signin-submit")
    phone.wait_for_selector(f"#inbox .inbox-game[data-id='{game_id}']")
    wait_until(lambda: server.get(f"/api/games/{game_id}")["to_move"] == 0, 120)
    phone.goto(f"{server.base}/#/inbox")
    phone.wait_for_selector("#inbox .inbox-game.your-turn")
    phone.wait_for_selector("#inbox-link:text-is('Your turn: 1')")
    screenshot(phone, artifacts / "accounts-phone-inbox.png")
    phone.locator(f"#inbox .inbox-game[data-id='{game_id}'] a").click()
    phone.wait_for_selector("#hand-tiles .tile-btn")
    moves = server.get(f"/api/games/{game_id}")["table"]["moves"]
    play_one_move(phone)
    wait_until(lambda: server.get(f"/api/games/{game_id}")["table"]["moves"] > moves)
    screenshot(phone, artifacts / "accounts-phone-second-device.png")

    # Back on the first device: it says the seat moved; "Play it here" asks for it again.
    laptop.wait_for_selector("#seat-refused:has-text('played on another device')")
    laptop.click("#play-here")
    laptop.wait_for_selector("#hand-tiles .tile-btn")
    screenshot(laptop, artifacts / "accounts-laptop-back-on-first-device.png")
    wait_until(lambda: turn(laptop) in ("mine", "wait"), 120)
    assert "watching" not in laptop.locator("#banner").inner_text()
    assert laptop_errors.errors == [] and phone_errors.errors == [], (
        laptop_errors.errors,
        phone_errors.errors,
    )
    laptop.context.close()
    phone.context.close()


def test_a_guest_moves_a_seat_to_another_device_with_the_link(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    guest, guest_errors = new_page(browser, LAPTOP)
    guest.goto(f"{server.base}/#/signin")
    guest.fill("#guest-guest", "Guest Bea")
    guest.click("#guest-submit")
    guest.wait_for_selector(".guest-name:text-is('Guest Bea')")
    guest.goto(f"{server.base}/#/")
    guest.wait_for_selector("#create-game")
    guest.select_option("#new-game", "tigris")
    guest.select_option("select[data-seat='1']", "bot:random")
    guest.click("#create-game")  # the lobby's form sends the guest's name with the new table
    guest.wait_for_selector("#hand-tiles .tile-btn")
    game_id = guest.evaluate("location.hash").rsplit("/", 1)[1]
    old_token = guest.evaluate(f"JSON.parse(localStorage['cradle.tables'])['{game_id}'].token")
    assert server.get(f"/api/games/{game_id}")["table"]["names"][0] == "Guest Bea"
    assert "Guest Bea" in guest.locator("#banner").inner_text()
    guest.click("#transfer-open")
    guest.wait_for_selector("#transfer-qr")

    # The panel opens below its button, at the foot of the side column: scrolled into view,
    # and kept there while what is above it still loads (the log, the chat).
    def in_view(part: str) -> bool:
        box = guest.locator(part).bounding_box()
        return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"]

    wait_until(lambda: in_view("#transfer-qr") and in_view("#transfer-link"), seconds=30)
    # What a slow device loads after the click grows the column above the panel (here: 400
    # pixels more of log): the panel stays in view.
    guest.evaluate(
        "document.querySelector('.log-card').append(Object.assign("
        "document.createElement('div'), {style: 'height: 400px', id: 'late-growth'}))"
    )
    wait_until(lambda: in_view("#transfer-qr") and in_view("#transfer-link"), seconds=30)
    guest.evaluate("document.getElementById('late-growth').remove()")
    # The QR code is drawn (an image that failed shows only its alt text).
    wait_until(lambda: guest.evaluate("document.getElementById('transfer-qr').complete"))
    assert guest.evaluate("document.getElementById('transfer-qr').naturalWidth") > 100
    link = guest.input_value("#transfer-link")
    assert f"/#/continue/{game_id}/" in link
    screenshot(guest, artifacts / "accounts-guest-transfer-link.png")

    phone, phone_errors = new_page(browser, PHONE)
    phone.goto(link)
    phone.wait_for_selector("#hand-tiles .tile-btn")
    assert phone.evaluate("location.hash") == f"#/play/{game_id}"  # no code left in the address
    phone.wait_for_selector(".guest-name:text-is('Guest Bea')")  # the seat's guest name here too
    # The first device no longer shows the seat: it says where the seat went.
    guest.wait_for_selector("#seat-refused:has-text('played on another device')")
    assert guest.locator("#hand-tiles").count() == 0
    screenshot(phone, artifacts / "accounts-guest-continued-on-phone.png")
    # The first device's token no longer holds the seat; the link works once.
    status, _answer = http_from(
        "127.0.0.1", "GET", f"{server.base}/api/games/{game_id}", token=old_token
    )
    assert status == 403
    again, _errors = new_page(browser, PHONE)
    again.goto(link)
    again.wait_for_selector("text=This link does not open a seat")
    assert guest_errors.errors == [] and phone_errors.errors == []
    for page in (guest, phone, again):
        page.context.close()
