"""Research interfaces: both games as OpenSpiel games and PettingZoo environments.

- :mod:`cradle.envs.openspiel` registers ``python_tigris_euphrates`` and ``python_gheos``
  (needs the ``openspiel`` extra);
- :mod:`cradle.envs.tigris_v0` and :mod:`cradle.envs.gheos_v0` are PettingZoo AEC
  environments (needs the ``pettingzoo`` extra);
- :mod:`cradle.envs.encoding` numbers every action string of a game's notation.

Nothing here is imported by the engines or the CLI unless asked for.
"""
