"""Accounts people trust and friends, in Chromium on a laptop (1366×768) and a phone (390×844),
with a real SMTP server (aiosmtpd): sign up with an address → open the mailed check → forget the
password → reset it by the mailed link (the other device is told it was signed out) → sign in;
two friends ask and accept by name, see each other online and invite each other to seats by
name (the invitation pushed to the open inbox); a blocked person can neither invite nor chat.
Screenshots of each step go to test-artifacts/friends-*.png."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.e2e import PHONE, Person, screenshot, wait_until
from tests.helpers.mail import Inbox, mailed_link
from tests.helpers.server import GAMES, PlayServer

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

LAPTOP = {"width": 1366, "height": 768}
PASSWORD = "a long enough secret"
NEW_PASSWORD = "another long secret"


class Friend(Person):
    """One browser context (its own cookies) of a given size; ``tag`` names its screenshots."""

    def __init__(self, browser: Any, server: PlayServer, size: dict[str, int], tag: str) -> None:
        super().__init__(browser, server, size)
        self.tag = tag

    def shot(self, artifacts: Path, step: str) -> None:
        screenshot(self.page, artifacts / f"friends-{step}-{self.tag}.png")

    def sign_in(self, name: str, password: str) -> None:
        self.goto("#/signin")
        self.page.fill("#signin-name", name)
        self.page.fill("#signin-password", password)
        self.page.click("#signin-submit")


def test_sign_up_verify_forget_and_reset_the_password(
    server: PlayServer, inbox: Inbox, browser: Any, artifacts: Path
) -> None:
    tag = secrets.token_hex(2)
    name, address = f"Ada {tag}", f"ada{tag}@example.org"
    laptop = Friend(browser, server, LAPTOP, "laptop")
    laptop.sign_up(name, PASSWORD, address)
    # The account page says the address waits for its check.
    laptop.page.wait_for_selector("#address-check .warn")
    assert address in laptop.page.locator("#address-check").inner_text()
    laptop.in_view("#address-check .warn")
    laptop.shot(artifacts, "1-signed-up")

    # The mailed link confirms the address.
    laptop.page.goto(mailed_link(inbox, address, "verify", 1))
    laptop.page.wait_for_selector("#verify .ok")
    laptop.in_view("#verify .ok")
    laptop.shot(artifacts, "2-verified")
    laptop.goto("#/account")
    laptop.page.wait_for_selector("#address-check .ok")

    # A phone signed in to the same account, on its inbox.
    phone = Friend(browser, server, PHONE, "phone")
    phone.sign_in(name, PASSWORD)
    phone.page.wait_for_selector(f"#account-link:text-is('{name}')")
    phone.goto("#/inbox")
    phone.page.wait_for_selector("#inbox")

    # The laptop signs out and forgets the password: a link is mailed.
    laptop.page.click("#signout")
    laptop.page.wait_for_selector("#signin-link")
    laptop.goto("#/signin")
    laptop.page.click("#forgot-link")
    laptop.page.wait_for_selector("#forgot-who")
    laptop.page.fill("#forgot-who", name.lower())
    laptop.page.click("#forgot-submit")
    laptop.page.wait_for_selector("#forgot-done:not(:empty)")
    laptop.in_view("#forgot-done")
    laptop.shot(artifacts, "3-forgot")

    # The mailed link sets a new password and signs the laptop in.
    laptop.page.goto(mailed_link(inbox, address, "reset", 2))
    laptop.page.wait_for_selector("#reset-password")
    laptop.shot(artifacts, "4-reset-form")
    laptop.page.fill("#reset-password", NEW_PASSWORD)
    laptop.page.click("#reset-submit")
    laptop.page.wait_for_selector(f"#account-link:text-is('{name}')")
    wait_until(lambda: laptop.page.evaluate("location.hash") == "#/inbox")
    laptop.shot(artifacts, "5-reset-signed-in")

    # The phone is told at once that it was signed out, and why.
    phone.page.wait_for_selector("#signed-out")
    assert "reset" in phone.page.locator("#signed-out").inner_text()
    phone.in_view("#signed-out")
    phone.shot(artifacts, "6-told")
    phone.page.click("#signed-out [data-action=signin]")

    # The old password no longer signs in; the new one does. The link works once.
    phone.page.fill("#signin-name", name)
    phone.page.fill("#signin-password", PASSWORD)
    phone.page.click("#signin-submit")
    phone.page.wait_for_selector("#signin-error:not(:empty)")
    phone.page.fill("#signin-password", NEW_PASSWORD)
    phone.page.click("#signin-submit")
    phone.page.wait_for_selector(f"#account-link:text-is('{name}')")
    phone.shot(artifacts, "7-signed-in")
    code = mailed_link(inbox, address, "reset", 2).rsplit("/", 1)[1]
    again = laptop.api("POST", f"/api/password-reset/{code}", {"password": "yet another secret"})
    assert again["status"] == 403
    laptop.clean()
    phone.clean()


def test_friends_invite_each_other_and_a_blocked_person_cannot(
    server: PlayServer, browser: Any, artifacts: Path
) -> None:
    tag = secrets.token_hex(2)
    ann_name, bob_name, cat_name = f"Ann {tag}", f"Bob {tag}", f"Cat {tag}"
    ann = Friend(browser, server, LAPTOP, "laptop")
    bob = Friend(browser, server, PHONE, "phone")
    cat = Friend(browser, server, LAPTOP, "laptop-cat")
    ann.sign_up(ann_name, PASSWORD)
    bob.sign_up(bob_name, PASSWORD)
    cat.sign_up(cat_name, PASSWORD)

    # Ann asks Bob by name; Bob's open friends page shows the request at once and he accepts.
    bob.goto("#/friends")
    bob.page.wait_for_selector("#add-friend-name")
    ann.goto("#/friends")
    ann.page.fill("#add-friend-name", bob_name)
    ann.page.click("#add-friend-submit")
    ann.page.wait_for_selector(f"#friends-asked li[data-name='{bob_name}']")
    bob.page.wait_for_selector(f"#friend-requests li[data-name='{ann_name}']")
    bob.in_view(f"#friend-requests li[data-name='{ann_name}'] [data-action=accept]")
    bob.shot(artifacts, "1-request")
    bob.page.click(f"#friend-requests li[data-name='{ann_name}'] [data-action=accept]")
    bob.page.wait_for_selector(f"#friend-list li[data-name='{ann_name}']")

    # Ann sees Bob online (his friends page holds its live connection).
    ann.goto("#/friends")
    ann.page.wait_for_selector(f"#friend-list li[data-name='{bob_name}'] .presence.online")
    ann.in_view(f"#friend-list li[data-name='{bob_name}']")
    ann.shot(artifacts, "2-online")

    # Ann invites Bob by name to a seat of her new table; Bob's inbox shows it at once.
    made = ann.api("POST", "/api/games", {"game": "tigris", "players": 2, "seats": ["human", "human"], "private": True})  # fmt: skip
    assert made["status"] == 200, made
    game_id = made["body"]["id"]
    bob.goto("#/inbox")
    bob.page.wait_for_selector("#inbox")
    ann.page.evaluate(
        "([id, token]) => localStorage.setItem('cradle.tables', JSON.stringify({[id]: {token, seat: 0}}))",
        [game_id, made["body"]["seats"][0]["token"]],
    )
    ann.goto(f"#/play/{game_id}")
    ann.page.wait_for_selector("#invite-friend-name")
    ann.in_view("#invite-friend-name")
    ann.page.fill("#invite-friend-name", bob_name)
    ann.page.click("#invite-friend-submit")
    ann.page.wait_for_selector("#toast.info:not([hidden])")
    ann.shot(artifacts, "3-invited")
    bob.page.wait_for_selector(f"#invitations li[data-game='{game_id}']")
    bob.in_view(f"#invitations li[data-game='{game_id}'] [data-action=accept]")
    bob.shot(artifacts, "4-invitation")
    bob.page.click(f"#invitations li[data-game='{game_id}'] [data-action=accept]")
    bob.page.wait_for_selector("#banner")
    wait_until(lambda: bob.page.evaluate("location.hash") == f"#/play/{game_id}")
    wait_until(lambda: ann_name in bob.page.locator("#banner").inner_text() or bob_name in bob.page.locator("#banner").inner_text())  # fmt: skip
    bob.shot(artifacts, "5-seated")

    # Bob invites Ann back, to a table of his.
    his = bob.api("POST", "/api/games", {"game": "tigris", "players": 2, "seats": ["human", "human"], "private": True})  # fmt: skip
    assert (
        bob.api("POST", f"/api/games/{his['body']['id']}/invite", {"name": ann_name})["status"]
        == 200
    )
    ann.goto("#/inbox")
    ann.page.wait_for_selector(f"#invitations li[data-game='{his['body']['id']}']")
    ann.shot(artifacts, "6-invited-back")

    # Ann blocks Cat: Cat's invitation is refused, and so are Cat's lines at Cat's table.
    cat.goto("#/friends")
    cat.page.fill("#add-friend-name", ann_name)
    cat.page.click("#add-friend-submit")
    ann.goto("#/friends")
    ann.page.fill("#block-someone-name", cat_name)
    ann.page.click("#block-someone-submit")
    ann.page.wait_for_selector(f"#blocked-list li[data-name='{cat_name}']")
    assert ann.page.locator("#friend-requests li").count() == 0  # Cat's request is never shown
    ann.shot(artifacts, "7-blocked")
    table = cat.api("POST", "/api/games", {"game": "tigris", "players": 2, "seats": ["human", "human"], "private": True})  # fmt: skip
    cat_game = table["body"]["id"]
    cat.page.evaluate(
        "([id, token]) => localStorage.setItem('cradle.tables', JSON.stringify({[id]: {token, seat: 0}}))",
        [cat_game, table["body"]["seats"][0]["token"]],
    )
    cat.goto(f"#/play/{cat_game}")
    cat.page.fill("#invite-friend-name", ann_name)
    cat.page.click("#invite-friend-submit")
    cat.page.wait_for_selector("#invite-friend-error:not(:empty)")
    cat.in_view("#invite-friend-error")
    cat.shot(artifacts, "8-invite-refused")
    # Ann takes Cat's seat by its link (she may); Cat's line to her table is refused in words.
    joined = ann.api(
        "POST", f"/api/games/{cat_game}/join", {"invite": table["body"]["seats"][1]["invite"]}
    )
    assert joined["status"] == 200
    cat.page.fill("#chat-input", "hello")
    cat.page.click("#chat-send")
    cat.page.wait_for_selector("#chat-error:has-text('blocks you')")
    cat.in_view("#chat-error")
    cat.shot(artifacts, "9-chat-refused")
    assert cat.page.locator("#chat-lines li").count() == 0
    for person in (ann, bob, cat):
        person.clean()
