"""The native engine's speed against the Python reference, a regression guard (long tier).

Both engines play whole random 2-player games (`random_playout`, full legal lists at every
ply) in alternating rounds of one run, and the rate is taken per CPU-second of this process:
the ratio holds on a shared machine where wall times do not (docs/engines.md, "Speed"). Not a
timed test: it fails only when the native playout falls under 80 times the reference's.
"""

from __future__ import annotations

import pytest

from cradle import tigris
from cradle.cli.bench import Measurement, measure
from cradle.core import native

pytestmark = [
    pytest.mark.long,
    pytest.mark.skipif(not native.available(), reason="the native engine is not built"),
]

ENGINES_INSIDE = True  # both engines in one test (tests/tigris/conftest.py)
ROUNDS = 3
ROUND_SECONDS = 1.0
LEAST_RATIO = 80.0


def test_native_tigris_playout_stays_80_times_the_reference() -> None:
    totals = {"native": Measurement(2), "python": Measurement(2)}
    for round_ in range(ROUNDS):
        order = ("native", "python") if round_ % 2 == 0 else ("python", "native")
        for engine in order:
            part = measure(
                tigris,
                2,
                ROUND_SECONDS,
                tigris.Options(),
                11 + round_,
                engine,
                finish=True,
                loop="playout",
            )
            totals[engine].add(part)
    rates = {engine: m.cpu_rate(m.games) for engine, m in totals.items()}
    assert totals["python"].games > 0
    ratio = rates["native"] / rates["python"]
    assert ratio >= LEAST_RATIO, (
        f"native {rates['native']:.0f} games per CPU-second, "
        f"the reference {rates['python']:.1f}: {ratio:.1f}x"
    )
