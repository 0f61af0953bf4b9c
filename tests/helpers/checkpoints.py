"""Small learned networks written as checkpoints (the safetensors format, written here by
hand so the play tests need nothing of the trainer's extra)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from cradle.envs.spec import get_spec


def write_checkpoint(path: Path, tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> Path:
    """A safetensors file of float32 ``tensors`` and string ``metadata``."""
    header: dict[str, object] = {"__metadata__": metadata}
    data = b""
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [len(data), len(data) + len(raw)],
        }
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)
    return path


def tigris_network(
    players: int = 2,
    hidden: tuple[int, ...] = (8,),
    seed: int = 1,
    scale: float = 1.0,
    game: str = "tigris",
) -> dict[str, np.ndarray]:
    """Random weights of a network of ``game`` (``scale`` 0: all zeros, a neutral network)."""
    spec = get_spec(game)
    rng = np.random.default_rng(seed)
    width = spec.observation_size(players)
    tensors: dict[str, np.ndarray] = {}
    for k, size in enumerate(hidden):
        tensors[f"layer{k}.weight"] = scale * rng.normal(0, 0.1, (width, size))
        tensors[f"layer{k}.bias"] = scale * rng.normal(0, 0.1, size)
        width = size
    actions = len(spec.encoding)
    tensors["policy.weight"] = scale * rng.normal(0, 1.0, (width, actions))
    tensors["policy.bias"] = np.zeros(actions)
    tensors["value.weight"] = scale * rng.normal(0, 1.0, (width, players))
    tensors["value.bias"] = np.zeros(players)
    return {name: t.astype(np.float32) for name, t in tensors.items()}


def tigris_checkpoint(path: Path, players: int = 2, game: str = "tigris", **kwargs: object) -> Path:
    meta = {"format": "cradle-mlp", "version": "1", "game": game, "players": str(players)}
    tensors = tigris_network(players, game=game, **kwargs)  # type: ignore[arg-type]
    return write_checkpoint(path, tensors, meta)


def reference_forward(
    tensors: dict[str, np.ndarray], x: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The network in NumPy: logits of every action and each seat's value (relative)."""
    h = x.astype(np.float64)
    k = 0
    while f"layer{k}.weight" in tensors:
        h = np.maximum(h @ tensors[f"layer{k}.weight"] + tensors[f"layer{k}.bias"], 0.0)
        k += 1
    logits = h @ tensors["policy.weight"] + tensors["policy.bias"]
    value = 1 / (1 + np.exp(-(h @ tensors["value.weight"] + tensors["value.bias"])))
    return logits, value
