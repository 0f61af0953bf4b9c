"""Driving the web client the way a person does: clicks, and waits on what the page shows."""

from __future__ import annotations

import base64
import json
import random
import re
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cradle.core.lessons import matches
from tests.helpers import waiting

# Each page's DevTools session for its screenshots, opened at its first.
_DEVTOOLS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def screenshot(shown: Any, path: Path, full_page: bool = False) -> None:
    """Save a PNG of the page ``shown`` as a person sees it: its viewport, or the whole page
    with ``full_page``; ``shown`` may be a locator instead (that element alone, scrolled into
    view). Pages are shot by the browser's own ``Page.captureScreenshot`` with
    ``optimizeForSpeed`` (a faster zlib level, a larger file): about 35 ms of CPU against
    Playwright's 55-60 (105 for a whole page), the same pixels (lab/notebook/test-cpu.md)."""
    if hasattr(shown, "bounding_box"):
        shown.screenshot(path=str(path))
        return
    session = _DEVTOOLS.get(shown)
    if session is None:
        session = _DEVTOOLS[shown] = shown.context.new_cdp_session(shown)
    options: dict[str, Any] = {"format": "png", "optimizeForSpeed": True}
    if full_page:
        size = session.send("Page.getLayoutMetrics")["cssContentSize"]
        options["captureBeyondViewport"] = True
        options["clip"] = {
            "x": 0,
            "y": 0,
            "width": size["width"],
            "height": size["height"],
            "scale": 1,
        }
    path.write_bytes(base64.b64decode(session.send("Page.captureScreenshot", options)["data"]))


def version(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.version ?? -1)"))


def turn(page: Any) -> str:
    return str(page.evaluate("document.body.dataset.turn || ''"))


def click_and_wait(page: Any, locator: Any, force_event: bool = False) -> None:
    """Click something that sends a decision, then wait for the server's next frame."""
    before = version(page)
    if force_event:
        locator.dispatch_event("click")
    else:
        locator.click()
    wait_until(lambda: version(page) != before, seconds=15)


def click_one(page: Any, rng: random.Random, selector: str, force_event: bool = False) -> bool:
    """Click one of what ``selector`` finds, picked at random, and wait for its answer; False
    when it finds nothing."""
    found = page.locator(selector)
    if not found.count():
        return False
    click_and_wait(page, found.nth(rng.randrange(found.count())), force_event=force_event)
    return True


def swap_hand(page: Any) -> bool:
    """Swap every tile of the hand through the swap dialog, as a person does; False (the
    dialog closed) when that swap is not offered."""
    page.click("#swap")
    dialog = page.locator("#swap-dialog")
    dialog.wait_for()
    unpicked = dialog.locator(".tile-btn[aria-pressed='false']")
    for _ in range(unpicked.count()):
        unpicked.first.click()
    confirm = dialog.locator("button.primary")
    if confirm.is_disabled():
        page.keyboard.press("Escape")
        dialog.wait_for(state="detached")
        return False
    click_and_wait(page, confirm)
    return True


def decide(page: Any, rng: random.Random, prefer_swap: bool = False) -> bool:
    """Make one decision the way a person would, by clicking; False if it is not our turn.
    ``prefer_swap``: mostly swap the whole hand (Tigris), which empties the bag in a few turns:
    a whole game in a tenth of the moves."""
    cover = page.locator("#cover [data-action=reveal]")
    if cover.count():
        cover.click()
        return True
    if click_one(page, rng, "#decision .dialog-buttons button[data-action]"):
        return True
    if turn(page) != "mine":
        return False
    if (
        prefer_swap
        and page.locator("#swap").count()
        and not page.locator(".tile-btn.selected, .leader-btn.selected").count()
        and rng.random() < 0.8
        and swap_hand(page)
    ):
        return True
    passing = page.locator("#pass")
    if click_one(page, rng, ".board .target .target-mark"):
        return True
    if click_one(page, rng, ".board .target-region", force_event=True):
        return True
    starts = page.locator("[data-start]:not(.selected)")
    if starts.count() and rng.random() < 0.7:
        starts.first.click()  # picks a colour: the continents light up
        return True
    if click_one(page, rng, "button.civ-chip[data-action^='take ']"):
        return True
    token = page.locator("#token")
    if token.count() and rng.random() < 0.6:
        click_and_wait(page, token)
        return True
    tiles = page.locator("#hand-tiles .tile-btn:not([disabled])")
    if tiles.count() and not page.locator(".tile-btn.selected").count():
        tiles.nth(rng.randrange(tiles.count())).click()  # selects; targets appear
        return True
    rotate = page.locator("button[data-rotate]")
    if rotate.count() and not page.locator(".board .target").count():
        rotate.first.click()
        return True
    if passing.count():
        click_and_wait(page, passing)
        return True
    raise AssertionError("our decision, but nothing to click")


def wait_for_our_turn(page: Any) -> None:
    """Wait (in the page, without polling from here) until the other seats have decided: our
    decision or the end. A minute per wait is an opponent's move on a loaded machine many
    times over."""
    page.wait_for_function(
        "() => document.body.dataset.turn !== 'wait' || document.getElementById('end-screen')",
        timeout=60_000,
        polling=50,  # a timer, not every frame: asking for frames makes the browser draw them
    )


def play_until_end(
    page: Any,
    rng: random.Random,
    changes: int = 1000,
    prefer_swap: bool = False,
    until: Callable[[], bool] | None = None,
) -> int:
    """Decide by clicks until the end screen shows (or ``until()`` holds before a decision);
    the number of decisions made. Fails when
    the game is still on after ``changes`` stored changes (both seats' moves; a game of two
    takes a few hundred), or after 20 clicks in a row that sent nothing: however slowly the
    machine goes, a game that ends takes the same steps."""
    decisions = 0
    unsent = 0
    while not page.locator("#end-screen").count():
        if until is not None and until():
            break
        now = version(page)
        assert now < changes, f"no end screen after {now} changes ({decisions} decisions)"
        if decide(page, rng, prefer_swap):
            decisions += 1
            unsent = 0 if version(page) != now else unsent + 1
            assert unsent < 20, f"20 clicks sent nothing (version {now})"
        else:
            wait_for_our_turn(page)
    return decisions


def record_frames(page: Any, frames: list[str], sent: list[str] | None = None) -> None:
    def on_socket(ws: Any) -> None:
        assert "token" not in ws.url  # tokens never travel in URLs
        ws.on("framereceived", lambda payload: frames.append(payload))
        if sent is not None:
            ws.on("framesent", lambda payload: sent.append(payload))

    page.on("websocket", on_socket)


# Every state of the screen a person could see, noted once each task has drawn it (a
# MutationObserver's callback runs after the task that changed the page, never in the middle):
# a state that lasts a moment, as a bot's quick turn, is noted however late a test looks.
SCREEN_STATES = """
(() => {
  const states = [];
  window.cradleScreenStates = states;
  const note = () => {
    const state = { title: document.title, thinking: document.getElementById("thinking") !== null,
                    turn: (document.body && document.body.dataset.turn) || "" };
    const last = states[states.length - 1];
    if (!last || last.title !== state.title || last.thinking !== state.thinking
        || last.turn !== state.turn) states.push(state);
  };
  new MutationObserver(note).observe(document, { subtree: true, childList: true,
                                                 characterData: true, attributes: true });
})();
"""


def note_screen_states(page: Any) -> None:
    """From the next page load on, note every state of the tab title, the bot-thinking note
    and whose turn it is (read them with :func:`screen_states`)."""
    page.add_init_script(SCREEN_STATES)


def screen_states(page: Any) -> list[dict[str, Any]]:
    """The states noted since the page loaded: ``title``, ``thinking`` and ``turn``."""
    found: list[dict[str, Any]] = page.evaluate("window.cradleScreenStates || []")
    return found


def hand_on_screen(page: Any) -> list[str]:
    return [
        str(b.get_attribute("data-color"))
        for b in page.locator("#hand-tiles .tile-btn").element_handles()
    ]


LAPTOP = {"width": 1366, "height": 768}


PHONE = {"width": 390, "height": 844}


class PageErrors:
    """Collects the page's uncaught errors and console errors: a test fails on any."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )


# The e2e conftest's laptop fixture: a page on a 1366x768 screen and its errors.
Laptop = tuple[Any, PageErrors]


def open_page(browser: Any, server: Any, address: str, phone: bool = False) -> Any:
    """A page of its own browser context (a laptop, or a touch phone) at ``address`` of the
    PlayServer ``server``; it notes its errors (``page.errors``) and every alert or confirm it
    tries (``page.dialogs``: there must be none)."""
    if phone:
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    else:
        context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.errors = PageErrors(page)
    page.goto(f"{server.base}/{address}")
    return page


def ask_turn_mails(page: Any, base: str, address: str) -> None:
    """On the account screen of the signed-in page, ask for turn mails at ``address``; done
    when the account says so."""
    page.goto(f"{base}/#/account")
    page.fill("#mail-email", address)
    page.check("#turn-mail")
    page.click("#mail-submit")
    wait_until(
        lambda: page.evaluate("fetch('/api/me').then((r) => r.json())")["account"]["turn_mail"]
    )


# What a page asks of the API with its cookie and CSRF token, as the web client does.
FETCH = """async ([method, path, body]) => {
  const me = await (await fetch("/api/me")).json();
  const headers = {"Content-Type": "application/json"};
  if (me.csrf) headers["X-CSRF-Token"] = me.csrf;
  const answer = await fetch(path, {method, headers, body: body ? JSON.stringify(body) : undefined});
  return {status: answer.status, body: await answer.json()};
}"""


class Person:
    """One browser context (its own cookies) of a given size (PHONE: a touch phone), on the
    pages of ``server`` (a PlayServer)."""

    def __init__(self, browser: Any, server: Any, size: dict[str, int]) -> None:
        options: dict[str, Any] = {"viewport": size}
        if size is PHONE:
            options.update(is_mobile=True, has_touch=True)
        self.context = browser.new_context(**options)
        self.page = self.context.new_page()
        self.errors = PageErrors(self.page)
        self.server = server
        self.size = size

    def goto(self, fragment: str) -> None:
        self.page.goto(f"{self.server.base}/{fragment}")

    def sign_up(self, name: str, password: str, email: str | None = None) -> None:
        """Sign up in the page's form; done when the page shows the account's name."""
        self.goto("#/signup")
        self.page.fill("#signup-name", name)
        self.page.fill("#signup-password", password)
        if email is not None:
            self.page.fill("#signup-email", email)
        self.page.click("#signup-submit")
        self.page.wait_for_selector(f"#account-link:text-is('{name}')")

    def api(self, method: str, path: str, body: Any = None) -> Any:
        """``{status, body}`` of an API request the page makes, as the web client would."""
        return self.page.evaluate(FETCH, [method, path, body])

    def in_view(self, selector: str) -> None:
        """``selector`` is shown whole inside the viewport (scrolled to, as a person would)."""
        from playwright.sync_api import Error as PlaywrightError

        found = self.page.locator(selector).first
        width, height = self.size["width"], self.size["height"]

        def inside() -> bool:
            # A part drawn anew while it is scrolled to (a running clock, each second) is found
            # again by the locator and scrolled to again.
            try:
                found.scroll_into_view_if_needed(timeout=2000)
                box = found.bounding_box(timeout=2000)
            except PlaywrightError:
                return False
            return (
                box is not None
                and box["x"] >= 0
                and box["y"] >= 0
                and box["x"] + box["width"] <= width
                and box["y"] + box["height"] <= height
            )

        wait_until(inside, 10)

    def clean(self) -> None:
        """No page error, and no console error but the refusals the test asked for."""
        real = [e for e in self.errors.errors if "Failed to load resource" not in e]
        assert real == [], real


# Characters a font may lack show as empty boxes: drawn on a canvas, they look exactly like a
# character no font has (a private-use or unassigned code point).
MISSING_GLYPHS = r"""
() => {
  const text = document.body.innerText;
  const chars = [...new Set([...text].filter((ch) => ch.codePointAt(0) > 0x7e && ch.trim()))];
  const canvas = document.createElement("canvas");
  canvas.width = 48; canvas.height = 48;
  const g = canvas.getContext("2d", { willReadFrequently: true });
  const font = getComputedStyle(document.body).fontFamily;
  const draw = (ch) => {
    g.clearRect(0, 0, 48, 48);
    g.font = `32px ${font}`;
    g.fillText(ch, 4, 36);
    return Array.from(g.getImageData(0, 0, 48, 48).data).join(",");
  };
  const boxes = new Set([draw("\u{10FFFD}"), draw("\uE000"), draw("\uFFFF")]);
  return chars.filter((ch) => boxes.has(draw(ch)));
}
"""


def missing_glyphs(page: Any) -> list[str]:
    """The characters on the page that no font draws (they would show as empty boxes)."""
    found: list[str] = page.evaluate(MISSING_GLYPHS)
    return found


def wait_until(predicate: Any, seconds: float = 60.0) -> None:
    """Wait until ``predicate()`` holds: generously (a loaded machine does what is waited for
    slowly, and the wait ends as soon as it holds), else AssertionError."""
    waiting.wait(predicate, seconds, "timed out waiting")


# -- the keyboard alone ----------------------------------------------------------------------

FOCUS_MATCHES = "(selector) => Boolean(document.activeElement?.matches(selector))"


def tab_to(page: Any, selector: str, presses: int = 200, backwards: bool = False) -> None:
    """Press Tab (Shift+Tab) until the focus is on ``selector``, as a person without a mouse
    goes through the page; fails when it never comes."""
    key = "Shift+Tab" if backwards else "Tab"
    for _ in range(presses):
        if page.evaluate(FOCUS_MATCHES, selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{presses} presses of {key} never reached {selector}")


def focused_cell(page: Any) -> str:
    """The board square (or map place) that has the keyboard's focus ('' for none)."""
    return str(
        page.evaluate("document.activeElement?.closest?.('[data-cell]')?.dataset.cell || ''")
    )


def tigris_arrows_to(page: Any, cell: str) -> None:
    """Move the board's focus ring to ``cell`` ("H5") with the arrow keys."""
    here = focused_cell(page)
    assert here, "no square has the focus"
    columns = "ABCDEFGHIJKLMNOP"
    dc = columns.index(cell[0]) - columns.index(here[0])
    dr = int(cell[1:]) - int(here[1:])
    for _ in range(abs(dc)):
        page.keyboard.press("ArrowRight" if dc > 0 else "ArrowLeft")
    for _ in range(abs(dr)):
        page.keyboard.press("ArrowDown" if dr > 0 else "ArrowUp")
    assert focused_cell(page) == cell


def gheos_arrows_to(page: Any, cell: str, presses: int = 40) -> None:
    """Move the map's focus ring to the place ``cell`` ("row,col") with the arrow keys: rows
    first, then along the row (a sparse map may need a detour, tried once)."""
    target_row, target_col = (int(part) for part in cell.split(","))
    for _ in range(presses):
        here = focused_cell(page)
        assert here, "no place has the focus"
        if here == cell:
            return
        row, col = (int(part) for part in here.split(","))
        if row != target_row:
            page.keyboard.press("ArrowDown" if target_row > row else "ArrowUp")
        else:
            page.keyboard.press("ArrowRight" if target_col > col else "ArrowLeft")
        if focused_cell(page) == here:  # nothing that way: go round along the row
            page.keyboard.press("ArrowRight" if target_col >= col else "ArrowLeft")
    raise AssertionError(f"the arrows never reached {cell} (at {focused_cell(page)})")


def press_and_wait(page: Any, key: str = "Enter") -> None:
    """Press a key that sends a decision, then wait for the server's next frame."""
    before = version(page)
    page.keyboard.press(key)
    wait_until(lambda: version(page) != before, seconds=15)


# -- the guided lessons --------------------------------------------------------------------


def step_name(page: Any) -> str:
    return str(page.locator("#guide-step").get_attribute("data-step"))


def make(page: Any, pattern: str) -> None:
    """Make the move a step asks for, as a person would: a decision's button, else the tile
    and the outlined square (Tigris tiles), else the list of every legal action."""
    wait_until(lambda: turn(page) == "mine", 120)
    tile = re.fullmatch(r"tile (\w+) ([A-P]\d+)", pattern)
    if tile and page.locator(f"#hand-tiles .tile-btn[data-color={tile[1]}]").count():
        page.locator(f"#hand-tiles .tile-btn[data-color={tile[1]}]").first.click()
        target = page.locator(f".board [data-cell={tile[2]}] .target-mark")
        wait_until(lambda: target.count() > 0)
        click_and_wait(page, target)
        return
    laid = re.fullmatch(r"(?:place|replace) (t\d+) (-?\d+,-?\d+) (r\d|\*)", pattern)
    if laid:
        tile, cell, rotation = laid.groups()
        for _ in range(0 if rotation == "*" else int(rotation[1])):
            page.locator(f"#hand-tiles [data-rotate={tile}]").click()  # turns it and picks it
        if rotation == "*" or rotation == "r0":
            page.locator(f"#hand-tiles [data-tile={tile}] .tile-pick").click()
        target = page.locator(f".board [data-cell='{cell}'] .target-mark")
        wait_until(lambda: target.count() > 0)
        click_and_wait(page, target.first, force_event=True)
        return
    if pattern == "start *":
        page.locator("[data-start]:not(.selected)").first.click()  # the continents light up
        click_and_wait(page, page.locator(".board .target-region").first, force_event=True)
        return
    buttons_by_id = {"pass": "#pass", "token": "#token"}
    if pattern in buttons_by_id and page.locator(buttons_by_id[pattern]).count():
        click_and_wait(page, page.locator(buttons_by_id[pattern]))
        return
    # Looked for again while the page may still be drawing the frame that offers it (on a
    # loaded machine the list can lag the turn); the move is missing only after 30 s.
    button = waiting.wait(
        lambda: offered(page, pattern), 30, f"no way to make {pattern!r} on the page"
    )
    click_and_wait(page, button, force_event=True)


def offered(page: Any, pattern: str) -> Any:
    """The button that makes the move ``pattern`` (a decision's, the hand's, else one from
    the list of every legal action, filtered to it), or None while the page offers none."""
    for selector in (
        "#decision [data-action]",
        "#hand [data-action]",
        ".all-actions [data-action]",
    ):
        if selector.startswith(".all") and page.locator(".all-actions").count():
            if not page.locator(".all-actions[open]").count():
                page.locator(".all-actions summary").click()
            page.locator(".all-actions input").fill(pattern.rstrip("*").strip())
        buttons = page.locator(selector)
        for i in range(buttons.count()):
            if matches(pattern, str(buttons.nth(i).get_attribute("data-action"))):
                return buttons.nth(i)
    return None


def sign_up(context: Any, server: Any, name: str) -> str:
    """An account for this browser context (its cookie kept there); its CSRF token."""
    answer = context.request.post(
        f"{server.base}/api/accounts",
        data=json.dumps({"name": name, "password": "correct horse battery"}),
        headers={"Content-Type": "application/json"},
    )
    assert answer.ok, answer.text()
    csrf: str = answer.json()["csrf"]
    return csrf


def post_as(context: Any, server: Any, csrf: str, path: str, body: Any) -> Any:
    answer = context.request.post(
        f"{server.base}{path}",
        data=json.dumps(body),
        headers={"Content-Type": "application/json", "X-CSRF-Token": csrf},
    )
    assert answer.ok, answer.text()
    return answer.json()


def assert_inside_viewport(page: Any, selector: str) -> None:
    """``selector`` is wholly inside the viewport as it is now (no scrolling): a dialog, a
    toast, what the user must see at once."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] + 1, (selector, box, size)
    assert box["y"] + box["height"] <= size["height"] + 1, (selector, box, size)
