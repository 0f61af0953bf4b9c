"""The fast paths (:class:`cradle.core.contract.FastState`) of the Python reference engines,
built on the contract's own calls: the same answers as the native engines' (ids, order,
refusals), at the reference's speed. The native engines implement them in Rust."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from cradle.core.contract import MalformedAction
from cradle.core.hidden import CanonicalRandom

S = TypeVar("S", bound="_Reference")


class _Reference(Protocol):
    """What the mixin needs of the state class it is mixed into."""

    _legal_ids: Sequence[int] | None
    MALFORMED: ClassVar[type[MalformedAction]]

    def legal_action_ids(self) -> list[int]: ...

    def apply(self, action: str | int) -> Any: ...

    def sample_hidden(self: S, seat: int, rng: random.Random) -> S: ...

    @property
    def is_over(self) -> bool: ...


def _ids(state: _Reference) -> Sequence[int]:
    """The state's cached legal ids (computed once per state, not copied)."""
    if state._legal_ids is None:
        state.legal_action_ids()
    assert state._legal_ids is not None
    return state._legal_ids


class ReferenceFastPaths:
    """Mixed into a reference state class: it keeps its legal ids in ``_legal_ids`` (None
    until asked) and names its MalformedAction in ``MALFORMED``."""

    __slots__ = ()

    def legal_action_count(self: _Reference) -> int:
        return len(_ids(self))

    def legal_action_at(self: _Reference, index: int) -> int:
        ids = _ids(self)
        if not 0 <= index < len(ids):
            raise IndexError(f"legal action index {index} is outside 0..{len(ids) - 1}")
        return ids[index]

    def random_action_id(self: _Reference, r: int) -> int:
        ids = _ids(self)
        if not ids:
            raise IndexError("no legal action: the game is over")
        return ids[r % len(ids)]

    def apply_id(self: _Reference, action_id: int) -> None:
        if isinstance(action_id, bool) or not isinstance(action_id, int):
            raise self.MALFORMED(f"an action id is an integer, not {type(action_id).__name__}")
        self.apply(action_id)

    def apply_quiet(self: _Reference, action: str | int) -> None:
        self.apply(action)

    def sample_hidden_seeded(self: S, seat: int, seed: int) -> S:
        return self.sample_hidden(seat, CanonicalRandom(seed))

    def random_playout(self: _Reference, seed: int) -> int:
        rng = random.Random(seed)
        played = 0
        while not self.is_over:
            ids = _ids(self)
            self.apply(ids[rng.randrange(len(ids))])
            played += 1
        return played
