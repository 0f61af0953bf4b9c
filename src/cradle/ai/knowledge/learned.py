"""The learned evaluations: a model of each seat's result per game, read from a file in the
repository (``cradle/ai/models/<game>-v<N>.json``), used by the Python knowledge and, through
``cradle._native.ai_set_model``, by the native search (``ismcts@.../learned=1``).

A model is linear in the knowledge's learned features (``Reading.learned_features`` in Tigris,
read with value=2, ``Reading.features`` in Gheos; their native twins return the same
numbers): a seat's value is
``sum(weight × feature)``, and ``sigmoid(value_i - value_j)`` is the chance that seat i
finishes ahead of seat j, which is how the search turns values into rewards (temperature 1).
``python -m lab training`` writes the files; loading needs no network.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

try:
    from cradle import _native

    BUILT = True
except ImportError:  # not built: the Python knowledge alone reads the model
    BUILT = False

MODELS = Path(__file__).parent / "models"

# The features each game's knowledge computes, in order; every one is computed once scaled
# by the share of the game left (early) and once by the share played (late).
TIGRIS_BASE = (
    "lowest_colour",
    "second_colour",
    "third_colour",
    "highest_colour",
    "expected_lowest",
    "expected_second",
    "expected_sum",
    "leaders",
    "leader_quality",
    "monuments_fed",
    "red_in_hand",
    "catastrophes",
    "hand_set_value",
)
GHEOS_BASE = (
    "points",
    "tokens",
    "followers",
    "follower_cups",
    "follower_pyramids",
    "follower_swords",
    "follower_wheat",
    "pyramids_to_score",
    "followers_at_risk",
    "civilizations",
    "value_1",
    "to_move",
    "controls_the_end",
    "usable_tokens",
    "hand_set_value",
)


def _scaled(base: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{n}_early" for n in base) + tuple(f"{n}_late" for n in base)


FEATURES: dict[str, tuple[str, ...]] = {
    "tigris": _scaled(TIGRIS_BASE),
    "gheos": _scaled(GHEOS_BASE),
}


@dataclass(frozen=True)
class Model:
    """A linear model of a seat's result: ``value = weights · features``."""

    game: str
    features: tuple[str, ...]
    weights: tuple[float, ...]
    meta: dict[str, object] = field(default_factory=dict, compare=False)

    def value(self, features: list[float]) -> float:
        total = 0.0
        for w, x in zip(self.weights, features, strict=True):
            total += w * x
        return total

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "kind": "pairwise-logistic",
            "features": list(self.features),
            "weights": list(self.weights),
            **self.meta,
        }


def parse(data: object) -> Model:
    """A model from its JSON object; a clear error when it does not fit its game's features."""
    if not isinstance(data, dict):
        raise ValueError("a model is a JSON object")
    game = data.get("game")
    if not isinstance(game, str) or game not in FEATURES:
        raise ValueError(f"a model of an unknown game: {game!r}")
    names = tuple(data.get("features", ()))
    if names != FEATURES[game]:
        raise ValueError(
            f"the {game} model's features {list(names)} are not the knowledge's "
            f"{list(FEATURES[game])}: train it again (python -m lab training)"
        )
    weights = tuple(float(w) for w in data.get("weights", ()))
    if len(weights) != len(names):
        raise ValueError(f"the {game} model has {len(weights)} weights for {len(names)} features")
    meta = {k: v for k, v in data.items() if k not in ("game", "kind", "features", "weights")}
    return Model(game, names, weights, meta)


# Each game's model file: Gheos' second model added the seat to move, the control of the
# end, the tokens a seat can expect to play and value 4 (the default evaluation) as features.
VERSIONS = {"tigris": 1, "gheos": 2}


def path_of(game: str) -> Path:
    return MODELS / f"{game}-v{VERSIONS[game]}.json"


@cache
def model(game: str) -> Model:
    """The repository's model of ``game``, read once; the native search gets its weights too."""
    found = parse(json.loads(path_of(game).read_text()))
    push_native(found)
    return found


def push_native(found: Model) -> None:
    """Give the native search the model's weights (where the extension is built)."""
    if BUILT:
        _native.ai_set_model(found.game, list(found.weights))
