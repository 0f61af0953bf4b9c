"""A database failure's answer reads in the player's language (issue 66): the 503 carries,
beside its English sentence (``error``), the catalogue's message and its params, each of them
a message the web client's reasons (src/cradle/web/i18n/reasons) hold in every language."""

from __future__ import annotations

import json
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle import i18n
from cradle.server.app import create_app
from cradle.server.errors import unavailable
from cradle.server.store.errors import CorruptGame, ReadOnly, StorageError
from tests.helpers.server import GAMES, auth, create

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

REASONS = Path(i18n.__file__).resolve().parent / "web/i18n/reasons"
TAGS = ("es", "pt-BR", "pt-PT")


def said(tag: str, message: str, params: dict[str, Any]) -> str:
    """The answer as the web client says it (serverReason in i18n.js): the message in its
    language, a message among the params ("doing", "reason") in it too."""
    messages: dict[str, str] = json.loads((REASONS / f"{tag}.json").read_text("utf-8"))["messages"]
    words = {name: messages.get(str(value), str(value)) for name, value in params.items()}
    return messages[message].format(**words)


def test_a_failed_write_answers_503_with_its_message_and_params(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(f"sqlite:///{path}", bot_delay=0)) as client:
        game = create(client)
        seat = client.get(f"/api/games/{game['id']}").json()["to_move"]
        token = next(s["token"] for s in game["seats"] if s["seat"] == seat)
        with sqlite3.connect(path) as db:  # the database loses a table under the server
            db.execute("DROP TABLE actions")
        answer = client.post(
            f"/api/games/{game['id']}/actions", json={"action": "pass"}, headers=auth(token)
        )
    assert answer.status_code == 503, answer.text
    assert int(answer.headers["Retry-After"]) >= 1
    body = answer.json()
    assert body["message"] == "{doing}: {reason}; try again soon"
    assert body["params"] == {
        "doing": "the move could not be stored",
        "reason": "the database cannot be reached",
    }
    assert body["error"] == body["message"].format(**body["params"])
    assert said("es", body["message"], body["params"]) == (
        "no se pudo guardar la jugada: no se puede acceder a la base de datos; "
        "inténtalo de nuevo en breve"
    )
    assert "guardar a jogada" in said("pt-PT", body["message"], body["params"])
    assert "salvar a jogada" in said("pt-BR", body["message"], body["params"])


@pytest.mark.parametrize(
    ("failure", "doing", "message"),
    [
        (StorageError("disk", "the database's disk is full"), None, "{reason}; try again soon"),
        (ReadOnly("ro", "the database cannot be written"), None, "the database cannot be written"),
        (ReadOnly("ro", "the database cannot be written"), "the game could not be stored",
         "the database cannot be written"),
        (CorruptGame("g1", "its options are not valid"), None,
         "game {game} cannot be restored: {reason}"),
    ],
)  # fmt: skip
def test_every_database_failure_is_a_message_of_every_language(
    failure: Exception, doing: str | None, message: str
) -> None:
    answer = unavailable(failure, doing)
    assert answer.status == 503 and answer.message == message
    assert answer.body()["params"] == answer.params
    for tag in TAGS:
        text = said(tag, answer.message, answer.params)
        assert "{" not in text and "database" not in text, (tag, text)
