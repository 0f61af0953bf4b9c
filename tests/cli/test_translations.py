"""The Python catalogues (src/cradle/locale) and what reads them: every translation keeps its
message's named placeholders and its language's plural forms; pt_PT holds only what differs
from pt_BR; every refusal the engines give is a message of the catalogues; a refusal of the
native engine reads translated too; and `cradle play` speaks Spanish with --lang es or the
locale's LANG. (`make lint` checks that the catalogues are current: packaging/check_catalogues.py.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cradle import i18n
from cradle.games import get_game, refusal
from tests.helpers.engines import refusals

babel = pytest.importorskip("babel", reason="the catalogue checks need Babel (dev extra)")
from babel.messages.pofile import read_po  # noqa: E402

LOCALES = Path(i18n.__file__).resolve().parent / "locale"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
LANGUAGES = ("es", "pt_BR", "pt_PT")


def catalogue(language: str) -> babel.messages.catalog.Catalog:
    with (LOCALES / language / "LC_MESSAGES/cradle.po").open("rb") as handle:
        return read_po(handle, locale=language)


def names(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


@pytest.fixture(autouse=True)
def english_afterwards() -> object:
    yield
    i18n.use("en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_the_placeholders_and_the_plural_forms(language: str) -> None:
    found = catalogue(language)
    for message in found:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not message.id or not any(strings):
            continue  # the header; or a pt_PT message that reads as pt_BR
        wanted = set().union(*(names(text) for text in ids))
        for text in strings:
            assert names(text) == wanted, (language, ids[0], text)
        if isinstance(message.id, tuple):
            assert len(strings) == found.num_plurals, ids[0]


def test_every_message_is_translated_and_pt_pt_holds_only_what_differs() -> None:
    for language in ("es", "pt_BR"):
        missing = [m.id for m in catalogue(language) if m.id and not all(m.string)]
        assert not missing, (language, missing[:5])
    brazil = {(m.id, m.context): m.string for m in catalogue("pt_BR")}
    same = [
        m.id for m in catalogue("pt_PT") if any(m.string) and brazil[m.id, m.context] == m.string
    ]
    assert not same


# Brazil's words where European Portuguese says it otherwise (docs/glossary.md; the web
# catalogue's pt-PT.json): pt_PT's own message where pt_BR's holds one. "você" alone is the
# terminal's name for the one person at it ("Arqueiro (você)").
BRAZILIAN = re.compile(
    r"\b(senhas?|telas?|você|registro|arquivos?|usuári[oa]s?|compartilh\w+|ranquead[ao]s?"
    r"|rankings?|dicas?|links?|entre primeiro|caracteres? de controle|em uma?|\w+ando|\w+endo"
    r"|\w+indo|seu|sua|seus|suas)\b"
)
PORTUGUESE_ALIKE = re.compile(
    r"\b(o|a|os|as|convites|pelo|no|na|nas|nos|da|do|de|é) (seu|sua|seus|suas)\b", re.IGNORECASE
)


def test_pt_pt_reads_european_where_pt_br_reads_brazilian() -> None:
    """Every message a pt-PT player reads (pt_PT's own, else pt_BR's) is free of Brazil's words:
    palavra-passe, ecrã, ligação, iniciar sessão, classificativa, sugestão, "a + infinitive"
    for the gerund, the article before a possessive ("o seu", "a sua")."""
    european = catalogue("pt_PT")
    found = []
    for message in catalogue("pt_BR"):
        if not message.id or message.id == "you":
            continue
        own = european.get(message.id, message.context)
        strings = own.string if own is not None and any(own.string) else message.string
        for text in strings if isinstance(strings, tuple) else (strings,):
            words = BRAZILIAN.findall(PORTUGUESE_ALIKE.sub("", text.replace("{link}", "")))
            words = [w for w in words if w not in ("quando", "segundo", "entre")]
            if words:
                found.append((words, text))
    assert not found, found[:5]


def test_languages_are_found_from_tags_and_the_locale() -> None:
    assert i18n.available()[0] == "en" and set(LANGUAGES) <= set(i18n.available())
    assert i18n.normalise("es_MX.UTF-8") == "es"
    assert i18n.normalise("pt") == "pt_BR"
    assert i18n.normalise("pt-PT") == "pt_PT"
    assert i18n.normalise("en_GB") == "en"
    assert i18n.normalise("de_DE") is None and i18n.normalise("C") is None
    assert i18n.from_environment({"LANG": "pt_PT.UTF-8"}) == "pt_PT"
    assert i18n.from_environment({"LANGUAGE": "de:es", "LANG": "en_US"}) == "es"
    assert i18n.from_environment({}) == "en"
    with pytest.raises(ValueError, match="no catalogue"):
        i18n.use("xx")


@pytest.mark.parametrize(
    ("header", "found"),
    [
        ("es-MX,es;q=0.9,en;q=0.8", "es"),
        ("fr-FR, pt;q=0.5", "pt_BR"),  # no French: the next one a catalogue speaks
        ("en;q=0.2, pt-PT;q=0.9", "pt_PT"),  # by quality, not by place
        ("en-US,en;q=0.9", "en"),
        ("es;q=0, *", None),  # q=0: not wanted; "*" names no language
        ("es;q=x, pt-BR;q=0.1", "pt_BR"),  # a broken quality: that language is left out
        ("", None),
        (None, None),
        ("de, " * 500 + "es", None),  # read to ACCEPT_CHARS only
    ],
)
def test_a_requests_languages_choose_a_catalogue(header: str | None, found: str | None) -> None:
    assert i18n.from_accept_language(header) == found
    if found is not None:
        assert i18n.catalogue_of(i18n.tag_of(found)) == found and i18n.tag_of(found) in i18n.tags()


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_every_refusal_is_a_message_of_the_catalogues(game: str) -> None:
    ids = {m.id for m in catalogue("es") if m.id}
    found = [r for seed in (1, 2) for r in refusals(game, seed)]
    assert len({r.template for r in found}) >= 5
    unmarked = {r.template for r in found if r.template not in ids}
    assert not unmarked
    i18n.use("es")
    for refused in found:
        said = i18n.reason(refused)
        assert said and "{" not in said
        if refused.params.get("cell") or refused.params.get("word"):
            assert said != str(refused)  # translated, not the English text


def test_pt_pt_counted_messages_read_as_pt_br_where_it_writes_them_alike() -> None:
    """Babel compiles a counted message pt_PT leaves to pt_BR with the English forms: the
    catalogue still reads pt_BR's (cradle.i18n leans on the fallback for those too)."""
    european, brazilian = i18n.translations("pt_PT"), i18n.translations("pt_BR")
    for n in (1, 3):
        said = european.ngettext("({count} action left)", "({count} actions left)", n)
        assert said == brazilian.ngettext("({count} action left)", "({count} actions left)", n)
        assert "action" not in said
    assert european.ngettext("{count} hour", "{count} hours", 2) == "{count} horas"


def test_a_native_refusal_reads_translated() -> None:
    module = get_game("tigris")
    state = module.new_game(2, seed=3)
    found = refusal(module, state, "tile blue A1")
    assert found is not None and found.params == {"cell": "A1"}
    i18n.use("es")
    assert i18n.reason(found) == (
        "A1 no es una casilla de río: las losetas azules (granjas) van en el río"
    )
    i18n.use("pt_PT")
    assert "quintas" in i18n.reason(found)
    i18n.use("pt_BR")
    assert "fazendas" in i18n.reason(found)
    assert refusal(module, state, state.legal_actions()[0]) is None


def play(*args: str, env: dict[str, str] | None = None) -> str:
    answer = subprocess.run(
        [sys.executable, "-m", "cradle.cli.main", "play", "--seed", "3", *args],
        input="tile blue A1\nquit\ny\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "120", **(env or {})},
        check=False,
    )
    return answer.stdout


def test_cradle_play_speaks_the_language_asked_for_or_the_locales() -> None:
    spanish = play("--lang", "es")
    assert "No permitido ahora: A1 no es una casilla de río" in spanish
    assert "Acciones legales" in spanish and "Has salido de la partida." in spanish
    assert "Legal actions" not in spanish
    brazil = play(env={"LANG": "pt_BR.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""})
    assert "Ações válidas" in brazil and "Não permitido agora" in brazil
    english = play("--lang", "en")
    assert "Not allowed now: A1 is not a river cell" in english
