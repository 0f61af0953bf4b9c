"""The probe's two attacks on signing in, timed against a real server with real argon2id hashes
(64 MiB, RFC 9106's low-memory profile): how long the owner's right password takes.

- **lockout**: strangers send one wrong guess at the owner's name every ``--every`` seconds,
  each from another address (127.0.x.y: the server sees each as a client of its own); the
  owner signs in with the right password, in a new browser (no device cookie), every ``--owner-every`` seconds: from home (the address it signed up from),
  from an address it never used, and with its device cookie.
- **flood**: ``--addresses`` addresses each send ``--guesses`` wrong sign-ins one after another
  (each inside every limit), all at once; a second in, the owner signs in the same three ways.

Prints one JSON object: the owner's three tries with no attack first (the baseline at the
machine's load), then each try's status and seconds, the guesses' statuses, the server's CPU
seconds, the load average before and after. ``python -m lab signin_flood [--scenario both]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

PASSWORD = "correct horse battery staple"
OWNER = "Owner"
HOME = "127.0.9.9"  # the address the owner signed up from
ELSEWHERE = "127.0.9.10"  # an address the owner never used (a new browser there)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def sign_in(
    port: int,
    source: str,
    name: str,
    password: str,
    path: str = "/api/session",
    cookie: str | None = None,
) -> tuple[int, float, str]:
    """(status, seconds, the device cookie set) of one sign-in sent from the loopback address
    ``source`` (``cookie``: a device cookie to send)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=120, source_address=(source, 0)
    )
    body = json.dumps({"name": name, "password": password})
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = f"cradle_device={cookie}"
    start = time.monotonic()
    try:
        connection.request("POST", path, body=body, headers=headers)
        answer = connection.getresponse()
        answer.read()
        device = ""
        for name_, value in answer.getheaders():
            if name_.lower() == "set-cookie" and value.startswith("cradle_device="):
                device = value.split("=", 1)[1].split(";", 1)[0]
        return answer.status, round(time.monotonic() - start, 3), device
    finally:
        connection.close()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    """``python -m cradle.server`` on a fresh SQLite file, at the server's default limits."""

    def __init__(self, folder: str) -> None:
        self.port = free_port()
        url = f"sqlite:///{folder}/games.sqlite3"
        command = [sys.executable, "-m", "cradle.server", url, "127.0.0.1", str(self.port), "0", "analyse_finished=false"]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)


def owner_tries(port: int, device: str) -> dict[str, tuple[int, float]]:
    """The owner's right password from home, from elsewhere, and with its device cookie (from
    elsewhere): each try's (status, seconds)."""
    return {
        "home": sign_in(port, HOME, OWNER, PASSWORD)[:2],
        "elsewhere": sign_in(port, ELSEWHERE, OWNER, PASSWORD)[:2],
        "device": sign_in(port, "127.0.9.11", OWNER, PASSWORD, cookie=device)[:2],
    }


def lockout(port: int, device: str, seconds: float, every: float, owner_every: float) -> dict[str, Any]:  # fmt: skip
    guesses: Counter[int] = Counter()
    owner: list[dict[str, tuple[int, float]]] = []
    stop = time.monotonic() + seconds

    def guess() -> None:
        n = 0
        while time.monotonic() < stop:
            status, *_ = sign_in(port, f"127.0.{1 + n // 250}.{1 + n % 250}", OWNER, f"guess {n}")
            guesses[status] += 1
            n += 1
            time.sleep(every)

    attacker = threading.Thread(target=guess)
    attacker.start()
    time.sleep(min(seconds / 3, 10 * every))  # the name is under attack by then
    while time.monotonic() < stop:
        owner.append(owner_tries(port, device))
        time.sleep(owner_every)
    attacker.join()
    return {"owner": owner, "guesses": dict(guesses)}


def flood(port: int, device: str, addresses: int, guesses: int) -> dict[str, Any]:
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def guesser(n: int) -> None:
        for k in range(guesses):
            status, *_ = sign_in(port, f"127.0.100.{n + 1}", f"Someone {n}", f"guess {k}")
            with lock:
                statuses[status] += 1

    start = time.monotonic()
    threads = [threading.Thread(target=guesser, args=(n,)) for n in range(addresses)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    owner = {"home": sign_in(port, HOME, OWNER, PASSWORD)[:2]}
    owner["device"] = sign_in(port, "127.0.9.11", OWNER, PASSWORD, cookie=device)[:2]
    owner["elsewhere"] = sign_in(port, ELSEWHERE, OWNER, PASSWORD)[:2]
    for thread in threads:
        thread.join()
    return {"owner": owner, "guesses": dict(statuses), "drained_s": time.monotonic() - start}


def run(scenario: str, seconds: float, every: float, owner_every: float, addresses: int, guesses: int) -> dict[str, Any]:  # fmt: skip
    found: dict[str, Any] = {"load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="cradle-signin-") as folder:
        server = Server(folder)
        try:
            status, _, device = sign_in(server.port, HOME, OWNER, PASSWORD, "/api/accounts")
            assert status == 200 and device, status
            found["quiet"] = owner_tries(server.port, device)  # no attack: the same load's baseline
            if scenario in ("lockout", "both"):
                found["lockout"] = lockout(server.port, device, seconds, every, owner_every)
            if scenario in ("flood", "both"):
                found["flood"] = flood(server.port, device, addresses, guesses)
            found["server_cpu_s"] = round(cpu_seconds(server.process.pid), 2)
        finally:
            server.stop()
    found["load_after"] = os.getloadavg()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("lockout", "flood", "both"), default="both")
    parser.add_argument("--seconds", type=float, default=60.0, help="the lockout attack's length")
    parser.add_argument("--every", type=float, default=3.0, help="seconds between guesses")
    parser.add_argument("--owner-every", type=float, default=10.0)
    parser.add_argument("--addresses", type=int, default=30)
    parser.add_argument("--guesses", type=int, default=10)
    options = parser.parse_args()
    result = run(options.scenario, options.seconds, options.every, options.owner_every, options.addresses, options.guesses)  # fmt: skip
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
