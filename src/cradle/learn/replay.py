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
    observation: np.ndarray  # (P, W) raw: uint8 where every shard's values are (exactly)
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
    """The positions of the shards at ``paths``, in order. The observations are held as
    bytes where they are whole numbers from 0 to 255 (Tigris': a quarter of the memory of
    float32, the same numbers), else as float32; one array filled shard by shard."""
    counts = []
    for path in paths:
        with np.load(path) as shard:
            counts.append(int(shard["seat"].shape[0]))
    observation: np.ndarray | None = None
    legal, visits, values = [], [], []
    offsets = [np.zeros(1, np.int64)]
    row = shift = 0
    for path, count in zip(paths, counts, strict=True):
        with np.load(path) as shard:
            part = shard["observation"]
            if observation is None:
                observation = np.zeros((sum(counts), part.shape[1]), np.uint8)
            if observation.dtype == np.uint8 and not _bytes_exact(part):
                observation = observation.astype(np.float32)
            observation[row : row + count] = part
            row += count
            offsets.append(shard["offsets"][1:] + shift)
            shift += int(shard["offsets"][-1])
            legal.append(shard["legal_ids"].astype(np.int64))
            visits.append(shard["visits"].astype(np.float32))
            values.append(relative_rewards(shard["result"], shard["seat"]))
    if observation is None:
        raise ValueError("no shards to train on")
    return Positions(
        observation=observation,
        legal_ids=np.concatenate(legal),
        visits=np.concatenate(visits),
        offsets=np.concatenate(offsets),
        values=np.concatenate(values),
    )


def _bytes_exact(part: np.ndarray) -> bool:
    """Whether every element of ``part`` is a whole number from 0 to 255."""
    return bool(
        part.size == 0
        or (part.min() >= 0 and part.max() <= 255 and np.array_equal(part, np.round(part)))
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
    x = positions.observation[rows].astype(np.float32) / scales[None, :]
    return x, mask, target, positions.values[rows]
