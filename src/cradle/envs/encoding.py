"""Fixed action encodings: every action string of a game's notation gets a stable integer id.

Research interfaces (OpenSpiel, PettingZoo) need a fixed-size discrete action space. The engine's
``legal_actions()`` stays the truth; an encoding only numbers the strings the notation can produce.
Where an engine numbers its actions itself (``legal_action_ids()``), the encoding takes the
engine's order, so the adapters pass ids straight through. Mapping a string to its id is one dict
lookup for the engine's own (canonical) spelling, with a slower normalising fallback for
hand-written variants ("Tile RED k2", "swap blue red").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from cradle import tigris

# Tigris & Euphrates notation (docs/contract.md), from the engine. Colour order is the
# contract's: red, blue, green, black; it fixes the spelling of swaps ("swap red blue") and
# monuments ("red-blue").
TIGRIS_COLOURS = tigris.COLORS
# The order of the leaders' planes in the observation tensor (docs/openspiel.md).
TIGRIS_ROLES = ("king", "priest", "farmer", "trader")
_BOARD = tigris.geometry()
TIGRIS_COLUMNS = "".join(name[0] for name in _BOARD.cells[: _BOARD.columns])
TIGRIS_ROWS = _BOARD.rows
TIGRIS_MONUMENTS = tuple(f"{TIGRIS_COLOURS[a]}-{TIGRIS_COLOURS[b]}" for a, b in tigris.MONUMENTS)
TIGRIS_HAND_SIZE = tigris.HAND_SIZE


class UnknownAction(ValueError):
    """A string that no id of the encoding stands for."""


class ActionEncoding:
    """A bijection between a game's action strings and the ids ``0 .. len(self) - 1``."""

    def __init__(self, strings: Sequence[str], normalise: Callable[[str], str]) -> None:
        self.strings: tuple[str, ...] = tuple(strings)
        self._normalise = normalise
        self._ids: dict[str, int] = {}
        for index, text in enumerate(self.strings):
            if text in self._ids:
                raise ValueError(f"the encoding lists {text!r} twice")
            self._ids[text] = index
        # Normalised spellings map to the same ids (checked to be unambiguous).
        self._normalised: dict[str, int] = {}
        for index, text in enumerate(self.strings):
            key = normalise(text)
            if key in self._normalised:
                raise ValueError(f"{text!r} and another action normalise to {key!r}")
            self._normalised[key] = index

    def __len__(self) -> int:
        return len(self.strings)

    def exact(self, action: str) -> int | None:
        """The id of ``action`` in the engine's own spelling, or None."""
        return self._ids.get(action)

    def encode(self, action: str) -> int:
        """The id of ``action``; UnknownAction if the notation cannot produce it."""
        found = self._ids.get(action)
        if found is not None:
            return found
        if not isinstance(action, str):
            raise UnknownAction(f"an action must be a string, not {type(action).__name__}")
        found = self._normalised.get(self._normalise(action))
        if found is None:
            raise UnknownAction(f"{action!r} is not an action of this game's notation")
        return found

    def encode_all(self, actions: Iterable[str]) -> list[int]:
        """Ids of ``actions`` (engine spellings take the fast path)."""
        try:
            # The hot path: one C-level dict lookup per engine-spelled action.
            return list(map(self._ids.__getitem__, actions))
        except (KeyError, TypeError):
            return [self.encode(action) for action in actions]

    def decode(self, action_id: int) -> str:
        """The action string of ``action_id``; UnknownAction when out of range."""
        if isinstance(action_id, bool) or not 0 <= int(action_id) < len(self.strings):
            raise UnknownAction(f"action id {action_id!r} is outside 0..{len(self.strings) - 1}")
        return self.strings[int(action_id)]


def _tigris_normalise(text: str) -> str:
    words = text.lower().split()
    if not words:
        return ""
    verb = words[0]
    rank = {colour: i for i, colour in enumerate(TIGRIS_COLOURS)}
    if verb == "swap":
        words[1:] = sorted(words[1:], key=lambda w: (rank.get(w, 99), w))
    elif verb == "monument" and len(words) == 3:
        pair = words[1].split("-")
        words[1] = "-".join(sorted(pair, key=lambda w: (rank.get(w, 99), w)))
    return " ".join(words)


def tigris_action_strings() -> list[str]:
    """Every string of the Tigris notation in the engine's own id order
    (``tigris.all_action_strings()``, documented in docs/openspiel.md), so that an id here is
    the engine's ``legal_action_ids()`` / ``apply(id)`` id."""
    return tigris.all_action_strings()


_ENCODINGS: dict[str, ActionEncoding] = {}


def tigris_encoding() -> ActionEncoding:
    found = _ENCODINGS.get("tigris")
    if found is None:
        found = _ENCODINGS["tigris"] = ActionEncoding(tigris_action_strings(), _tigris_normalise)
    return found
