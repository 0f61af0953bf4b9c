"""A rule's refusal worded as a message of the translation catalogues with named params (a
module of its own: the rules that refuse, such as cradle.server.text, import nothing else of
the server's)."""

from __future__ import annotations

from collections.abc import Mapping


def worded(message: str, params: Mapping[str, object] | None) -> str:
    """The English sentence of ``message`` with its ``params`` (the message itself without)."""
    return message.format(**params) if params else message


class Refusal(ValueError):
    """A rule's refusal (a name, a password, an address) worded as a message with named
    ``params``; ``str()`` is its English sentence. A route gives it as a field's reason
    (:func:`cradle.server.errors.field_refusal`)."""

    def __init__(self, message: str, /, **params: object) -> None:
        super().__init__(worded(message, params))
        self.message = message
        self.params = params
