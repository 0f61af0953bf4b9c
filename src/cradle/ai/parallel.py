"""Independent jobs in local worker processes (tournaments, matches, training games).

Workers are spawned, not forked: safe next to threads (the server, Ray) and the same on every
platform. The functions and jobs must therefore be picklable (module-level functions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

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
