"""End-to-end fixtures: a real play server and Debian's Chromium driven by Playwright.

The browser is the system's (``/usr/bin/chromium``, installed by ``make test``); Playwright's own
browser download is never used. Screenshots go to ``test-artifacts/`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the play server needs the 'server' extra")
sync_api = pytest.importorskip("playwright.sync_api", reason="needs Playwright (server extra)")

from tests.server.servers import PlayServer  # noqa: E402

CHROMIUM = os.environ.get("CRADLE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
LAPTOP = {"width": 1366, "height": 820}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlayServer]:
    db = tmp_path_factory.mktemp("e2e") / "games.sqlite3"
    # Hints and analyses think briefly: the tests check what they show, not how well they play.
    settings = ("hint_seconds=0.1", "analysis_seconds=0.02")
    play = PlayServer(f"sqlite:///{db}", bot_delay=0.02, settings=settings).start()
    try:
        yield play
    finally:
        play.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (make test installs Debian's package)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


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


def wait_until(predicate: Any, seconds: float = 20.0, step: float = 0.05) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(step)
