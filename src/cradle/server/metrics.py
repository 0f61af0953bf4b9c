"""The server's Prometheus metrics (prometheus_client), served at ``/metrics`` to whoever holds
the operator's token (``cradle serve --metrics-token``; docs/server.md, "Metrics").

Counters and histograms live in each process; with ``--workers N`` every worker writes them to
the folder of ``$PROMETHEUS_MULTIPROC_DIR`` (set by ``run_server``) and whichever worker answers
a scrape adds them all up. What the database knows (the bots' queue) is read at each scrape.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

MOVES = Counter(
    "cradle_moves",
    "Moves stored by this server's processes (by: person, or bot for its own bot workers).",
    ["game", "by"],
)
MOVE_SECONDS = Histogram(
    "cradle_move_seconds",
    "Seconds from a move's arrival to its being stored (applied, written, before it is sent).",
    ["game"],
    buckets=SECONDS,
)
REQUEST_SECONDS = Histogram(
    "cradle_http_request_seconds",
    "Seconds to answer an HTTP request, by route (its path pattern) and status class.",
    ["route", "method", "status"],
    buckets=SECONDS,
)
SIGNINS = Counter(
    "cradle_signins",
    "Sign-in attempts answered, by result (ok, wrong, refused).",
    ["result"],
)
SIGNINS_REFUSED = Counter(
    "cradle_signins_refused",
    "Sign-ins and password checks refused before any hashing, by reason (address, device, "
    "name: too many failures; busy: one already checked for the client; queue: the hashing "
    "queue's wait budget).",
    ["reason"],
)
MAILS = Counter("cradle_mails", "Turn notices handed to the SMTP server, by result.", ["result"])
DB_FAILURES = Counter(
    "cradle_database_errors",
    "Requests answered 503 because the database failed (kind: the failure's class; corrupt: "
    "a game set aside).",
    ["kind"],
)


def allowed(token: str | None, authorization: str | None) -> bool:
    """Whether a scrape sent the operator's token (``Authorization: Bearer TOKEN``)."""
    if not token or not authorization:
        return False
    scheme, _, sent = authorization.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(sent.strip(), token)


class BotQueue(Collector):
    """The bots' turns as the database holds them, read at each scrape."""

    def __init__(self, waiting: int, thinking: int, oldest: float | None) -> None:
        self.values = (waiting, thinking, oldest)

    def collect(self) -> Iterable[Metric]:
        waiting, thinking, oldest = self.values
        queue = GaugeMetricFamily(
            "cradle_bot_queue",
            "Bots' turns in the database's queue: waiting for a worker (their bot delay "
            "included), or thinking (a worker holds them).",
            labels=["state"],
        )
        queue.add_metric(["waiting"], waiting)
        queue.add_metric(["thinking"], thinking)
        yield queue
        yield GaugeMetricFamily(
            "cradle_bot_queue_wait_seconds",
            "How long the oldest bot's turn that is due has waited for a worker.",
            value=0.0 if oldest is None else max(0.0, time.time() - oldest),
        )


def exposition(queue: tuple[int, int, float | None] | None) -> bytes:
    """The text a scrape gets: every process's counters and histograms, and the bots' queue."""
    from prometheus_client import REGISTRY

    if os.environ.get(MULTIPROCESS_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        text = generate_latest(registry)
    else:
        text = generate_latest(REGISTRY)
    if queue is not None:
        extra = CollectorRegistry()
        extra.register(BotQueue(*queue))
        text += generate_latest(extra)
    return text
