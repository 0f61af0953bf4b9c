"""Joining a Ray cluster for tournaments and self-play (``--ray ADDRESS``).

One place turns Ray's refusal into a clear message: a cluster started with token
authentication (``RAY_AUTH_MODE=token``) refuses a driver without its token, and Ray says only
that it failed to connect (docs/research.md, "Ray with token authentication").
"""

from __future__ import annotations

import os

TOKEN_HINT = (
    "a cluster with token authentication needs RAY_AUTH_MODE=token and the cluster's token "
    "(RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or the default token file) in this environment"
)


class RayUnreachable(RuntimeError):
    """The cluster at the address refused this driver or did not answer."""


def connect(address: str, workers: int) -> bool:
    """Join the cluster at ``address`` (``local``: start one here with ``workers`` CPUs)
    unless Ray is already initialised; returns whether this call started the connection
    (the caller shuts it down). Raises :class:`RayUnreachable` with the reason."""
    import ray

    if ray.is_initialized():
        return False
    try:
        if address == "local":
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except ConnectionError as error:
        token = "set" if os.environ.get("RAY_AUTH_TOKEN") else "not set"
        raise RayUnreachable(
            f"cannot join the Ray cluster at {address}: {error} ({TOKEN_HINT}; "
            f"RAY_AUTH_MODE={os.environ.get('RAY_AUTH_MODE', 'unset')}, RAY_AUTH_TOKEN {token})"
        ) from None
    return True
