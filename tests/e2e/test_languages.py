"""The web client in Spanish and Portuguese, in a real browser (issue 66).

A browser whose language is es or pt-BR gets its catalogue; the switch changes the language at
once and is remembered. A crawl of the screens finds no message of the English catalogue on
them (text, titles, labels, placeholders), and no text that overflows its box or the page, at
390×844 and 1366×768 (make test: the live screens in Spanish at a phone; the long tier: every
screen, a finished game's replay and analysis too, in every language at both sizes). The guided
lessons are walked to their end in the long tier (both games in both languages at both sizes).
Screenshots: test-artifacts/lang-*.png.
"""

from __future__ import annotations

import functools
import json
import re
import secrets
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    PHONE,
    PageErrors,
    ask_turn_mails,
    make,
    screenshot,
    step_name,
    turn,
    wait_until,
)
from tests.helpers.mail import Inbox, mailed_link
from tests.helpers.server import GAMES, PlayServer

babel = pytest.importorskip(
    "babel", reason="the mails' check reads the Python catalogues (dev extra)"
)
from babel.messages.pofile import read_po  # noqa: E402

pytestmark = pytest.mark.skipif(not {"tigris", "gheos"} <= set(GAMES), reason="needs both engines")

CATALOGUES = Path(__file__).resolve().parents[2] / "src/cradle/web/i18n"
LOCALES = Path(__file__).resolve().parents[2] / "src/cradle/locale"
PY_FALLBACKS = {"pt_PT": "pt_BR"}
SIZES = {"laptop": {"width": 1366, "height": 768}, "phone": PHONE}
PLACEHOLDER = re.compile(r"\{\w+\}")


def messages(tag: str) -> dict[str, Any]:
    """A language's messages, with those of the catalogues it falls back on."""
    found = json.loads((CATALOGUES / f"{tag}.json").read_text(encoding="utf-8"))
    fallback = found.get("@fallback")
    out = messages(fallback) if isinstance(fallback, str) else {}
    out.update({k: v for k, v in found.items() if not k.startswith("@")})
    return out


def texts(message: Any) -> list[str]:
    return [message] if isinstance(message, str) else list(message.values())


def english_left(tag: str) -> list[str]:
    """The pieces of English that must not be on a page in `tag`: each English message's
    longest stretch between placeholders, where the language writes that message otherwise,
    long enough to be a phrase (one word alone may be the same word in both languages)."""
    english, found = messages("en"), messages(tag)
    ours = {t for m in found.values() for t in texts(m)}
    pieces = set()
    for key, message in english.items():
        if texts(message) == texts(found[key]):
            continue
        for text in texts(message):
            longest = max(PLACEHOLDER.split(text), key=len).strip(" .,:;()·")
            if len(longest) >= 12 and " " in longest and not any(longest in t for t in ours):
                pieces.add(longest)
    return sorted(pieces)


def python_messages(language: str) -> dict[str, str]:
    """A Python catalogue's translations by their English message (with its fallback's)."""
    fallback = PY_FALLBACKS.get(language)
    out = python_messages(fallback) if fallback else {}
    with (LOCALES / language / "LC_MESSAGES/cradle.po").open("rb") as handle:
        for message in read_po(handle):
            if not message.id or not message.string:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for english, translated in zip(ids, strings, strict=False):
                if translated:
                    out[str(english)] = str(translated)
    return out


@functools.cache
def mail_english_left(tag: str) -> list[str]:
    """As english_left, for the Python catalogue's messages (the mails')."""
    found = python_messages(tag.replace("-", "_"))
    ours = set(found.values())
    pieces = set()
    for english, translated in found.items():
        if english == translated:
            continue
        longest = max(PLACEHOLDER.split(english), key=len).strip(" .,:;()·")
        if len(longest) >= 12 and " " in longest and not any(longest in t for t in ours):
            pieces.add(longest)
    return sorted(pieces)


def mail_to(inbox: Inbox, address: str, count: int = 1) -> Any:
    """The `count`-th mail to `address` (from 1), once it came."""

    def found() -> list[Any]:
        with inbox.lock:
            return [m for _f, to, m in inbox.mails if address in to]

    wait_until(lambda: len(found()) >= count, 60)
    return found()[count - 1]


PAGE_WORDS = """() => {
  const out = [document.title, document.body.innerText];
  for (const node of document.querySelectorAll("[title], [aria-label], [placeholder], [alt]")) {
    for (const name of ["title", "aria-label", "placeholder", "alt"]) {
      if (node.getAttribute(name)) out.push(node.getAttribute(name));
    }
  }
  for (const node of document.querySelectorAll("svg title")) out.push(node.textContent);
  return out.join("\\n");
}"""

# Text that spills out of its box, or a page wider than the screen (the Tigris board scrolls
# inside its own box on purpose; a chart's SVG text is drawn, not laid out).
OVERFLOWS = """() => {
  const bad = [];
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    bad.push(`page ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
  }
  for (const node of document.querySelectorAll("body *")) {
    // (.sr-only: words for screen readers alone, clipped to a pixel on purpose)
    if (!(node instanceof HTMLElement) || node.closest(".board-scroll, .all-actions, .chat-lines, .sr-only")) continue;
    const own = [...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !node.getClientRects().length) continue;
    const style = getComputedStyle(node);
    if (style.display === "inline" || style.overflowX === "auto" || style.overflowX === "scroll") continue;
    if (node.scrollWidth > node.clientWidth + 2) {
      bad.push(`${node.tagName.toLowerCase()}#${node.id}.${node.className}: ${node.textContent.trim().slice(0, 60)}`);
    }
  }
  return bad;
}"""


def check_screen(page: Any, tag: str, name: str, artifacts: Path, label: str) -> None:
    page.wait_for_timeout(150)  # a late redraw (a board map, a poll) lands before reading
    words = page.evaluate(PAGE_WORDS)
    # The web catalogue's English, and the Python catalogues' (the server's and the engines'
    # reasons, the bots' words).
    left = [piece for piece in english_left(tag) + mail_english_left(tag) if piece in words]
    assert not left, f"{tag} {name} ({label}) shows English: {left}"
    assert not page.evaluate(OVERFLOWS), f"{tag} {name} ({label}) overflows"
    screenshot(page, artifacts / f"lang-{tag}-{label}-{name}.png")


def finished_game(server: PlayServer, game: str) -> str:
    created = server.post("/api/games", {"game": game, "seats": ["bot:random", "bot:random"]})
    wait_until(lambda: server.get(f"/api/games/{created['id']}")["table"]["status"] == "over", 120)
    return str(created["id"])


def signed_in(
    page: Any,
    errors: PageErrors,
    server: PlayServer,
    inbox: Inbox,
    artifacts: Path,
    tag: str,
    size: str,
) -> None:
    """The screens of an account in `tag`: a sign-up the server refuses (its reason), the
    account screen, a turn-based game's turn mail, the inbox with the game; then signed out."""
    base = server.base
    name = f"Crawl {secrets.token_hex(3)}"
    address = f"{name.split()[1]}@example.org"
    page.goto(f"{base}/#/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", "short")
    page.click("#signup-submit")
    wait_until(lambda: page.locator("#signup-error").inner_text() != "")
    check_screen(page, tag, "signup-refused", artifacts, size)
    # The server's reason, said in the language from its message and params.
    reason = python_messages(tag.replace("-", "_"))["a password has {min} to {max} characters"]
    assert page.locator("#signup-error").inner_text() == reason.format(min=8, max=256)
    refused = [e for e in errors.errors if "status of 400" in e]
    assert len(refused) == 1, errors.errors  # the browser's own line for the refused request
    errors.errors.remove(refused[0])
    page.fill("#signup-password", "correct horse battery")
    page.click("#signup-submit")
    page.wait_for_selector(f"#account-link:text-is('{name}')")
    ask_turn_mails(page, base, address)
    check_screen(page, tag, "account-signed-in", artifacts, size)
    # The address check's mail, in the account's language; its link checks the address (turn
    # mails go to checked addresses only).
    check = mail_to(inbox, address)
    assert check["Content-Language"] == tag
    assert "Confirm your e-mail address" not in check["Subject"], check["Subject"]
    page.goto(mailed_link(inbox, address, "verify", 1))
    page.wait_for_selector("#verify .ok")
    made = page.evaluate(
        """async () => {
          const me = await (await fetch('/api/me')).json();
          const body = {game: 'tigris', players: 2, seats: ['human', 'bot:random'], mode: 'turn', deadline_s: 86400};
          const answer = await fetch('/api/games', {method: 'POST', body: JSON.stringify(body),
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf}});
          return answer.json();
        }"""
    )
    # A person's turn that begins after a move is mailed: the first turn played if it is ours.
    game_id, token = made["id"], made["seats"][0]["token"]
    for _ in range(4):
        seen = server.get(f"/api/games/{game_id}", token)
        if seen["to_move"] != 0:
            break
        actions = seen["legal_actions"]
        server.post(
            f"/api/games/{game_id}/actions",
            {"action": next((a for a in actions if a == "pass"), actions[0])},
            token,
        )
    mail = mail_to(inbox, address, 2)
    words = f"{mail['Subject']}\n{mail.get_content()}"
    left = [piece for piece in mail_english_left(tag) if piece in words]
    assert not left, f"{tag}: the turn mail shows English: {left}"
    assert mail["Content-Language"] == tag
    (artifacts / f"lang-{tag}-{size}-turn-mail.txt").write_text(words, encoding="utf-8")
    page.goto(f"{base}/#/inbox")
    page.wait_for_selector("#inbox .inbox-game")
    check_screen(page, tag, "inbox-signed-in", artifacts, size)
    page.goto(f"{base}/#/account")
    page.click("#signout")
    page.wait_for_selector("#signin-link")


def crawl(
    browser: Any,
    server: PlayServer,
    inbox: Inbox,
    artifacts: Path,
    tag: str,
    size: str,
    whole: bool = True,
) -> None:
    """Every kind of screen in `tag` at one size: lobby, learn, rules, ratings, accounts (a
    guest's, then signed in: a refused sign-up, the account, the inbox, a turn mail), a game of
    each kind at its table with the player aid open and a refused move's reason, and (with
    `whole`) a finished game's replay and analysis."""
    context = browser.new_context(viewport=SIZES[size], locale=tag)
    page = context.new_page()
    errors = PageErrors(page)
    base = server.base
    screens = {
        "lobby": ("#/", "#create-game"),
        "learn": ("#/learn", ".learn-card"),
        "rules-tigris": ("#/rules/tigris", "#picture-kingdom[data-drawn]"),
        "rules-gheos": ("#/rules/gheos", "#picture-continent[data-drawn]"),
        "ratings": ("#/ratings", "#leaderboard"),
        "signin": ("#/signin", "#signin"),
        "signup": ("#/signup", "#signup"),
        "account": ("#/account", "h1"),
        "inbox": ("#/inbox", "#inbox"),
    }
    for name, (address, ready) in screens.items():
        page.goto(f"{base}/{address}")
        page.wait_for_selector(ready)
        check_screen(page, tag, name, artifacts, size)
    signed_in(page, errors, server, inbox, artifacts, tag, size)
    for game in ("tigris", "gheos"):
        created = server.post("/api/games", {"game": game, "seats": ["human", "bot:random"]})
        page.goto(f"{base}/#/play/{created['id']}/{created['seats'][0]['token']}")
        page.wait_for_selector("#hand-tiles")
        wait_until(lambda: turn(page) == "mine", 120)
        if game == "tigris":
            # A square the tile may not go on: the engine's reason (English from the server).
            show_a_refusal(page)
        check_screen(page, tag, f"{game}-table", artifacts, size)
        page.locator("#aid-open").click()
        check_screen(page, tag, f"{game}-aid", artifacts, size)
        if not whole:
            continue
        done = finished_game(server, game)
        page.goto(f"{base}/#/replay/{done}")
        page.wait_for_selector("#replay-step")
        page.locator("#replay-last").click()
        page.wait_for_selector("#result")
        check_screen(page, tag, f"{game}-replay", artifacts, size)
        page.goto(f"{base}/#/analysis/{done}")
        page.wait_for_selector("#analyse")
        page.locator("#analyse").click()
        page.wait_for_selector("#analysis-done", timeout=120_000)
        page.wait_for_selector("#costly-list li, #costly p")
        check_screen(page, tag, f"{game}-analysis", artifacts, size)
    assert not errors.errors
    context.close()


def test_the_browsers_language_and_the_switch(
    browser: Any, server: PlayServer, artifacts: Path
) -> None:
    """es from the browser; the switch turns the page to pt-PT at once, with no reload, and a
    reload keeps it; an unknown language (de) reads English."""
    context = browser.new_context(viewport=SIZES["phone"], locale="es-MX")
    page = context.new_page()
    errors = PageErrors(page)
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-game")
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.locator("#learn-to-play").inner_text() == messages("es")["lobby.learn"]
    assert page.locator("#language").input_value() == "es"
    page.evaluate("window.marker = 1")  # gone if the page reloads
    page.locator("#language").select_option("pt-PT")
    wait_until(lambda: page.evaluate("document.documentElement.lang") == "pt-PT")
    assert page.evaluate("window.marker") == 1
    start, ratings = messages("pt-PT")["lobby.start"], messages("pt-PT")["ratings.title"]
    wait_until(lambda: page.locator("#create-game").inner_text() == start)
    assert page.locator("#nav-ratings").inner_text() == ratings
    screenshot(page, artifacts / "lang-switch-phone.png")
    page.reload()
    page.wait_for_selector("#create-game")
    assert page.evaluate("document.documentElement.lang") == "pt-PT"
    context.close()
    german = browser.new_context(viewport=SIZES["laptop"], locale="de-DE")
    page = german.new_page()
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-game")
    assert page.evaluate("document.documentElement.lang") == "en"
    german.close()
    assert not errors.errors


def account_language(page: Any) -> Any:
    return page.evaluate(
        "fetch('/api/me').then((r) => r.json()).then((me) => me.account?.language)"
    )


def test_an_accounts_language_follows_it_to_every_device(
    browser: Any, server: PlayServer, artifacts: Path
) -> None:
    """A phone that reads Spanish signs up: the account speaks Spanish (its mails too). The
    account screen's choice (pt-BR) turns the page at once and is the account's; a laptop that
    reads English signs in and reads pt-BR; its switch (es) is the account's again."""
    name = f"Lucía {secrets.token_hex(2)}"
    phone = browser.new_context(viewport=SIZES["phone"], locale="es-ES")
    page = phone.new_page()
    errors = PageErrors(page)
    page.goto(f"{server.base}/#/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", "correct horse battery")
    page.click("#signup-submit")
    page.wait_for_selector(f"#account-link:text-is('{name}')")
    assert account_language(page) == "es"
    page.goto(f"{server.base}/#/account")
    page.wait_for_selector("#account-language")
    assert page.locator("#account-language").input_value() == "es"
    page.locator("#account-language").select_option("pt-BR")
    wait_until(lambda: page.evaluate("document.documentElement.lang") == "pt-BR")
    wait_until(lambda: account_language(page) == "pt-BR")
    page.wait_for_selector("#account-language")
    assert (
        messages("pt-BR")["account.language_about"] in page.locator("main, body").first.inner_text()
    )
    assert page.locator("#language").input_value() == "pt-BR"  # the header's switch agrees
    screenshot(page, artifacts / "lang-account-phone.png")

    laptop = browser.new_context(viewport=SIZES["laptop"], locale="en-US")
    other = laptop.new_page()
    other.goto(f"{server.base}/#/signin")
    other.wait_for_selector("#signin")
    assert other.evaluate("document.documentElement.lang") == "en"
    other.fill("#signin-name", name)
    other.fill("#signin-password", "correct horse battery")
    other.click("#signin-submit")
    wait_until(lambda: other.evaluate("document.documentElement.lang") == "pt-BR")
    other.wait_for_selector(f"#account-link:text-is('{name}')")
    # (the page's lang changes first; the header is drawn anew once the reasons are read)
    wait_until(
        lambda: other.locator("#nav-ratings").inner_text() == messages("pt-BR")["ratings.title"]
    )
    other.locator("#language").select_option("es")
    wait_until(lambda: account_language(other) == "es")
    other.reload()
    other.wait_for_selector(f"#account-link:text-is('{name}')")
    assert other.evaluate("document.documentElement.lang") == "es"
    screenshot(other, artifacts / "lang-account-signed-in-laptop.png")
    assert not errors.errors
    phone.close()
    laptop.close()


def show_a_refusal(page: Any) -> None:
    """A tile chosen, then an empty square it may not go on (the river for a land tile, land
    for a farm): ``#why`` gives the engine's reason ("Not on A1: A1 is a river cell: only blue
    tiles (farms) go there"; a square the bot's first move took says less: "Not on B1: B1 holds
    a tile", which the wait below cannot tell from "B1: checking…"). A frame that comes in between
    (on a loaded machine the socket's first frame may come after the page's own read) draws the
    table afresh and drops the choice and the answer awaited for it: then the tile and the
    square are chosen again, as a person would."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    shows_reason = "() => (document.querySelector('#why')?.textContent ?? '').split(':').length > 2"
    deadline = time.monotonic() + 120
    while True:
        if page.locator("#hand-tiles .tile-btn.selected").count() == 0:
            page.locator("#hand-tiles .tile-btn:not([disabled])").first.click()
        page.locator(".board .not-legal:not(:has(> g)) rect").first.click()  # no piece on it
        try:
            page.wait_for_function(shows_reason, timeout=15000)
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, page.locator("#why").inner_text()


def test_no_english_and_no_overflow_on_the_screens_in_spanish_at_a_phone(
    browser: Any, server: PlayServer, inbox: Inbox, artifacts: Path
) -> None:
    """The smaller crawl of make test (no finished game's replay and analysis)."""
    crawl(browser, server, inbox, artifacts, "es", "phone", whole=False)


@pytest.mark.long
@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("tag", ["es", "pt-BR", "pt-PT"])
def test_no_english_and_no_overflow_on_any_screen(
    browser: Any, server: PlayServer, inbox: Inbox, artifacts: Path, tag: str, size: str
) -> None:
    crawl(browser, server, inbox, artifacts, tag, size)


def walk(browser: Any, server: PlayServer, artifacts: Path, tag: str, game: str, size: str) -> None:
    """A guided game to its end in `tag`: every step's text, its end and each try's outline."""
    words = messages(tag)
    context = browser.new_context(viewport=SIZES[size], locale=tag)
    page = context.new_page()
    errors = PageErrors(page)
    lessons = server.get(f"/api/lessons/{game}")["lessons"]
    page.goto(f"{server.base}/#/learn/{game}")
    for number, lesson in enumerate(lessons):
        base = f"lesson.{game}.{lesson['name']}"
        wait_until(lambda name=lesson["name"]: step_name(page) == name, 120)
        wait_until(lambda: turn(page) == "mine", 120)
        assert page.locator(".guide-intro").inner_text() == words[f"{base}.intro"]
        title = page.locator("#guide-step").inner_text()
        assert title.endswith(words[f"{base}.title"]), title
        check_screen(page, tag, f"learn-{game}-{number + 1}", artifacts, size)
        if lesson["name"] == "tiles":
            # A wrong square: the engine's reason, in the language (the server sends English).
            page.locator("#hand-tiles .tile-btn[data-color=green]").first.click()
            page.locator(".board [data-cell=D4] rect").first.click()
            wrong = page.locator("#guide-feedback.wrong")
            wait_until(lambda wrong=wrong: wrong.count() > 0, 120)
            assert "river" not in wrong.inner_text() and "D4" in wrong.inner_text()
            check_screen(page, tag, f"learn-{game}-refused", artifacts, size)
            page.locator("#hand-tiles .tile-btn[data-color=green]").first.click()  # unselects
        for pattern in lesson["tries"]:
            make(page, pattern)
        done = page.locator("#guide-feedback.done")
        wait_until(lambda done=done: done.count() > 0, 120)
        assert done.inner_text() == words[f"{base}.done"]
        if number < len(lessons) - 1:
            page.locator("#guide-next").click()
    assert page.locator("#guide-play").inner_text() == words["learn.play_easy"]
    screenshot(page, artifacts / f"lang-{tag}-{size}-learn-{game}-end.png")
    assert not errors.errors
    context.close()


@pytest.mark.long
@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("game", ["tigris", "gheos"])
@pytest.mark.parametrize("tag", ["es", "pt-BR"])
def test_both_guided_games_walked_to_their_end(
    browser: Any, server: PlayServer, artifacts: Path, tag: str, game: str, size: str
) -> None:
    walk(browser, server, artifacts, tag, game, size)
