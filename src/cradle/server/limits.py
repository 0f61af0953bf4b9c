"""What one client, one table and the whole server may use: the operator's knobs and their
defaults (safe for a server on the internet, roomy enough for people and bot scripts), and the
per-client rate limiter."""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

# Bots that cost nothing: they decide at once, in a thread, and count against no bot-seat cap.
FREE_BOTS = frozenset({"random"})

# The two kinds of bots' turns (cradle.server.store.botjobs), each with workers of its own
# (cradle.server.botpool): here, so that a bot worker imports no storage.
Lane = Literal["waited", "background"]
WAITED: Lane = "waited"  # a person waits for the bot: workers at the server's priority
BACKGROUND: Lane = "background"  # nobody waits: niced workers of their own
LANES: tuple[Lane, ...] = (WAITED, BACKGROUND)


def default_max_sockets() -> int:
    """Live WebSocket connections one server process takes: half its file descriptors (the
    rest serve HTTP, the database and the workers), one per 2 MiB of memory, 10,000 at most."""
    import resource

    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if files == resource.RLIM_INFINITY:
        files = 1 << 20
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        memory = 1 << 32
    return max(64, min(10_000, files // 2, memory // (2 << 20)))


def default_bot_processes() -> int:
    """One bot process per core but one (the server keeps a core), at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True)
class Limits:
    """Every limit of the server; ``create_app(limits=...)`` and ``cradle serve`` flags."""

    # Per client (cradle.server.clients.client_key: its address, an IPv6 address's /64; behind
    # a trusted proxy, the address it forwarded).
    create_per_minute: float = 20.0  # new games (and seats joined)
    create_burst: int = 20
    moves_per_second: float = 20.0  # moves and undos, over HTTP and WebSocket together
    moves_burst: int = 300
    chat_per_minute: float = 20.0  # chat lines per client, and per seat, after a burst
    chat_burst: int = 8
    # Per table: the lines all its spectators together write (players' lines stay on the page).
    spectator_lines_per_minute: float = 6.0
    spectator_lines_burst: int = 10
    sockets_per_client: int = 64  # live WebSocket connections at once (every game together)
    # Per server process.
    max_sockets: int = 0  # live WebSocket connections of all clients; 0: sized for the machine
    # Tables.
    invite_days: float = 7.0  # an unused invite code works this long after the game was made
    # Live games and bot seats, counted in the database (all processes on it together): per
    # client, and for the whole server. A game counts while it is not over and changed within a
    # day, or, while no person has played in it, within ``unplayed_minutes``; after that it
    # expires. Bot seats count only bots that cost something (not FREE_BOTS).
    live_games_per_client: int = 20
    bot_seats_per_client: int = 8
    max_live_games: int = 1000  # when full, the client holding most games gives one up
    max_bot_seats: int = 400  # when full, the client holding most bot seats gives a game up
    unplayed_minutes: float = 10.0
    # Bots.
    bot_seconds: float = 2.0  # the most a bot may think per decision; a table may ask for less
    bot_processes: int = 0  # worker processes for bots' decisions; 0: one per core but one
    # Niced worker processes for the bots' turns nobody waits for (bots alone, stand-ins): the
    # workers above take only the turns a person waits for. 0: as many as bot_processes.
    background_bot_processes: int = 0
    background_bot_nice: int = 10  # their niceness above the server's (0 to 19)
    prestart_bots: bool = False  # start them with the server (`cradle serve` does), not at need
    run_bots: bool = True  # make bots' moves here (off: `cradle bots` processes make them)
    # Reading.
    lobby_page: int = 50  # games per lobby page (a client may ask for fewer)
    replay_cache: int = 64  # finished games' replays kept built (and as many histories)
    reads_per_second: float = 10.0  # per client: histories, past boards, explanations
    reads_burst: int = 60
    # The search bots' help for people (cradle.server.assist): hints and game analyses share
    # worker processes of their own, niced below the bots' workers.
    assist_processes: int = 1
    hint_seconds: float = 1.0  # thinking per hint
    hints_per_minute: float = 6.0  # per client, after a burst
    hints_burst: int = 6
    analysis_seconds: float = 0.25  # thinking per move reviewed in a finished game's analysis
    analysis_queue: int = 50  # analyses waiting in memory (more wait in the database)
    analyse_finished: bool = True  # analyse every game a person played once it ends
    # Password checks of a signed-in account (changing the password, deleting the account), per
    # account: a burst, then a rate (sign-ins themselves follow the failures' limits below).
    signins_per_minute: float = 6.0
    signins_burst: int = 10
    # Accounts: the memory (KiB) each argon2id password hash takes (RFC 9106's low-memory
    # profile: 64 MiB, 3 passes); tests lower it, so that they hash as fast as they run.
    password_kib: int = 65536
    # Sign-ins (cradle.server.signins): failed ones per client and per account name, after a
    # burst; a client's failure is "recent" this long (a name under attack refuses it); the
    # passwords one process hashes at a time, and the longest a check may wait its turn.
    signin_failures_per_minute: float = 6.0
    signin_failures_burst: int = 10
    signin_memory_minutes: float = 15.0
    password_hashers: int = 2
    signin_wait_seconds: float = 3.0

    def __post_init__(self) -> None:
        positive = (
            "create_per_minute",
            "invite_days",
            "moves_per_second",
            "bot_seconds",
            "reads_per_second",
            "hint_seconds",
            "hints_per_minute",
            "chat_per_minute",
            "signins_per_minute",
            "spectator_lines_per_minute",
            "analysis_seconds",
            "unplayed_minutes",
            "signin_failures_per_minute",
            "signin_memory_minutes",
            "signin_wait_seconds",
        )
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be more than 0")
        at_least_one = (
            "create_burst",
            "moves_burst",
            "sockets_per_client",
            "max_live_games",
            "live_games_per_client",
            "lobby_page",
            "reads_burst",
            "hints_burst",
            "chat_burst",
            "signins_burst",
            "spectator_lines_burst",
            "assist_processes",
            "analysis_queue",
            "signin_failures_burst",
            "password_hashers",
        )
        for name in at_least_one:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not 0 <= self.background_bot_nice <= 19:
            raise ValueError("background_bot_nice must be between 0 and 19")
        if not 32 <= self.password_kib <= 4 * 1024 * 1024:
            raise ValueError("password_kib must be between 32 and 4194304")
        for name in (
            "max_bot_seats",
            "bot_seats_per_client",
            "bot_processes",
            "background_bot_processes",
            "replay_cache",
            "max_sockets",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")

    @property
    def processes(self) -> int:
        return self.bot_processes or default_bot_processes()

    @property
    def background_processes(self) -> int:
        return self.background_bot_processes or self.processes

    @property
    def sockets(self) -> int:
        return self.max_sockets or default_max_sockets()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Limits:
        known = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"unknown limit(s): {', '.join(unknown)}")
        return cls(**data)


# The limits a load test's own server runs with: the clients all share one address, and its
# finished games are not analysed (that would measure the analyses, not the moves).
UNLIMITED_CLIENTS = {
    "analyse_finished": False,
    "create_per_minute": 1e9,
    "create_burst": 10**9,
    "moves_per_second": 1e9,
    "moves_burst": 10**9,
    "sockets_per_client": 10**9,
    "max_live_games": 10**6,
    "live_games_per_client": 10**6,
    "reads_per_second": 1e9,
    "reads_burst": 10**9,
}


def take(tokens: float, elapsed: float, rate: float, burst: float) -> tuple[float, float]:
    """One request from a token bucket that held ``tokens`` ``elapsed`` seconds ago: (the
    tokens left, 0.0) when it may go on, else (the tokens, the seconds until it may)."""
    tokens = min(burst, tokens + max(0.0, elapsed) * rate)
    if tokens >= 1.0:
        return tokens - 1.0, 0.0
    return tokens, (1.0 - tokens) / rate


def peek(tokens: float, elapsed: float, rate: float, burst: float) -> float:
    """:func:`take` without taking: 0.0, or the seconds until a request could go on."""
    return take(tokens, elapsed, rate, burst)[1]


class RateLimiter:
    """Token buckets per client key: ``burst`` at once, then ``rate`` per second.

    The table of clients is bounded (least recently seen forgotten first), so a flood of
    addresses costs a fixed amount of memory; a forgotten client starts again with a full
    bucket, which only errs on the side of letting people play.
    """

    def __init__(self, rate: float, burst: int, clients: int = 10_000, name: str = "") -> None:
        self.name = name  # the bucket's name where the processes count together (PostgreSQL)
        self.rate = rate
        self.burst = float(burst)
        self.clients = clients
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str, now: float | None = None) -> float:
        """0.0 if the client may go on now (and count it), else the seconds until it may."""
        now = time.monotonic() if now is None else now
        tokens, last = self.buckets.pop(key, (self.burst, now))
        tokens, wait = take(tokens, now - last, self.rate, self.burst)
        self.buckets[key] = (tokens, now)
        while len(self.buckets) > self.clients:
            self.buckets.popitem(last=False)
        return wait

    def peek(self, key: str, now: float | None = None) -> float:
        """0.0 if the client could go on now, else the seconds until it could; counts nothing."""
        now = time.monotonic() if now is None else now
        tokens, last = self.buckets.get(key, (self.burst, now))
        return peek(tokens, now - last, self.rate, self.burst)
