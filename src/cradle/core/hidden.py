"""Hidden information, shared by the games: the checks of ``with_hidden`` (a determinization may
only move hidden tiles, hands and draw pile, never add, remove or resize anything) and the rule
of ``public_action`` (what a seat may know of another's action: default deny)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T", bound=int)


def read_hidden(
    hands: Sequence[Sequence[str]],
    pile: Sequence[str],
    sizes: Sequence[int],
    hidden_now: Sequence[T],
    names: Mapping[str, T],
    *,
    unknown: str,
    pile_word: str,
    check_hand: Callable[[int, list[T]], None] | None = None,
) -> tuple[list[list[T]], list[T]]:
    """The hands named in ``hands`` and the pile named in ``pile`` (first drawn first), as the
    game's tile values (``names``), once they pass the checks; ValueError otherwise. The pile
    comes back last drawn first, as the engines keep it (they draw from its end).

    ``sizes`` are the hand sizes now and ``hidden_now`` every hidden tile now (hands and
    pile, any order); ``check_hand(seat, hand)`` may refuse a hand for a game's own reason
    (it runs before the size check). Messages: "<unknown>: <the name>" for a name that is no
    tile, and "the hands and the <pile_word> must hold exactly the hidden tiles"."""
    if len(hands) != len(sizes):
        raise ValueError(f"expected {len(sizes)} hands, got {len(hands)}")
    try:
        new_hands = [[names[name] for name in hand] for hand in hands]
        new_pile = [names[name] for name in reversed(pile)]
    except (KeyError, TypeError) as error:
        raise ValueError(f"{unknown}: {error}") from None
    for seat, hand in enumerate(new_hands):
        if check_hand is not None:
            check_hand(seat, hand)
        if len(hand) != sizes[seat]:
            raise ValueError(f"seat {seat} holds {sizes[seat]} tiles, not {len(hand)}")
    given = [tile for hand in new_hands for tile in hand] + new_pile
    if sorted(given) != sorted(hidden_now):
        raise ValueError(f"the hands and the {pile_word} must hold exactly the hidden tiles")
    return new_hands, new_pile


def redacted(action: str, mover: int | None, viewer: int | None, public: frozenset[str]) -> str:
    """What ``viewer`` (None: a spectator) may know of ``action``, made by seat ``mover``: all
    of it for the mover, and for a kind (its first word) in ``public``, the kinds the game
    declares public; of any other kind only the kind and how many words followed it. A kind
    a game does not declare stays hidden (a Tigris swap is ``swap 2`` to everyone else)."""
    if viewer is not None and viewer == mover:
        return action
    words = action.split()
    if not words:
        return ""
    kind = words[0]
    if kind in public:
        return action
    return f"{kind} {len(words) - 1}" if len(words) > 1 else kind


def viewer_seat(viewer: object, players: int) -> int | None:
    """``viewer`` checked as a seat of a ``players``-seat table or None (a spectator)."""
    if viewer is None:
        return None
    if not isinstance(viewer, int) or not 0 <= viewer < players:
        raise ValueError(f"seat must be 0..{players - 1} or None")
    return viewer


class CanonicalRandom(random.Random):
    """A random source whose shuffles ignore the order of what they shuffle.

    ``sample_hidden`` pools the pieces a seat cannot see (other hands, the bag or stacks) in an
    order that may follow the hidden order of the bag; a plain shuffle of that pool would make
    the world depend on it. Sorting first makes each world a function of the seat's
    information and the seed alone, so a bot decides identically whatever the hidden truth.
    ``state.sample_hidden_seeded(seat, seed)`` is ``sample_hidden(seat, CanonicalRandom(seed))``
    (natively, without Python, on the native engines).
    """

    def shuffle(self, x: MutableSequence[Any]) -> None:
        x[:] = sorted(x)
        super().shuffle(x)
