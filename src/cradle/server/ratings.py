"""People's ratings: openskill's Plackett-Luce model, one rating per account, game and number
of players (a 2-player Tigris rating says little about 4-player Tigris).

A rated game's places update the ratings of its players once, in the transaction that stores
the move ending it (:func:`cradle.server.store.ratings.rate_game`). The rating shown is
the conservative ``mu - 3 sigma`` (openskill's ordinal): it starts at 0 and rises as a player
wins and as the model grows surer of them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

START_MU = 25.0
START_SIGMA = 25.0 / 3.0


@dataclass(frozen=True)
class Skill:
    """A rating: the model's estimate ``mu`` and its uncertainty ``sigma``."""

    mu: float = START_MU
    sigma: float = START_SIGMA

    @property
    def shown(self) -> float:
        """What a leaderboard ranks by: ``mu - 3 sigma``, rounded for people."""
        return round(self.mu - 3.0 * self.sigma, 2)


def rates(made_rated: bool, holders: Sequence[str | None], waiting: Collection[int] = ()) -> bool:
    """Whether a game rates its players when it ends: it was made rated (which refuses bots, a
    hot seat, guests, undo and hints) and every seat is held by a different account. Seats in
    ``waiting`` (open to a person who has not joined yet, who must sign in to) do not count
    against it: the lobby shows such a table as one that will be rated."""
    held = [account for seat, account in enumerate(holders) if seat not in waiting]
    return made_rated and None not in held and len(set(held)) == len(held)


def rate(skills: list[Skill], places: list[int]) -> list[Skill]:
    """Each player's rating after a game where player ``i`` came ``places[i]`` (1 wins; ties
    share a place), in the order given."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
    updated = model.rate(teams, ranks=[float(place) for place in places])
    return [Skill(team[0].mu, team[0].sigma) for team in updated]
