"""Work in local worker processes: independent jobs (tournaments, matches, training games),
and the pools that run a Python search's trees side by side (root parallelism).

Workers are spawned, not forked: safe next to threads (the server, Ray) and the same on every
platform. The functions and jobs must therefore be picklable (module-level functions).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")


def map_local(
    function: Callable[[Job], Result],
    jobs: Sequence[Job],
    workers: int,
    progress: Callable[[Result], None] | None = None,
) -> list[Result]:
    """``function`` of every job, in job order, run in ``workers`` processes (in this one
    when ``workers`` is 1); ``progress`` sees each result as it arrives."""
    if workers <= 1:
        results = []
        for job in jobs:
            result = function(job)
            results.append(result)
            if progress:
                progress(result)
        return results
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(function, job): at for at, job in enumerate(jobs)}
        done: list[tuple[int, Result]] = []
        try:
            for future in as_completed(futures):
                result = future.result()
                done.append((futures[future], result))
                if progress:
                    progress(result)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    done.sort(key=lambda pair: pair[0])
    return [result for _, result in done]


# Pools kept for the Python search's trees, by size: started once, shut down at exit.
_POOLS: dict[int, ProcessPoolExecutor] = {}


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """The kept pool of ``workers`` spawned processes."""
    pool = _POOLS.get(workers)
    if pool is None:
        # spawn: safe next to threads (the server, Ray) and the same on every platform.
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        _POOLS[workers] = pool
    return pool


@atexit.register
def _close_pools() -> None:
    for pool in _POOLS.values():
        pool.shutdown(wait=False, cancel_futures=True)
    _POOLS.clear()


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)
