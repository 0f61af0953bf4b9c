"""Who a client is (cradle.server.clients.client_key), whose X-Forwarded-For is believed, and
the server-wide cap on live connections."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from cradle.server.app import create_app
from cradle.server.clients import client_key
from cradle.server.limits import Limits
from tests.helpers.server import GAMES, PlayServer, create, free_port, http, watch

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

# One new game per client, then none for a long while: a second creation shows whether two
# requests counted as the same client.
ONE_GAME_EACH = ("create_burst=1", "create_per_minute=0.001", "analyse_finished=false")


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::1", "::/64"),
        (None, "unknown"),
        ("", "unknown"),
        ("testclient", "testclient"),
        ("x" * 500, "x" * 64),
    ],
)
def test_client_keys_group_ipv6_by_its_64_and_mapped_addresses_as_ipv4(
    host: str | None, key: str
) -> None:
    assert client_key(host) == key


def create_as(server: PlayServer, forwarded: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    body = json.dumps({"game": "tigris", "seats": ["human", "human"]}).encode()
    request = urllib.request.Request(
        server.base + "/api/games", data=body, method="POST", headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


def test_forwarded_addresses_are_ignored_unless_the_proxy_is_trusted(tmp_path: Path) -> None:
    server = PlayServer(f"sqlite:///{tmp_path / 'games.sqlite3'}", settings=ONE_GAME_EACH)
    server.start()
    try:
        # Any local process could name itself anybody: it stays 127.0.0.1.
        assert create_as(server, "198.51.100.1") == 200
        assert create_as(server, "198.51.100.2") == 429
        assert create_as(server, None) == 429
    finally:
        server.stop()


def test_a_trusted_proxy_names_the_client_and_the_key_groups_it(tmp_path: Path) -> None:
    settings = (*ONE_GAME_EACH, "trusted_proxies=127.0.0.1,::1")
    server = PlayServer(f"sqlite:///{tmp_path / 'games.sqlite3'}", settings=settings).start()
    try:
        assert create_as(server, "198.51.100.1") == 200
        assert create_as(server, "198.51.100.2") == 200  # another client
        assert create_as(server, "::ffff:198.51.100.2") == 429  # the same one
        assert create_as(server, "2001:db8:1:2::1") == 200
        assert create_as(server, "2001:db8:1:2:ffff::9") == 429  # the same /64
        assert create_as(server, "2001:db8:1:3::1") == 200  # the next /64
        assert create_as(server, None) == 200  # the proxy itself, 127.0.0.1
    finally:
        server.stop()


def test_the_server_caps_live_connections_with_a_reason(db_url: str) -> None:
    limits = Limits(analyse_finished=False, max_sockets=2)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as client:
        game_id = create(client)["id"]
        with watch(client, game_id) as first, watch(client, game_id) as second:
            assert first.receive_json()["type"] == "view"
            assert second.receive_json()["type"] == "view"
            with client.websocket_connect(f"/ws/games/{game_id}") as third:
                refused: dict[str, Any] = third.receive_json()
                assert refused["type"] == "error" and refused["status"] == 503
                assert "maximum of 2 live connections" in refused["error"]
                # With its message and params: the client says it in its language.
                assert refused["params"] == {"most": 2}
                assert refused["message"] == (
                    "this server has its maximum of {most} live connections; try again later"
                )
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 4503 and "try again later" in closed.value.reason


def test_the_socket_cap_is_sized_for_the_machine_by_default() -> None:
    import resource

    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert 64 <= Limits().sockets <= max(64, files // 2)
    assert Limits(max_sockets=5).sockets == 5
    with pytest.raises(ValueError, match="max_sockets"):
        Limits(max_sockets=-1)


CRADLE = [sys.executable, "-c", "from cradle.cli.main import main; main()"]


def test_serve_refuses_a_trusted_proxy_that_is_no_address(tmp_path: Path) -> None:
    port, db = str(free_port()), str(tmp_path / "games.sqlite3")
    done = subprocess.run(
        [*CRADLE, "serve", "--port", port, "--db", db, "--trusted-proxy", "my-proxy"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "--trusted-proxy takes an address" in done.stderr


def test_serve_passes_its_trusted_proxy_to_the_server(tmp_path: Path) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    port = free_port()
    flags = ["--trusted-proxy", "127.0.0.1", "--sockets-per-client", "1", "--bot-processes", "1"]
    process = subprocess.Popen(
        [*CRADLE, "serve", "--port", str(port), "--db", str(tmp_path / "games.sqlite3"), *flags],
        stdout=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                game = http("POST", base + "/api/games", {"game": "tigris", "seats": ["human"] * 2})
                break
            except OSError:
                assert time.monotonic() < deadline, "cradle serve did not come up"
                time.sleep(0.1)
        url = f"ws://127.0.0.1:{port}/ws/games/{game['id']}"

        def live(forwarded: str) -> Any:
            return connect(url, additional_headers={"X-Forwarded-For": forwarded})

        with live("198.51.100.1") as first, live("198.51.100.2") as second:
            for ws in (first, second):  # two clients, each with its one connection
                ws.send("{}")
                assert json.loads(ws.recv(timeout=30))["type"] == "view"
            with live("198.51.100.1") as again:  # refused at once, with the reason
                assert json.loads(again.recv(timeout=30))["status"] == 429
                with pytest.raises(ConnectionClosed) as closed:
                    again.recv(timeout=30)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    finally:
        process.terminate()
        process.wait(timeout=30)
