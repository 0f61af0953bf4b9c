"""Suite-wide checks: `make test` requires the native engines (CRADLE_REQUIRE_NATIVE=1)."""

from __future__ import annotations

import os

from cradle.core import native

if os.environ.get("CRADLE_REQUIRE_NATIVE") == "1" and not native.available():
    raise RuntimeError(
        "CRADLE_REQUIRE_NATIVE=1 but cradle._native is not built (make native builds it)"
    )
