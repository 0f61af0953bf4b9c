"""The contract every game exposes (docs/contract.md), as types that mypy checks.

Everything outside a game's package (AI, adapters, server, CLI) programs against these
protocols and reaches a game through :func:`cradle.games.get_game`, never through its internals.
A game may have several engines (Python, native); each state class satisfies
:class:`GameState`, and each game package (a module) satisfies :class:`GameModule`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, Protocol, Self, TypedDict, runtime_checkable

from cradle.core.lessons import Lesson

# A JSON document whose schema a game documents (positions, views): read by key.
JSON = dict[str, Any]


class IllegalAction(ValueError):
    """A refused action, of either kind below; the state is left unchanged.

    Engines raise one of the two kinds, never this class itself: :class:`MalformedAction`
    (the input cannot be read as an action) or :class:`DisallowedAction` (it reads as one, and
    the rules do not allow it now), as python-chess tells an invalid move from an illegal
    one. Each game raises its own subclasses (``tigris.MalformedAction``, a
    ``tigris.IllegalAction`` and a :class:`MalformedAction`, ...), so code that handles any
    game catches these, and code written before the split keeps catching this one.

    The reason is a message of the translation catalogues (``template``, marked with
    :func:`cradle.core.words.N_`) with named ``params``; ``str()`` is its English text, which
    the native engines give word for word. The layers above translate it (cradle.i18n); the
    engines stay free of any translation machinery."""

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(template.format(**params) if params else template)
        self.template = template
        self.params = params


class MalformedAction(IllegalAction):
    """The input is not an action of the game's notation, whatever the position: an unknown
    verb, a word of the wrong kind, too many or too few words, an id out of range, neither a
    string nor an id."""


class DisallowedAction(IllegalAction):
    """An action of the notation that the rules do not allow now: the game is over, another
    step of the turn decides, the cell is taken, the tile is not in hand, ..."""


class Event(TypedDict):
    """What an action did, in the order it happened (``state.apply`` returns a list of them).

    Every event has a ``type`` and a sentence (``text``), and ``seat`` when one seat did it;
    each game adds fields per type (``tigris.TigrisEvent``, ``gheos.GheosEvent``)."""

    type: str
    text: str
    seat: NotRequired[int]


class View(TypedDict):
    """What every game's view holds (``state.view(seat)``): each game's view adds its own
    fields (``tigris.TigrisView``, ``gheos.GheosView``), the same JSON on the wire."""

    game: str
    seat: int | None  # whose view (None: the spectators')
    players: list[str]
    active: int  # whose turn it is
    to_move: int  # who decides now (a defender, say)
    hand_sizes: dict[str, int]  # per player's name
    is_over: bool


def view_of(view: View, game: str, title: str) -> View:
    """``view`` when it is ``game``'s (named ``title`` in the error); TypeError for another
    game's view."""
    if view["game"] != game:
        raise TypeError(f"a {title} view is needed, not a {view['game']} view")
    return view


class SeatResult(TypedDict):
    """One seat's line of ``state.result()``: place 1 wins, tied seats share a place.

    Each game adds its own details (``tigris.TigrisResult``, ``gheos.GheosResult``)."""

    seat: int
    score: int
    place: int


@runtime_checkable
class GameState(Protocol):
    """A position of one game with the operations of the contract (docs/contract.md).

    The engines also offer each game's analysis API (docs/contract.md, "Analysis"): a
    Tigris state satisfies ``tigris.TigrisGame``, a Gheos state ``gheos.GheosGame``."""

    @property
    def game(self) -> str:
        """The game's registry name (``"tigris"``, ``"gheos"``)."""
        ...

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def to_move(self) -> int: ...

    @property
    def is_over(self) -> bool: ...

    def legal_actions(self) -> list[str]: ...

    def legal_action_ids(self) -> list[int]:
        """The legal actions as the game's fixed ids, in the order of ``legal_actions()``."""
        ...

    def apply(self, action: str | int) -> Sequence[Event]:
        """Apply an action (its notation or its id) for ``to_move``; the game's
        IllegalAction (a :class:`IllegalAction`) leaves the state unchanged."""
        ...

    def result(self) -> Sequence[SeatResult]: ...

    def view(self, seat: int | None) -> View:
        """All that ``seat`` may know (``None``: a spectator, public information only)."""
        ...

    def public_action(self, action: str, viewer: int | None = None) -> str:
        """What seat ``viewer`` (``None``: a spectator) may know of ``action``, made by the seat
        to move in this state: all of it for that seat, and for the kinds of action the game
        declares public; of any other kind only its first word and how many words followed
        (default deny). The module's ``public_action`` with ``mover = to_move``."""
        ...

    def clone(self) -> Self: ...

    def to_position(self) -> JSON: ...

    def sample_hidden(self, seat: int, rng: random.Random) -> Self:
        """A full state that ``seat`` cannot tell from this one."""
        ...

    def hand(self, seat: int) -> list[str]:
        """The seat's tiles as ``view(seat)["hand"]`` spells them (cheaply)."""
        ...

    def with_hidden(self, hands: Sequence[Sequence[str]], pile: Sequence[str]) -> Self:
        """A copy with these hands and this pile (first drawn first); ValueError unless only
        hidden tiles moved (this state is never changed)."""
        ...

    def order_pile(self, front: Sequence[str]) -> None:
        """In place: ``front`` becomes the next draws, in that order; ValueError (and nothing
        changes) when the pile does not hold those tiles."""
        ...


class FastState(GameState, Protocol):
    """The fast paths of every engine of every game (docs/engines.md), for search and
    training loops: ids first, no event dicts, no legal lists where a count will do.

    The Python reference engines have them too (built on ``legal_action_ids()`` and
    ``apply``), so code uses them without asking which engine it has."""

    def legal_action_count(self) -> int:
        """How many actions are legal now (0 when the game is over)."""
        ...

    def legal_action_at(self, index: int) -> int:
        """``legal_action_ids()[index]`` without the list; IndexError outside it."""
        ...

    def random_action_id(self, r: int) -> int:
        """The legal id at ``r`` modulo their count: with ``r = rng.getrandbits(64)`` a
        uniform random legal action; IndexError when none is legal."""
        ...

    def apply_id(self, action_id: int) -> None:
        """``apply(action_id)`` without building the events; IllegalAction (nothing changes)
        for a non-int or an id not legal now."""
        ...

    def apply_quiet(self, action: str | int) -> None:
        """``apply(action)`` (text or id, the same refusals) without building the events."""
        ...

    def sample_hidden_seeded(self, seat: int, seed: int) -> Self:
        """``sample_hidden(seat, cradle.core.hidden.CanonicalRandom(seed))``: the same world,
        made without a Python generator on the native engines (``seed`` below 2**64)."""
        ...

    def action_string(self, action_id: int) -> str:
        """The notation of the fixed id ``action_id`` in this state (from cached tables);
        IllegalAction for a non-int or an id out of range."""
        ...

    def random_playout(self, seed: int) -> int:
        """Play uniformly random legal actions to the end, in place (a generator seeded by
        ``seed``: the same games for the same seed on one engine, not across engines); the
        number of actions played."""
        ...


def fast(state: GameState) -> FastState:
    """``state`` as a :class:`FastState`: every engine of every game is one."""
    if not hasattr(state, "apply_id"):
        raise TypeError(f"{type(state).__name__} has no fast paths (docs/engines.md)")
    return state  # type: ignore[return-value]


# What moves name (a tile placed, a tile in hand), described by what is drawn on them, by the
# piece's name: a client says what happened in the players' words without the board of that
# moment. Each game documents its pieces' keys (its ``Presentation.piece``).
Pieces = dict[str, JSON]
StepPieces = Callable[[GameState, GameState, Sequence[Event]], Pieces]
HandPieces = Callable[[GameState, int], Pieces]


@dataclass(frozen=True)
class Presentation:
    """What code that serves any game (the play server, its mail, the web client's types)
    knows of one, declared by the game beside its module (``GameModule.PRESENTATION``): no
    server code names a game.

    ``view``, ``event``, ``result`` and ``piece`` are the game's TypedDicts of ``view(seat)``,
    an event of ``apply``, a line of ``result()`` and a piece (the shapes on the wire, from
    which the web client's types are made); ``step_pieces(before, after, events)`` the pieces a
    move put on the table or took off it (all public), ``hand_pieces(state, seat)`` those in a
    seat's hand (that seat's to know), both None for a game whose moves name no pieces."""

    title: str  # the game's name as people read it
    seat_names: tuple[str, ...]  # the names of the seats in order (new_game's default)
    view: object  # a TypedDict class (mypy has no type of TypedDict classes)
    event: object
    result: object
    piece: object | None = None
    step_pieces: StepPieces | None = None
    hand_pieces: HandPieces | None = None


class GameModule(Protocol):
    """What a game package exports (``from cradle import tigris``).

    Options are each game's own frozen dataclass: code that handles any game gets them from
    ``options_from_dict`` and hands them back unopened."""

    @property
    def NAME(self) -> str: ...

    @property
    def MIN_PLAYERS(self) -> int: ...

    @property
    def MAX_PLAYERS(self) -> int: ...

    @property
    def IllegalAction(self) -> type[IllegalAction]: ...

    @property
    def MalformedAction(self) -> type[MalformedAction]:
        """The game's :class:`MalformedAction` (a subclass of its ``IllegalAction``)."""
        ...

    @property
    def DisallowedAction(self) -> type[DisallowedAction]:
        """The game's :class:`DisallowedAction` (a subclass of its ``IllegalAction``)."""
        ...

    @property
    def PRESENTATION(self) -> Presentation:
        """What code that serves any game knows of this one (:class:`Presentation`)."""
        ...

    @property
    def DRAW_COUNTERS(self) -> tuple[str, ...]:
        """The view's public counts of the hidden tiles (the game's own keys): when one of
        them changes, an action drew a hidden tile."""
        ...

    def public_action(self, action: str, mover: int | None, viewer: int | None) -> str:
        """What seat ``viewer`` (``None``: a spectator) may know of ``action``, made by seat
        ``mover``: the game's secrets, for code that has the record but not the state."""
        ...

    def new_game(
        self,
        players: int = 2,
        seed: int | None = None,
        options: object = None,
        dynasties: Sequence[str] | None = None,
        engine: str | None = None,
    ) -> GameState:
        """A new game; ``dynasties`` names the seats (default: the game's own names);
        ``engine``: "native" or "python" (default: native when built)."""
        ...

    def from_position(
        self, position: object, seed: int | None = None, engine: str | None = None
    ) -> GameState:
        """The state of a position (``to_position()``); ValueError with a reason if bad."""
        ...

    @property
    def LESSONS(self) -> tuple[Lesson, ...]:
        """The guided first game's steps, in teaching order (cradle.core.lessons)."""
        ...

    def lesson_start(self, name: str, seed: int = 56, engine: str | None = None) -> GameState:
        """The state a lesson starts from; ValueError for a name not in ``LESSONS``."""
        ...

    def options_from_dict(self, data: object) -> object:
        """The game's options from a JSON object (None: the defaults); ValueError for an
        unknown key or a bad value."""
        ...

    def options_to_dict(self, options: object) -> JSON: ...
