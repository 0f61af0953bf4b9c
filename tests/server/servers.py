"""Real servers for tests: the play server in its own process, and a throwaway PostgreSQL.

PostgreSQL comes from Debian's packages (``make test`` installs them). As root, the cluster is
created and run as the ``postgres`` user (initdb refuses root), in a temporary directory, on a
free loopback port; it is stopped and removed at the end.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def http(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def http_from(
    source: str, method: str, url: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    """(status, JSON answer) of a request sent from the loopback address ``source`` (any
    127.x.y.z: the server sees a different client for each)."""
    import http.client

    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1", parts.port, timeout=30, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        data = None if body is None else json.dumps(body)
        connection.request(method, parts.path or "/", body=data, headers=headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        connection.close()


class PlayServer:
    """``python -m cradle.server`` on a free port, killed (SIGKILL) or stopped at the end."""

    def __init__(
        self,
        database_url: str,
        bot_delay: float = 0.0,
        settings: tuple[str, ...] = (),
        port: int | None = None,
    ) -> None:
        self.database_url = database_url
        self.bot_delay = bot_delay
        self.settings = settings  # NAME=VALUE: limits, origins, workers (cradle.server.__main__)
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> PlayServer:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cradle.server",
                self.database_url,
                "127.0.0.1",
                str(self.port),
                str(self.bot_delay),
                *self.settings,
            ],
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                http("GET", self.base + "/api/meta")
                return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.05)
        # Stopped, not left behind: a server (with --workers, a supervisor and its workers)
        # that outlives its test holds its port and its database for good.
        self.stop()
        raise RuntimeError("the server did not come up within 120 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def get(self, path: str, token: str | None = None) -> Any:
        return http("GET", self.base + path, token=token)

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        return http("POST", self.base + path, body, token)


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresCluster:
    """A fresh PostgreSQL cluster of its own (``url``: its database ``cradle``), which a test
    may stop and start again (a database server going down under the play server)."""

    def __init__(self) -> None:
        bin_dir = postgres_bin()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed (make test installs Debian's package)")
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="cradle-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.root.chmod(0o700)
        self.url = f"postgresql+psycopg://cradle@127.0.0.1:{self.port}/cradle"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def create(self) -> PostgresCluster:
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-A", "trust", "-U",
                  "cradle", "-E", "UTF8")  # fmt: skip
        self.start()
        self._run(str(self.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                  "cradle", "cradle")  # fmt: skip
        return self

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=on"
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
                  str(self.root / "log"), "-w", "-t", "60", "start")  # fmt: skip

    def stop(self) -> None:
        """Stop at once, as a crash would (every connection is cut)."""
        subprocess.run(
            [*self.as_user, str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m",
             "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )  # fmt: skip

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A fresh PostgreSQL cluster; yields a URL for a database ``cradle`` in it."""
    cluster = PostgresCluster()
    try:
        yield cluster.create().url
    finally:
        cluster.remove()
