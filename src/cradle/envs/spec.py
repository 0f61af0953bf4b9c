"""What the research adapters need to know about one game, beyond the contract.

Each game gets one :class:`EnvSpec`: its fixed action encoding, the observation tensor built from
``state.view(seat)``, where the draw pile and the hands sit in a position (so draws can become
explicit chance outcomes). What a seat may know of another's action is the game's own
``public_action`` (docs/contract.md), never decided here. Everything here reads only
the contract's documented surfaces (actions, views, positions, results), never game internals.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt

from cradle.core.contract import JSON, Event, GameModule, GameState, View
from cradle.core.results import ranking_utilities
from cradle.envs.encoding import ActionEncoding, UnknownAction
from cradle.games import game_names, get_game

FloatArray = npt.NDArray[np.float32]
Obs = TypeVar("Obs")
# What a vector environment's step answers, in Gymnasium's order: the observations, rewards,
# terminated and truncated flags, and infos.
VectorStep: TypeAlias = tuple[
    Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
]


def batch_ids(actions: npt.ArrayLike, count: int) -> npt.NDArray[np.int64]:
    """A vector env's step argument as ``count`` action ids (ValueError for any other shape or
    a non-integer type), before any game is touched."""
    ids = np.asarray(actions)
    if ids.shape != (count,) or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"actions must be {count} integer ids, got {ids!r}")
    return ids.astype(np.int64, copy=False)


__all__ = ["JSON", "EnvSpec", "FloatArray", "env_game_names", "get_spec", "ranking_utilities"]

# game name -> "module:class" of its spec; a game without one is not (yet) an environment.
_SPECS: dict[str, str] = {
    "tigris": "cradle.envs.tigris_spec:TigrisSpec",
    "gheos": "cradle.envs.gheos_spec:GheosSpec",
}
_LOADED: dict[str, EnvSpec] = {}


class EnvSpec:
    """Adapter knowledge about one game (subclassed per game)."""

    game: str = ""
    # Tokens of the draw pile, in chance-outcome order: outcome i draws ``tokens[i]``.
    tokens: tuple[str, ...] = ()
    # The encoding numbers actions as the engine does (``legal_action_ids()``, ``apply(id)``),
    # so ids pass straight through: no action strings are built or parsed on the way.
    # True when the spec knows how far ahead a decision can draw (``covers_next``, ``drawn``)
    # and the engine can be told its next draws (``order_pile``): OpenSpiel's draws=ahead.
    draws_ahead: bool = False

    def __init__(self) -> None:
        self.module: GameModule = get_game(self.game)
        self.token_ids = {token: i for i, token in enumerate(self.tokens)}

    # --- actions
    @cached_property
    def encoding(self) -> ActionEncoding:
        """The strings of every id, made when first asked for (Gheos' 191,012 strings and
        their lookups take about 60 MiB, which the vector envs, passing ids, never need)."""
        return self.make_encoding()

    @property
    def action_count(self) -> int:
        """How many ids the encoding has."""
        return len(self.encoding)

    def make_encoding(self) -> ActionEncoding:
        raise NotImplementedError

    def encode_legal(self, state: GameState, actions: list[str]) -> list[int]:
        """Ids of action strings legal in ``state`` (an encoding may depend on the state):
        for strings from elsewhere, such as a log; the engine's own ids need none."""
        return self.encoding.encode_all(actions)

    def legal_ids(self, state: GameState) -> list[int]:
        """Ids of the legal actions of ``state``, in the order of ``legal_actions()`` (a new
        list the caller may change)."""
        return state.legal_action_ids()

    def decode(self, state: GameState, action_id: int) -> str:
        """The action string of ``action_id`` in ``state``."""
        return self.encoding.decode(action_id)

    def describe(self, action_id: int, tiles: Sequence[str]) -> str:
        """The action string of ``action_id`` taken by a seat holding ``tiles`` (for encodings
        that depend on the hand; most do not)."""
        return self.encoding.decode(action_id)

    def apply_id(self, state: GameState, action_id: int) -> list[Event]:
        """Apply the action ``action_id``; the engine's IllegalAction when it is not legal."""
        if isinstance(action_id, bool):
            raise UnknownAction(f"action id {action_id!r} is not a number")
        return list(state.apply(int(action_id)))

    # --- setting up a game
    def options(self, params: JSON) -> object:
        """The game options from adapter parameters (the keys of :meth:`option_defaults`)."""
        return self.module.options_from_dict(
            {key: params[key] for key in self.option_defaults() if key in params}
        )

    def option_defaults(self) -> JSON:
        return {}

    def max_game_length(self, players: int) -> int:
        """Decisions after which an adapter stops a game and scores it as a draw."""
        raise NotImplementedError

    # --- the draw pile and hands inside a position: the pile under ``pile_key`` (first drawn
    # first), each seat's hand under ``hands`` by name, ``hand_size`` tiles dealt to each
    pile_key: str = ""
    hand_size: int = 0

    def pile(self, position: JSON) -> list[str]:
        """The draw pile, first drawn first."""
        return list(position[self.pile_key])

    def hands(self, position: JSON) -> list[list[str]]:
        """Every seat's hand, in seat order."""
        return [list(position["hands"][name]) for name in position["players"]]

    def undealt(self, position: JSON) -> tuple[JSON, list[int]]:
        """The set-up position before the deal: every hand back in the pile, seat 0 to start;
        and how many tiles each seat is dealt (seat order)."""
        names = position["players"]
        pile = [tile for name in names for tile in position["hands"][name]]
        pile += position[self.pile_key]
        return (
            {**position, "hands": {name: [] for name in names}, self.pile_key: pile, "active": 0},
            [self.hand_size] * len(names),
        )

    def dealt(self, position: JSON, hands: list[list[str]], pile: list[str]) -> JSON:
        """``position`` (as from :meth:`undealt`) with those hands dealt and that pile left."""
        names = position["players"]
        return {
            **position,
            "hands": {name: self.held(hand) for name, hand in zip(names, hands, strict=True)},
            self.pile_key: list(pile),
        }

    def held(self, hand: list[str]) -> list[str]:
        """A dealt hand as a position lists it."""
        return list(hand)

    def rearranged(
        self, state: GameState, hands: list[list[str]] | None, pile: list[str]
    ) -> GameState:
        """A copy of ``state`` with these hands (``None``: the same) and this pile, first
        drawn first (the engine's ``with_hidden``)."""
        if hands is None:
            hands = [state.hand(seat) for seat in range(len(state.players))]
        return state.with_hidden(hands, pile)

    def dealable(self, token: str) -> bool:
        """Whether ``token`` may be dealt into a starting hand."""
        return True

    def pile_end(self, view: View) -> tuple[str, int] | None:
        """``(token, n)`` when the game ends as the n-th ``token`` of the pile is drawn (so no
        draw reaches the tiles after it), for the set-up table in ``view``; None otherwise."""
        return None

    @property
    def default_draws(self) -> str:
        """The chance timing OpenSpiel games get unless told (see cradle.envs.chance)."""
        return "ahead" if self.draws_ahead else "at_setup"

    def covers_next(self, front: list[str]) -> bool:
        """Whether the next decision can draw only from ``front``, the first tiles of the pile
        (first drawn first): then chance need not fix more of the order yet (draws=ahead)."""
        raise NotImplementedError

    def drawn(self, events: list[Event]) -> int:
        """How many tiles of the pile the decision with these events drew (draws=ahead)."""
        raise NotImplementedError

    def may_draw(self, events: list[Event]) -> bool:
        """False only when ``events`` prove that no tile was drawn (a cheap pre-check)."""
        return True

    # --- observations
    def observation_pieces(self, players: int) -> list[tuple[str, tuple[int, ...]]]:
        """Named parts of the observation tensor, in order (flattened and concatenated)."""
        raise NotImplementedError

    def observation_bounds(self, players: int) -> tuple[FloatArray, FloatArray]:
        """Element-wise lower and upper bounds of the flat observation tensor."""
        raise NotImplementedError

    def observation_size(self, players: int) -> int:
        return sum(int(np.prod(shape)) for _, shape in self.observation_pieces(players))

    def fill_observation(self, view: View, seat: int, out: FloatArray) -> None:
        """Write the flat tensor of ``view`` into ``out`` (zeroed by the caller), seats counted
        from ``seat`` (``view`` is that seat's view, or the spectators' view)."""
        raise NotImplementedError

    def memory_size(self) -> int:
        """Length of the information-state tensor's extra part (see :meth:`fill_memory`)."""
        raise NotImplementedError

    def fill_memory(self, position: JSON, seat: int | None, out: FloatArray) -> None:
        """What ``seat`` (``None``: anyone) can count from the game's history, such as the
        tiles it has not seen; computed from the full position but showing nothing hidden."""
        raise NotImplementedError

    def actor_hand(self, state: GameState, seat: int) -> list[str]:
        """The tiles ``seat`` holds in ``state``, as pile tokens (the engine's ``hand``)."""
        return state.hand(seat)

    def private_size(self) -> int:
        raise NotImplementedError

    def fill_private(self, view: View, out: FloatArray) -> None:
        """Only the seat's own secrets (its hand, hidden points) as a tensor."""
        raise NotImplementedError

    def private_string(self, view: View) -> str:
        raise NotImplementedError

    def observation_string(self, view: Mapping[str, object]) -> str:
        """A seat's view as canonical compact JSON: exactly what that seat knows now."""
        return json.dumps(view, sort_keys=True, separators=(",", ":"))

    def render(self, state: GameState) -> str:
        """A plain-text picture for ``render_mode="ansi"``."""
        return json.dumps(state.view(None), sort_keys=True, indent=1)


def env_game_names() -> list[str]:
    """Registered games that have an environment spec."""
    return [name for name in game_names() if name in _SPECS]


def get_spec(game: str) -> EnvSpec:
    found = _LOADED.get(game)
    if found is not None:
        return found
    if game not in _SPECS:
        get_game(game)  # an unknown name raises the registry's error with the known games
        raise ValueError(f"the game {game!r} has no research environment yet")
    module_name, _, attribute = _SPECS[game].partition(":")
    spec_class = getattr(importlib.import_module(module_name), attribute)
    spec: EnvSpec = spec_class()
    _LOADED[game] = spec
    return spec
