"""The search bots and what they share: a budget (``budget``), the worlds they deal
(``worlds``), how a leaf is judged (``leaves``), the ISMCTS settings (``params``), the tree
(``ismcts``, the reference), its native twin (``native``), PIMC (``pimc``), results
(``result``) and worker processes (``parallel``)."""

from cradle.ai.search.budget import Budget

__all__ = ["Budget"]
