"""The native rules cores (``cradle._native``, built from ``native/`` by maturin), when built.

Each game's ``new_game``/``from_position`` takes ``engine="native"|"python"``; without one the
``CRADLE_ENGINE`` environment variable decides, else native when the extension is built. A
missing extension is said once (a warning), and the Python engines serve.
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType
from typing import Literal

Engine = Literal["native", "python"]
ENGINES: tuple[Engine, ...] = ("native", "python")

_extension: ModuleType | None
try:
    from cradle import _native as _extension
except ImportError:  # not built: the Python engines serve
    _extension = None

_warned = False


class NativeMissing(ImportError):
    """The native engine was asked for but the extension is not built."""


def available() -> bool:
    """True when the extension is built and importable."""
    return _extension is not None


def extension() -> ModuleType:
    """The extension module; :class:`NativeMissing` when it is not built."""
    if _extension is None:
        raise NativeMissing(
            "the native engine is not built: run `make play` or `make test` with a Rust "
            "toolchain (cargo), or pass engine='python'"
        )
    module: ModuleType = _extension
    return module


def choose(engine: str | None) -> Engine:
    """The engine to use for a request of ``engine`` (None: the default)."""
    global _warned
    if engine is None:
        engine = os.environ.get("CRADLE_ENGINE") or None
    if engine is None:
        if _extension is not None:
            return "native"
        if not _warned:
            _warned = True
            warnings.warn(
                "cradle's native engines are not built (no Rust toolchain?): using the "
                "slower Python engines",
                RuntimeWarning,
                stacklevel=3,
            )
        return "python"
    if engine == "native":
        extension()
        return "native"
    if engine == "python":
        return "python"
    raise ValueError(f"unknown engine {engine!r} (known: native, python)")
