"""Driving the web client the way a person does: clicks, and waits on what the page shows."""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

from cradle.core.lessons import matches


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


def decide(page: Any, rng: random.Random, prefer_pass: bool = False) -> bool:
    """Make one decision the way a person would, by clicking; False if it is not our turn."""
    cover = page.locator("#cover [data-action=reveal]")
    if cover.count():
        cover.click()
        return True
    choices = page.locator("#decision .dialog-buttons button[data-action]")
    if choices.count():
        click_and_wait(page, choices.nth(rng.randrange(choices.count())))
        return True
    if turn(page) != "mine":
        return False
    passing = page.locator("#pass")
    if prefer_pass and passing.count() and rng.random() < 0.8:
        click_and_wait(page, passing)
        return True
    targets = page.locator(".board .target .target-mark")
    if targets.count():
        click_and_wait(page, targets.nth(rng.randrange(targets.count())))
        return True
    regions = page.locator(".board .target-region")
    if regions.count():
        click_and_wait(page, regions.nth(rng.randrange(regions.count())), force_event=True)
        return True
    starts = page.locator("[data-start]:not(.selected)")
    if starts.count() and rng.random() < 0.7:
        starts.first.click()  # picks a colour: the continents light up
        return True
    takes = page.locator("button.civ-chip[data-action^='take ']")
    if takes.count():
        click_and_wait(page, takes.nth(rng.randrange(takes.count())))
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


def play_until_end(page: Any, rng: random.Random, seconds: float, prefer_pass: bool = False) -> int:
    deadline = time.monotonic() + seconds
    decisions = 0
    while not page.locator("#end-screen").count():
        assert time.monotonic() < deadline, f"no end screen after {decisions} decisions"
        if decide(page, rng, prefer_pass):
            decisions += 1
        else:
            page.wait_for_timeout(20)
    return decisions


def record_frames(page: Any, frames: list[str], sent: list[str] | None = None) -> None:
    def on_socket(ws: Any) -> None:
        assert "token" not in ws.url  # tokens never travel in URLs
        ws.on("framereceived", lambda payload: frames.append(payload))
        if sent is not None:
            ws.on("framesent", lambda payload: sent.append(payload))

    page.on("websocket", on_socket)


def hand_on_screen(page: Any) -> list[str]:
    return [
        str(b.get_attribute("data-color"))
        for b in page.locator("#hand-tiles .tile-btn").element_handles()
    ]


LAPTOP = {"width": 1366, "height": 820}


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


def wait_until(predicate: Any, seconds: float = 60.0, step: float = 0.05) -> None:
    """Wait until ``predicate()`` holds: generously (a loaded machine does what is waited for
    slowly, and the wait ends as soon as it holds), else AssertionError."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(step)


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
            action = str(buttons.nth(i).get_attribute("data-action"))
            if matches(pattern, action):
                click_and_wait(page, buttons.nth(i), force_event=True)
                return
    raise AssertionError(f"no way to make {pattern!r} on the page")


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
