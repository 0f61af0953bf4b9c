"""Rated games that end before their rules end them, in the browser: a concession (clicked on
the phone), the others ending a game without a seat whose deadline passed (clicked on the
waiting seat's screen) and a game nobody moved in for three deadlines (ended by the server's
sweep). Each end screen, at 1366x768 and at 390x844, shows both players' new ratings, and the
leaderboard counts the three games once each. Screenshots go to test-artifacts/."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import PHONE, PageErrors, post_as, screenshot, sign_up, wait_until
from tests.helpers.server import GAMES, PlayServer

pytestmark = pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
LAPTOP = {"width": 1366, "height": 768}
SETTINGS = ("hint_seconds=0.1", "analysis_seconds=0.02", "password_kib=64")
HOUR = 3600
ENDINGS = ("conceded", "timeout", "abandoned")


def rated_table(server: PlayServer, contexts: list[Any], csrf: list[str]) -> tuple[str, list[str]]:
    """A rated turn-based Gheos table of the two accounts, two moves in; its id and tokens."""
    body = {"game": "gheos", "seats": ["human", "human"], "rated": True, "mode": "turn",
            "deadline_s": HOUR}  # fmt: skip
    created = post_as(contexts[0], server, csrf[0], "/api/games", body)
    game_id = created["id"]
    invite = {"invite": created["seats"][1]["invite"]}
    joined = post_as(contexts[1], server, csrf[1], f"/api/games/{game_id}/join", invite)
    tokens = [created["seats"][0]["token"], joined["token"]]
    rng = random.Random(game_id)
    for _ in range(2):
        token = tokens[server.get(f"/api/games/{game_id}")["to_move"]]
        legal = server.get(f"/api/games/{game_id}", token)["legal_actions"]
        server.post(f"/api/games/{game_id}/actions", {"action": rng.choice(legal)}, token)
    return game_id, tokens


def open_table(context: Any, server: PlayServer, game_id: str, token: str) -> Any:
    """A new page of ``context`` at the table."""
    page = context.new_page()
    page.errors = PageErrors(page)
    show_table(page, server, game_id, token)
    return page


def show_table(page: Any, server: PlayServer, game_id: str, token: str) -> None:
    """The page goes to the table (a page already open on the server goes there by its
    address's hash, as a link in it does, without loading the client again)."""
    page.goto(f"{server.base}/#/play/{game_id}/{token}")
    # The client takes the token out of the address once it left the last screen.
    page.wait_for_function("(id) => location.hash === `#/play/${id}`", arg=game_id, polling=50)
    page.wait_for_selector("#board svg")


def in_view(page: Any, selector: str) -> None:
    """``selector`` is on screen, inside the viewport (scrolled to if it must be)."""
    found = page.locator(selector).first
    found.scroll_into_view_if_needed()
    box = found.bounding_box()
    size = page.viewport_size
    assert box is not None and box["x"] >= 0 and box["y"] >= 0, selector
    assert box["x"] + box["width"] <= size["width"] + 1, selector
    assert box["y"] + box["height"] <= size["height"] + 1, selector


def end_screens(
    pages: list[Any], names: tuple[str, str], ending: str, artifacts: Path, close: bool = True
) -> None:
    """Both screens show the end, how it ended, and both players' new ratings (then the pages
    are closed, unless ``close`` is false)."""
    for page, shown in zip(pages, ("laptop", "phone"), strict=True):
        page.wait_for_selector("#end-screen #rating-note li")
        players = page.locator("#rating-note li")
        assert sorted(players.nth(i).get_attribute("data-player") for i in range(2)) == sorted(
            names
        )
        assert page.locator("#end-screen #ended-by").count() == 1
        in_view(page, "#end-screen #rating-note")
        screenshot(page, artifacts / f"rated-{ending}-{shown}.png")
        assert page.errors.errors == []
        if close:
            page.close()


def test_rated_games_ended_early_move_the_ratings_on_a_laptop_and_a_phone(
    browser: Any, artifacts: Path, tmp_path: Path
) -> None:
    db = tmp_path / "games.sqlite3"
    url = f"sqlite:///{db}"
    laptop = browser.new_context(viewport=LAPTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    contexts = [laptop, phone]
    names = ("Ann", "Bo Li")
    first = PlayServer(url, bot_delay=0.02, settings=SETTINGS).start()
    try:
        csrf = [sign_up(laptop, first, names[0]), sign_up(phone, first, names[1])]
        tables = {ending: rated_table(first, contexts, csrf) for ending in ENDINGS}
        # A concession: Bo gives up on the phone; both screens show the new ratings.
        game_id, tokens = tables["conceded"]
        pages = [open_table(c, first, game_id, t) for c, t in zip(contexts, tokens, strict=True)]
        pages[1].click("#concede")
        pages[1].click("#confirm-concede [data-action=concede]")
        end_screens(pages, names, "conceded", artifacts)
        deciding = {e: first.get(f"/api/games/{tables[e][0]}")["to_move"] for e in ENDINGS[1:]}
    finally:
        first.stop()
    # Time passes (written into the database between two runs of the server): one table's
    # deciding seat ran out of time, the other's nobody moved at for three deadlines.
    now = time.time()
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE games SET deadline = ? WHERE id = ?", (now - 60, tables["timeout"][0])
        )
        connection.execute(
            "UPDATE games SET updated = ?, deadline = ? WHERE id = ?",
            (now - 4 * HOUR, now - 3 * HOUR, tables["abandoned"][0]),
        )
    server = PlayServer(url, bot_delay=0.02, settings=SETTINGS).start()
    try:
        # The others end it without the seat whose time ran out, on the waiting seat's screen.
        game_id, tokens = tables["timeout"]
        pages = [open_table(c, server, game_id, t) for c, t in zip(contexts, tokens, strict=True)]
        waiting = pages[1 - deciding["timeout"]]
        waiting.click("#timeout-end")
        waiting.click("#confirm-end [data-action=end]")
        end_screens(pages, names, "timeout", artifacts, close=False)
        # Nobody moved for three deadlines: the server's sweep ends the game by itself. The
        # same two pages go there.
        game_id, tokens = tables["abandoned"]
        wait_until(lambda: server.get(f"/api/games/{game_id}")["table"]["status"] == "over", 120)
        for page, token in zip(pages, tokens, strict=True):
            show_table(page, server, game_id, token)
        end_screens(pages, names, "abandoned", artifacts, close=False)
        # Each ending counted once: three games each, the leaderboard as the API says.
        board = server.get("/api/ratings?game=gheos&players=2")["ratings"]
        assert {row["name"]: row["games"] for row in board} == dict.fromkeys(names, 3)
        for page, shown in zip(pages, ("laptop", "phone"), strict=True):
            page.goto(f"{server.base}/#/ratings/gheos/2")
            page.wait_for_selector(".leaderboard tbody tr")
            rows = page.locator(".leaderboard tbody tr")
            assert [rows.nth(i).get_attribute("data-player") for i in range(2)] == [
                row["name"] for row in board
            ]
            ratings = page.locator(".leaderboard .rating").all_text_contents()
            assert ratings == [f"{row['rating']:.2f}" for row in board]
            in_view(page, ".leaderboard")
            screenshot(page, artifacts / f"rated-endings-leaderboard-{shown}.png")
            assert page.errors.errors == []
    finally:
        server.stop()
        laptop.close()
        phone.close()


def test_a_tie_is_announced_as_a_tie(server: PlayServer, browser: Any, artifacts: Path) -> None:
    """Three seats at the start (nobody has scored), one concedes: the other two share first
    place, and the end screen says it is a tie, naming both, on a laptop and a phone."""
    body = {"game": "gheos", "players": 3, "seats": ["human"] * 3, "name": "Ann"}
    created = server.post("/api/games", body)
    game_id = created["id"]
    tokens = [created["seats"][0]["token"]]
    for seat, name in ((1, "Bo Li"), (2, "Cyd")):
        invite = {"invite": created["seats"][seat]["invite"], "name": name}
        tokens.append(server.post(f"/api/games/{game_id}/join", invite)["token"])
    ended = server.post(f"/api/games/{game_id}/concede", {}, tokens[2])["table"]["result"]
    assert sorted(line["place"] for line in ended) == [1, 1, 3]
    for seat, viewport, shown in ((0, LAPTOP, "laptop"), (1, PHONE, "phone")):
        context = browser.new_context(viewport=viewport, is_mobile=shown == "phone")
        page = open_table(context, server, game_id, tokens[seat])
        page.wait_for_selector("#end-screen h2")
        title = page.text_content("#end-screen h2") or ""
        assert "tie" in title.lower() and "Ann" in title and "Bo Li" in title, title
        assert "wins" not in title
        in_view(page, "#end-screen h2")
        screenshot(page, artifacts / f"tie-end-{shown}.png")
        assert page.errors.errors == []
        context.close()
