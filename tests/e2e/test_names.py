"""People's names on every screen of a game (docs/play.md, "Names"): the log, the points table,
the banner, the replay and the analysis name the person at each seat (a bot by its level, two
alike told apart by their dynasty), never the dynasty alone; a hostile name stored in the
database stays text. On a laptop (1366x768) and a phone (390x844); screenshots go to
test-artifacts/.

The server refuses such a name (names are letters, digits, space, - and _), so the hostile one
is written into the database between two runs of the server, as an old or tampered database
could hold it."""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import open_page, screenshot, wait_until
from tests.helpers.server import GAMES, PlayServer

pytestmark = pytest.mark.skipif(
    "tigris" not in GAMES or "gheos" not in GAMES, reason="needs both engines"
)
LAPTOP = {"width": 1366, "height": 768}  # the laptop (PHONE: 390x844)
HOSTILE = '<img src=x onerror="alert(1)">'
PERSON = "Ana María"
SETTINGS = ("hint_seconds=0.1", "analysis_seconds=0.02", "password_kib=64")  # as conftest's


def play(server: PlayServer, game_id: str, tokens: dict[int, str], moves: int, seed: int) -> Any:
    """Random legal moves of the people (the bots move by themselves) until ``moves`` were
    made or the game ended; then until a person is to move again (no bot mid-thought)."""
    rng = random.Random(seed)
    frame = server.get(f"/api/games/{game_id}")
    deadline = time.monotonic() + 120
    while frame["table"]["status"] != "over" and time.monotonic() < deadline:
        deciding = frame["to_move"]
        if deciding not in tokens:
            time.sleep(0.05)
            frame = server.get(f"/api/games/{game_id}")
            continue
        if frame["table"]["moves"] >= moves:
            break
        legal = server.get(f"/api/games/{game_id}", tokens[deciding])["legal_actions"]
        frame = server.post(
            f"/api/games/{game_id}/actions", {"action": rng.choice(legal)}, tokens[deciding]
        )
    return frame


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PlayServer, dict[str, Any]]]:
    """A server whose database holds a running Tigris table (a person, a hostile name, two
    bots of one level) and a finished Gheos game (the same two people)."""
    db = tmp_path_factory.mktemp("names") / "games.sqlite3"
    url = f"sqlite:///{db}"
    first = PlayServer(url, bot_delay=0.0, settings=SETTINGS).start()
    try:
        seats = ["human", "human", "bot:easy", "bot:easy"]
        tigris = first.post(
            "/api/games", {"game": "tigris", "players": 4, "seats": seats, "name": PERSON}
        )
        joined = first.post(
            f"/api/games/{tigris['id']}/join",
            {"invite": tigris["seats"][1]["invite"], "name": "Placeholder"},
        )
        tigris_tokens = {0: tigris["seats"][0]["token"], 1: joined["token"]}
        play(first, tigris["id"], tigris_tokens, 6, seed=3)
        gheos = first.post(
            "/api/games", {"game": "gheos", "seats": ["human", "human"], "name": PERSON}
        )
        joined = first.post(
            f"/api/games/{gheos['id']}/join",
            {"invite": gheos["seats"][1]["invite"], "name": "Placeholder"},
        )
        gheos_tokens = {0: gheos["seats"][0]["token"], 1: joined["token"]}
        end = play(first, gheos["id"], gheos_tokens, 10_000, seed=5)
        assert end["table"]["status"] == "over"
    finally:
        first.stop()
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE seats SET name = ? WHERE seat = 1", (HOSTILE,))
    server = PlayServer(url, bot_delay=0.02, settings=SETTINGS).start()
    try:
        yield server, {"tigris": (tigris, tigris_tokens), "gheos": (gheos, gheos_tokens)}
    finally:
        server.stop()


# Tigris's conflict result for a seat named "Bull" (seat 0, the archer) against a markup name.
CONFLICT = """async () => {
  const tigris = await import("/static/tigris.js");
  const frame = { view: { players: ["archer", "bull"] },
    table: { seat: null, seats: ["human", "human"], names: ["Bull", "<b>x</b>"] } };
  const events = [{ type: "war_result", winner: 0, loser: 1, attack: 5, defence: 3,
    text: "archer wins the red war 5-3 against bull" }];
  const found = tigris.conflictOutcome(events, frame);
  return { title: found.title, lines: found.lines };
}"""


def no_markup_ran(page: Any) -> None:
    assert page.evaluate("document.querySelectorAll('img[src=x]').length") == 0
    assert page.dialogs == []
    assert page.errors.errors == []


def test_the_log_scores_and_banner_name_the_people(
    tables: tuple[PlayServer, dict[str, Any]], browser: Any, artifacts: Path
) -> None:
    server, made = tables
    created, tokens = made["tigris"]
    game_id = created["id"]
    dynasties = created["players"]
    expected = [PERSON, HOSTILE, *(f"Easy bot ({d.title()})" for d in dynasties[2:])]
    record = server.get(f"/api/games/{game_id}/record", tokens[0])
    movers = record["seats"]
    laptop = open_page(browser, server, f"#/play/{game_id}/{tokens[0]}")
    phone = open_page(browser, server, f"#/watch/{game_id}", phone=True)
    for page, name in ((laptop, "laptop"), (phone, "phone")):
        wait_until(lambda page=page: page.locator("#log .log-entry").count() == len(movers), 120)
        texts = page.locator("#log .log-entry .log-text").all_inner_texts()
        for text, seat in zip(texts, movers, strict=True):
            assert text.startswith(f"{expected[seat]}: "), (seat, text)
        # No dynasty stands alone for a seat: each is only the cue after a bot's level.
        words = " ".join(page.locator("#log").all_inner_texts())
        for dynasty in dynasties[:2]:
            assert dynasty.title() not in words, (dynasty, words)
        rows = page.locator("#scores .dynasty-chip").all_inner_texts()
        assert rows == expected
        # The dynasty stays the seat's cue: the chip's colour, and its name as the tooltip.
        assert page.locator("#scores .dynasty-chip").first.get_attribute("title") == (
            dynasties[0].title()
        )
        screenshot(page, artifacts / f"names-log-{name}.png")
        screenshot(page.locator(".log-card"), artifacts / f"names-log-{name}-log.png")
        screenshot(page.locator("#scores"), artifacts / f"names-scores-{name}.png")
        no_markup_ran(page)
    assert "you are Ana María" in laptop.locator("#banner").inner_text()
    # A conflict's result panel names both sides; the engine's event is worded from its seats
    # (a person called like another seat's dynasty is not renamed again).
    outcome = laptop.evaluate(CONFLICT)
    assert outcome["title"] == "Bull wins the red war 5–3 against <b>x</b>"
    assert outcome["lines"] == [
        "Attacker Bull: 5 · defender <b>x</b>: 3.",
        "Bull wins the red war 5–3; <b>x</b>'s leader returns and 0 red tiles leave the board",
    ]
    # A past board's bar names the mover too.
    laptop.locator("#log .log-entry[data-ply='2']").click()
    laptop.wait_for_selector("#past-bar:not([hidden])")
    assert f"{expected[movers[1]]}: " in laptop.locator("#past-bar").inner_text()
    no_markup_ran(laptop)
    for page in (laptop, phone):
        page.context.close()


def test_the_replay_and_the_analysis_name_the_people(
    tables: tuple[PlayServer, dict[str, Any]], browser: Any, artifacts: Path
) -> None:
    server, made = tables
    created, _ = made["gheos"]
    game_id = created["id"]
    names = [PERSON, HOSTILE]
    for phone in (False, True):
        page = open_page(browser, server, f"#/replay/{game_id}", phone=phone)
        page.wait_for_selector("#replay-last")
        page.click("#replay-last")
        page.wait_for_selector("#result")
        shown = page.locator("#result .dynasty-chip").all_inner_texts()
        assert sorted(shown) == sorted(names)
        options = page.locator(".seat-choice option").all_inner_texts()
        assert options[1:] == [
            f"{n} ({d.title()})" for n, d in zip(names, created["players"], strict=True)
        ]
        page.locator("#replay-slider").fill("3")
        banner = page.locator(".banner").inner_text()
        assert any(f"{name}: " in banner for name in names), banner
        screenshot(page, artifacts / f"names-replay-{'phone' if phone else 'laptop'}.png")
        no_markup_ran(page)
        page.context.close()
    page = open_page(browser, server, f"#/analysis/{game_id}")
    page.wait_for_selector(".legend .dynasty-chip", timeout=60_000)
    assert page.locator(".legend .dynasty-chip").all_inner_texts() == names
    wait_until(lambda: page.locator("#costly-list .costly-move").count() > 0, 90)
    heads = page.locator("#costly-list .costly-move > div > strong").all_inner_texts()
    assert heads and all(head.split(" · ", 1)[1] in names for head in heads), heads
    screenshot(page, artifacts / "names-analysis-laptop.png")
    no_markup_ran(page)
    page.context.close()
