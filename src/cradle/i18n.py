"""Everything a player reads from Python, in the player's language: gettext catalogues made with
Babel (``src/cradle/locale/<lang>/LC_MESSAGES/cradle.po``, compiled to ``cradle.mo`` beside
it; docs/translating.md), read by the standard library's gettext.

The language is the one asked for (``cradle play --lang es``), else the locale's
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English, the source language. A
catalogue may lean on another (pt_PT holds what European Portuguese writes otherwise and falls
back on pt_BR); a message no catalogue holds reads in English.

The rules engines give their refusals as :class:`cradle.core.contract.IllegalAction` with a
message id (``template``, marked ``N_``) and named ``params``; :func:`reason` translates the
message and the game's words among its params (a role, a colour, a seat's name: ``NP_`` marks
them with their kind as context). The engines never import this module (the import layers
forbid it), so they stay pure.
"""

from __future__ import annotations

import functools
import gettext
import os
from collections.abc import Mapping
from pathlib import Path

from cradle.core.contract import IllegalAction
from cradle.core.words import NP_

DOMAIN = "cradle"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
SOURCE = "en"
# A catalogue that holds only what differs from another's.
FALLBACKS = {"pt_PT": "pt_BR"}
# The language a bare language code means, where several catalogues speak it.
DEFAULT_REGION = {"pt": "pt_BR"}

# The games' words a refusal may name, by the parameter that carries them: each is translated
# with the parameter's name as its context (a translator sees which kind of word it is).
WORDS = (
    NP_("leader", "king"),
    NP_("leader", "priest"),
    NP_("leader", "farmer"),
    NP_("leader", "trader"),
    NP_("colour", "red"),
    NP_("colour", "blue"),
    NP_("colour", "green"),
    NP_("colour", "black"),
    NP_("colour", "yellow"),
    NP_("colour", "white"),
    NP_("player", "archer"),
    NP_("player", "bull"),
    NP_("player", "pot"),
    NP_("player", "lion"),
    NP_("player", "north"),
    NP_("player", "east"),
    NP_("player", "south"),
    NP_("player", "west"),
    NP_("kind", "wheat"),
    NP_("kind", "cup"),
    NP_("kind", "sword"),
)
WORD_CONTEXTS = frozenset({"leader", "colour", "player", "kind"})

_current: gettext.NullTranslations = gettext.NullTranslations()
_language = SOURCE


def available() -> list[str]:
    """The languages with a compiled catalogue, English (the source) first."""
    return list(_compiled())


@functools.cache
def _compiled() -> tuple[str, ...]:
    found = sorted(
        path.parent.parent.name for path in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")
    )
    return (SOURCE, *found)


def tag_of(catalogue: str) -> str:
    """A catalogue's name as a BCP 47 tag, as the web client and HTTP write it: pt_BR: pt-BR."""
    return catalogue.replace("_", "-")


def tags() -> list[str]:
    """Every catalogue's BCP 47 tag (the languages an account may choose), English first."""
    return [tag_of(name) for name in available()]


def catalogue_of(tag: str) -> str:
    """The catalogue of a tag :func:`tags` gives (an account's language); English for any
    other."""
    name = tag.replace("-", "_")
    return name if name in available() else SOURCE


# An Accept-Language header is read this far, and at most this many of its languages.
ACCEPT_CHARS = 512
ACCEPT_LANGUAGES = 16


def from_accept_language(header: str | None) -> str | None:
    """The catalogue a request's ``Accept-Language`` asks for first (by its quality values,
    RFC 9110 12.5.4; "es-MX": es, "pt": pt_BR), or None when it names no language a catalogue
    speaks."""
    wanted: list[tuple[float, int, str]] = []
    for at, part in enumerate((header or "")[:ACCEPT_CHARS].split(",")[:ACCEPT_LANGUAGES]):
        name, _, rest = part.strip().partition(";")
        quality = 1.0
        key, _, value = rest.strip().partition("=")
        if key.strip().lower() == "q":
            try:
                quality = float(value)
            except ValueError:
                continue
        if name and name != "*" and 0 < quality <= 1:
            wanted.append((-quality, at, name))
    for _quality, _at, name in sorted(wanted):
        found = normalise(name)
        if found is not None:
            return found
    return None


def normalise(tag: str) -> str | None:
    """The catalogue a language tag or locale name means ("es_ES.UTF-8": es, "pt": pt_BR,
    "pt-PT": pt_PT, "en_GB": en), or None when no catalogue speaks it."""
    name = tag.split(".")[0].split("@")[0].replace("-", "_").strip()
    if not name or name in ("C", "POSIX"):
        return None
    language, _, region = name.partition("_")
    known = available()
    exact = f"{language.lower()}_{region.upper()}" if region else language.lower()
    if exact in known:
        return exact
    base = DEFAULT_REGION.get(language.lower(), language.lower())
    if base in known:
        return base
    return next((k for k in known if k.split("_")[0] == language.lower()), None)


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for (gettext's order of variables), else English."""
    env = os.environ if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "")
        for part in value.split(":"):
            found = normalise(part)
            if found:
                return found
        if value:
            break  # the first variable set decides, as gettext reads them
    return SOURCE


class _Leaning(gettext.GNUTranslations):
    """A compiled catalogue whose counted messages lean on its fallback too: Babel compiles a
    counted message left untranslated (pt_PT's, written as pt_BR writes it) with the English
    forms, where gettext would ask the fallback only for a message missing altogether."""

    leans_on: gettext.NullTranslations | None = None

    def add_fallback(self, fallback: gettext.NullTranslations) -> None:
        super().add_fallback(fallback)
        if self.leans_on is None:  # the first; later ones are its own fallbacks
            self.leans_on = fallback

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        found = super().ngettext(msgid1, msgid2, n)
        if found in (msgid1, msgid2) and self.leans_on is not None:
            return self.leans_on.ngettext(msgid1, msgid2, n)
        return found

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        found = super().npgettext(context, msgid1, msgid2, n)
        if found in (msgid1, msgid2) and self.leans_on is not None:
            return self.leans_on.npgettext(context, msgid1, msgid2, n)
        return found


def translations(language: str) -> gettext.NullTranslations:
    """The catalogue of ``language`` with those it falls back on (English: none)."""
    if language == SOURCE:
        return gettext.NullTranslations()
    found = gettext.translation(DOMAIN, LOCALE_DIR, [language], fallback=True, class_=_Leaning)
    fallback = FALLBACKS.get(language)
    if fallback:
        found.add_fallback(translations(fallback))
    return found


def use(language: str | None = None) -> str:
    """Speak ``language`` from now on (None: the locale's); returns the catalogue chosen.
    ValueError for a language no catalogue speaks."""
    global _current, _language
    if language is None:
        chosen = from_environment()
    else:
        found = normalise(language)
        if found is None:
            known = ", ".join(available())
            raise ValueError(f"no catalogue speaks {language!r} (known: {known})")
        chosen = found
    _current = translations(chosen)
    _language = chosen
    return chosen


def language() -> str:
    """The language in use."""
    return _language


def _(message: str) -> str:
    """``message`` in the language in use."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a counted message for ``count``, by the catalogue's plural rule."""
    return _current.ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in the language in use, told apart by ``context``."""
    return _current.pgettext(context, message)


def word(kind: str, value: object) -> str:
    """A game's word (a role, a colour, a seat) in the language; a monument's pair of colours
    ("red-blue") word by word; anything else as it is."""
    text = str(value)
    if kind == "monument":  # a pair of colours: "red-blue"
        return "-".join(pgettext("colour", part) for part in text.split("-"))
    if kind == "colours":  # a list: "red, blue"
        return ", ".join(pgettext("colour", part) for part in text.split(", "))
    return pgettext(kind, text) if kind in WORD_CONTEXTS else text


def reason(refusal: BaseException) -> str:
    """Why an action was refused, in the language: the engine's message translated, its game
    words too. A refusal without a message of the catalogues keeps its English text."""
    if not isinstance(refusal, IllegalAction):
        return str(refusal)
    params = {name: word(name, value) for name, value in refusal.params.items()}
    try:
        return _(refusal.template).format(**params)
    except (KeyError, IndexError, ValueError):  # a catalogue's placeholders gone wrong
        return str(refusal)
