"""What the protocol layer refuses before the application sees it (cradle.server.protocol) is
answered in JSON with the security headers too, on a real server over a raw socket."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.helpers.server import PlayServer

UPGRADE = (
    b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlayServer]:
    db = tmp_path_factory.mktemp("protocol") / "games.sqlite3"
    running = PlayServer(f"sqlite:///{db}").start()
    try:
        yield running
    finally:
        running.stop()


def exchange(server: PlayServer, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as it is; the status, headers and body of the answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


def refused(server: PlayServer, request: bytes, status: int, reason: str) -> None:
    found, headers, body = exchange(server, request)
    assert found == status, (found, body[:200])
    assert headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert int(headers["content-length"]) == len(body)
    assert reason in json.loads(body)["error"]


@pytest.mark.parametrize(
    ("request_bytes", "status", "reason"),
    [
        (b"GET /api/meta HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400, "not a valid HTTP"),
        (b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "URL is longer"),
        (b"GET /api/meta HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n", 431,
         "headers are longer"),
        (b"GET /api/meta HTTP/1.1\r\nHost: x\r\n" + b"X-Many: 1\r\n" * 200 + b"\r\n", 431,
         "100 lines"),
        (b"NONSENSE\r\n\r\n", 400, "not a valid HTTP"),
        (b"GET /api/meta HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400,
         "not a valid HTTP"),
        (b"GET /ws/games/x HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
         400, "Sec-WebSocket-Key"),
        (b"GET /ws/games/x HTTP/1.1\r\nHost: x\r\nOrigin: http://elsewhere.example\r\n" + UPGRADE
         + b"\r\n", 403, "refused"),
        (b"GET /ws/nothing HTTP/1.1\r\nHost: x\r\n" + UPGRADE + b"\r\n", 403, "refused"),
    ],
    ids=[
        "nul-in-header",
        "100k-url",
        "100k-header",
        "200-headers",
        "no-request-line",
        "negative-length",
        "handshake-without-key",
        "cross-site-websocket",
        "websocket-nowhere",
    ],
)  # fmt: skip
def test_the_protocol_layer_refuses_in_json(
    server: PlayServer, request_bytes: bytes, status: int, reason: str
) -> None:
    refused(server, request_bytes, status, reason)


def test_requests_within_the_limits_are_served(server: PlayServer) -> None:
    url = b"/api/meta?padding=" + b"a" * 8000  # an unknown parameter, ignored
    headers = b"".join(b"X-H%d: %s\r\n" % (n, b"v" * 200) for n in range(60))
    status, _headers, body = exchange(
        server, b"GET " + url + b" HTTP/1.1\r\nHost: x\r\n" + headers + b"Connection: close\r\n\r\n"
    )
    assert status == 200, body[:200]
    assert "bots" in json.loads(body)
