"""Both games as OpenSpiel Python games: ``python_cradle_tigris_v1`` and
``python_cradle_gheos_v1``, also registered by their first names ``python_tigris_euphrates``
and ``python_gheos``.

Importing this module registers them, so ``pyspiel.load_game("python_cradle_tigris_v1")``
works afterwards. Needs the ``openspiel`` extra (the distribution ``cradle-games``).
The layout of tensors, the action encoding and the utilities are documented in
docs/openspiel.md.
"""

from __future__ import annotations

import json
import random
from typing import Any, cast

import numpy as np
import pyspiel

from cradle.core.contract import View
from cradle.envs.chance import CHANCE, TERMINAL, ChanceGame, Setup, check_timing
from cradle.envs.spec import JSON, EnvSpec, FloatArray, get_spec
from cradle.envs.tensors import board_apart, board_shape, fill_board

# The core's player codes are pyspiel's, so they pass through unchanged.
assert (int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL)) == (CHANCE, TERMINAL)

# OpenSpiel short name -> the game's name in cradle's registry. The versioned ids are the ones
# to cite: their number changes whenever what an agent sees or does changes (actions, tensors,
# returns, parameters). The first names stay, as the newest version under another id.
GAMES = {
    "python_cradle_tigris_v1": "tigris",
    "python_cradle_gheos_v1": "gheos",
    "python_tigris_euphrates": "tigris",
    "python_gheos": "gheos",
}
LONG_NAMES = {"tigris": "Python Tigris & Euphrates (cradle)", "gheos": "Python Gheos (cradle)"}


def _game_type(short_name: str, spec: EnvSpec) -> pyspiel.GameType:
    module = spec.module
    parameters: JSON = {"players": int(module.MIN_PLAYERS), "draws": spec.default_draws}
    parameters.update(spec.option_defaults())
    return pyspiel.GameType(
        short_name=short_name,
        long_name=LONG_NAMES.get(spec.game, short_name),
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=int(module.MAX_PLAYERS),
        min_num_players=int(module.MIN_PLAYERS),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


class CradleGame(pyspiel.Game):  # type: ignore[misc]
    """One of cradle's games with fixed parameters (players and table options)."""

    spec: EnvSpec
    short_name: str

    def __new__(cls, params: JSON | None = None) -> CradleGame:
        # Check the parameters before the object exists: an exception in __init__ would leave
        # a half-built pyspiel object behind, which crashes whatever looks at it.
        _settings(cls.spec, dict(params or {}))
        made: CradleGame = super().__new__(cls)
        return made

    def __init__(self, params: JSON | None = None) -> None:
        params = dict(params or {})
        self.players, self.game_options, self.draws, self.setup = _settings(self.spec, params)
        self._max_draws = len(self.setup.pile)
        spec = self.spec
        self.max_moves = spec.max_game_length(self.players)
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.action_count,
            max_chance_outcomes=len(spec.tokens),
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_moves,
        )
        super().__init__(_GAME_TYPES[self.short_name], info, params)

    def new_initial_state(self) -> CradleState:
        return CradleState(self)

    def max_chance_nodes_in_history(self) -> int:
        # Every chance outcome fixes one more tile of the pile (the deal included).
        return self._max_draws

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> CradleObserver:
        # {"board": True}: Gheos' grid tensor in the observation's dict (and tensor), after
        # the rest; Tigris' board is always there (the tensor's first part)
        params = dict(params or {})
        board = params.pop("board", False)
        if params or not isinstance(board, bool):
            raise ValueError(
                f"the only observation parameter is board (true or false); passed {params}"
            )
        return CradleObserver(
            self.spec,
            self.players,
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            board,
        )


class CradleState(pyspiel.State):  # type: ignore[misc]
    """A game state; all of it lives in ``self.core`` (copied cheaply, pickled as positions)."""

    def __init__(self, game: CradleGame) -> None:
        super().__init__(game)
        self.core = ChanceGame(
            game.spec, game.players, game.game_options, game.max_moves, game.draws, game.setup
        )

    def current_player(self) -> int:
        return self.core.current_player()

    # pyspiel's own ``legal_actions`` and ``is_chance_node`` go through C++ and back into
    # Python several times (and copy the list both ways); these give Python callers the same
    # answers directly. C++ callers still reach ``_legal_actions`` through pyspiel.
    def is_chance_node(self) -> bool:
        return self.core.need > 0

    def legal_actions(self, player: int | None = None) -> list[int]:
        # pyspiel's answers: nothing when the game is over, the chance outcomes at a chance
        # node whoever asks, otherwise the ids of the seat to move (nothing for other seats).
        core = self.core
        current = core.current_player()
        if current == TERMINAL:
            return []
        if current == CHANCE:
            return [outcome for outcome, _ in core.chance_outcomes()]
        if player is None or player == current:
            return core.legal_ids()
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        core = self.core
        if player != core.current_player():
            return []
        return core.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        core = self.core
        if core.need > 0:
            core.apply_chance(int(action))
        else:
            core.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        spec = self.core.spec
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {spec.tokens[action]}"
        return spec.decode(self.core.engine, action)

    def is_terminal(self) -> bool:
        return self.core.is_terminal

    def returns(self) -> list[float]:
        return self.core.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CradleState:
        """A state the player cannot tell from this one: hidden hands and pile re-drawn
        (the engine's ``sample_hidden``). Used by OpenSpiel's Python ISMCTSBot."""
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        other: CradleState = self.clone()
        other.core = self.core.resample(player_id, rng)
        return other

    def __str__(self) -> str:
        core = self.core
        text = json.dumps(core.engine.to_position(), sort_keys=True, separators=(",", ":"))
        if core.need > 0 and not core.dealing and not core.pending:
            text += f"\nfixing the next tile of the pile after {core.front}"
        elif core.need > 0:
            doing = f"drawing for {core.pending!r}" if core.pending else "dealing"
            text += f"\n{doing}: chosen {core.chosen} of {core.need}"
        return text


class CradleObserver:
    """Observations and information states (see docs/openspiel.md for the layout).

    - default (public + own private information): the seat's view, as canonical JSON and as
      the observation tensor;
    - information state (perfect recall): the view plus the seat's history of the game
      (every decision, others' swaps only by size, its own hand after each draw), and the
      tensor adds what the seat can count from memory;
    - public information only: the spectators' view, from the seat's side of the table;
    - private information only: the seat's hand (and points, when hidden from others).
    """

    def __init__(self, spec: EnvSpec, players: int, iig_obs_type: Any, board: bool = False) -> None:
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observers of every player's private information are not supported")
        self.spec = spec
        self.public = bool(iig_obs_type.public_info)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.recall = bool(iig_obs_type.perfect_recall)
        pieces: list[tuple[str, tuple[int, ...]]] = []
        if self.public:
            pieces += spec.observation_pieces(players)
            if self.recall:
                pieces.append(("memory", (spec.memory_size(),)))
        elif self.private:
            pieces.append(("private", (spec.private_size(),)))
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor: FloatArray | None = np.zeros(size, np.float32) if pieces else None
        self.dict: dict[str, FloatArray] = {}
        at = 0
        for name, shape in pieces:
            length = int(np.prod(shape))
            assert self.tensor is not None
            self.dict[name] = self.tensor[at : at + length].reshape(shape)
            at += length
        # board=True: Gheos' board tensor (the map on a grid, cradle.envs.gheos_grid) after
        # the rest (OpenSpiel copies every piece of the dict into observation tensors)
        self.grid: FloatArray | None = None
        if board and self.public and board_apart(spec.game):
            self.grid = self.dict["board"] = np.zeros(board_shape(spec.game), np.float32)

    def _view(self, state: CradleState, player: int) -> View:
        core = state.core
        if core.dealing:
            # Before the hands are complete only the table is shown, plus the seat's tiles.
            view = core.engine.view(None)
            if self.private:
                dealing: dict[str, object] = {**view, "dealt": core.dealt_so_far(player)}
                return cast(View, dealing)  # the view's keys and one more
            return view
        return core.engine.view(player if self.private else None)

    def set_from(self, state: CradleState, player: int) -> None:
        if self.tensor is None:
            return
        self.tensor.fill(0.0)
        spec = self.spec
        core = state.core
        if self.public:
            obs_size = self.tensor.size - (spec.memory_size() if self.recall else 0)
            view = self._view(state, player)
            spec.fill_observation(view, player, self.tensor[:obs_size])
            if self.grid is not None:
                self.grid.fill(0.0)
                fill_board(spec.game, view, self.tensor, self.grid)
            if self.recall and not core.dealing:
                seat = player if self.private else None
                spec.fill_memory(core.engine.to_position(), seat, self.tensor[obs_size:])
        elif not core.dealing:
            spec.fill_private(core.engine.view(player), self.tensor)

    def string_from(self, state: CradleState, player: int) -> str:
        spec = self.spec
        core = state.core
        if self.public:
            text = spec.observation_string(self._view(state, player))
            if self.recall:
                history = core.history_tokens(player) if self.private else core.public_tokens()
                text += "\n" + " | ".join(history)
            return text
        if self.private:
            if core.dealing:
                return json.dumps({"dealt": core.dealt_so_far(player)})
            return spec.private_string(core.engine.view(player))
        return ""


def _settings(spec: EnvSpec, params: JSON) -> tuple[int, Any, str, Setup]:
    """Players, game options, draw timing and the set-up; ValueError for bad parameters."""
    players = params.get("players", spec.module.MIN_PLAYERS)
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"players must be a whole number, not {players!r}")
    if not spec.module.MIN_PLAYERS <= players <= spec.module.MAX_PLAYERS:
        raise ValueError(
            f"{spec.game} is for {spec.module.MIN_PLAYERS} to {spec.module.MAX_PLAYERS} "
            f"players, not {players}"
        )
    options = spec.options(params)
    draws = check_timing(spec, str(params.get("draws", spec.default_draws)))
    return players, options, draws, Setup(spec, players, options)


def _make_game_class(short_name: str, spec: EnvSpec) -> type[CradleGame]:
    # The class itself is what pyspiel keeps (a closure kept only by pyspiel would be freed
    # after the interpreter shut down, and crash the exit). One class per id: a game's type
    # names the id it was loaded by, so serialized states load back by that id.
    name = "".join(part.capitalize() for part in short_name.split("_")) + "Game"
    return type(name, (CradleGame,), {"spec": spec, "short_name": short_name})


_GAME_TYPES: dict[str, pyspiel.GameType] = {}


def register() -> None:
    """Register every game that has a spec (idempotent; runs on import)."""
    known = set(pyspiel.registered_names())
    for short_name, game in GAMES.items():
        if short_name in known:
            continue
        try:
            spec = get_spec(game)
        except (ImportError, ValueError):
            continue  # that game's engine is not installed in this checkout
        _GAME_TYPES[short_name] = _game_type(short_name, spec)
        pyspiel.register_game(_GAME_TYPES[short_name], _make_game_class(short_name, spec))


register()
