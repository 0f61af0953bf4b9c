"""The markers of the messages the engines give in English for the layers above to translate
(docs/translating.md): ``N_("{cell} holds a tile")`` is the string itself, found by
``pybabel extract`` (the keywords ``N_`` and ``NP_``); cradle.i18n looks it up in the
catalogues.

Nothing here translates: the rules engines stay free of gettext and of any language."""

from __future__ import annotations


def N_(message: str) -> str:
    """``message`` unchanged: marks it for the catalogues."""
    return message


def NP_(context: str, message: str) -> str:
    """``message`` unchanged: marks it for the catalogues with ``context`` (a game's word,
    told apart by its kind: ``NP_("colour", "red")``)."""
    return message
