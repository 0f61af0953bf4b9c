"""The table with the keyboard alone: Tab reaches every control, the arrow keys move a focus
ring over the board's squares (the map's places), Enter places, Escape closes the player aid
and dialogs, and every square says what lies on it. The guided game of Tigris & Euphrates is
played from its first step to its end, then a real game against the easy bot, by keys only;
then a step of Gheos's, whose map is sparse and whose continents are chosen by Enter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    Laptop,
    focused_cell,
    gheos_arrows_to,
    press_and_wait,
    screenshot,
    tab_to,
    tigris_arrows_to,
    turn,
    wait_until,
)
from tests.helpers.server import GAMES, PlayServer

BOARD_FOCUS = ".board [role=button][tabindex='0']"


def step(page: Any, name: str) -> None:
    page.wait_for_selector(f"#guide-step[data-step='{name}']")
    page.wait_for_selector(".board [role=button]")
    wait_until(lambda: turn(page) == "mine")


def next_step(page: Any, name: str) -> None:
    """The step's "Next step" button, reached from the board or the hand (it is above both)."""
    page.wait_for_selector("#guide-next")
    tab_to(page, "#guide-next", backwards=True)
    page.keyboard.press("Enter")
    step(page, name)


def place(page: Any, piece: str, cell: str) -> None:
    """Pick a piece beside the board (Enter), go back to the board, move to ``cell``, Enter."""
    tab_to(page, piece)
    page.keyboard.press("Enter")
    tab_to(page, BOARD_FOCUS, backwards=True)
    tigris_arrows_to(page, cell)
    name = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert name.startswith(f"{cell}: ") and "Enter: " in name, name
    press_and_wait(page)


def decide(page: Any, button: str) -> None:
    tab_to(page, button)
    press_and_wait(page)


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_the_guided_game_and_a_real_one_played_by_keys_only(
    server: PlayServer, laptop: Laptop, artifacts: Path
) -> None:
    page, errors = laptop
    page.goto(f"{server.base}/#/learn/tigris")
    step(page, "tiles")
    # Every square is a button with a name that says what lies there; one tab stop for all.
    board = page.locator(".tigris-board")
    assert board.locator("[role=button]").count() == 16 * 11
    assert board.locator("[tabindex='0']").count() == 1
    assert "king" in (board.locator("[data-cell='H6']").get_attribute("aria-label") or "")
    # The board is drawn at once and again when its map (rivers, temples) has come: wait for it.
    river = board.locator("[data-cell='E1']")
    wait_until(lambda: "river" in (river.get_attribute("aria-label") or ""), 60)
    # Enter on a square no piece is picked for says what lies there, in the live line.
    tab_to(page, BOARD_FOCUS)
    tigris_arrows_to(page, "G6")
    page.keyboard.press("Enter")
    wait_until(lambda: "G6" in page.locator("#why").inner_text())
    # The focus ring is drawn where the focus is, inside the viewport.
    ring = page.locator(".tigris-board .focus-ring").bounding_box()
    square = page.locator("[data-cell='G6']").bounding_box()
    assert (
        ring and square and abs(ring["x"] - square["x"]) < 3 and ring["y"] + ring["height"] <= 768
    )
    place(page, "#hand-tiles .tile-btn[data-color='green']", "H5")
    screenshot(page, artifacts / "keyboard-tigris-lesson.png")

    next_step(page, "leaders")
    place(page, ".leader-btn[data-role='priest']", "F6")
    place(page, "#hand-tiles .tile-btn[data-color='red']", "G6")

    next_step(page, "revolt")
    place(page, ".leader-btn[data-role='priest']", "G6")
    decide(page, "#decision button[data-action^='commit']")

    next_step(page, "war")
    place(page, "#hand-tiles .tile-btn[data-color='black']", "H6")
    decide(page, "#decision button[data-action^='commit']")

    next_step(page, "monument")
    place(page, "#hand-tiles .tile-btn[data-color='red']", "G6")
    decide(page, "#decision button[data-action='monument red-black F5']")
    decide(page, "#pass")

    next_step(page, "catastrophe")
    place(page, ".leader-btn[data-role='catastrophe']", "J5")

    next_step(page, "swap")
    # The swap's dialog: the focus is in it, Space/Enter toggles a tile and stays on it.
    tab_to(page, "#swap")
    page.keyboard.press("Enter")
    page.wait_for_selector("#swap-dialog")
    assert page.evaluate("document.activeElement.closest('#swap-dialog') !== null")
    for _ in range(2):
        tab_to(page, "#swap-dialog .tile-btn[data-color='black'][aria-pressed='false']")
        page.keyboard.press("Enter")
    # Tab stays inside the dialog: the page under it is out of reach.
    for _ in range(12):
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('#swap-dialog') !== null")
    tab_to(page, "#swap-dialog button.primary")
    press_and_wait(page)

    next_step(page, "scoring")
    place(page, "#hand-tiles .tile-btn[data-color='red']", "C11")
    decide(page, "#decision button[data-action^='treasure']")
    decide(page, "#pass")
    page.wait_for_selector("#guide-play")
    assert turn(page) == "over"
    tab_to(page, "#guide-play", backwards=True)
    page.keyboard.press("Enter")

    # A real game against the easy bot: a whole turn by keys; the aid opens and Escape closes it.
    page.wait_for_selector(".tigris-board [role=button]")
    wait_until(lambda: turn(page) == "mine", seconds=30)
    tab_to(page, "#aid-open")
    page.keyboard.press("Enter")
    page.wait_for_selector("#aid")
    page.keyboard.press("Escape")
    assert page.locator("#aid").count() == 0
    assert page.evaluate("document.activeElement.id") == "aid-open"
    for _ in range(2):
        tab_to(page, "#hand-tiles .tile-btn:not([disabled])", backwards=True)
        page.keyboard.press("Enter")
        tab_to(page, BOARD_FOCUS, backwards=True)
        # The focus starts on a square the picked tile may go to.
        assert page.locator(f"[data-cell='{focused_cell(page)}'].target").count() == 1
        press_and_wait(page)
        if page.locator("#decision button[data-action]").count():
            decide(page, "#decision button[data-action]")
        if turn(page) != "mine":
            break
    screenshot(page, artifacts / "keyboard-tigris-game.png")
    # A dialog takes the focus; Escape closes it and the focus goes back to what opened it.
    tab_to(page, "#concede", backwards=True)
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm-concede")
    assert page.evaluate("document.activeElement.closest('#confirm-concede') !== null")
    page.keyboard.press("Escape")
    assert page.locator("#confirm-concede").count() == 0
    assert page.evaluate("document.activeElement.id") == "concede"
    assert errors.errors == []


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
def test_a_gheos_step_by_keys_on_its_sparse_map(
    server: PlayServer, laptop: Laptop, artifacts: Path
) -> None:
    page, errors = laptop
    page.goto(f"{server.base}/#/learn/gheos")
    step(page, "continent")
    game_map = page.locator(".gheos-board")
    assert game_map.locator("[tabindex='0']").count() == 1
    # The tile is picked for the player; the focus starts on a place it may go to.
    tab_to(page, BOARD_FOCUS)
    here = focused_cell(page)
    assert page.locator(f".gheos-board .target[data-cell='{here}']").count() == 1
    name = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert "Enter: " in name, name
    gheos_arrows_to(page, "0,-1")
    press_and_wait(page)
    # A civilization: its colour by Tab and Enter, then the continent on the map by Enter.
    tab_to(page, "[data-start]")
    page.keyboard.press("Enter")
    page.wait_for_selector(".gheos-board .region-target")
    tab_to(page, BOARD_FOCUS, backwards=True)
    target = page.locator(".gheos-board .region-target").first.get_attribute("data-cell")
    assert target
    gheos_arrows_to(page, target)
    assert "start" in page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert page.locator(".gheos-board .focus-ring").count() == 1
    screenshot(page, artifacts / "keyboard-gheos-focus-ring.png")
    before = page.evaluate("Number(document.body.dataset.version)")
    page.keyboard.press("Enter")
    if page.locator("#region-choice").count():  # a tile touching two continents asks which
        page.keyboard.press("Enter")
    wait_until(lambda: page.evaluate("Number(document.body.dataset.version)") != before)
    decide(page, "#pass")
    page.wait_for_selector("#guide-next")
    screenshot(page, artifacts / "keyboard-gheos-lesson.png")
    assert errors.errors == []
