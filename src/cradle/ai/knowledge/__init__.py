"""What the search knows of each game: the evaluation, move priors, the quick policy and
reasons in words (``tigris``, ``gheos``, behind the :class:`base.Knowledge` protocol), the
public belief over the Tigris hands (``belief``) and the learned evaluations (``learned``).
Everything here reads *worlds* (full states a seat cannot tell from the truth), never the
state a bot was given.
"""
