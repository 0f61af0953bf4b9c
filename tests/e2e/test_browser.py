"""The web client in a real browser: two people at two screens, a whole game against a bot,
the hot seat, the replay viewer, and screenshots of the main screens on a laptop and a phone."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    LAPTOP,
    PHONE,
    Laptop,
    PageErrors,
    click_and_wait,
    hand_on_screen,
    missing_glyphs,
    play_until_end,
    record_frames,
    screenshot,
    turn,
    version,
    wait_until,
)
from tests.helpers.server import GAMES, PlayServer


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_two_people_each_see_only_their_own_hand(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    created = server.post("/api/games", {"game": "tigris", "seats": ["human", "human"]})
    game_id = created["id"]
    # The creator opens their seat; the second person follows the invite link, whose one-time
    # code the page exchanges for the seat's own token.
    first = created["seats"][0]
    invite = created["seats"][1]["invite"]
    pages, frames, sent, errors = {}, {0: [], 1: []}, {0: [], 1: []}, {}
    for seat, address in (
        (0, f"#/play/{game_id}/{first['token']}"),
        (1, f"#/invite/{game_id}/{invite}"),
    ):
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        errors[seat] = PageErrors(page)
        record_frames(page, frames[seat], sent[seat])
        page.goto(f"{server.base}/{address}")
        pages[seat] = page
    tokens = {}
    for seat, page in pages.items():
        page.wait_for_selector("#hand-tiles .tile-btn")
        # No secret stays in the address bar: the route is the game's id only.
        assert page.evaluate("location.hash") == f"#/play/{game_id}"
        hello = json.loads(sent[seat][0])
        tokens[seat] = hello["token"]
        own = server.get(f"/api/games/{game_id}", tokens[seat])
        assert own["table"]["seat"] == seat and hand_on_screen(page) == own["hand"]
    assert tokens[0] == first["token"] and tokens[1] != created["seats"][1].get("token")
    assert server.get(f"/api/games/{game_id}")["table"]["invites"] == []  # the creator had none
    mover = server.get(f"/api/games/{game_id}")["to_move"]
    waiting = 1 - mover
    assert turn(pages[mover]) == "mine" and turn(pages[waiting]) == "wait"
    # The mover picks a tile from the hand and puts it on a highlighted square.
    pages[mover].locator("#hand-tiles .tile-btn:not([disabled])").first.click()
    targets = pages[mover].locator(".board .target .target-mark")
    assert targets.count() > 10
    click_and_wait(pages[mover], targets.nth(7))
    action = server.get(f"/api/games/{game_id}/record", tokens[mover])["actions"][-1]
    cell = action.split()[-1]
    # The other screen shows the new tile, and still its own hand only.
    pages[waiting].wait_for_selector(f"[data-cell='{cell}'] .tile")
    assert (
        hand_on_screen(pages[waiting])
        == server.get(f"/api/games/{game_id}", tokens[waiting])["hand"]
    )
    assert pages[mover].locator("#hint").count() == 0  # no hints between people
    screenshot(pages[mover], artifacts / "tigris-seat-mover.png")
    screenshot(pages[waiting], artifacts / "tigris-seat-waiting.png")
    click_and_wait(pages[mover], pages[mover].locator("#pass"))
    wait_until(lambda: turn(pages[waiting]) == "mine")
    # Every frame each browser received was for its own seat and held no other seat's secret.
    for seat in (0, 1):
        assert frames[seat]
        for text in frames[seat]:
            assert tokens[1 - seat] not in text
            frame = json.loads(text)
            # The client speaks version 2: the game's view and the table side by side.
            assert set(frame) == {"type", "view", "legal_actions", "table"}
            assert frame["type"] == "view" and frame["table"]["seat"] == seat
            view = frame["view"]
            assert not {"bag", "seed", "hands"} & (set(view) | set(frame["table"]))
            assert set(view["points"]) <= {created["players"][seat]}
        assert errors[seat].errors == []
    for page in pages.values():
        page.context.close()


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
def test_a_whole_game_against_a_bot_reaches_the_end_screen(
    server: PlayServer, browser: Any, laptop: Laptop, artifacts: Path
) -> None:
    page, errors = laptop
    page.goto(server.base + "/")
    page.wait_for_selector("#create-game")
    page.select_option("#new-game", "gheos")
    page.select_option("select[data-seat='1']", "bot:random")
    screenshot(page, artifacts / "lobby-new-table.png")
    page.click("#create-game")
    page.wait_for_selector(".gheos-board")
    rng = random.Random(6)
    play_until_end(page, rng, until=lambda: version(page) >= 8 and turn(page) == "mine")
    if turn(page) == "mine":
        page.wait_for_timeout(100)
        screenshot(page, artifacts / "gheos-game.png")
    play_until_end(page, rng)
    end = page.locator("#end-screen")
    assert end.locator("#result tbody tr").count() == 2
    assert "wins" in end.locator("h2").inner_text() or "over" in end.locator("h2").inner_text()
    screenshot(page, artifacts / "gheos-end-screen.png")
    # The replay viewer steps through the finished game.
    end.get_by_text("Replay this game").click()
    page.wait_for_selector("#replay-slider")
    total = int(page.locator("#replay-slider").get_attribute("max") or 0)
    game_id = page.evaluate("location.hash").split("/")[2]
    record = server.get(f"/api/games/{game_id}/record")
    assert total == len(record["actions"]) >= 3  # one step per action of the finished game
    page.click("#replay-next")
    page.click("#replay-next")
    assert page.locator("#replay-slider").input_value() == "2"
    page.click("#replay-last")
    assert page.locator("#result").count() == 1
    page.locator("#replay-slider").fill(str(total // 2))
    screenshot(page, artifacts / "gheos-replay.png")
    assert missing_glyphs(page) == []
    # The analysis, computed in the background since the end: win chances and costly moves.
    page.click("#replay-analysis")
    page.wait_for_selector("#analysis-done", timeout=120_000)
    assert page.locator(".chart .chance-line").count() == 2
    costly = page.locator("#costly-list .costly-move")
    if costly.count():
        costly.first.click()
        page.wait_for_selector(".gheos-board")
        ply = costly.first.get_attribute("data-ply")
        assert f"Before move {ply}" in page.locator(".analysis-screen .banner").nth(1).inner_text()
        assert "Better:" in page.locator("#costly-list").inner_text()
    screenshot(page, artifacts / "gheos-analysis.png", full_page=True)
    assert missing_glyphs(page) == []
    analysis_url = page.url
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    phone.goto(analysis_url)
    phone.wait_for_selector("#analysis-done")
    assert not phone.locator("#board").is_visible()  # no empty board before a move is picked
    screenshot(phone, artifacts / "phone-gheos-analysis.png", full_page=True)
    phone.context.close()
    assert errors.errors == []


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_a_whole_tigris_game_against_a_bot(
    server: PlayServer, laptop: Laptop, artifacts: Path
) -> None:
    created = server.post(
        "/api/games", {"game": "tigris", "seats": ["human", "bot:random"], "players": 2}
    )
    page, errors = laptop
    page.goto(f"{server.base}/#/play/{created['id']}/{created['seats'][0]['token']}")
    page.wait_for_selector(".tigris-board")
    decisions = play_until_end(page, random.Random(3), prefer_swap=True)
    assert decisions > 10
    result = page.locator("#end-screen #result tbody tr")
    assert result.count() == 2
    screenshot(page, artifacts / "tigris-end-screen.png")
    assert errors.errors == []


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_hot_seat_hides_hands_between_turns(
    server: PlayServer, laptop: Laptop, artifacts: Path
) -> None:
    page, errors = laptop
    page.goto(server.base + "/")
    page.wait_for_selector("#create-game")
    page.select_option("select[data-seat='1']", "human")
    page.check("input[name=mode][value=hotseat]")
    page.click("#create-game")
    page.wait_for_selector("#cover")
    assert page.locator("#hand-tiles .tile-btn").count() == 0  # covered: no tiles shown
    assert page.locator(".score-table td.pts").all_inner_texts() == ["?"] * 8  # nor points
    screenshot(page, artifacts / "hotseat-cover.png")
    first = page.locator("#cover h2").inner_text()
    page.click("#cover [data-action=reveal]")
    page.wait_for_selector("#hand-tiles .tile-btn")
    click_and_wait(page, page.locator("#pass"))
    page.wait_for_selector("#cover")
    assert page.locator("#cover h2").inner_text() != first
    assert page.locator("#hand-tiles .tile-btn").count() == 0
    page.click("#cover [data-action=reveal]")
    page.wait_for_selector("#hand-tiles .tile-btn")
    assert page.locator("#hint").is_visible()  # hints at a hot seat (not between screens)
    screenshot(page, artifacts / "hotseat-revealed.png")
    assert errors.errors == []


@pytest.mark.skipif(
    not {"tigris", "gheos"} <= set(GAMES), reason="needs both engines for the screenshots"
)
def test_phone_screens(server: PlayServer, browser: Any, artifacts: Path) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = PageErrors(page)
    page.goto(server.base + "/")
    page.wait_for_selector("#create-game")
    screenshot(page, artifacts / "phone-lobby.png", full_page=True)
    for game in ("tigris", "gheos"):
        created = server.post("/api/games", {"game": game, "seats": ["human", "bot:random"]})
        page.goto(f"{server.base}/#/play/{created['id']}/{created['seats'][0]['token']}")
        page.wait_for_selector(f".{game}-board")
        wait_until(lambda: turn(page) == "mine")
        if game == "tigris":
            page.click("#swap")
            page.wait_for_selector("#swap-dialog")
            screenshot(page, artifacts / "phone-tigris-swap-dialog.png")
            page.click("#swap-dialog .btn.quiet")
            page.locator("#hand-tiles .tile-btn:not([disabled])").first.click()
        screenshot(page, artifacts / f"phone-{game}.png", full_page=True)
        # The banner's details take a line of their own, which no separator starts.
        assert page.locator(".banner .detail").inner_text().startswith("you are ")
        # The board's widest dimension still fits a thumb: targets are at least 30 px.
        target = page.locator(".board .target").first.bounding_box()
        assert target is not None and target["width"] >= 30
        # Every control in reach of a thumb: at least 40 px tall.
        for button in page.locator(".side button:visible").element_handles():
            box = button.bounding_box()
            assert box is not None and box["height"] >= 40, button.inner_text()
        if game == "tigris":
            # The board says that it scrolls, and fits the width on request.
            assert page.locator(".scroll-note").is_visible()
            wide = page.locator(".tigris-board").bounding_box()
            assert wide is not None and wide["width"] > PHONE["width"]
            page.click("#fit-board")
            narrow = page.locator(".tigris-board").bounding_box()
            assert narrow is not None and narrow["width"] <= PHONE["width"]
            screenshot(page, artifacts / "phone-tigris-fit.png")
            page.click("#fit-board")
        assert missing_glyphs(page) == []
    assert errors.errors == []
    context.close()


@pytest.mark.parametrize(("motion", "spin"), [("reduce", "none"), ("no-preference", "spin")])
def test_less_motion_asked_for_stops_every_animation(
    server: PlayServer, browser: Any, motion: str, spin: str
) -> None:
    """Whoever asks their system for reduced motion sees nothing move (the other e2e tests
    browse so: a software-drawn animation costs the headless browser most of its time)."""
    context = browser.new_context(viewport=LAPTOP, reduced_motion=motion)
    page = context.new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("#create-game")
    shown = page.evaluate(
        """() => {
            const spinner = document.createElement("span");
            spinner.className = "spinner";
            document.body.append(spinner);
            const style = getComputedStyle(spinner);
            return [style.animationName, style.transitionDuration];
        }"""
    )
    assert shown[0] == spin
    context.close()
