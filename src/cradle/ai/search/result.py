"""What a search returns: the root's actions with their visits and mean rewards, best
first."""

from __future__ import annotations

from dataclasses import dataclass, field


def add_stats(stats: dict[str, tuple[int, float]], action: str, n: int, w: float) -> None:
    """Adds ``n`` visits and ``w`` summed reward to ``action``'s root statistics."""
    old_n, old_w = stats.get(action, (0, 0.0))
    stats[action] = (old_n + n, old_w + w)


@dataclass
class ActionStats:
    action: str
    visits: int
    reward: float  # mean reward of the searching seat after this action


@dataclass
class SearchResult:
    seat: int
    iterations: int
    seconds: float
    actions: list[ActionStats] = field(default_factory=list)  # most visited first

    @property
    def best(self) -> str:
        return self.actions[0].action


def make_result(
    seat: int,
    iterations: int,
    seconds: float,
    stats: dict[str, tuple[int, float]],
) -> SearchResult:
    """Rows best first: the most visited children (by mean reward among equally visited),
    then the others by visits."""
    rows = [ActionStats(a, n, w / n if n else 0.0) for a, (n, w) in stats.items() if n > 0]
    most = max((r.visits for r in rows), default=0)
    rows.sort(
        key=lambda r: (
            r.visits < most,
            -r.reward if r.visits >= most else -r.visits,
            -r.visits,
            r.action,
        )
    )
    return SearchResult(seat, iterations, seconds, rows)
