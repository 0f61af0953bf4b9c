"""The web client's message catalogues (src/cradle/web/i18n/*.json) against its source.

Every key the client asks for is in the English catalogue; no key of a catalogue is unused; every
language has every key (its own, or through its "@fallback" catalogue) with the source's named
placeholders; a message that depends on a count has exactly the plural forms its language uses
(CLDR's, from Babel) for the counts the game shows; languages.json lists exactly the catalogues;
and the guided lessons' English messages are the lessons' own text (cradle.*.lessons), so that
the two never drift apart.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from cradle import i18n
from cradle.gheos.lessons import LESSONS as GHEOS_LESSONS
from cradle.tigris.lessons import LESSONS as TIGRIS_LESSONS
from tests.helpers.ai import bot_reasons
from tests.helpers.engines import refusals

babel = pytest.importorskip("babel", reason="the catalogue checks need Babel (dev extra)")

WEB = Path(__file__).resolve().parents[2] / "src/cradle/web"
CATALOGUES = WEB / "i18n"
SOURCE = "en"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
KEY = re.compile(r"^[a-z][a-z_]*(?:\.[\w-]+)+$")
# The most a count shown by the game reaches: the plural forms a language needs are those CLDR
# gives some count up to it (Spanish's "many" is for millions).
COUNTS = range(0, 10_001)

Message = str | dict[str, str]


@cache
def catalogue(tag: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((CATALOGUES / f"{tag}.json").read_text(encoding="utf-8"))
    return found


def messages(tag: str) -> dict[str, Message]:
    """The language's messages with those of its fallbacks (metadata keys start with @)."""
    out: dict[str, Message] = {}
    chain = []
    while tag not in chain:
        chain.append(tag)
        fallback = catalogue(tag).get("@fallback")
        if not isinstance(fallback, str):
            break
        tag = fallback
    for name in reversed(chain):
        out.update({k: v for k, v in catalogue(name).items() if not k.startswith("@")})
    return out


def tags() -> list[str]:
    return sorted(path.stem for path in CATALOGUES.glob("*.json") if path.stem != "languages")


def literals(text: str) -> list[tuple[str, bool]]:
    """The string literals of a JavaScript source: each "..." whole, and each template's parts
    before a `${` (marked True: a key made from it starts so). Comments are skipped."""
    out: list[tuple[str, bool]] = []
    i, n = 0, len(text)
    depth: list[int] = []  # the brace depth of each template expression we are inside
    braces = 0
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            i = text.find("*/", i) + 2
        elif c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append((text[i + 1 : j], False))
            i = j + 1
        elif c == "`" or (c == "}" and depth and braces == depth[-1]):
            if c == "}":
                depth.pop()
            j = i + 1
            while text[j] != "`" and not text.startswith("${", j):
                j += 2 if text[j] == "\\" else 1
            made = text.startswith("${", j)
            out.append((text[i + 1 : j], made))
            if made:
                depth.append(braces)
                i = j + 2
            else:
                i = j + 1
        else:
            if c == "{":
                braces += 1
            elif c == "}":
                braces -= 1
            i += 1
    return out


def used_keys() -> tuple[set[str], set[str]]:
    """The keys the client names whole, and the starts of keys it makes (`rules.${game}.`)."""
    whole: set[str] = set()
    starts: set[str] = set()
    for path in sorted(WEB.glob("*.js")):
        for literal, made in literals(path.read_text(encoding="utf-8")):
            if made and re.fullmatch(r"[a-z][a-z_]*\.[\w.-]*", literal):
                starts.add(literal)
            elif not made and KEY.match(literal):
                whole.add(literal)
    html = (WEB / "index.html").read_text(encoding="utf-8")
    whole |= set(re.findall(r'data-i18n(?:-label)?="([^"]+)"', html))
    return whole, starts


def placeholders(message: Message) -> set[str]:
    texts = [message] if isinstance(message, str) else list(message.values())
    return {name for text in texts for name in PLACEHOLDER.findall(text)}


def plural_forms(tag: str) -> set[str]:
    rule = babel.Locale.parse(tag.replace("-", "_")).plural_form
    return {rule(n) for n in COUNTS}


def test_languages_json_lists_every_catalogue() -> None:
    listed = json.loads((CATALOGUES / "languages.json").read_text(encoding="utf-8"))
    assert sorted(listed) == tags()
    assert listed[0] == SOURCE


def test_every_key_the_client_names_is_in_the_source_catalogue() -> None:
    english = messages(SOURCE)
    whole, starts = used_keys()
    namespaces = {key.split(".")[0] for key in english}
    # A dotted literal of a namespace the catalogue has is a key: it must be there.
    missing = sorted(k for k in whole if k.split(".")[0] in namespaces and k not in english)
    assert not missing, f"keys the client names but en.json lacks: {missing}"
    made = sorted(s for s in starts if not any(k.startswith(s) for k in english))
    assert not made, f"keys the client makes but en.json has none of: {made}"


def test_no_key_is_unused() -> None:
    whole, starts = used_keys()
    unused = sorted(
        k for k in messages(SOURCE) if k not in whole and not any(k.startswith(s) for s in starts)
    )
    assert not unused, f"keys no part of the client asks for: {unused}"


@pytest.mark.parametrize("tag", [t for t in tags() if t != SOURCE])
def test_every_language_has_every_key_with_the_same_placeholders(tag: str) -> None:
    english = messages(SOURCE)
    found = messages(tag)
    assert sorted(set(english) - set(found)) == [], f"{tag} lacks these keys"
    assert sorted(set(found) - set(english)) == [], f"{tag} has keys English does not"
    wrong = {
        key: (sorted(placeholders(found[key])), sorted(placeholders(english[key])))
        for key in english
        if placeholders(found[key]) != placeholders(english[key])
    }
    assert not wrong, f"{tag}: placeholders differ from the source's: {wrong}"


@pytest.mark.parametrize("tag", tags())
def test_counted_messages_have_the_plural_forms_of_their_language(tag: str) -> None:
    english = messages(SOURCE)
    found = messages(tag)
    forms = plural_forms(tag)
    for key, message in found.items():
        assert isinstance(message, str) == isinstance(english[key], str), key
        if isinstance(message, dict):
            assert set(message) == forms, f"{tag} {key}: forms {sorted(message)}, wants {forms}"


@pytest.mark.parametrize("tag", tags())
def test_a_fallback_catalogue_holds_only_what_differs(tag: str) -> None:
    fallback = catalogue(tag).get("@fallback")
    if not isinstance(fallback, str):
        return
    own = {k: v for k, v in catalogue(tag).items() if not k.startswith("@")}
    same = sorted(k for k, v in own.items() if messages(fallback).get(k) == v)
    assert not same, f"{tag} repeats its fallback's messages: {same}"


def test_the_lessons_english_messages_are_the_lessons_text() -> None:
    english = messages(SOURCE)
    for game, lessons in (("tigris", TIGRIS_LESSONS), ("gheos", GHEOS_LESSONS)):
        for lesson in lessons:
            base = f"lesson.{game}.{lesson.name}"
            assert english[f"{base}.title"] == lesson.title
            assert english[f"{base}.intro"] == lesson.intro
            assert english[f"{base}.done"] == lesson.done
            assert english.get(f"{base}.wrong", "") == lesson.wrong
            for i, hint in enumerate(lesson.hints):
                assert english[f"{base}.hint.{i}"] == hint
            assert f"{base}.hint.{len(lesson.hints)}" not in english


REASONS = """
const { readFileSync } = await import("node:fs");
const i18n = await import(new URL("i18n.js", process.argv[1]).href);
const read = (path) => JSON.parse(readFileSync(new URL(path, process.argv[1]), "utf8"));
i18n.useReasons(read(`i18n/reasons/${process.argv[2]}.json`));
const texts = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify(texts.map((text) => i18n.translateReason(text))));
"""


@pytest.mark.parametrize(
    ("tag", "language"), [("es", "es"), ("pt-BR", "pt_BR"), ("pt-PT", "pt_PT")]
)
def test_the_engines_reasons_read_in_the_browsers_language(tag: str, language: str) -> None:
    """The play server sends a refusal's English sentence; the client reads the message and
    its params back from it and gives the same words as the Python catalogues do."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node (make test installs Debian's nodejs)")
    found = [r for game in ("tigris", "gheos") for seed in (1, 2) for r in refusals(game, seed)]
    answer = subprocess.run(
        [node, "--input-type=module", "-e", REASONS, (WEB / "i18n.js").as_uri(), tag],
        input=json.dumps([str(r) for r in found]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    translated = json.loads(answer.stdout)
    i18n.use(language)
    try:
        wanted = [i18n.reason(r) for r in found]
    finally:
        i18n.use("en")
    assert translated == wanted
    assert sum(a != str(r) for a, r in zip(translated, found, strict=True)) > len(found) // 2


# An action's notation (a reason may be the action itself): the same in every language.
NOTATION = re.compile(
    r"^(tile|leader|withdraw|catastrophe|swap|pass|commit|war|monument|treasure|building|wonder"
    r"|wonderpoint|decline|place|replace|start|take|pay|migrate|winner|token)( [\w,:-]+)*$"
)
ENGLISH = re.compile(r"\b(the|tiles?|wars?|temples?|scores|continent|followers?|you|hold)\b")


@pytest.mark.parametrize("tag", ["es", "pt-BR"])
def test_the_bots_reasons_read_in_the_browsers_language(tag: str) -> None:
    """Hints and analyses carry the bots' English reasons (cradle.ai.knowledge); the client
    reads every part of each back into its language."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node (make test installs Debian's nodejs)")
    found = sorted(
        {r for game in ("tigris", "gheos") for seed in (1, 2) for r in bot_reasons(game, seed)}
    )
    answer = subprocess.run(
        [node, "--input-type=module", "-e", REASONS, (WEB / "i18n.js").as_uri(), tag],
        input=json.dumps(found),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    translated = json.loads(answer.stdout)
    left = [
        (reason, said)
        for reason, said in zip(found, translated, strict=True)
        if not NOTATION.match(reason) and (said == reason or ENGLISH.search(said))
    ]
    assert len(found) > 100 and not left


SERVER_REASONS = """
const { readFileSync } = await import("node:fs");
const i18n = await import(new URL("i18n.js", process.argv[1]).href);
const read = (path) => JSON.parse(readFileSync(new URL(path, process.argv[1]), "utf8"));
i18n.useCatalogues(process.argv[2], []);
i18n.useReasons(read(`i18n/reasons/${process.argv[2]}.json`));
const bodies = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify(bodies.map((b) => i18n.serverReason(b.error, b.message, b.params))));
"""


@pytest.mark.parametrize(
    ("tag", "language"), [("es", "es"), ("pt-BR", "pt_BR"), ("pt-PT", "pt_PT")]
)
def test_the_servers_reasons_read_in_the_browsers_language(tag: str, language: str) -> None:
    """Issue 66: a refusal's answer carries its message and params beside the English; the
    client says it in its language as the Python catalogues do (a rule's refusal given as a
    field's, a rate limit's wait written as the language writes numbers, a database failure's
    503 with what failed and why), and an answer whose message no catalogue holds stays in
    English."""
    from cradle.server.accounts import check_password
    from cradle.server.errors import ApiError, field_refusal, unavailable
    from cradle.server.routes.common import THROTTLED
    from cradle.server.store.errors import StorageError

    node = shutil.which("node")
    if node is None:
        pytest.skip("no node (make test installs Debian's nodejs)")
    try:
        check_password("short")
    except ValueError as exc:
        short = field_refusal("password", exc)
    refusals = [
        ApiError(401, "wrong name or password"),
        short,
        ApiError(429, THROTTLED["moves"], params={"wait": 3}),
        ApiError(429, THROTTLED["moves"], params={"wait": 2.5}),
        ApiError(400, "no message of the catalogues: 42"),
        unavailable(StorageError("x", "the database is busy"), "the move could not be stored"),
    ]
    answer = subprocess.run(
        [node, "--input-type=module", "-e", SERVER_REASONS, (WEB / "i18n.js").as_uri(), tag],
        input=json.dumps([r.body() for r in refusals]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    said = json.loads(answer.stdout)
    words = i18n.translations(language)
    assert said[0] == words.gettext("wrong name or password") != "wrong name or password"
    assert short.reason == "password: a password has 8 to 256 characters"
    assert said[1] == words.gettext("a password has {min} to {max} characters").format(
        min=8, max=256
    )
    assert said[2] == words.gettext(THROTTLED["moves"]).format(wait=3)
    assert said[3] == words.gettext(THROTTLED["moves"]).format(wait="2,5")
    assert said[4] == "no message of the catalogues: 42"
    failed = words.gettext("{doing}: {reason}; try again soon").format(
        doing=words.gettext("the move could not be stored"),
        reason=words.gettext("the database is busy"),
    )
    assert said[5] == failed and "database" not in failed and "{" not in failed
