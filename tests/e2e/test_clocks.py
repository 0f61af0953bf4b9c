"""Clocks for live tables in Chromium, on a laptop (1366×768) and a phone (390×844): the
new-table form's named clocks; two friends, one inviting the other by name, at a live table
whose clocks show for every seat and wait for the invited person; the clock of the person
deciding runs out, and the other lets a bot take over for them. Screenshots go to
test-artifacts/clocks-*.png."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import PHONE, Person, screenshot, wait_until
from tests.helpers.server import GAMES, PlayServer

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

LAPTOP = {"width": 1366, "height": 768}
PASSWORD = "a long enough secret"


class Player(Person):
    """A signed-up person's browser of a given size."""

    def __init__(self, browser: Any, server: PlayServer, size: dict[str, int], name: str) -> None:
        super().__init__(browser, server, size)
        self.name = name
        self.sign_up(name, PASSWORD)

    def clock(self, seat: int) -> str:
        text: str = self.page.locator(f"[data-clock-time='{seat}']").inner_text()
        return text


def test_the_new_table_form_offers_named_clocks(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    for size, tag in ((LAPTOP, "laptop"), (PHONE, "phone")):
        person = Player(browser, server, size, f"Form {secrets.token_hex(2)}")
        page = person.page
        page.goto(f"{server.base}/#/")
        page.wait_for_selector("#new-clock")
        labels = page.locator("#new-clock option").all_inner_texts()
        assert labels == ["No clock", "Quick: 5 min + 5 s a turn",
                          "Standard: 15 min + 10 s a turn", "Relaxed: 30 min + 20 s a turn"]  # fmt: skip
        page.select_option("#new-clock", "quick")
        assert "runs only while they decide" in page.locator("#clock-about").inner_text()
        person.in_view("#clock-about")
        screenshot(page, artifacts / f"clocks-1-form-{tag}.png")
        page.click("#create-game")
        page.wait_for_selector("#clocks")
        # Every seat's clock is shown (the second seat is a bot's: it never runs).
        assert "5 min + 5 s a turn" in page.locator("#clock-control").inner_text()
        shown = person.clock(0)
        assert re.fullmatch(r"4:5\d|5:00", shown) is not None, shown
        assert person.clock(1) == "5:00"
        person.in_view("#clocks")
        screenshot(page, artifacts / f"clocks-2-table-{tag}.png")
        person.clean()


def test_friends_play_a_live_clock_to_a_timeout_that_a_bot_takes_over(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    tag = secrets.token_hex(2)
    ann = Player(browser, server, LAPTOP, f"Ann {tag}")
    bob = Player(browser, server, PHONE, f"Bob {tag}")
    assert ann.api("POST", "/api/friends", {"name": bob.name})["status"] == 200
    assert bob.api("POST", "/api/friends", {"name": ann.name})["status"] == 200

    # Ann's live table with a short clock; she invites Bob by name.
    made = ann.api("POST", "/api/games", {"game": "tigris", "players": 2, "seats": ["human", "human"], "private": True, "clock": {"base_s": 8, "increment_s": 1}})  # fmt: skip
    assert made["status"] == 200, made
    game_id = made["body"]["id"]
    ann.page.evaluate(
        "([id, token]) => localStorage.setItem('cradle.tables', JSON.stringify({[id]: {token, seat: 0}}))",
        [game_id, made["body"]["seats"][0]["token"]],
    )
    ann.page.goto(f"{server.base}/#/play/{game_id}")
    ann.page.wait_for_selector("#clocks")
    assert ann.api("POST", f"/api/games/{game_id}/invite", {"name": bob.name})["status"] == 200
    # Until Bob opens the invitation no clock runs: both show the whole base time.
    ann.page.wait_for_timeout(1500)
    assert (ann.clock(0), ann.clock(1)) == ("0:08", "0:08")
    assert "0:08 + 1 s a turn" in ann.page.locator("#clock-control").inner_text()
    assert ann.page.locator(".clock-list li.running").count() == 0
    ann.in_view("#clocks")
    screenshot(ann.page, artifacts / "clocks-3-waiting-laptop.png")

    bob.page.goto(f"{server.base}/#/inbox")
    bob.page.click(f"#invitations li[data-game='{game_id}'] [data-action=accept]")
    wait_until(lambda: bob.page.evaluate("location.hash") == f"#/play/{game_id}")
    bob.page.wait_for_selector("#clocks .clock-list li.running")
    late = server.get(f"/api/games/{game_id}")["to_move"]
    pages = {0: ann, 1: bob}
    deciding, other = pages[late], pages[1 - late]
    other.page.wait_for_selector(f".clock-list li.running[data-clock='{late}']")
    other.in_view("#clocks")
    screenshot(other.page, artifacts / f"clocks-4-running-{'laptop' if other is ann else 'phone'}.png")  # fmt: skip

    # Nobody moves: the deciding person's clock runs out; the other may let a bot take over.
    other.page.wait_for_selector("#timeout-bot", timeout=30_000)
    assert "clock ran out" in other.page.locator("#deadline").inner_text()
    assert other.clock(late) == "0:00"
    deciding.page.wait_for_selector("#deadline")
    assert "Your clock ran out" in deciding.page.locator("#deadline").inner_text()
    deciding.in_view("#deadline")
    other.in_view("#timeout-bot")
    for person, shown in ((deciding, "late"), (other, "choice")):
        size = "laptop" if person is ann else "phone"
        screenshot(person.page, artifacts / f"clocks-5-{shown}-{size}.png")
    other.page.click("#timeout-bot")
    other.page.wait_for_selector(f".standin-note[data-away='{late}']")
    # The bot plays the turn for the late person; then the other's clock runs.
    wait_until(lambda: server.get(f"/api/games/{game_id}")["to_move"] == 1 - late, 120)
    other.page.wait_for_selector(f".clock-list li.running[data-clock='{1 - late}']")
    steps = server.get(f"/api/games/{game_id}/history")["steps"]
    assert steps and {step["standin"] for step in steps} == {"easy"}
    deciding.page.wait_for_selector("#come-back")
    deciding.in_view("#come-back")
    for person, shown in ((deciding, "away"), (other, "standin")):
        size = "laptop" if person is ann else "phone"
        person.in_view("#clocks")
        screenshot(person.page, artifacts / f"clocks-6-{shown}-{size}.png")
    ann.clean()
    bob.clean()
