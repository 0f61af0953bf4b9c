"""Self-play on a real Ray cluster started by ``ray start --head`` with token authentication:
the driver with the cluster's token writes the same shards as local processes; a driver with
a wrong token is refused with a clear message, not a traceback (docs/research.md)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.server import free_port

pytestmark = pytest.mark.long
RAY = Path(sys.executable).with_name("ray")
SIZES = ["--game", "tigris", "--players", "2", "--bot", "ismcts@4", "--games", "2"]
SIZES += ["--games-per-shard", "1", "--seed", "5"]


def token_env(token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    return {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    pytest.importorskip("ray")
    token, port = secrets.token_hex(32), free_port()
    # Ray's socket paths must stay short: a directory of its own under /tmp
    temp = Path(f"/tmp/ray-{secrets.token_hex(4)}")
    ports = [
        f"--{name}={free_port()}"
        for name in (
            "dashboard-agent-listen-port",
            "dashboard-agent-grpc-port",
            "runtime-env-agent-port",
            "metrics-export-port",
        )
    ]
    head = subprocess.Popen(
        [
            str(RAY),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=1",
            "--node-ip-address=127.0.0.1",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp}",
            *ports,
        ],
        env=token_env(token),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own group: stopping it stops only this cluster
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if head.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("ray start --head did not come up")
                time.sleep(0.5)
        yield f"127.0.0.1:{port}", token
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        subprocess.run(["rm", "-rf", str(temp)], check=False)


def selfplay(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "cradle.selfplay", *SIZES, *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def test_the_clusters_token_lets_the_driver_in(cluster: tuple[str, str], tmp_path: Path) -> None:
    address, token = cluster
    # the cluster may still be registering its node: a few tries
    for _ in range(5):
        done = selfplay(["--out", str(tmp_path / "ray"), "--ray", address], token_env(token))
        if done.returncode == 0:
            break
        time.sleep(3)
    assert done.returncode == 0, done.stderr[-2000:]
    local = selfplay(["--out", str(tmp_path / "local")], os.environ.copy())
    assert local.returncode == 0, local.stderr[-2000:]
    for name in ("shard-00000.npz", "shard-00001.npz"):
        on_ray, here = np.load(tmp_path / "ray" / name), np.load(tmp_path / "local" / name)
        assert sorted(on_ray.files) == sorted(here.files)
        for key in here.files:
            np.testing.assert_array_equal(on_ray[key], here[key], err_msg=key)


def test_a_wrong_token_is_refused_with_a_clear_message(
    cluster: tuple[str, str], tmp_path: Path
) -> None:
    address, _ = cluster
    refused = selfplay(["--out", str(tmp_path), "--ray", address], token_env("0" * 64))
    assert refused.returncode == 2
    assert f"cannot join the Ray cluster at {address}" in refused.stderr
    assert "RAY_AUTH_MODE=token" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not list(tmp_path.glob("*.npz"))
