"""The table's chat in the browser: hostile lines shown as text (no element, no dialog), the
unread count, the phone's chat sheet over the board, mute, and a spectator at a table that
lets spectators chat. Screenshots (laptop and phone) go to test-artifacts/."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import cradle
from tests.helpers.e2e import (
    PHONE,
    PageErrors,
    assert_inside_viewport,
    open_page,
    post_as,
    screenshot,
    sign_up,
    wait_until,
)
from tests.helpers.server import GAMES, PlayServer

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")


LAPTOP = {"width": 1366, "height": 768}  # the laptop (PHONE: 390x844)

HOSTILE = [
    "<script>alert('chat')</script>",
    '<img src=x onerror="alert(document.domain)">',
    "\"'><svg onload=alert(1)>&amp;",
]


def chat_texts(page: Any) -> list[str]:
    texts: list[str] = page.locator("#chat-lines .chat-text").all_text_contents()
    return texts


def wait_for_line(page: Any, text: str) -> None:
    """Until ``text`` shows in the page's chat; else say what the page shows instead."""
    try:
        wait_until(lambda: text in chat_texts(page))
    except AssertionError as error:
        raise AssertionError(
            f"{text!r} not shown: lines {chat_texts(page)}, "
            f"error {page.text_content('#chat-error')!r}, "
            f"field {page.input_value('#chat-input')!r}"
        ) from error


def test_chat_with_hostile_lines_on_a_laptop_a_phone_and_for_a_spectator(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    created = server.post(
        "/api/games",
        {"game": "tigris", "seats": ["human", "human"], "spectator_chat": True},
    )
    game_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    laptop = open_page(browser, server, f"#/play/{game_id}/{tokens[0]}")
    phone = open_page(browser, server, f"#/invite/{game_id}/{created['seats'][1]['invite']}", True)
    watcher = open_page(browser, server, f"#/watch/{game_id}")
    for page in (laptop, phone, watcher):
        page.wait_for_selector("#chat-form", state="attached")
    # The laptop writes each hostile line; every screen shows it as the very text typed.
    for text in HOSTILE:
        laptop.fill("#chat-input", text)
        laptop.click("#chat-send")
        wait_for_line(laptop, text)
    assert laptop.input_value("#chat-input") == ""
    for page in (laptop, watcher):
        wait_until(lambda page=page: chat_texts(page) == HOSTILE)
    # The phone's chat is a sheet, closed: the corner button counts the lines not seen yet.
    phone.wait_for_selector("#chat-unread:not([hidden])")
    wait_until(lambda: phone.text_content("#chat-unread") == "3")
    assert not phone.is_visible("#chat")
    board_top = phone.locator("#board").bounding_box()["y"]
    screenshot(phone, artifacts / "chat-phone-unread.png")
    phone.click("#chat-toggle")
    phone.wait_for_selector("#chat.open")
    assert phone.is_visible("#chat-input") and phone.is_hidden("#chat-unread")
    sheet = phone.locator("#chat").bounding_box()
    assert sheet["y"] >= PHONE["height"] * 0.35  # the board's top half stays in view above it
    assert phone.locator("#board").bounding_box()["y"] == board_top  # the board did not move
    assert chat_texts(phone) == HOSTILE
    screenshot(phone, artifacts / "chat-phone-open.png")
    # Text, never markup: no element came from a line, no script ran, no dialog opened.
    for page in (laptop, phone, watcher):
        assert page.locator("#chat-lines script, #chat-lines img, #chat-lines svg").count() == 0
        assert page.evaluate("document.querySelectorAll('img[src=x]').length") == 0
        assert page.dialogs == []
    # The phone answers; then mutes the laptop's seat, whose next line it no longer gets.
    phone.fill("#chat-input", "hello from the phone")
    phone.click("#chat-send")
    wait_until(lambda: "hello from the phone" in chat_texts(laptop))
    screenshot(laptop, artifacts / "chat-laptop.png")
    phone.locator("#chat-lines .chat-line[data-speaker='s:0'] .chat-mute").first.click()
    phone.wait_for_selector("[data-unmute='s:0']")
    assert chat_texts(phone) == ["hello from the phone"]
    laptop.fill("#chat-input", "can you hear me?")
    laptop.click("#chat-send")
    wait_until(lambda: "can you hear me?" in chat_texts(watcher))
    phone.wait_for_timeout(500)
    assert "can you hear me?" not in chat_texts(phone)
    phone.click("[data-unmute='s:0']")
    wait_until(lambda: "can you hear me?" in chat_texts(phone))
    # A line over the limit is refused with the reason in view (the sheet's own line).
    phone.evaluate("document.getElementById('chat-input').removeAttribute('maxlength')")
    phone.fill("#chat-input", "x" * 501)
    phone.click("#chat-send")
    phone.wait_for_selector("#chat-error:has-text('500')")
    assert phone.is_visible("#chat-error")
    screenshot(watcher, artifacts / "chat-spectator.png")
    for page in (laptop, phone, watcher):
        assert page.errors.errors == []
        page.context.close()


def test_spectators_see_no_chat_where_the_table_keeps_it_to_its_players(
    server: PlayServer, browser: Any
) -> None:
    created = server.post("/api/games", {"game": "tigris", "seats": ["human", "human"]})
    game_id = created["id"]
    server.post(
        f"/api/games/{game_id}/chat", {"text": "players only"}, created["seats"][0]["token"]
    )
    watcher = open_page(browser, server, f"#/watch/{game_id}")
    watcher.wait_for_selector("#board svg")
    watcher.wait_for_timeout(300)
    assert watcher.is_hidden("#chat") and watcher.is_hidden("#chat-toggle")
    assert watcher.errors.errors == []
    watcher.context.close()


def test_a_rated_game_moves_the_leaderboard_and_the_profile(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    laptop = browser.new_context(viewport=LAPTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    names = ("Ana María", "Jürgen_2")
    csrf = [sign_up(laptop, server, names[0]), sign_up(phone, server, names[1])]
    body = {"game": "gheos", "seats": ["human", "human"], "rated": True}
    created = post_as(laptop, server, csrf[0], "/api/games", body)
    game_id = created["id"]
    invite = created["seats"][1]["invite"]
    joined = post_as(phone, server, csrf[1], f"/api/games/{game_id}/join", {"invite": invite})
    tokens = [created["seats"][0]["token"], joined["token"]]
    pages = []
    for context, token in ((laptop, tokens[0]), (phone, tokens[1])):
        page = context.new_page()
        page.errors = PageErrors(page)
        page.goto(f"{server.base}/#/play/{game_id}/{token}")
        page.wait_for_selector("#board svg")
        pages.append(page)
    # A quick game through the API: random legal moves of whoever decides.
    rng = random.Random(5)
    frame = server.get(f"/api/games/{game_id}")
    while frame["table"]["status"] != "over":
        token = tokens[frame["to_move"]]
        legal = server.get(f"/api/games/{game_id}", token)["legal_actions"]
        frame = server.post(f"/api/games/{game_id}/actions", {"action": rng.choice(legal)}, token)
    places = {line["seat"]: line["place"] for line in frame["table"]["result"]}
    for page in pages:  # the end screen says what the game did to both ratings
        page.wait_for_selector("#end-screen #rating-note li")
        assert page.locator("#rating-note li").count() == 2
    screenshot(pages[1], artifacts / "rated-end-phone.png")
    # (The only rated Gheos game of two on the worker's server: the others are not rated.)
    board = server.get("/api/ratings?game=gheos&players=2")["ratings"]
    assert {row["name"] for row in board} == set(names)
    top = board[0]["name"]
    if places[0] != places[1]:
        assert top == names[0 if places[0] < places[1] else 1]
    # The leaderboard on the laptop: both players, best first, each a link to the profile.
    page = pages[0]
    page.goto(f"{server.base}/#/ratings/gheos/2")
    page.wait_for_selector(".leaderboard tbody tr")
    # The tabs mark the game and the number of players shown.
    marked = page.locator(".tabs [aria-current=page]")
    assert [marked.nth(i).get_attribute("data-tab") for i in range(marked.count())] == [
        "gheos",
        "gheos-2",
    ]
    rows = page.locator(".leaderboard tbody tr")
    assert rows.count() == 2
    assert page.locator(".leaderboard tbody tr").first.get_attribute("data-player") == top
    shown = page.locator(".leaderboard .rating").all_text_contents()
    assert shown == [f"{row['rating']:.2f}" for row in board]
    screenshot(page, artifacts / "ratings-laptop.png")
    page.click(f"[data-player='{names[1]}'] .player-link")
    page.wait_for_selector("#profile-name")
    assert page.text_content("#profile-name") == names[1]
    assert page.locator("#rating-chart .rating-dot").count() == 1
    listed = page.locator(f"#profile-games li[data-game='{game_id}']")
    assert "rated" in listed.text_content()
    screenshot(page, artifacts / "profile-laptop.png")
    # The phone's own profile: its rating and the chart, in the phone's width.
    other = pages[1]
    other.goto(f"{server.base}/#/player/{names[1]}")
    other.wait_for_selector("#rating-chart")
    chart = other.locator("#rating-chart").bounding_box()
    assert chart["x"] >= 0 and chart["x"] + chart["width"] <= PHONE["width"]
    screenshot(other, artifacts / "profile-phone.png")
    other.goto(f"{server.base}/#/ratings/gheos")
    other.wait_for_selector(".leaderboard tbody tr")
    screenshot(other, artifacts / "ratings-phone.png")
    for page in pages:
        assert page.errors.errors == []
    laptop.close()
    phone.close()


def test_the_rated_badge_in_the_lobby_and_the_inbox(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    """A rated table's row carries the badge (with its words for a screen reader and as a
    tooltip); a table that is not rated carries none: in the lobby on a laptop and a phone,
    and in the player's inbox."""
    laptop = browser.new_context(viewport=LAPTOP)
    csrf = sign_up(laptop, server, "Rita Badge")
    body = {"game": "tigris", "seats": ["human", "open"], "rated": True}
    rated = post_as(laptop, server, csrf, "/api/games", body)["id"]
    plain = post_as(laptop, server, csrf, "/api/games", {**body, "rated": False})["id"]
    page = laptop.new_page()
    page.errors = PageErrors(page)
    page.goto(f"{server.base}/#/")
    badge = page.locator(f"[data-game-id='{rated}'] .badge.rated")
    badge.wait_for()
    assert "Rated" in badge.inner_text()
    assert "ratings" in badge.get_attribute("aria-label")
    assert badge.get_attribute("title") == badge.get_attribute("aria-label")
    assert page.locator(f"[data-game-id='{plain}'] .badge.rated").count() == 0
    screenshot(page.locator(f"[data-game-id='{rated}']"), artifacts / "rated-row-laptop.png")
    page.goto(f"{server.base}/#/inbox")
    page.locator(f".inbox-game[data-id='{rated}'] .badge.rated").wait_for()
    assert page.locator(f".inbox-game[data-id='{plain}'] .badge.rated").count() == 0
    screenshot(page, artifacts / "rated-inbox-laptop.png")
    assert page.errors.errors == []
    laptop.close()
    phone = open_page(browser, server, "#/", phone=True)
    badge = phone.locator(f"[data-game-id='{rated}'] .badge.rated")
    badge.wait_for()
    box = badge.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    screenshot(phone.locator(f"[data-game-id='{rated}']"), artifacts / "rated-row-phone.png")
    assert phone.errors.errors == []
    phone.context.close()


def test_a_spectator_mutes_a_player_and_hears_them_again(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    created = server.post(
        "/api/games", {"game": "tigris", "seats": ["human", "human"], "spectator_chat": True}
    )
    game_id, token = created["id"], created["seats"][0]["token"]
    chat = f"/api/games/{game_id}/chat"
    server.post(chat, {"text": "first line"}, token)
    watcher = open_page(browser, server, f"#/watch/{game_id}", phone=True)
    wait_until(lambda: chat_texts(watcher) == ["first line"])
    watcher.click("#chat-toggle")
    watcher.fill("#chat-input", "a spectator says hi")
    watcher.click("#chat-send")
    wait_until(lambda: "a spectator says hi" in chat_texts(watcher))
    # Its own line has no Mute button; the player's has.
    own = watcher.locator("#chat-lines .chat-line", has_text="a spectator says hi")
    assert own.locator(".chat-mute").count() == 0
    watcher.locator("#chat-lines .chat-line[data-speaker='s:0'] .chat-mute").first.click()
    watcher.wait_for_selector("[data-unmute='s:0']")
    assert chat_texts(watcher) == ["a spectator says hi"]
    server.post(chat, {"text": "muted line"}, token)
    spectator_line = server.post(chat, {"text": "still heard"}, created["seats"][1]["token"])
    assert spectator_line["seat"] == 1
    wait_until(lambda: "still heard" in chat_texts(watcher))
    assert "muted line" not in chat_texts(watcher)
    screenshot(watcher, artifacts / "chat-spectator-muted-phone.png")
    watcher.click("[data-unmute='s:0']")
    wait_until(lambda: "muted line" in chat_texts(watcher))
    assert watcher.errors.errors == []
    watcher.context.close()


def reports(server: PlayServer) -> str:
    """The open reports as the operator reads them (``cradle admin reports``)."""
    run = cradle("admin", "reports", "--database", server.database_url)
    assert run.code == 0, (run.out, run.err)
    return run.out


def send_report(page: Any, reason: str, artifacts: Path, shot: str) -> None:
    """The report dialog in view: an empty reason is refused in words; then ``reason`` goes."""
    page.wait_for_selector("#report")
    assert_inside_viewport(page, "#report")
    page.click("#report [data-action=report]")
    page.wait_for_selector("#report-error:not(:empty)")
    assert page.is_visible("#report")  # nothing sent, the dialog stays
    page.fill("#report-reason", reason)
    screenshot(page, artifacts / shot)
    page.click("#report [data-action=report]")
    page.wait_for_selector("#report", state="detached")
    page.wait_for_selector("#toast:not([hidden])")
    assert_inside_viewport(page, "#toast")


def test_a_chat_line_and_a_player_reported_reach_the_operator(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    """A player reports the other seat's line from the chat (laptop); a signed-in phone
    reports a player from the profile; `cradle admin reports` lists both, words as written."""
    created = server.post("/api/games", {"game": "tigris", "seats": ["human", "human"]})
    game_id = created["id"]
    joined = server.post(f"/api/games/{game_id}/join", {"invite": created["seats"][1]["invite"]})
    rude = f"you all play like fools {random.randrange(10**6)}"
    server.post(f"/api/games/{game_id}/chat", {"text": rude}, joined["token"])
    laptop = open_page(browser, server, f"#/play/{game_id}/{created['seats'][0]['token']}")
    wait_for_line(laptop, rude)
    own = "a line of mine"
    laptop.fill("#chat-input", own)
    laptop.click("#chat-send")
    wait_for_line(laptop, own)
    # Only the others' lines can be reported.
    assert laptop.locator(".chat-line.mine .chat-report").count() == 0
    laptop.locator(".chat-line[data-speaker='s:1'] .chat-report").click()
    assert rude in laptop.text_content("#report-about")
    send_report(laptop, "insults at the table", artifacts, "report-line-laptop.png")
    listed = reports(server)
    assert rude in listed and "insults at the table" in listed

    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    reported = f"Spammer {random.randrange(10**4)}"
    sign_up(browser.new_context(viewport=PHONE), server, reported)
    sign_up(phone, server, f"Careful {random.randrange(10**4)}")
    page = phone.new_page()
    errors = PageErrors(page)
    page.goto(f"{server.base}/#/player/{reported}")
    page.wait_for_selector("#profile-name")
    page.click("#report-player")
    send_report(page, "spams every table it sits at", artifacts, "report-player-phone.png")
    listed = reports(server)
    assert f"player {reported}" in listed and "spams every table it sits at" in listed
    assert laptop.errors.errors == [] and errors.errors == []
    assert laptop.dialogs == []
    laptop.context.close()
    phone.close()


def test_a_private_game_shared_by_its_player_opens_to_whoever_has_the_link(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    """A private table's player shares the finished game from the end screen (laptop); a
    phone without the link is refused the replay, with the link it watches it."""
    body = {"game": "tigris", "seats": ["human", "human"], "private": True}
    created = server.post("/api/games", body)
    game_id = created["id"]
    joined = server.post(f"/api/games/{game_id}/join", {"invite": created["seats"][1]["invite"]})
    server.post(f"/api/games/{game_id}/concede", {}, joined["token"])
    laptop = open_page(browser, server, f"#/play/{game_id}/{created['seats'][0]['token']}")
    laptop.wait_for_selector("#end-screen [data-action=share]")
    laptop.click("#end-screen [data-action=share]")
    laptop.wait_for_selector("#share-link")
    assert_inside_viewport(laptop, "#share")
    link = laptop.input_value("#share-link")
    assert re.fullmatch(rf"{re.escape(server.base)}/#/replay/{game_id}/[0-9a-f]{{32}}", link)
    screenshot(laptop, artifacts / "share-laptop.png")

    stranger = open_page(browser, server, f"#/replay/{game_id}", phone=True)
    stranger.wait_for_selector(".card h1")
    assert stranger.locator("#replay-step").count() == 0  # private: no replay without the key
    stranger.goto(link)
    stranger.wait_for_selector("#replay-step")
    assert_inside_viewport(stranger, "#replay-step")
    assert stranger.locator("#replay-share").count() == 0  # not a player: nothing to share
    screenshot(stranger, artifacts / "share-opened-phone.png")
    assert laptop.errors.errors == []
    assert all("403" in error for error in stranger.errors.errors)  # the replay refused before
    for page in (laptop, stranger):
        page.context.close()
