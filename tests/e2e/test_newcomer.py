"""What a newcomer met, each fixed at its cause: a lost connection said and a move made offline
refused in words; on a phone, the chat's button over nothing (not a war result's close button,
not a lesson's feedback); a turn mail's game link opened signed out comes back to the game after
the sign-in; a pasted chat line over the limit kept whole and refused in words; the seats named
alike in a lesson's text, its panel and the game after it; no raw "refused" in the top bar of
the device that gave its seat up; the invite card in view on a 768-pixel laptop screen; the
lobby's variant filter in whole words. The same words in Spanish on a phone, whole on screen."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    LAPTOP,
    PHONE,
    PageErrors,
    Person,
    click_and_wait,
    screenshot,
    turn,
    version,
    wait_until,
)
from tests.helpers.server import GAMES, PlayServer
from tests.helpers.waiting import wait

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

GUEST = "Guest 3868"
CATALOGUES = Path(__file__).resolve().parents[2] / "src/cradle/web/i18n"

# Whether the element's middle and inner corners are on screen and not under anything else
# (another element there would take a tap meant for it).
UNCOVERED = """(selector) => {
  const node = document.querySelector(selector);
  if (!node) return "missing";
  const box = node.getBoundingClientRect();
  const points = [[0.5, 0.5], [0.1, 0.15], [0.9, 0.15], [0.1, 0.85], [0.9, 0.85]];
  for (const [fx, fy] of points) {
    const x = box.left + fx * box.width;
    const y = box.top + fy * box.height;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return `off screen at ${fx},${fy}`;
    const hit = document.elementFromPoint(x, y);
    if (!hit || !(node === hit || node.contains(hit))) return `under ${hit?.outerHTML.slice(0, 80)}`;
  }
  return "";
}"""


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return bool(
        box
        and box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] + box["width"] <= size["width"]
    )


def fits(page: Any, selector: str) -> str:
    """'' when the element's text is inside its box and its box inside the screen's width."""
    return str(
        page.locator(selector).evaluate(
            """(n) => {
              const box = n.getBoundingClientRect();
              if (n.scrollWidth > n.clientWidth + 1) return `text ${n.scrollWidth} > box ${n.clientWidth}`;
              if (box.left < 0 || box.right > innerWidth + 1) return `box ${box.left}..${box.right}`;
              return "";
            }"""
        )
    )


Guest = Callable[..., Any]


@pytest.fixture
def guest(browser: Any) -> Iterator[Guest]:
    """Opens a page of the guest GUEST in a browser context of its own: ``guest(viewport,
    locale=None)``; every context it opened is closed after the test."""
    contexts: list[Any] = []

    def page_of(viewport: dict[str, int], locale: str | None = None) -> Any:
        context = browser.new_context(viewport=viewport, **({"locale": locale} if locale else {}))
        context.add_init_script(f"localStorage.setItem('cradle.guest', {json.dumps(GUEST)})")
        contexts.append(context)
        return context.new_page()

    yield page_of
    for context in contexts:
        context.close()


def resume_lesson(page: Any, made: dict[str, Any], step: int, lesson: str) -> None:
    """The guided game taken up at ``step`` (its ``lesson``) on the table ``made`` for it, as
    a page that left it there does (its progress kept in localStorage, the page reloaded);
    done when it is the learner's turn."""
    progress = {"step": step, "id": made["id"], "token": made["seats"][0]["token"], "made": 0}
    page.evaluate(
        "(p) => localStorage.setItem('cradle.learn', JSON.stringify({tigris: {...p, sent: null}}))",
        progress,
    )
    page.reload()
    page.wait_for_selector(f"#guide-step[data-step='{lesson}']")
    wait_until(lambda: turn(page) == "mine")


def seat_page(server: PlayServer, page: Any, seats: list[str]) -> dict[str, Any]:
    """A table made for this guest, opened at its seat (the token kept by the page)."""
    created = server.post("/api/games", {"game": "tigris", "seats": seats, "name": GUEST})
    token = created["seats"][0]["token"]
    page.goto(f"{server.base}/#/play/{created['id']}/{token}")
    page.wait_for_selector(".tigris-board [role=button]")
    return created


def test_offline_is_said_and_a_move_made_offline_is_refused_in_words(
    server: PlayServer, guest: Guest, artifacts: Path
) -> None:
    page = guest(PHONE)
    errors = PageErrors(page)
    seat_page(server, page, ["human", "bot:random"])
    wait_until(lambda: turn(page) == "mine")
    assert page.locator("#connection").is_hidden()
    page.context.set_offline(True)
    # Said at once, in the top bar and above the board, both on the phone's screen.
    page.wait_for_selector("#connection:not([hidden])")
    assert "offline" in page.locator("#connection").inner_text()
    assert page.locator("#status").inner_text() == "Offline"
    page.locator("#connection").scroll_into_view_if_needed()
    assert in_view(page, "#connection")
    # A move now is not sent, and the person is told so where they look.
    before = version(page)
    page.locator("#hand-tiles .tile-btn:not([disabled])").first.click()
    page.locator(".board .target .target-mark").first.click()
    page.wait_for_selector("#toast:not([hidden])")
    assert "not sent" in page.locator("#toast").inner_text()
    assert in_view(page, "#toast")
    screenshot(page, artifacts / "newcomer-phone-offline-move.png")
    assert version(page) == before
    # Back online: reconnected by itself, and the move goes through.
    page.context.set_offline(False)
    page.wait_for_selector("#connection[hidden]", state="attached", timeout=15_000)
    assert page.locator("#status").inner_text() == ""
    page.locator("#hand-tiles .tile-btn:not([disabled])").first.click()
    click_and_wait(page, page.locator(".board .target .target-mark").first)
    assert errors.errors == []


def test_on_a_phone_the_chat_button_covers_neither_a_result_nor_a_lessons_feedback(
    server: PlayServer, guest: Guest, artifacts: Path
) -> None:
    page = guest(PHONE)
    errors = PageErrors(page)
    # The revolt step of the guided game, its table made as the page makes it.
    page.goto(f"{server.base}/#/learn/tigris")
    page.wait_for_selector("#guide-step")
    made = page.evaluate(
        """async () => {
          const answer = await fetch("/api/lessons", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({game: "tigris", lesson: "revolt", name: localStorage.getItem("cradle.guest")})});
          return answer.json();
        }"""
    )
    resume_lesson(page, made, 2, "revolt")
    # The seats are named alike in the step's words, the points and the banner.
    intro = page.locator("#guide-intro").inner_text()
    assert "Random bot's priest" in intro and "bull" not in intro.lower()
    assert page.locator("#scores tr[data-player='bull']").inner_text().startswith("Random bot")
    assert f"you are {GUEST}" in page.locator("#banner").inner_text()
    assert page.locator("#chat-toggle").evaluate("(b) => getComputedStyle(b).position") != "fixed"
    # A move off the script, made from the hand far below: the feedback comes into view, whole.
    page.locator("#hand-tiles .tile-btn[data-color='red']").first.click()
    page.locator(".board .target .target-mark").first.click()
    page.wait_for_selector("#guide-feedback")
    wait_until(lambda: page.evaluate(UNCOVERED, "#guide-feedback") == "")
    screenshot(page, artifacts / "newcomer-phone-lesson-feedback.png")
    # The revolt: its result's close button can be tapped once the result is scrolled to.
    page.locator("#hand-tiles .tile-btn[data-color='red']").first.click()  # put it back
    page.locator(".leader-btn[data-role='priest']").click()
    click_and_wait(page, page.locator(".board .target[data-cell='G6'] .target-mark"))
    click_and_wait(page, page.locator("#decision button[data-action^='commit']").first)
    page.wait_for_selector("#conflict-result")
    page.locator("#conflict-result").evaluate("(n) => n.scrollIntoView({block: 'start'})")
    close = "#conflict-result .outcome-head button"
    assert page.evaluate(UNCOVERED, close) == ""
    screenshot(page, artifacts / "newcomer-phone-revolt-result.png")
    page.locator(close).click(timeout=5000)
    assert page.locator("#conflict-result").count() == 0
    assert errors.errors == []


def test_the_game_after_the_guided_one_names_the_person(
    server: PlayServer, guest: Guest, artifacts: Path
) -> None:
    page = guest(LAPTOP)
    page.goto(f"{server.base}/#/learn/tigris")
    page.wait_for_selector("#guide-step")
    made = server.post("/api/lessons", {"game": "tigris", "lesson": "scoring", "name": GUEST})
    resume_lesson(page, made, 7, "scoring")
    page.locator("#hand-tiles .tile-btn[data-color='red']").first.click()
    click_and_wait(page, page.locator(".board .target[data-cell='C11'] .target-mark"))
    click_and_wait(page, page.locator("#decision button[data-action^='treasure']").first)
    click_and_wait(page, page.locator("#pass"))
    wait_until(lambda: turn(page) == "over")  # no frame redraws the panel under the click
    page.click("#guide-play")
    wait_until(lambda: page.evaluate("location.hash").startswith("#/play/"))
    page.wait_for_selector(".tigris-board [role=button]")
    page.wait_for_selector("#banner")
    assert f"you are {GUEST}" in page.locator("#banner").inner_text()
    assert page.locator("#scores tr.me").inner_text().startswith(GUEST)
    screenshot(page, artifacts / "newcomer-game-after-lessons.png")


def test_a_turn_mails_link_opened_signed_out_comes_back_to_the_game(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    person = Person(browser, server, LAPTOP)
    person.sign_up("mailreader", "a long enough password")
    page, errors = person.page, person.errors
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-game")
    page.select_option("select[data-seat='1']", "bot:random")
    page.click("#create-game")
    page.wait_for_selector(".tigris-board [role=button]")
    game_id = page.evaluate("location.hash").split("/")[2]
    page.goto(f"{server.base}/#/account")
    page.click("#signout")
    page.wait_for_selector("#signin-link")
    # The mail's link (#/play/ID), opened signed out: sign in, and the game opens.
    page.evaluate("localStorage.clear()")
    page.goto(f"{server.base}/#/play/{game_id}")
    page.wait_for_selector("#no-seat-signin")
    # A loaded machine may answer the header's waiting count, asked while signed in, after
    # the session ended: 401, which the page takes quietly. Nothing else may go wrong.
    assert all("401" in error for error in errors.errors), errors.errors
    signed_out = len(errors.errors)
    page.click("#no-seat-signin")
    page.fill("#signin-name", "mailreader")
    page.fill("#signin-password", "a long enough password")
    page.click("#signin-submit")
    page.wait_for_selector(".tigris-board [role=button]")
    assert page.evaluate("location.hash") == f"#/play/{game_id}"
    screenshot(page, artifacts / "newcomer-signed-in-back-at-the-game.png")
    assert errors.errors[signed_out:] == []
    person.context.close()


def test_a_pasted_chat_line_over_the_limit_is_kept_whole_and_refused_in_words(
    server: PlayServer, guest: Guest, artifacts: Path
) -> None:
    page = guest(LAPTOP)
    errors = PageErrors(page)
    seat_page(server, page, ["human", "bot:random"])
    # The page as it stays: the board's map drawn and the bot's first move (if it has one)
    # made, so that nothing moves the page after the refusal brought its reason into sight.
    page.wait_for_selector(".tigris-board .river")
    wait_until(lambda: turn(page) == "mine")
    page.wait_for_selector("#chat-input")
    page.focus("#chat-input")
    page.keyboard.insert_text("x" * 600)  # a paste: the whole text arrives at once
    assert len(page.locator("#chat-input").input_value()) == 600
    said = page.locator("#chat-error")
    assert "600 characters" in said.inner_text() and "at most 500" in said.inner_text()
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert page.locator("#chat-lines li").count() == 0  # nothing was sent, nothing cut
    assert len(page.locator("#chat-input").input_value()) == 600
    wait(
        lambda: in_view(page, "#chat-error") and in_view(page, "#chat-input"),
        60,
        f"the reason is out of sight: {page.locator('#chat-error').bounding_box()}",
    )
    screenshot(page, artifacts / "newcomer-chat-too-long.png")
    # Shortened, it goes.
    page.fill("#chat-input", "x" * 500)
    assert said.inner_text() == ""
    page.keyboard.press("Enter")
    page.wait_for_selector("#chat-lines li")
    assert errors.errors == []


def test_the_device_that_gave_its_seat_up_says_so_in_words(
    server: PlayServer, browser: Any, guest: Guest, artifacts: Path
) -> None:
    page = guest(LAPTOP)
    created = seat_page(server, page, ["human", "bot:random"])
    moved = server.post(f"/api/games/{created['id']}/transfer", {}, created["seats"][0]["token"])
    other = browser.new_context(viewport=PHONE)
    phone = other.new_page()
    phone.goto(f"{server.base}/#/continue/{created['id']}/{moved['code']}")
    phone.wait_for_selector(".tigris-board [role=button]")
    page.wait_for_selector("#seat-refused")
    assert page.locator("#status").inner_text() == ""
    assert "refused" not in page.locator("header").inner_text()
    assert page.locator("#toast").is_hidden()  # the card says it: no raw reason beside it
    screenshot(page, artifacts / "newcomer-seat-moved-away.png")
    other.close()


def test_the_invite_card_is_in_view_on_a_768_pixel_laptop_screen_and_the_lobby_speaks_whole(
    server: PlayServer, guest: Guest, artifacts: Path
) -> None:
    page = guest(LAPTOP)
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#filter-variant")
    variants = page.locator("#filter-variant option").all_inner_texts()
    assert "Tigris & Euphrates: without the wonder" in variants
    assert not [v for v in variants if ": no " in v or " no the " in v]
    page.select_option("select[data-seat='1']", "human")
    page.locator("#create-game").scroll_into_view_if_needed()
    assert page.evaluate("scrollY") > 0  # the lobby's button is below its fold
    page.click("#create-game")
    page.wait_for_selector(".invites input")
    page.wait_for_selector(".tigris-board [role=button]")  # the page laid out whole
    # In view once the page has laid itself out and scrolled to the card (a loaded machine
    # does it late: at load 9 the card was in view just after a first check said not).
    try:
        wait_until(lambda: in_view(page, ".invites"), 30)
    except AssertionError:
        raise AssertionError(
            (page.locator(".invites").bounding_box(), page.evaluate("scrollY"))
        ) from None
    screenshot(page, artifacts / "newcomer-laptop-invite-card.png")


def test_in_spanish_on_a_phone_the_connection_the_chat_limit_the_lesson_and_the_variants(
    server: PlayServer, guest: Guest, artifacts: Path
) -> None:
    """The newcomer's words come from the catalogue (a browser whose language is Spanish) and
    fit a phone's screen, longer words and all."""
    spanish = json.loads((CATALOGUES / "es.json").read_text(encoding="utf-8"))
    page = guest(PHONE, locale="es-ES")
    errors = PageErrors(page)
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#filter-variant")
    variants = page.locator("#filter-variant option").all_inner_texts()
    assert f"Tigris & Euphrates: {spanish['option.wonder.off']}" in variants
    seat_page(server, page, ["human", "bot:random"])
    wait_until(lambda: turn(page) == "mine")
    # Offline: said above the board and in the top bar, and a move made now is not sent.
    page.context.set_offline(True)
    page.wait_for_selector("#connection:not([hidden])")
    assert page.locator("#connection").inner_text() == spanish["live.offline_note"]
    assert page.locator("#status").inner_text() == spanish["live.offline"]
    page.locator("#connection").scroll_into_view_if_needed()
    assert fits(page, "#connection") == "" and fits(page, "#status") == ""
    page.locator("#hand-tiles .tile-btn:not([disabled])").first.click()
    page.locator(".board .target .target-mark").first.click()
    page.wait_for_selector("#toast:not([hidden])")
    assert page.locator("#toast").inner_text() == spanish["table.not_sent_offline"]
    assert in_view(page, "#toast") and fits(page, "#toast") == ""
    screenshot(page, artifacts / "newcomer-es-phone-offline-move.png")
    page.context.set_offline(False)
    page.wait_for_selector("#connection[hidden]", state="attached", timeout=15_000)
    page.locator("#toast").click()  # read: a tap dismisses it
    # A chat line over the limit, in the chat's sheet.
    page.click("#chat-toggle")
    page.wait_for_selector("#chat.open")
    page.focus("#chat-input")
    page.keyboard.insert_text("x" * 600)
    wanted = spanish["chat.too_long"]["other"].format(count=600, max=500, over=100)
    assert page.locator("#chat-error").inner_text() == wanted
    assert in_view(page, "#chat-error") and fits(page, "#chat-error") == ""
    screenshot(page, artifacts / "newcomer-es-phone-chat-too-long.png")
    page.keyboard.press("Escape")
    # The board's and a square's names for the keyboard, from the catalogue's messages.
    assert page.locator(".tigris-board").get_attribute("aria-label") == spanish["tigris.board_keys"]
    page.locator("#hand-tiles .tile-btn:not([disabled])").first.click()
    label = str(page.locator(".tigris-board .target").first.get_attribute("aria-label"))
    assert ". Intro: " in label and "Enter" not in label, label
    # The guided game's words name the opponent as the table does, in Spanish.
    made = server.post("/api/lessons", {"game": "tigris", "lesson": "revolt", "name": GUEST})
    page.goto(f"{server.base}/#/learn/tigris")
    page.wait_for_selector("#guide-step")
    resume_lesson(page, made, 2, "revolt")
    bot_name = page.locator("#scores tr[data-player='bull'] .dynasty-chip").inner_text().strip()
    intro = page.locator("#guide-intro").inner_text()
    assert bot_name in intro and spanish["seat.bull"] not in intro, (bot_name, intro)
    screenshot(page, artifacts / "newcomer-es-phone-lesson.png")
    assert [e for e in errors.errors if "ERR_INTERNET_DISCONNECTED" not in e] == []
