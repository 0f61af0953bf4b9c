"""The table as a player meets it, in a real browser: each test would have caught one of the
faults people found (issue 13) and shows the screen that replaced it.

- the Tigris replay keeps its controls once the board's map arrives (and its icons are drawn);
- the log is the whole history after a reload, a Resume from the lobby and on a second device,
  and a click on an entry shows the board as it was;
- the other player's last move is outlined; a square that is not legal says why (hover, tap);
- hints against a bot; the tab title says "Your turn"; a bot thinking shows; opponents'
  catastrophes and leaders in supply are listed; the seat menu lists bots by strength;
- a conflict is decided beside the board (never over it), says that ties go to the defender,
  rings leaders and supporters, and ends with a result panel;
- a click on a Gheos continent's middle (on its symbols) starts the civilization there, and
  Gheos speaks players' words in the log and the tooltips.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import (
    LAPTOP,
    PHONE,
    Laptop,
    PageErrors,
    click_and_wait,
    decide,
    missing_glyphs,
    note_screen_states,
    screen_states,
    screenshot,
    turn,
    version,
    wait_until,
)
from tests.helpers.server import GAMES, PlayServer

CELL = re.compile(r"^[A-P](?:[1-9]|1[01])$")


def finished_game(server: PlayServer, game: str) -> str:
    """A game of two random bots, played to its end by the server."""
    created = server.post("/api/games", {"game": game, "seats": ["bot:random", "bot:random"]})
    wait_until(lambda: server.get(f"/api/games/{created['id']}")["table"]["status"] == "over", 120)
    return str(created["id"])


def log_texts(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#log .log-entry .log-text").all_inner_texts()]


def wait_for_log(page: Any, server: PlayServer, game_id: str, token: str) -> list[str]:
    """The log once it holds every move of the record."""
    moves = len(server.get(f"/api/games/{game_id}/record", token)["actions"])
    wait_until(lambda: page.locator("#log .log-entry").count() == moves)
    return log_texts(page)


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_the_tigris_replay_keeps_its_controls(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    game_id = finished_game(server, "tigris")
    actions = server.get(f"/api/games/{game_id}/record")["actions"]
    moves = len(actions)
    # The first step whose move names a square (a pass or a commitment names none).
    placed = next(
        ply for ply, a in enumerate(actions, 1) if any(CELL.match(w.upper()) for w in a.split())
    )
    for size, name in ((LAPTOP, "tigris-replay"), (PHONE, "phone-tigris-replay")):
        context = browser.new_context(viewport=size)
        page = context.new_page()
        errors = PageErrors(page)
        page.goto(f"{server.base}/#/replay/{game_id}")
        page.wait_for_selector("#replay-slider")
        page.wait_for_selector(".tigris-board .river")  # the board's map has arrived and drawn
        assert page.locator("#replay-controls #replay-next").is_visible()
        page.click("#replay-next")
        page.click("#replay-next")
        assert page.locator("#replay-slider").input_value() == "2"
        assert page.locator("#replay-step").inner_text().strip() == f"Replay: step 2 of {moves}"
        page.locator("#replay-slider").fill(str(placed))
        page.wait_for_selector("[data-last-seat]", state="attached")  # the move is outlined
        page.click("#replay-last")
        assert page.locator("#result").count() == 1
        if size is LAPTOP:
            # Tooltips: special squares, treasures, monuments, leaders and the rest say what
            # they are (the squares' titles follow the final board).
            titles = dict(
                page.evaluate(
                    """() => [...document.querySelectorAll('.tigris-board .cell')].map(
                        (g) => [g.dataset.cell, g.querySelector('title').textContent])"""
                )
            )
            end = server.get(f"/api/games/{game_id}")
            special = server.get("/api/boards/tigris")["special"]
            assert all("special square" in titles[cell] for cell in special)
            for cell, value in end["board"].items():
                if value.endswith("*"):
                    assert "a treasure" in titles[cell], titles[cell]
                if value.startswith("leader:"):
                    assert "leader" in titles[cell], titles[cell]
            for monument in end.get("monuments") or []:
                assert "monument" in titles[monument["cell"]], titles[monument["cell"]]
        # The icons are drawn, not typed: no character on screen lacks a glyph.
        assert page.locator("#replay-first svg").count() == 1
        assert missing_glyphs(page) == []
        page.locator("#replay-slider").fill(str(moves // 2))
        screenshot(page, artifacts / f"{name}.png")
        assert errors.errors == []
        context.close()


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_the_log_is_the_whole_history_and_the_board_shows_what_happened(
    server: PlayServer, browser: Any, laptop: Laptop, artifacts: Path
) -> None:
    created = server.post(
        "/api/games", {"game": "tigris", "seats": ["human", "bot:medium"], "players": 2}
    )
    game_id, token = created["id"], created["seats"][0]["token"]
    page, errors = laptop
    note_screen_states(page)
    page.goto(f"{server.base}/#/play/{game_id}/{token}")
    page.wait_for_selector(".tigris-board .river")
    # Pass a few turns: the bot (which thinks a moment each time) moves in between. Its turn
    # may be over before the test looks: what the page showed meanwhile was noted.
    for _ in range(3):
        wait_until(lambda: turn(page) == "mine", 120)
        assert "Your turn" in page.title()
        seen = len(screen_states(page))
        click_and_wait(page, page.locator("#pass"))
        # a bot's turn shows it thinking
        wait_until(lambda seen=seen: any(s["thinking"] for s in screen_states(page)[seen:]), 60)
    thinking = [s for s in screen_states(page) if s["thinking"]]
    assert thinking and all("Waiting for" in s["title"] for s in thinking), thinking
    wait_until(lambda: turn(page) == "mine", 120)
    assert "Your turn" in page.title()
    screenshot(page, artifacts / "tigris-your-turn.png")
    before = wait_for_log(page, server, game_id, token)
    assert len(before) >= 5 and before[0].startswith(("Archer", "Medium bot"))  # no name given

    # The bot's moves since ours are outlined in its colour.
    record = server.get(f"/api/games/{game_id}/record", token)
    mine = max(i for i, seat in enumerate(record["seats"]) if seat == 0)
    theirs = {
        word.upper()
        for action, seat in zip(
            record["actions"][mine + 1 :], record["seats"][mine + 1 :], strict=True
        )
        if seat == 1
        for word in action.split()
        if CELL.match(word.upper())
    }
    assert outlined_squares(page, seat=1) == theirs
    # Reload, Resume from the lobby, a second device: the same whole log every time.
    page.reload()
    assert wait_for_log(page, server, game_id, token) == before
    page.goto(f"{server.base}/#/")
    page.locator(f"[data-game-id='{game_id}'] a", has_text="Resume").click()
    assert wait_for_log(page, server, game_id, token) == before
    other = browser.new_context(viewport=LAPTOP).new_page()
    other.goto(f"{server.base}/#/play/{game_id}/{token}")
    assert wait_for_log(other, server, game_id, token) == before
    other.context.close()

    # A click on an entry shows the board as it was after that move.
    page.locator("#log .log-entry[data-ply='1']").click()
    page.wait_for_selector("#past-bar:not([hidden])")
    assert "Move 1 of" in page.locator("#past-bar").inner_text()
    placed = page.locator(".tigris-board .tile, .tigris-board .leader, .catastrophe").count()
    screenshot(page, artifacts / "tigris-log-past-board.png")
    page.click("#back-to-game")
    page.wait_for_selector("#past-bar", state="hidden")
    now = page.locator(".tigris-board .tile, .tigris-board .leader, .catastrophe").count()
    assert now >= placed

    # Opponents' catastrophes left and leaders in supply are listed.
    # (The bot may have placed all its leaders by now: the circles follow the server's view.)
    view = server.get(f"/api/games/{game_id}", token)
    bull = page.locator(".score-table tr[data-player]").nth(1)
    opponent = view["players"][1]
    assert bull.locator(".catastrophes-left").inner_text() == str(view["catastrophes"][opponent])
    shown = {str(c.get_attribute("data-supply")) for c in bull.locator("[data-supply]").all()}
    assert shown == set(view["supply"][opponent])
    me = page.locator(".score-table tr[data-player]").nth(0)  # we only passed: all four
    assert me.locator("[data-supply]").count() == len(view["supply"][view["players"][0]]) == 4

    # Our first action of the turn (a tile alone on the land, so that no conflict starts) leaves
    # the bot's last moves outlined.
    occupied = set(view["board"])
    alone = next(
        a
        for a in view["legal_actions"]
        if a.startswith("tile ") and not occupied & set(neighbours(a.split()[-1]))
    )
    before_action = version(page)
    server.post(f"/api/games/{game_id}/actions", {"action": alone}, token)
    wait_until(lambda: version(page) != before_action)
    assert turn(page) == "mine"
    assert outlined_squares(page, seat=1) == theirs

    # A square that is not legal for the tile in hand says why: on hover, and on a tap.
    tile = page.locator("#hand-tiles .tile-btn:not([disabled])").first
    colour = tile.get_attribute("data-color")
    tile.click()
    river = server.get("/api/boards/tigris")["river"]
    board = server.get(f"/api/games/{game_id}", token)["board"]
    wrong = next(
        f"{c}{r}"
        for c in "ABCDEFGHIJKLMNOP"
        for r in range(1, 12)
        if f"{c}{r}" not in board and ((f"{c}{r}" in river) != (colour == "blue"))
    )
    page.locator(f".cell[data-cell='{wrong}']").hover()
    wait_until(lambda: "river" in page.locator("#why").inner_text())
    assert page.locator("#why").inner_text().startswith(f"Not on {wrong}:")
    taken = next(iter(board))
    page.locator(f".cell[data-cell='{taken}']").click()
    wait_until(lambda: f"Not on {taken}:" in page.locator("#why").inner_text())
    screenshot(page, artifacts / "tigris-why-not-legal.png")

    # Hints: the best moves with their chances and reasons; shown on the board, then played.
    page.click("#hint")
    page.wait_for_selector("#hints .hint-row")
    assert "win chance" in page.locator("#hints").inner_text()
    page.locator("#hints .hint-row button", has_text="Show").first.click()
    if page.locator("#hints .hint-row").first.get_attribute("data-action") != "pass":
        assert page.locator(".tigris-board .hinted").count() == 1
    screenshot(page, artifacts / "tigris-hints.png")
    click_and_wait(page, page.locator("#hints [data-play]").first)

    # The sound is off until asked for, and remembered.
    assert page.locator("#sound").get_attribute("aria-pressed") == "false"
    page.click("#sound")
    assert page.locator("#sound").get_attribute("aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('cradle.sound')") == "on"
    assert missing_glyphs(page) == []
    assert errors.errors == []


def outlined_squares(page: Any, seat: int) -> set[str]:
    """The Tigris squares outlined as a seat's last moves."""
    found: list[str] = page.evaluate(
        """(seat) => [...document.querySelectorAll(`.last-move[data-last-seat="${seat}"]`)].map(
            (m) => {
                const x = Number(m.getAttribute('x')), y = Number(m.getAttribute('y'));
                return 'ABCDEFGHIJKLMNOP'[Math.floor(x / 40)] + (Math.floor(y / 40) + 1);
            })""",
        seat,
    )
    return set(found)


def neighbours(cell: str) -> list[str]:
    column, row = "ABCDEFGHIJKLMNOP".index(cell[0]), int(cell[1:])
    return [
        f"{'ABCDEFGHIJKLMNOP'[c]}{r}"
        for c, r in ((column - 1, row), (column + 1, row), (column, row - 1), (column, row + 1))
        if 0 <= c < 16 and 1 <= r <= 11
    ]


def hot_seat_revolt(server: PlayServer, page: Any) -> tuple[str, str, list[str]]:
    """A hot-seat table where the second king placed beside the first one's temple starts a
    revolt; returns the game, its table token and the players (the screen awaits the
    attacker's commitment)."""
    created = server.post(
        "/api/games", {"game": "tigris", "seats": ["human", "human"], "hotseat": True}
    )
    game_id, token = created["id"], created["table_token"]
    page.goto(f"{server.base}/#/hotseat/{game_id}/{token}")
    page.wait_for_selector("#cover")
    first = server.get(f"/api/games/{game_id}")["to_move"]
    page.click("#cover [data-action=reveal]")
    # F3 holds a temple on the standard board; F2 and G3 are land beside it.
    server.post(f"/api/games/{game_id}/actions", {"action": "leader king F2"}, token)
    server.post(f"/api/games/{game_id}/actions", {"action": "pass"}, token)
    page.wait_for_selector("#cover")
    page.click("#cover [data-action=reveal]")
    view = server.post(f"/api/games/{game_id}/actions", {"action": "leader king G3"}, token)
    assert view["pending"]["kind"] == "revolt" and view["to_move"] == 1 - first
    page.wait_for_selector("#decision [data-action='commit 0']")
    return game_id, token, created["players"]


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")
def test_a_conflict_is_decided_beside_the_board_and_its_result_shown(
    server: PlayServer, browser: Any, laptop: Laptop, artifacts: Path
) -> None:
    page, errors = laptop
    hot_seat_revolt(server, page)
    panel = page.locator("#decision")
    assert "ties go to the defender" in panel.inner_text()
    # The two kings ringed, each side's temple (F3 counts for both) outlined.
    assert page.locator(".conflict-leader").count() == 2
    assert page.locator(".supporter.attacker").count() == 1
    assert page.locator(".supporter.defender").count() == 1
    box = panel.bounding_box()
    for cell in ("F2", "F3", "G3"):
        square = page.locator(f".cell[data-cell='{cell}']").bounding_box()
        assert box is not None and square is not None and not overlaps(box, square)
    screenshot(page, artifacts / "tigris-conflict.png")
    click_and_wait(page, panel.locator("[data-action='commit 0']"))
    page.wait_for_selector("#cover")
    page.click("#cover [data-action=reveal]")  # the defender answers
    page.wait_for_selector("#decision [data-action='commit 0']")
    click_and_wait(page, page.locator("#decision [data-action='commit 0']"))
    page.wait_for_selector("#cover")
    page.click("#cover [data-action=reveal]")
    result = page.locator("#conflict-result")
    result.wait_for()
    assert "1–1: ties go to the defender" in result.inner_text()
    assert "You lose the revolt" in result.inner_text()  # the attacker's screen
    screenshot(page, artifacts / "tigris-conflict-result.png")
    assert errors.errors == []
    # And on a phone: the decision is a sheet at the bottom, the board above it.
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    hot_seat_revolt(server, phone)
    sheet = phone.locator("#decision-area").bounding_box()
    assert sheet is not None and sheet["y"] + sheet["height"] >= PHONE["height"] - 2
    screenshot(phone, artifacts / "phone-tigris-conflict.png")
    phone.context.close()


# The middle of a symbol (wheat, cup, sword, temple...) drawn over a highlighted continent.
SYMBOL_OVER_TARGET = """() => {
    for (const sym of document.querySelectorAll('.region-target .sym, .region-target .temple')) {
        const r = sym.getBoundingClientRect();
        const x = r.x + r.width / 2, y = r.y + r.height / 2;
        if (document.elementsFromPoint(x, y).some((e) => e.classList.contains('target-region'))) {
            return [x, y];
        }
    }
    return null;
}"""


@pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")
def test_a_click_on_a_gheos_continents_middle_starts_a_civilization(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    context = browser.new_context(viewport=LAPTOP)
    rng = random.Random(4)
    deadline = time.monotonic() + 180
    point = None
    while point is None:
        # A random game may end before our seat is offered a start: then play a new one.
        created = server.post("/api/games", {"game": "gheos", "seats": ["human", "bot:random"]})
        game_id, token = created["id"], created["seats"][0]["token"]
        page = context.new_page()
        errors = PageErrors(page)
        page.goto(f"{server.base}/#/play/{game_id}/{token}")
        page.wait_for_selector(".gheos-board")
        while point is None and turn(page) != "over":
            assert time.monotonic() < deadline, "no civilization could be started"
            starts = page.locator("[data-start]")
            if turn(page) == "mine" and starts.count():
                starts.first.click()  # the continents where it may start light up
                point = page.evaluate(SYMBOL_OVER_TARGET)
                if point is None:
                    click_and_wait(page, page.locator(".target-region").first, force_event=True)
                continue
            if not decide(page, rng):
                page.wait_for_timeout(20)
        if point is None:
            assert errors.errors == []
            page.close()
    screenshot(page, artifacts / "gheos-continent-highlighted.png")

    def started_since(moves: int) -> bool:
        """The server's record (not the page, which may lag) holds our start after ``moves``."""
        record = server.get(f"/api/games/{game_id}/record", token)
        done = list(zip(record["actions"], record["seats"], strict=True))[moves:]
        return any(action.startswith("start ") and seat == 0 for action, seat in done)

    moves = len(server.get(f"/api/games/{game_id}/record", token)["actions"])
    for attempt in range(3):
        page.mouse.click(point[0], point[1])  # a real click, on the symbol in the middle
        try:
            wait_until(lambda: started_since(moves), seconds=10)
            break
        except AssertionError:
            # A frame that redrew the board between measuring and clicking (the page catching
            # up with a move) took the highlight away or moved the symbol: highlight and
            # measure again. A click the symbols swallow fails every attempt.
            assert attempt < 2, "a click on a highlighted continent's symbol was ignored"
            wait_until(lambda: turn(page) == "mine" and page.locator("[data-start]").count() > 0)
            if not page.locator(".target-region").count():
                page.locator("[data-start]").first.click()
            point = page.evaluate(SYMBOL_OVER_TARGET)
            assert point is not None
    record = server.get(f"/api/games/{game_id}/record", token)
    last = list(zip(record["actions"], record["seats"], strict=True))[-3:]
    assert any(action.startswith("start ") and seat == 0 for action, seat in last)
    # Players' words: no engine notation in the log or the map's tooltips.
    wait_until(lambda: page.locator("#log .log-entry").count() >= len(record["actions"]))
    engine_words = re.compile(r"\bt\d+\b|-?\d+,-?\d+|\(r\d\)|:(?:n|s|ne|nw|se|sw)\b")
    for text in page.locator("#log").all_inner_texts():
        assert not engine_words.search(text), text
    titles = page.evaluate(
        "() => [...document.querySelectorAll('.gheos-board title')].map((t) => t.textContent)"
    )
    assert titles and not [t for t in titles if engine_words.search(t)]
    assert "the tile with" in page.locator("#log").inner_text()
    screenshot(page, artifacts / "gheos-log-words.png")
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    phone.goto(f"{server.base}/#/play/{game_id}/{token}")
    phone.wait_for_selector(".gheos-board")
    phone.wait_for_selector("#log .log-entry")
    screenshot(phone, artifacts / "phone-gheos-log.png", full_page=True)
    phone.context.close()
    assert errors.errors == []
    context.close()


def test_the_seat_menu_lists_bots_by_strength_with_their_thinking_time(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    menu = server.get("/api/meta")["bot_menu"]
    levels = [
        b["name"] for b in sorted((b for b in menu if b["level"]), key=lambda b: b["strength"])
    ]
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("#create-game")
    group = page.locator("select[data-seat='1'] optgroup").first
    assert group.get_attribute("label") == "Bots, weakest first"
    shown = [str(o.get_attribute("value")) for o in group.locator("option").element_handles()]
    assert shown == [f"bot:{name}" for name in levels]
    labels = group.locator("option").all_inner_texts()
    assert all("moves at once" in label or "thinks up to" in label for label in labels)
    page.select_option("select[data-seat='1']", f"bot:{levels[-1]}")
    about = page.locator("[data-about='1']").inner_text()
    assert about.lower().startswith(levels[-1])
    screenshot(page, artifacts / "lobby-bot-levels.png")
    context.close()
