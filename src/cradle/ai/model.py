"""The learned networks: a checkpoint (docs/research.md, "The checkpoint format") named by the
name of one shipped in the package (``tigris-2p``) or by a path, read once a process by the
native extension (``cradle._native.Model``), so that playing with one needs neither JAX nor
PyTorch.

A bot spec names one with ``model=``: ``ismcts@200/model=tigris-2p`` (the search with the
network at its leaves) and ``policy/model=tigris-2p`` (the network's policy alone). A spec's
``model=`` comes last: everything after it is the name or the path, as typed (paths keep their
case and may hold ``/``).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cradle._native import Model

NETWORKS = Path(__file__).parent / "networks"
SUFFIX = ".safetensors"
NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
MODEL_KEY = "model="


def shipped() -> list[str]:
    """The names of the networks shipped in the package."""
    return sorted(p.name[: -len(SUFFIX)] for p in NETWORKS.glob(f"*{SUFFIX}"))


def resolve(name: str) -> Path:
    """The checkpoint file of ``name``: a shipped network's name, else a path (a clear
    ValueError where neither names a file)."""
    if NAME.fullmatch(name) and (NETWORKS / f"{name}{SUFFIX}").is_file():
        return NETWORKS / f"{name}{SUFFIX}"
    path = Path(name).expanduser()
    if not path.is_file():
        known = ", ".join(shipped()) or "none"
        raise ValueError(f"no model {name!r}: name a checkpoint file or a shipped one ({known})")
    return path


def load(name: str) -> Model:
    """The network ``name`` names (:func:`resolve`), read once a process per file and
    version of it (a retrained file is read again)."""
    path = resolve(name).resolve()
    stat = path.stat()
    return _load(str(path), stat.st_mtime_ns, stat.st_size)


@cache
def _load(path: str, mtime: int, size: int) -> Model:
    from cradle import _native

    return _native.Model.load(path)


def split_model(spec: str) -> tuple[str, str | None]:
    """A bot spec without its ``model=`` setting, and the model it names (None: none). The
    rest of the spec is lower-cased (specs are case-insensitive); the model is kept as typed."""
    text = spec.strip()
    at = text.lower().find("/" + MODEL_KEY)
    if at < 0:
        return text.lower(), None
    model = text[at + 1 + len(MODEL_KEY) :].strip()
    if not model:
        raise ValueError(f"model= names no model in {spec!r}")
    return text[:at].lower(), model
