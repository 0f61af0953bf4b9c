"""Driving the web client the way a person does: clicks, and waits on what the page shows."""

from __future__ import annotations

import random
import time
from typing import Any

from tests.e2e.conftest import wait_until


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
