"""axe-core (through axe-playwright-python) on every screen of the web client, on a laptop
(1366×768) and a phone (390×844), in English, and on the phone in Spanish too (its longer
words): no serious or critical violation anywhere. One page per viewport walks the screens (a
new browser per screen would cost seconds each): the lobby, the guided games, the rules,
ratings and a player, sign-up and sign-in, the account and the inbox, both games' tables with
the player aid, the swap dialog and the chat, the hot seat's cover, a spectator's table, a
game's end screen, its replay and analysis, and the pages of links that do not open anything.
The violations found per screen go to test-artifacts/axe-<viewport>.json (axe-phone-es.json
in Spanish)."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import LAPTOP, PHONE, PageErrors, screenshot, wait_until
from tests.helpers.server import GAMES, PlayServer

axe_sync = pytest.importorskip(
    "axe_playwright_python.sync_playwright", reason="needs axe-playwright-python (dev extra)"
)

# Every rule of WCAG 2.1 A and AA, and axe's best practices.
AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
    },
    "resultTypes": ["violations"],
}
BLOCKING = {"serious", "critical"}
NO_BOARD = {"exclude": [[".board"]]}  # a board drawn and checked on an earlier screen


class Walk:
    """One viewport's page going from screen to screen, axe run on each."""

    def __init__(self, page: Any, name: str, artifacts: Path) -> None:
        self.page = page
        self.name = name
        self.artifacts = artifacts
        self.axe = axe_sync.Axe()
        self.found: dict[str, list[str]] = {}  # screen -> its violations, as "impact id: targets"

    def screen(
        self, name: str, hash_: str | None = None, ready: str = "main > *", within: Any = None
    ) -> None:
        if hash_ is not None:
            self.page.goto(f"{self.page.url.split('#')[0]}{hash_}")
        self.page.wait_for_selector(ready)
        self.check(name, within)

    def check(self, name: str, within: Any = None) -> None:
        """axe on the page, or ``within`` it: what a screen adds over the last one (a dialog,
        the aid), or the page without the board that an earlier screen's check covered (the
        same drawing: checking its hundreds of squares again costs seconds and finds nothing
        new)."""
        # Once whatever the screen animates has settled (a toast, a sheet).
        self.page.wait_for_timeout(50)
        # axe-core goes into the page once: the screens change by the address's hash, which
        # keeps the page (and axe) loaded.
        if not self.page.evaluate("typeof window.axe === 'object'"):
            self.page.evaluate(self.axe.axe_script)
        response = self.page.evaluate(
            "([within, options]) => axe.run(within || document, options)", [within, AXE_OPTIONS]
        )
        results = axe_sync.AxeResults(response)
        self.found[name] = [
            f"{v['impact']} {v['id']}: {[n['target'] for n in v['nodes'][:4]]}"
            for v in results.response["violations"]
        ]
        screenshot(self.page, self.artifacts / f"axe-{self.name}-{name}.png")

    def blocking(self) -> dict[str, list[str]]:
        return {
            screen: [line for line in lines if line.split(" ", 1)[0] in BLOCKING]
            for screen, lines in self.found.items()
            if any(line.split(" ", 1)[0] in BLOCKING for line in lines)
        }


@pytest.mark.skipif(not {"tigris", "gheos"} <= set(GAMES), reason="needs both games")
@pytest.mark.parametrize(
    ("viewport", "locale"), [("laptop", "en"), ("phone", "en"), ("phone", "es")]
)
def test_every_screen_has_no_serious_or_critical_violation(
    server: PlayServer, browser: Any, artifacts: Path, viewport: str, locale: str
) -> None:
    """In English at both sizes, and in Spanish (longer words) on a phone."""
    context = browser.new_context(viewport=LAPTOP if viewport == "laptop" else PHONE, locale=locale)
    page = context.new_page()
    errors = PageErrors(page)
    walk = Walk(page, viewport if locale == "en" else f"{viewport}-{locale}", artifacts)
    page.goto(f"{server.base}/#/")
    walk.screen("lobby", ready="#create-game")
    walk.screen("learn", "#/learn", ready=".learn-card")
    walk.screen("learn-tigris", "#/learn/tigris", ready=".tigris-board [role=button]")
    walk.screen("learn-gheos", "#/learn/gheos", ready=".gheos-board [role=button]")
    walk.screen("rules-tigris", "#/rules/tigris", ready=".rules-picture .board", within=NO_BOARD)
    walk.screen("rules-gheos", "#/rules/gheos", ready=".rules-picture .board", within=NO_BOARD)
    walk.screen("ratings", "#/ratings", ready="main h1")
    walk.screen("signin", "#/signin", ready="#signin-submit")
    walk.screen("signup", "#/signup", ready="#signup-submit")

    # A game against a bot, made in the lobby.
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-game")
    page.select_option("select[data-seat='1']", "bot:random")
    page.click("#create-game")
    page.wait_for_selector(".tigris-board [role=button]")
    wait_until(lambda: page.evaluate("document.body.dataset.turn") == "mine")
    walk.check("tigris-seat", within=NO_BOARD)  # its board: the guided game's, checked whole
    page.click("#aid-open")
    walk.screen("tigris-player-aid", ready="#aid", within="#aid")
    page.keyboard.press("Escape")
    page.click("#swap")
    walk.screen("tigris-swap-dialog", ready="#swap-dialog", within="#backdrop")
    page.keyboard.press("Escape")
    tigris_id = page.evaluate("location.hash").split("/")[2]
    if viewport == "phone":
        page.click("#chat-toggle")
        page.wait_for_selector("#chat.open")
        walk.check("tigris-chat-sheet", within="#chat")
        page.keyboard.press("Escape")
    walk.screen("watch", f"#/watch/{tigris_id}", ready=".tigris-board", within=NO_BOARD)
    # Conceding ends it: the end screen, then the finished game's replay and analysis.
    page.goto(f"{server.base}/#/play/{tigris_id}")
    page.click("#concede")
    walk.screen("concede-dialog", ready="#confirm-concede", within="#backdrop")
    page.click("#confirm-concede [data-action=concede]")
    walk.screen("end-screen", ready="#end-screen", within="#backdrop")
    walk.screen("replay", f"#/replay/{tigris_id}", ready="#replay-slider", within=NO_BOARD)
    walk.screen("analysis", f"#/analysis/{tigris_id}", ready="main h1")

    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-game")
    page.select_option("#new-game", "gheos")
    page.select_option("select[data-seat='1']", "bot:random")
    page.click("#create-game")
    page.wait_for_selector(".gheos-board [role=button]")
    wait_until(lambda: page.evaluate("document.body.dataset.turn") == "mine")
    walk.check("gheos-seat", within=NO_BOARD)

    # The hot seat: the cover between two people's turns.
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-game")
    page.check("input[name=mode][value=hotseat]")
    page.click("#create-game")
    walk.screen("hotseat-cover", ready="#cover", within="#backdrop")

    # Links that open nothing: each says so.
    walk.screen("no-seat", "#/play/nosuchgame", ready="main h1")
    walk.screen("invite-refused", "#/invite/nosuchgame/nocode", ready="main h1")
    walk.screen("unsubscribe-refused", "#/unsubscribe/nocode", ready="#unsubscribe h1")

    # An account: its page, the inbox, a player's profile.
    name = f"axe{viewport}{locale}{secrets.token_hex(3)}"
    page.goto(f"{server.base}/#/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", "a long enough password")
    page.click("#signup-submit")
    walk.screen("inbox", ready="#inbox li")
    walk.screen("account", "#/account", ready="#signout")
    walk.screen("player", f"#/player/{name}", ready="main h1")

    report = artifacts / f"axe-{walk.name}.json"
    report.write_text(json.dumps(walk.found, indent=1))
    assert walk.blocking() == {}, json.dumps(walk.blocking(), indent=1)
    # (The links that open nothing are refused by the server: the browser logs those answers.)
    assert [e for e in errors.errors if "Failed to load resource" not in e] == []
    context.close()
