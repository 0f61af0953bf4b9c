"""Learning the games in a real browser (issue 56): the guided first games walked to their end
on a laptop and a phone, the rules page and its pictures, the player aid opened mid-game, and
every kind of feedback brought into view.

Screenshots of every tutorial step and rules picture go to test-artifacts/learn-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    LAPTOP,
    PHONE,
    Laptop,
    PageErrors,
    make,
    screenshot,
    step_name,
    turn,
    version,
    wait_until,
)
from tests.helpers.server import GAMES, PlayServer

pytestmark = pytest.mark.skipif(not {"tigris", "gheos"} <= set(GAMES), reason="needs both engines")


VIEWPORTS = {"laptop": LAPTOP, "phone": PHONE}

IN_VIEW = """(node) => {
  const r = node.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.top >= -1 && r.left >= -1
    && r.bottom <= window.innerHeight + 1 && r.right <= window.innerWidth + 1;
}"""


def in_view(page: Any, selector: str) -> bool:
    found = page.locator(selector)
    return bool(found.count()) and bool(found.first.evaluate(IN_VIEW))


def walk(page: Any, server: PlayServer, game: str, screens: Path, label: str) -> None:
    """The whole guided game, step by step, to the normal game against easy."""
    lessons = server.get(f"/api/lessons/{game}")["lessons"]
    page.goto(f"{server.base}/#/learn/{game}")
    for number, lesson in enumerate(lessons):
        wait_until(lambda: page.locator("#guide-step").count() > 0, 120)
        wait_until(lambda name=lesson["name"]: step_name(page) == name, 120)
        wait_until(lambda: turn(page) == "mine", 120)
        screenshot(page, screens / f"learn-{game}-{label}-{number + 1}-{lesson['name']}.png")
        for pattern in lesson["tries"]:
            make(page, pattern)
        done = page.locator("#guide-feedback.done")
        wait_until(lambda done=done: done.count() > 0, 120)
        assert done.inner_text() == lesson["done"]
        # In view once the page has laid itself out (a loaded machine does it late).
        wait_until(lambda: in_view(page, "#guide-feedback"))
        screenshot(page, screens / f"learn-{game}-{label}-{number + 1}-{lesson['name']}-done.png")
        if number < len(lessons) - 1:
            page.locator("#guide-next").click()
    page.locator("#guide-play").click()
    page.wait_for_url("**/#/play/**", timeout=30_000)
    wait_until(lambda: page.locator("#banner .badge").count() > 0, 120)
    table = server.get(f"/api/games/{page.url.rsplit('/', 1)[1]}")["table"]
    assert table["seats"] == ["human", "bot:easy"] and table["game"] == game


@pytest.mark.long
@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_a_guided_game_walked_to_its_end(
    browser: Any, server: PlayServer, artifacts: Path, game: str, size: str
) -> None:
    context = browser.new_context(viewport=VIEWPORTS[size])
    page = context.new_page()
    errors = PageErrors(page)
    try:
        walk(page, server, game, artifacts, size)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; page errors: {errors.errors}") from None
    assert not errors.errors
    context.close()


def test_learning_from_the_front_page_resumes_and_answers_every_move(
    laptop: Laptop, server: PlayServer, artifacts: Path
) -> None:
    """The first steps of Tigris at a laptop: reached from the lobby, a wrong square gets the
    engine's reason, an off-script move is held back, the rules and the aid open and close
    without losing the position, and a reload resumes the same table."""
    page, errors = laptop
    page.goto(f"{server.base}/#/")
    page.locator("#learn-to-play").click()
    page.locator("#learn-tigris").click()
    wait_until(lambda: page.locator("#guide-step").count() > 0, 120)
    assert step_name(page) == "tiles"
    wait_until(lambda: turn(page) == "mine", 120)
    # The square the step asks for is outlined.
    assert page.locator(".board [data-cell=H5]").count()
    assert page.locator(".marks .last-move[stroke='#00d5ff']").count() == 1
    # A wrong square: the engine's reason, in the guide and under the board, both in view.
    page.locator("#hand-tiles .tile-btn[data-color=green]").first.click()
    page.locator(".board [data-cell=D4] rect").first.click()
    wait_until(
        lambda: "river" in (page.locator("#guide-feedback.wrong").all_inner_texts() or [""])[0]
    )
    wait_until(lambda: in_view(page, "#guide-feedback"))  # once the page is laid out
    # A legal move that is not the step's: held back, nothing sent.
    before = version(page)
    page.locator("#hand-tiles .tile-btn[data-color=green]").first.click()  # (unselects)
    page.locator("#hand-tiles .tile-btn[data-color=black]").first.click()
    page.locator(".board [data-cell=H5] .target-mark").click()
    wait_until(lambda: page.locator("#guide-feedback.held").count() > 0)
    assert version(page) == before
    make(page, "tile green H5")
    wait_until(lambda: page.locator("#guide-feedback.done").count() > 0, 120)
    page.locator("#guide-next").click()
    wait_until(lambda: step_name(page) == "leaders", 120)
    wait_until(lambda: turn(page) == "mine", 120)
    make(page, "leader priest F6")
    board = page.locator("#board").inner_html()
    table = page.evaluate("JSON.parse(localStorage.getItem('cradle.learn')).tigris.id")
    # The player aid opens beside the board and closes; the game is still there.
    page.locator("#aid-open").click()
    assert in_view(page, "#aid")
    screenshot(page, artifacts / "learn-aid-laptop.png")
    board_box = page.locator("#board .board").first.bounding_box()
    aid_box = page.locator("#aid").bounding_box()
    assert aid_box["x"] >= board_box["x"] + board_box["width"] - 1  # beside the board, not on it
    page.locator("#aid-close").click()
    assert not page.locator("#aid").count()
    # The rules, then back: the same step, table and board.
    page.locator("#guide-rules").click()
    wait_until(lambda: page.locator("#rules").count() > 0)
    page.go_back()
    wait_until(lambda: page.locator("#guide-step").count() > 0, 120)
    wait_until(lambda: page.locator("#board .board").count() > 0, 120)
    assert step_name(page) == "leaders"
    assert page.evaluate("JSON.parse(localStorage.getItem('cradle.learn')).tigris.id") == table
    wait_until(lambda: page.locator("#board").inner_html() == board, 120)
    # A reload resumes: the rest of the step still works.
    page.reload()
    wait_until(lambda: page.locator("#guide-step").count() > 0, 120)
    assert step_name(page) == "leaders"
    make(page, "tile red G6")
    wait_until(lambda: page.locator("#guide-feedback.done").count() > 0, 120)
    assert not errors.errors


@pytest.mark.parametrize("game", ["tigris", pytest.param("gheos", marks=pytest.mark.long)])
def test_the_rules_page_draws_its_pictures(
    laptop: Laptop, server: PlayServer, artifacts: Path, game: str
) -> None:
    page, errors = laptop
    page.goto(f"{server.base}/#/rules/{game}")
    figures = page.locator(".rules-picture")
    wait_until(lambda: figures.count() > 0)
    wait_until(
        lambda: page.locator(".rules-picture[data-drawn='1'] .board").count() == figures.count(), 30
    )
    for i in range(figures.count()):
        figure = figures.nth(i)
        figure.scroll_into_view_if_needed()
        screenshot(
            figure, artifacts / f"learn-rules-{game}-{figure.get_attribute('data-picture')}.png"
        )
    screenshot(page, artifacts / f"learn-rules-{game}.png", full_page=True)
    assert not errors.errors


# The dynasties' colours on the page (their chips), as CSS writes them.
DYNASTY_COLOURS = """() => [...document.querySelectorAll('.scores .dynasty-chip')].map((chip) => {
  const probe = document.createElement('span');
  probe.style.color = getComputedStyle(chip).getPropertyValue('--accent').trim();
  document.body.append(probe);
  const rgb = getComputedStyle(probe).color.match(/\\d+/g).map(Number);
  probe.remove();
  return '#' + rgb.slice(0, 3).map((n) => n.toString(16).padStart(2, '0')).join('');
})"""


def open_seat(page: Any, server: PlayServer, created: dict[str, Any]) -> None:
    """Open a table at the seat this test created, as the browser that created it would."""
    page.goto(f"{server.base}/#/")
    saved = {created["id"]: {"token": created["seats"][0]["token"], "seat": 0}}
    page.evaluate("(s) => localStorage.setItem('cradle.tables', JSON.stringify(s))", saved)
    page.goto(f"{server.base}/#/play/{created['id']}")
    wait_until(lambda: turn(page) == "mine", 120)


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_every_kind_of_feedback_is_brought_into_view(
    browser: Any, server: PlayServer, artifacts: Path, size: str
) -> None:
    """Issue 56: on a phone a refused square's reason, a hint's "Show", a log entry's board and
    a conflict's result all landed off-screen. Each is now inside the viewport."""
    context = browser.new_context(viewport=VIEWPORTS[size])
    page = context.new_page()
    errors = PageErrors(page)
    created = server.post("/api/lessons", {"game": "tigris", "lesson": "revolt"})
    open_seat(page, server, created)
    # A refused square: the reason.
    page.locator("#hand-tiles .tile-btn[data-color=red]").first.click()
    page.evaluate("window.scrollTo(0, 0)")
    page.locator(".board [data-cell=D4] rect").first.dispatch_event("click")
    wait_until(lambda: "river" in page.locator("#why").inner_text())
    wait_until(lambda: in_view(page, "#why"))
    screenshot(page, artifacts / f"learn-feedback-why-{size}.png")
    page.locator("#hand-tiles .tile-btn[data-color=red]").first.click()  # (puts it back)
    # A hint's "Show": the square marked on the board.
    page.locator("#hint").click()
    show = page.locator("#hints [data-show]").first
    wait_until(lambda: show.count() > 0, 120)
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    show.click()
    wait_until(lambda: in_view(page, ".board .hinted"))
    screenshot(page, artifacts / f"learn-feedback-hint-{size}.png")
    # A conflict's result: the revolt, the bull (a bot) committing after the learner.
    make(page, "leader priest G6")
    rings = page.locator(".board .conflict-leader")
    wait_until(lambda: rings.count() == 2)
    dynasties = set(page.evaluate(DYNASTY_COLOURS))
    assert len(dynasties) == 2
    for ring in rings.element_handles():
        assert str(ring.get_attribute("stroke")).lower() not in dynasties  # no player's colour
    make(page, "commit 0")
    wait_until(lambda: page.locator("#conflict-result").count() > 0, 120)
    wait_until(lambda: in_view(page, "#conflict-result"))
    screenshot(page, artifacts / f"learn-feedback-conflict-{size}.png")
    # A log entry: the board as it was, in view, and the old result gone.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator("#log .log-entry").first.click()
    wait_until(lambda: page.locator("#past-bar:not([hidden])").count() > 0, 120)
    try:
        wait_until(lambda: in_view(page, "#past-bar"))
    except AssertionError:
        box = page.locator("#past-bar").bounding_box()
        scroll = page.evaluate("[window.scrollY, document.body.scrollHeight]")
        screenshot(page, artifacts / f"learn-feedback-log-{size}-fail.png")
        raise AssertionError(f"past bar at {box}, page scrolled {scroll}") from None
    assert not page.locator("#conflict-result").count()
    screenshot(page, artifacts / f"learn-feedback-log-{size}.png")
    assert not errors.errors
    context.close()


def test_the_phone_lobby_fits_the_screen(browser: Any, server: PlayServer, artifacts: Path) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{server.base}/#/")
    page.wait_for_selector("#create-game")
    width = page.evaluate("document.documentElement.scrollWidth")
    screenshot(page, artifacts / "learn-lobby-phone.png", full_page=True)
    assert width <= PHONE["width"], width
    context.close()


def test_four_players_fit_the_points_table_and_monuments_left_are_shown(
    laptop: Laptop, server: PlayServer, artifacts: Path
) -> None:
    page, _errors = laptop
    seats = ["human", "bot:random", "bot:random", "bot:random"]
    created = server.post("/api/games", {"game": "tigris", "players": 4, "seats": seats})
    open_seat(page, server, created)
    # our row's dot, drawn with the table's first frame (late on a loaded machine)
    wait_until(lambda: page.locator(".score-table .to-move:not(.idle)").count() == 1)
    fits = page.evaluate(
        "[...document.querySelectorAll('.scores .table-fit')].every((t) => t.scrollWidth <= t.clientWidth)"
    )
    assert fits
    assert page.locator(".score-table tr[data-player]").count() == 4
    assert page.locator("#monuments-left").get_attribute("data-left") == "6"
    assert page.locator("#monuments-left .monument-chip").count() == 6
    screenshot(page.locator(".scores"), artifacts / "learn-points-four-players.png")


def test_the_end_screen_counts_treasures_once(
    laptop: Laptop, server: PlayServer, artifacts: Path
) -> None:
    page, _errors = laptop
    created = server.post("/api/lessons", {"game": "tigris", "lesson": "scoring"})
    open_seat(page, server, created)
    for pattern in ("tile red C11", "treasure *", "pass"):
        make(page, pattern)
    page.wait_for_selector("#end-screen #result")
    archer = page.locator("#result tr[data-place='1']")
    cells = [
        archer.locator(f"td[data-colour={c}]").inner_text()
        for c in ("red", "blue", "green", "black")
    ]
    assert cells == ["5", "3", "4", "2 +1"]  # earned points; the treasure apart, once
    assert archer.locator("td[data-treasures]").inner_text() == "1"
    screenshot(page.locator("#end-screen"), artifacts / "learn-end-screen.png")
