"""End-to-end fixtures: a real play server and Debian's Chromium driven by Playwright.

The browser is the system's Chromium in its headless shell (``/usr/bin/chromium-headless-shell``,
Debian's package, installed by ``make test``): the same Blink as the desktop browser without its
windowing, at about a fifth less CPU per page than ``chromium --headless``, as Playwright's own
headless runs use it; Playwright's browser download is never used. Screenshots go to
``test-artifacts/`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

# Whether they are installed, without importing them: every pytest worker collects this
# module, and Playwright is imported by the browser fixture of the worker that needs it.
if find_spec("fastapi") is None:
    pytest.skip("the play server needs the 'server' extra", allow_module_level=True)
if find_spec("playwright") is None:
    pytest.skip("needs Playwright (server extra)", allow_module_level=True)

from tests.helpers.e2e import LAPTOP, Laptop, PageErrors
from tests.helpers.mail import Inbox, smtp_server
from tests.helpers.server import WALKING, PlayServer, play_server

CHROMIUM = os.environ.get("CRADLE_CHROMIUM", "/usr/bin/chromium-headless-shell")
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


# Hints and analyses think briefly (the tests check what they show, not how well they play),
# and a client may make tables as fast as lesson walks do (WALKING). The server is shared by
# every module of a pytest worker that has no server of its own (each test makes its own tables
# and accounts, with names and addresses of their own): all its clients come from one address,
# so the other limits per client that would add up over the modules (bot seats, sign-ups,
# sockets, chat lines and reports) are lifted too; no test of those modules asks for a refusal
# by them (tests/server checks each limit). It mails (address checks, password resets, turn
# notices) through the worker's ``inbox``.
SHARED_SETTINGS = (
    *WALKING,
    "mail_from=cradle@example.org",
    "password_kib=64",
    "create_burst=1000",
    "bot_seats_per_client=1000",
    "chat_burst=1000",
    "hints_burst=1000",
    "signins_per_minute=1000",
    "signins_burst=1000",
    "sockets_per_client=1000",
)


@pytest.fixture(scope="session")
def inbox() -> Iterator[Inbox]:
    """A real SMTP server (aiosmtpd) for the worker's ``server`` (a module may have its own,
    under the same name): a test reads the mails to its own addresses."""
    with smtp_server() as found:
        yield found


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, inbox: Inbox) -> Iterator[PlayServer]:
    """The worker's play server (a module may have its own, under the same name)."""
    db = tmp_path_factory.mktemp("e2e") / "games.sqlite3"
    with play_server(db, f"smtp_url={inbox.url}", *SHARED_SETTINGS) as play:
        yield play


@pytest.fixture
def laptop(browser: Any) -> Iterator[Laptop]:
    """A page of a browser context of its own on a 1366x768 screen, and its errors; the
    context is closed after the test."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    yield page, PageErrors(page)
    context.close()


# How long Playwright waits for what a page must show (a selector, a click's target): each wait
# ends as soon as it happens, so only a slow machine waits longer. At load 20, a server's answer
# and the page drawing it took more than Playwright's default 30 s; the tests' own waits are as
# generous (tests/helpers/waiting.py).
PAGE_WAIT_MS = 120_000


class ReducedMotion:
    """The browser whose every context asks for reduced motion, as a person may: the client
    then draws no animation (style.css), which costs the software-rendered headless browser
    most of its CPU time in a game (the last move's outline alone runs 3 s after each move)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **options: Any) -> Any:
        options.setdefault("reduced_motion", "reduce")
        context = self._browser.new_context(**options)
        context.set_default_timeout(PAGE_WAIT_MS)
        return context

    def new_page(self, **options: Any) -> Any:
        options.setdefault("reduced_motion", "reduce")
        page = self._browser.new_page(**options)
        page.set_default_timeout(PAGE_WAIT_MS)
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (make test installs Debian's package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield ReducedMotion(chromium)
        finally:
            chromium.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
