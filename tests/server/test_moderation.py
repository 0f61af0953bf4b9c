"""Moderation (docs/server.md, "Moderation"): people report a chat line or a player; an
operator reads the reports and mutes, suspends or deletes an account, removes chat lines and
closes reports with `cradle admin`, beside the running server; every action is logged in the
database, with who and why. On SQLite and PostgreSQL."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.app import create_app
from cradle.server.limits import Limits
from tests.helpers.cli import assert_clean_error, cradle
from tests.helpers.server import GAMES, auth, token_of

pytestmark = pytest.mark.skipif("gheos" not in GAMES, reason="needs the Gheos engine")

PASSWORD = "a good password"


class Person:
    """A browser of a signed-in player: its own cookies, its CSRF token on every write."""

    def __init__(self, client: TestClient, name: str) -> None:
        self.client = client
        answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        self.csrf = answer.json()["csrf"]

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **auth(token)}
        return self.client.post(path, json=body, headers=headers)


@pytest.fixture
def served(any_db_url: str) -> Iterator[tuple[str, list[TestClient]]]:
    app = create_app(
        any_db_url, bot_delay=0, limits=Limits(analyse_finished=False, password_kib=64)
    )
    with TestClient(app) as first:
        yield (
            any_db_url,
            [
                first,
                TestClient(app, client=("10.1.2.3", 5000)),
                TestClient(app, client=("10.9.8.7", 5000)),
            ],
        )


def admin(url: str, *args: str) -> str:
    run = cradle("admin", *args, "--database", url)
    assert run.code == 0, (run.out, run.err)
    return run.out


def test_reports_reach_the_operator_whose_every_action_is_logged(
    served: tuple[str, list[TestClient]],
) -> None:
    url, (first, second, stranger) = served
    ann, bob = Person(first, "Ann"), Person(second, "Bob")
    made = ann.post("/api/games", {"game": "gheos", "seats": ["human", "human"]}).json()
    game_id = made["id"]
    joined = bob.post(f"/api/games/{game_id}/join", {"invite": made["seats"][1]["invite"]})
    tokens = [token_of(made, 0), joined.json()["token"]]
    said = bob.post(f"/api/games/{game_id}/chat", {"text": "you are all fools"}, tokens[1])
    assert said.status_code == 200, said.text
    line = said.json()["id"]

    # People report: a reader of the chat reports a line; anyone a player by name.
    path = f"/api/games/{game_id}/chat/{line}/report"
    reported = ann.post(path, {"reason": "rude"}, tokens[0])
    assert reported.status_code == 200, reported.text
    assert stranger.post(path, json={"reason": "x"}).status_code == 403  # not a reader
    missing = ann.post(f"/api/games/{game_id}/chat/{line + 99}/report", {"reason": "x"}, tokens[0])
    assert missing.status_code == 404
    assert ann.post(path, {"reason": "  "}, tokens[0]).status_code == 400
    assert ann.post(path, {"reason": "a\u2028b"}, tokens[0]).status_code == 400
    player = stranger.post("/api/players/Bob/report", json={"reason": "spams every table"})
    assert player.status_code == 200, player.text
    assert stranger.post("/api/players/Nobody/report", json={"reason": "x"}).status_code == 404

    listed = admin(url, "reports")
    assert f"#{reported.json()['id']}" in listed and "'you are all fools'" in listed
    assert "from a:" in listed and "rude" in listed
    assert "player Bob" in listed and "spams every table" in listed and "from c:" in listed

    # Mute: Bob writes no more lines, anywhere; unmuted, he does again.
    assert "muted Bob" in admin(url, "mute", "Bob", "--why", "insults", "--by", "mod-ann")
    refused = bob.post(f"/api/games/{game_id}/chat", {"text": "hello?"}, tokens[1])
    assert refused.status_code == 403 and "muted" in refused.json()["error"]
    admin(url, "unmute", "bob", "--by", "mod-ann")
    assert bob.post(f"/api/games/{game_id}/chat", {"text": "sorry"}, tokens[1]).status_code == 200

    # A line removed is gone from the chat; the log keeps its words.
    admin(url, "remove-line", str(line), "--why", "insult", "--by", "mod-ann")
    texts = [entry["text"] for entry in ann.client.get(
        f"/api/games/{game_id}/chat", headers=auth(tokens[0])).json()["lines"]]  # fmt: skip
    assert texts == ["sorry"]

    # Suspend: Bob's sessions end at once, and he cannot sign in; lifted, he can.
    admin(url, "suspend", "Bob", "--why", "repeated insults", "--by", "mod-ann")
    assert second.get("/api/me").json()["account"] is None
    signing = second.post("/api/session", json={"name": "Bob", "password": PASSWORD})
    assert signing.status_code == 403 and "suspended" in signing.json()["error"]
    admin(url, "unsuspend", "Bob", "--by", "mod-ann")
    signing = second.post("/api/session", json={"name": "Bob", "password": PASSWORD})
    assert signing.status_code == 200, signing.text

    admin(url, "close", str(player.json()["id"]), "--why", "dealt with", "--by", "mod-ann")
    assert "player Bob" not in admin(url, "reports")
    assert "(closed) " in admin(url, "reports", "--all")
    assert "deleted Bob" in admin(url, "delete", "Bob", "--why", "asked to", "--by", "mod-ann")
    assert first.get("/api/players/Bob").status_code == 404

    # Refusals are one clean line.
    assert_clean_error(cradle("admin", "mute", "Nobody", "--database", url), "no account")
    assert_clean_error(cradle("admin", "remove-line", "99999", "--database", url), "no chat line")
    assert_clean_error(cradle("admin", "close", "99999", "--database", url), "no open report")

    logged = admin(url, "log").strip().splitlines()
    actions = [entry.split(" mod-ann: ")[1].split(" ")[0] for entry in logged]
    assert actions == ["mute", "unmute", "remove-line", "suspend", "unsuspend", "close", "delete"]
    assert "(insults)" in logged[0] and "account Bob (" in logged[0]
    assert "you are all fools" in logged[2]
