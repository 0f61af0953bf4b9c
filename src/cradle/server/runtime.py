"""The threads and background tasks of one server process, which every part of the server runs
its blocking work in: the database's calls (:meth:`Runtime.db`, typed: the checker sees every
call's arguments) and the engines' work (setting games up, replaying records)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class Runtime:
    """The database's and the engines' threads, and the process's background tasks."""

    def __init__(self, db_threads: int) -> None:
        # SQLite wants one writer; a server database takes a few connections in parallel.
        self.db_pool = ThreadPoolExecutor(max_workers=db_threads, thread_name_prefix="cradle-db")
        # Setting games up and replaying records: engine work, kept off the event loop.
        self.engine_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cradle-engine")
        self.background: set[asyncio.Task[None]] = set()
        self.closing = False

    async def db(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in a database thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.db_pool, functools.partial(function, *args, **kwargs)
        )

    async def engine(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in an engine thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.engine_pool, functools.partial(function, *args, **kwargs)
        )

    def spawn(self, work: Awaitable[None]) -> None:
        """Run ``work`` in the background until it ends or the process stops."""
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def stop(self) -> None:
        """Cancel the background tasks and wait for them."""
        self.closing = True
        tasks = list(self.background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):  # each one's end is its own business
                await task

    def shutdown(self) -> None:
        """Stop the threads (the database's last writes are waited for)."""
        self.engine_pool.shutdown(wait=False, cancel_futures=True)
        self.db_pool.shutdown(wait=True)
