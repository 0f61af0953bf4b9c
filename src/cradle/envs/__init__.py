"""Research interfaces: both games as OpenSpiel games and PettingZoo environments.

- :mod:`cradle.envs.openspiel` registers ``python_cradle_tigris_v1`` and
  ``python_cradle_gheos_v1`` (also as ``python_tigris_euphrates`` and ``python_gheos``; needs
  the ``openspiel`` extra);
- :mod:`cradle.envs.tigris_v0` and :mod:`cradle.envs.gheos_v0` are PettingZoo AEC
  environments (needs the ``pettingzoo`` extra);
- :mod:`cradle.envs.single`: ``cradle/Tigris-v1`` and ``cradle/Gheos-v1``, single-agent
  Gymnasium environments against bots (registered when this package is imported and
  Gymnasium is installed);
- :mod:`cradle.envs.encoding` numbers every action string of a game's notation.

Nothing here is imported by the engines or the CLI unless asked for.
"""

import importlib.util as _util

ENV_IDS = {"cradle/Tigris-v1": "tigris", "cradle/Gheos-v1": "gheos"}


def register_gymnasium() -> None:
    """Register ``cradle/Tigris-v1`` and ``cradle/Gheos-v1`` (:mod:`cradle.envs.single`) with
    Gymnasium, once; the entry points are strings, so the environments' module is imported
    only when one is made."""
    import gymnasium

    for env_id, game in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=f"cradle.envs.single:{game}_env",
                vector_entry_point=f"cradle.envs.single:{game}_vec_env",
            )


if _util.find_spec("gymnasium") is not None:
    register_gymnasium()
