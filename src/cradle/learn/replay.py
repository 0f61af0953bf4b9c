"""The replay window: the self-play shards of the last iterations, read into one set of
positions, and minibatches of them as the network trains on them (dense rows of the legal
actions' mask and the search's visits, built per batch; each seat's rank reward turned to the
seats relative to the position's mover, as the value head predicts it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Positions:
    observation: np.ndarray  # (P, W) float32, raw
    legal_ids: np.ndarray  # ragged by offsets
    visits: np.ndarray
    offsets: np.ndarray  # (P + 1,)
    values: np.ndarray  # (P, players) float32: rank rewards, seats relative to the mover

    def __len__(self) -> int:
        return int(self.observation.shape[0])


def relative_rewards(result: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """Each seat's rank reward (``(utility + 1) / 2``) in the seats relative to ``seat``:
    column k is seat ``(seat + k) % players``'s."""
    players = result.shape[1]
    columns = (seat[:, None] + np.arange(players)[None, :]) % players
    rows = np.arange(result.shape[0])[:, None]
    out: np.ndarray = ((result[rows, columns] + 1.0) / 2.0).astype(np.float32)
    return out


def load(paths: Sequence[Path]) -> Positions:
    """The positions of the shards at ``paths``, in order."""
    parts = [np.load(p) for p in paths]
    offsets = [np.zeros(1, np.int64)]
    shift = 0
    for part in parts:
        offsets.append(part["offsets"][1:] + shift)
        shift += int(part["offsets"][-1])
    return Positions(
        observation=np.concatenate([p["observation"] for p in parts]).astype(np.float32),
        legal_ids=np.concatenate([p["legal_ids"] for p in parts]).astype(np.int64),
        visits=np.concatenate([p["visits"] for p in parts]).astype(np.float32),
        offsets=np.concatenate(offsets),
        values=np.concatenate([relative_rewards(p["result"], p["seat"]) for p in parts]),
    )


def batch(
    positions: Positions, rows: np.ndarray, actions: int, scales: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The minibatch of ``rows``: scaled observations, the legal mask and the visit targets
    (dense, ``actions`` wide) and the relative values."""
    starts = positions.offsets[rows]
    counts = positions.offsets[rows + 1] - starts
    which = np.repeat(np.arange(len(rows)), counts)
    flat = np.concatenate([np.arange(s, s + c) for s, c in zip(starts, counts, strict=True)])
    mask = np.zeros((len(rows), actions), bool)
    target = np.zeros((len(rows), actions), np.float32)
    mask[which, positions.legal_ids[flat]] = True
    target[which, positions.legal_ids[flat]] = positions.visits[flat]
    x = positions.observation[rows] / scales[None, :]
    return x.astype(np.float32), mask, target, positions.values[rows]
