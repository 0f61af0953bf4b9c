"""A teacher's games for imitation (``python -m cradle.learn --teacher SPEC``): a native bot
(``expert-rules``, ``greedy``, ``ismcts@N``: ``cradle._native.NativeBot``) plays against the
``--teacher-opponents`` natively, and each of its decisions with a choice becomes a position
whose policy target is the action it chose (a one-hot "visits" row), in the self-play shards'
form (cradle.selfplay), so the replay window and the training read them unchanged.

Game ``g`` seats the teacher at ``g % players`` and the opponent
``opponents[(g // players) % len(opponents)]`` in every other seat (an opponent that is the
teacher's own spec is the teacher too: its decisions are recorded as well). The deals and the
bots' seeds are self-play's (``cradle.selfplay.seeds_of``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cradle.core.results import ranking_utilities
from cradle.envs.spec import get_spec
from cradle.selfplay import seeds_of


def check_spec(spec: str) -> None:
    """ValueError with the reason when ``spec`` is not a native bot."""
    from cradle import _native

    _native.NativeBot(spec, 0)


def seating(game_id: int, players: int, teacher: str, opponents: Sequence[str]) -> list[str]:
    """The bot spec of each seat of game ``game_id``."""
    opponent = opponents[(game_id // players) % len(opponents)]
    seats = [opponent] * players
    seats[game_id % players] = teacher
    return seats


def teacher_games(
    game: str,
    players: int,
    teacher: str,
    opponents: Sequence[str],
    game_ids: Sequence[int],
    seed: int,
) -> dict[str, np.ndarray]:
    """Play the games ``game_ids`` of the run ``seed`` at once and return the shard's arrays:
    one row per decision of the teacher with more than one legal action. The observations
    are bytes where every value is a whole number from 0 to 255 (Tigris'), else float32."""
    from cradle import _native

    spec = get_spec(game)
    width = spec.observation_size(players)
    cap = spec.max_game_length(players)
    seeds = [seeds_of(seed, g, players) for g in game_ids]
    states: list[Any] = [spec.module.new_game(players, s, engine="native") for s, _ in seeds]
    seatings = [seating(g, players, teacher, opponents) for g in game_ids]
    bots = [
        [_native.NativeBot(name, bot_seed) for name, bot_seed in zip(names, bot_seeds, strict=True)]
        for names, (_, bot_seeds) in zip(seatings, seeds, strict=True)
    ]
    observations: list[np.ndarray] = []
    legal: list[np.ndarray] = []
    visits: list[np.ndarray] = []
    seat_of: list[int] = []
    ply_of: list[int] = []
    game_of: list[int] = []
    actions: list[list[int]] = [[] for _ in states]
    live = [k for k, s in enumerate(states) if not s.is_over]
    while live:
        movers = np.asarray([states[k].to_move for k in live], np.int64)
        rows = np.zeros((len(live), width), np.float32)
        _native.Batch([states[k] for k in live]).observe(movers, rows)
        kept: list[int] = []
        for row, k in enumerate(live):
            state, seat = states[k], int(movers[row])
            choice = bots[k][seat].choose_id(state, seat)
            ids = state.legal_action_ids()
            if seatings[k][seat] == teacher and len(ids) > 1:
                kept.append(row)
                legal.append(np.asarray(ids, np.int64))
                visits.append((legal[-1] == choice).astype(np.float32))
                seat_of.append(seat)
                ply_of.append(len(actions[k]))
                game_of.append(k)
            state.apply_id(choice)
            actions[k].append(choice)
        if kept:  # held as bytes where exact: a quarter of float32's memory
            block = rows[kept]
            observations.append(block.astype(np.uint8) if _whole_bytes(block) else block)
        live = [k for k in live if not states[k].is_over and len(actions[k]) < cap]
    finals = np.asarray(
        [ranking_utilities(s.result()) if s.is_over else [0.0] * players for s in states],
        np.float32,
    ).reshape(-1, players)
    observation = np.concatenate(observations) if observations else np.zeros((0, width), np.uint8)
    ids = np.asarray(game_ids, np.int64)
    games = np.asarray(game_of, np.int64)
    counts = [len(x) for x in legal]
    return {
        "observation": observation,
        "legal_ids": np.concatenate(legal) if legal else np.zeros(0, np.int64),
        "visits": np.concatenate(visits) if visits else np.zeros(0, np.float32),
        "offsets": np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]).astype(np.int64),
        "seat": np.asarray(seat_of, np.int64),
        "ply": np.asarray(ply_of, np.int64),
        "game": ids[games],
        "result": finals[games],
        "game_ids": ids,
        "game_seeds": np.asarray([s for s, _ in seeds], np.uint64),
        "game_actions": np.asarray([a for played in actions for a in played], np.int64),
        "game_offsets": np.concatenate(
            [[0], np.cumsum([len(a) for a in actions], dtype=np.int64)]
        ).astype(np.int64),
        "players": np.asarray(players, np.int64),
    }


def _whole_bytes(part: np.ndarray) -> bool:
    return bool(
        part.size == 0
        or (part.min() >= 0 and part.max() <= 255 and np.array_equal(part, np.round(part)))
    )
