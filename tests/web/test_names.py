"""A sentence's seats named as the table names them (src/cradle/web/names.js, namedText), read by
Node with the real catalogues: a guided lesson's English words ("the bull's priest") and their
Spanish and Portuguese translations ("el sacerdote del Toro") name the opponent by its bot's
name, and a word that is only spelled like a seat's ("este", this, beside "Este", east) stays."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.web import node_json

WEB = Path(__file__).resolve().parents[2] / "src/cradle/web"

SCRIPT = """
const { readFileSync } = await import("node:fs");
const base = process.argv[1];
const i18n = await import(new URL("i18n.js", base).href);
const { namedText } = await import(new URL("names.js", base).href);
const read = (tag) => JSON.parse(readFileSync(new URL(`i18n/${tag}.json`, base), "utf8"));
const [tag, players, seats, texts] = JSON.parse(process.argv[2]);
const chain = [read(tag)];
if (chain[0]["@fallback"]) chain.push(read(chain[0]["@fallback"]));
if (tag !== "en") chain.push(read("en"));
i18n.useCatalogues(tag, chain);
const game = { players, seats, names: players.map(() => null) };
console.log(JSON.stringify(texts.map((text) => namedText(text, game))));
"""


def named(tag: str, players: list[str], seats: list[str], texts: list[str]) -> list[str]:
    found: list[str] = node_json(
        SCRIPT, f"{WEB.as_uri()}/", json.dumps([tag, players, seats, texts])
    )
    return found


TIGRIS = (["archer", "bull"], ["human", "bot:random"])
GHEOS = (["north", "east"], ["human", "bot:easy"])


def test_an_english_lesson_names_the_bot_not_the_dynasty() -> None:
    assert named("en", *TIGRIS, ["The bull's priest rules this kingdom.", "bull moves"]) == [
        "The Random bot's priest rules this kingdom.",
        "Random bot moves",
    ]


def test_a_spanish_lesson_names_the_bot_and_leaves_a_word_spelled_like_a_seat() -> None:
    tigris = named("es", *TIGRIS, ["El sacerdote del Toro manda en este reino."])
    assert tigris == ["El sacerdote del Bot Azar manda en este reino."]
    # "Este" is east's word as the catalogue writes it; "este" (this) is another word.
    gheos = named("es", *GHEOS, ["a ti 2, a Este 1: este continente"])
    assert gheos == ["A ti 2, a Bot Fácil 1: este continente"]


def test_a_portuguese_lesson_names_the_bot() -> None:
    assert named("pt-BR", *TIGRIS, ["O sacerdote do Touro governa este reino."]) == [
        "O sacerdote do Bot Aleatório governa este reino."
    ]
    assert named("pt-PT", *GHEOS, ["a si 2, a Este 1; este"]) == ["A si 2, a Bot Fácil 1; este"]
