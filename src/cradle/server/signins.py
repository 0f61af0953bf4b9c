"""Sign-ins strangers cannot block, and password hashing nobody can queue without bound.

**Who may try.** Only failed sign-ins count, and they count against the one who failed: its
client (an address, see cradle.server.clients; or, from a browser the account signed in on
before, that device) and the account name it guessed at. A client with too many recent failures
waits (``429`` with ``Retry-After``, at once: nothing is hashed) — the delay is the guessers'
alone. A name with too many recent failures is *under attack*: then only its known devices and
clients with no failure in the last :attr:`Limits.signin_memory_minutes` may try it, so the
owner, from a browser they signed in on or from an address that guessed nothing, signs in at
once whatever others guess, while each guessing address gets one try per memory span. An
address the account signed in from (kept as a hash with its devices, as long) is its *home*:
it may try the name however many guesses came from elsewhere.

**The hashing queue.** argon2id takes tens of milliseconds and 64 MiB per check, so each server
process checks ``password_hashers`` passwords at a time, in order of priority: a known device of
the account first, then its home addresses, then clients with no recent failure, then the rest
(the order of arrival within each). One worker (of two or more) is kept for the account's own
(known devices and home addresses: what only a correct sign-in makes), so no stranger's hash ever
stands before theirs: they wait for their own hash alone. Each client has one check waiting or
running at most (a second is refused at once, ``429``), and a stranger's check whose wait,
estimated from the queue ahead of it and the measured time of a check, would pass
``signin_wait_seconds`` is refused at once (``503`` with ``Retry-After``): no set of addresses
makes anyone's sign-in wait longer than that, and the refused ones cost nothing but the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from cradle.core.words import N_
from cradle.server.errors import ApiError
from cradle.server.limits import Limits, RateLimiter
from cradle.server.metrics import SIGNINS_REFUSED

T = TypeVar("T")

# Priorities in the queue: a known device of the account, an address that signed in to the
# name before, a client with no recent failure, the rest.
KNOWN, HOME, CLEAN, SUSPECT = 0, 1, 2, 3
PRIORITY_NAMES = ("known", "home", "clean", "suspect")
FIRST_GUESS = 0.25  # seconds one check is taken to cost until one has been measured
SMOOTHING = 0.2  # weight of the latest check in the running mean of their times


class Counts(Protocol):
    """Where buckets are counted: in this process, and on a shared database by every process."""

    async def peek_bucket(self, bucket: RateLimiter, key: str) -> float: ...

    async def take_bucket(self, bucket: RateLimiter, key: str) -> float: ...


def refused(status: int, reason: str, delay: float, /, **params: object) -> ApiError:
    return ApiError(status, reason, retry_after=max(1.0, delay), params=params)


@dataclass
class SignInRules:
    """Which client may try which name, and at what priority (see the module's doc)."""

    limits: Limits
    failures: RateLimiter = field(init=False)  # failures per client (or known device)
    name_failures: RateLimiter = field(init=False)  # failures per account name
    recent: RateLimiter = field(init=False)  # per client: empty while a failure is recent

    def __post_init__(self) -> None:
        rate = self.limits.signin_failures_per_minute / 60.0
        burst = self.limits.signin_failures_burst
        self.failures = RateLimiter(rate, burst, name="signin-fail")
        self.name_failures = RateLimiter(rate, burst, name="signin-fail-name")
        self.recent = RateLimiter(1.0 / (60.0 * self.limits.signin_memory_minutes), 1, name="signin-recent")  # fmt: skip

    async def admit(
        self, counts: Counts, client: str, name: str, device: str | None, home: bool = False
    ) -> int:
        """The priority of a sign-in by ``client`` (``device``: the key of a known device of
        the account named ``name``; ``home``: whether the account signed in from this client's
        address before), or ApiError 429 when it must wait."""
        who = device or client
        wait = await counts.peek_bucket(self.failures, who)
        if wait > 0:
            SIGNINS_REFUSED.labels("device" if device else "address").inc()
            if device:
                said = N_("too many failed sign-ins from this device: wait {wait} s")
            else:
                said = N_("too many failed sign-ins from your address: wait {wait} s")
            raise refused(429, said, wait, wait=round(wait))
        if device is not None:
            return KNOWN
        if home:
            return HOME  # it signed in to this name from here before
        clean = await counts.peek_bucket(self.recent, client) <= 0
        if clean:
            return CLEAN
        wait = await counts.peek_bucket(self.name_failures, name)
        if wait > 0:
            SIGNINS_REFUSED.labels("name").inc()
            raise refused(
                429,
                N_(
                    "too many failed sign-ins to this name: wait {wait} s, or sign in from a "
                    "device you signed in on before"
                ),
                wait,
                wait=round(wait),
            )
        return SUSPECT

    async def failed(self, counts: Counts, client: str, name: str, device: str | None) -> None:
        """A wrong password (or name) from ``client``: counted against it and the name."""
        await counts.take_bucket(self.failures, device or client)
        await counts.take_bucket(self.name_failures, name)
        if device is None:
            await counts.take_bucket(self.recent, client)

    def priority(self, client: str) -> int:
        """The priority of a hash a client asks for without a name (a new account): clean when
        it failed nothing lately, in this process."""
        return CLEAN if self.recent.peek(client) <= 0 else SUSPECT


@dataclass(order=True)
class _Job:
    priority: int
    seq: int
    client: str = field(compare=False)
    work: Callable[[], Any] = field(compare=False)
    done: asyncio.Future[Any] = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)


class PasswordQueue:
    """Password checks and hashes, ``workers`` at a time, by priority (see the module's doc).

    Its state is guarded by a lock and each answer is handed to the event loop that asked, so
    one queue serves every loop of the process (a server has one; tests may have several).
    """

    def __init__(self, workers: int, budget: float) -> None:
        self.workers = workers
        self.budget = budget
        self.seconds = FIRST_GUESS
        self.running = 0
        self.running_trusted = 0  # of them, checks of known devices and home addresses
        self.waiting: list[_Job] = []
        self.clients: dict[str, int] = {}  # checks waiting or running, per client
        self.order = itertools.count()
        self.started: list[tuple[int, str]] = []  # (priority, client) as checks start (tests)
        # Reentrant: a check that ends before its callback is added runs _finished inside _pump.
        self.lock = threading.RLock()
        self._executor: ThreadPoolExecutor | None = None

    @property
    def executor(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="cradle-password")
        return self._executor

    def close(self) -> None:
        with self.lock:
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None

    @property
    def reserved(self) -> int:
        """Workers kept for the account's own (known devices, home addresses): one, when there
        are two or more, so that no stranger's check ever stands before theirs."""
        return 1 if self.workers >= 2 else 0

    def ahead(self, priority: int) -> int:
        """Checks that would start before one of ``priority`` asked now (the running ones of
        its kind too)."""
        running = self.running_trusted if priority <= HOME else self.running - self.running_trusted
        return running + sum(1 for job in self.waiting if job.priority <= priority)

    def estimate(self, priority: int) -> float:
        """Seconds a check of ``priority`` asked now would wait before its answer: the rounds of
        the workers it may use (a stranger's: all but the reserved one)."""
        workers = max(1, self.reserved if priority <= HOME else self.workers - self.reserved)
        rounds = math.floor(self.ahead(priority) / workers) + 1
        return rounds * self.seconds

    async def run(self, client: str, priority: int, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker thread, in its turn; ApiError 429 when ``client`` has one
        waiting or running already, 503 when it would wait past the budget."""
        loop = asyncio.get_running_loop()
        with self.lock:
            if self.clients.get(client, 0) >= 1:
                refusal = refused(
                    429, N_("a password of yours is being checked: wait for its answer"), 1.0
                )
                kind = "busy"
            elif priority > HOME and (wait := self.estimate(priority)) > self.budget:
                refusal = refused(
                    503,
                    N_("the server is checking many passwords: try again in {seconds} s"),
                    wait,
                    seconds=math.ceil(wait),
                )
                kind = "queue"
            else:
                refusal = None
                job = _Job(
                    priority, next(self.order), client, lambda: work(*args),
                    loop.create_future(), loop,
                )  # fmt: skip
                self.clients[client] = self.clients.get(client, 0) + 1
                heapq.heappush(self.waiting, job)
                self._pump()
        if refusal is not None:
            SIGNINS_REFUSED.labels(kind).inc()
            raise refusal
        try:
            result: T = await job.done
            return result
        finally:
            with self.lock:
                left = self.clients.get(client, 1) - 1
                if left:
                    self.clients[client] = left
                else:
                    self.clients.pop(client, None)
                if not job.done.done():  # its client went away while it waited: drop it
                    job.done.cancel()

    def _pump(self) -> None:
        """Start waiting checks while a worker is free (the lock held); a stranger's only on a
        worker that is not reserved."""
        while self.running < self.workers and self.waiting:
            job = self.waiting[0]
            trusted = job.priority <= HOME
            strangers = self.running - self.running_trusted
            if not trusted and strangers >= self.workers - self.reserved:
                return  # the free worker is the reserved one (the rest are strangers too)
            heapq.heappop(self.waiting)
            if job.done.cancelled():
                continue  # its client went away while it waited
            self.running += 1
            self.running_trusted += trusted
            self.started.append((job.priority, job.client))
            future = self.executor.submit(_timed, job.work)
            future.add_done_callback(functools.partial(self._finished, job))

    def _finished(self, job: _Job, future: Future[tuple[float, Any]]) -> None:
        """A check ended (in its worker thread): its answer to its loop, the next one started."""
        with self.lock:
            self.running -= 1
            self.running_trusted -= job.priority <= HOME
            if not future.cancelled() and future.exception() is None:
                self.seconds += SMOOTHING * (future.result()[0] - self.seconds)
            if self._executor is not None:
                self._pump()
        with contextlib.suppress(RuntimeError):  # its loop has closed: nobody waits
            job.loop.call_soon_threadsafe(_answer, job.done, future)


def _answer(done: asyncio.Future[Any], future: Future[tuple[float, Any]]) -> None:
    if done.done():
        return
    if future.cancelled():
        done.cancel()
    elif (error := future.exception()) is not None:
        done.set_exception(error)
    else:
        done.set_result(future.result()[1])


def _timed(work: Callable[[], T]) -> tuple[float, T]:
    start = time.monotonic()
    result = work()
    return time.monotonic() - start, result
