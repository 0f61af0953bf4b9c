"""The play server behind a real reverse proxy (Debian's nginx, with examples/nginx-cradle.conf
as shipped) with TLS on loopback (a self-signed certificate made here): `Secure` cookies, the
client's address taken from the proxy only because it is trusted, and a whole game played
over WebSockets through it (docs/server.md, "On the internet")."""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.server import GAMES, PlayServer, free_port

pytestmark = pytest.mark.skipif("tigris" not in GAMES, reason="needs the Tigris engine")

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "examples" / "nginx-cradle.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
PASSWORD = "correct horse battery"


@dataclass
class Proxied:
    """The server (its log a file of JSON lines) behind nginx on ``https``'s port."""

    server: PlayServer
    https: int
    plain: int
    context: ssl.SSLContext
    log: Path

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        source: str = "127.0.0.1",
    ) -> tuple[int, dict[str, str], Any]:
        """(status, headers, JSON body) of a request to nginx over TLS, from ``source``."""
        connection = http.client.HTTPSConnection(
            "127.0.0.1", self.https, context=self.context, timeout=60, source_address=(source, 0)
        )
        sent = {"Content-Type": "application/json", **(headers or {})}
        try:
            connection.request(method, path, None if body is None else json.dumps(body), sent)
            answer = connection.getresponse()
            raw = answer.read()
            found = {k.lower(): v for k, v in answer.getheaders() if k.lower() != "set-cookie"}
            cookies = [v for k, v in answer.getheaders() if k.lower() == "set-cookie"]
            found["set-cookie"] = "\n".join(cookies)
            try:
                data = json.loads(raw) if raw else None
            except ValueError:
                data = raw.decode(errors="replace")
            return answer.status, found, data
        finally:
            connection.close()

    def logged(self, message: str) -> list[dict[str, Any]]:
        lines = []
        for line in self.log.read_text().splitlines():
            if line.startswith("{"):
                entry = json.loads(line)
                if entry.get("message") == message:
                    lines.append(entry)
        return lines


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, made with openssl."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def nginx_config(folder: Path, upstream: int, https: int, plain: int, cert: Path, key: Path) -> Path:  # fmt: skip
    """examples/nginx-cradle.conf with this test's ports, certificate and folders, in a whole
    nginx.conf that writes nothing outside ``folder``."""
    site = SITE.read_text()
    for shipped, here in [
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};"),
        ("listen 443 ssl;", f"listen 127.0.0.1:{https} ssl;"),
        ("listen 80;", f"listen 127.0.0.1:{plain};"),
        ("/etc/letsencrypt/live/play.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/play.example.org/privkey.pem", str(key)),
    ]:
        assert shipped in site, shipped
        site = site.replace(shipped, here)
    (folder / "cradle.conf").write_text(site)
    user = "user root root;" if os.geteuid() == 0 else ""
    main = f"""
daemon off;
worker_processes 1;
{user}
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/cradle.conf;
}}
"""
    path = folder / "nginx.conf"
    path.write_text(main)
    return path


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"nginx exited: {log.read_text() if log.exists() else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nginx did not listen within 30 s")


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[Proxied]:
    if NGINX is None:
        pytest.skip("nginx is not installed (make test installs Debian's package)")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = certificate(tmp_path)
    log = tmp_path / "server.log"
    server = PlayServer(
        f"sqlite:///{tmp_path / 'games.sqlite3'}",
        settings=(
            "trusted_proxies=127.0.0.1",
            "log_format=json",
            "log_level=info",
            "analyse_finished=false",
            "password_kib=64",
        ),
    )
    with log.open("wb") as stderr:
        server.start(stderr=stderr)
        https, plain = free_port(), free_port()
        config = nginx_config(tmp_path, server.port, https, plain, cert, key)
        nginx = subprocess.Popen(
            [NGINX, "-p", str(tmp_path), "-c", str(config), "-e", str(tmp_path / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(https, nginx, tmp_path / "error.log")
            context = ssl.create_default_context(cafile=str(cert))
            yield Proxied(server, https, plain, context, log)
        finally:
            nginx.send_signal(signal.SIGQUIT)  # nginx's graceful stop
            try:
                nginx.wait(timeout=15)
            except subprocess.TimeoutExpired:
                nginx.kill()
                nginx.wait()
            server.stop()


def test_cookies_are_secure_and_the_address_is_the_proxys_to_trust(proxied: Proxied) -> None:
    status, headers, body = proxied.request(
        "POST", "/api/accounts", {"name": "Tls Person", "password": PASSWORD}
    )
    assert status == 200, body
    cookies = headers["set-cookie"].lower()
    assert (
        cookies.count("secure") == 2
        and "cradle_session=" in cookies
        and "cradle_device=" in cookies
    )
    # The client's address is the one nginx saw, whatever it sent as X-Forwarded-For.
    status, _headers, _body = proxied.request(
        "POST",
        "/api/session",
        {"name": "Tls Person", "password": "not the password"},
        headers={"X-Forwarded-For": "203.0.113.7"},
        source="127.0.0.55",
    )
    assert status == 401
    assert [line["client"] for line in proxied.logged("sign-in failed")] == ["127.0.0.55"]
    # Straight to the server from an address it does not trust: its own headers are ignored.
    direct = http.client.HTTPConnection(
        "127.0.0.1", proxied.server.port, timeout=30, source_address=("127.0.0.66", 0)
    )
    try:
        body = json.dumps({"name": "Tls Person", "password": "wrong again"})
        spoofed = {
            "Content-Type": "application/json",
            "X-Forwarded-For": "203.0.113.8",
            "X-Forwarded-Proto": "https",
        }
        direct.request("POST", "/api/session", body, spoofed)
        assert direct.getresponse().status == 401
    finally:
        direct.close()
    assert [line["client"] for line in proxied.logged("sign-in failed")] == [
        "127.0.0.55",
        "127.0.0.66",
    ]
    # ... and a cookie it sets over plain HTTP is not Secure.
    plain_cookie = http.client.HTTPConnection("127.0.0.1", proxied.server.port, timeout=30)
    try:
        body = json.dumps({"name": "Plain", "password": PASSWORD})
        plain_cookie.request("POST", "/api/accounts", body, {"Content-Type": "application/json"})
        answer = plain_cookie.getresponse()
        assert (
            answer.status == 200 and "secure" not in (answer.getheader("set-cookie") or "").lower()
        )
    finally:
        plain_cookie.close()
    # Plain HTTP on the proxy is sent to HTTPS; the metrics are not reachable through it.
    plain = http_client_status("127.0.0.1", proxied.plain, "/api/meta")
    assert plain[0] == 301 and plain[1].startswith("https://")
    assert proxied.request("GET", "/metrics")[0] == 404


def http_client_status(host: str, port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, answer.getheader("location") or ""
    finally:
        connection.close()


def test_a_game_is_played_to_its_end_over_websockets_through_the_proxy(proxied: Proxied) -> None:
    from websockets.sync.client import connect

    status, _headers, created = proxied.request(
        "POST", "/api/games", {"game": "tigris", "players": 2, "seats": ["human", "bot:random"]}
    )
    assert status == 200, created
    game_id, token = created["id"], created["seats"][0]["token"]
    seat = created["seats"][0]["seat"]
    chooser = random.Random(7)
    moves = 0
    acted = -1  # the version of the last view a move was sent from
    origin = f"https://127.0.0.1:{proxied.https}"  # a page of this site, as a browser says
    url = f"wss://127.0.0.1:{proxied.https}/ws/games/{game_id}"
    with connect(url, ssl=proxied.context, origin=origin, open_timeout=30) as ws:
        ws.send(json.dumps({"token": token}))
        deadline = time.monotonic() + 600
        while True:
            assert time.monotonic() < deadline, "the game did not end within 10 minutes"
            frame = json.loads(ws.recv(timeout=60))
            assert frame["type"] == "view", frame  # never an error frame
            if frame["table"]["status"] == "over":
                break
            version = frame["table"]["version"]
            if frame["to_move"] == seat and frame["legal_actions"] and version > acted:
                ws.send(json.dumps({"action": chooser.choice(frame["legal_actions"])}))
                acted = version  # the next view frame acknowledges it
                moves += 1
    assert moves > 20
    status, _headers, record = proxied.request("GET", f"/api/games/{game_id}/record")
    assert status == 200 and record["actions"] and frame["table"]["result"]
    # Another site's page may not open a socket through the proxy either.
    with pytest.raises(Exception, match="403"):
        connect(url, ssl=proxied.context, origin="https://evil.example", open_timeout=30)
