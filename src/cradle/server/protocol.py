"""uvicorn's HTTP and WebSocket protocols, refusing in our own words: what the protocol layer
refuses before the application sees a request (a malformed request, a URL or headers too long, a
WebSocket handshake that fails) is answered like everything else, JSON ``{"error": reason}`` with
the security headers, never uvicorn's or websockets' plain text. ``run_server`` uses these."""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.datastructures import Headers
from websockets.http11 import Response
from websockets.server import ServerProtocol

MAX_URL = 8 * 1024  # bytes of a request's target (path and query)
MAX_HEADERS = 100  # header lines of one request
MAX_HEADER_BYTES = 32 * 1024  # all of one request's header names and values together
NOT_HTTP = (
    "not a valid HTTP/1.1 request: a malformed request line or header, or a character HTTP "
    "does not allow (such as a NUL or a line break in a header)"
)

SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
        b"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        b"form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


def refusal_body(reason: str) -> bytes:
    return json.dumps({"error": reason}).encode()


class TooLarge(ValueError):
    """Raised inside the parser's callbacks: the parser stops, and the request is refused."""


class JsonHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with bounded URLs and headers and JSON refusals."""

    refusal: tuple[int, str] | None = None
    header_bytes = 0

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.refusal = None
        self.header_bytes = 0

    def on_url(self, url: bytes) -> None:
        if len(self.url) + len(url) > MAX_URL:
            self.refusal = (414, f"the URL is longer than {MAX_URL} bytes")
            raise TooLarge
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.header_bytes += len(name) + len(value)
        if self.header_bytes > MAX_HEADER_BYTES or len(self.headers) >= MAX_HEADERS:
            reason = f"the headers are longer than {MAX_HEADER_BYTES} bytes or {MAX_HEADERS} lines"
            self.refusal = (431, reason)
            raise TooLarge
        super().on_header(name, value)

    def send_400_response(self, msg: str) -> None:
        """What uvicorn calls when the parser fails (our limits raise inside it too)."""
        status, reason = self.refusal or (400, NOT_HTTP)
        body = refusal_body(reason)
        lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode()]
        headers = [
            *self.server_state.default_headers,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            (b"connection", b"close"),
            *SECURITY_HEADERS,
        ]
        lines += [name + b": " + value + b"\r\n" for name, value in headers]
        self.transport.write(b"".join([*lines, b"\r\n", body]))
        self.transport.close()


class JsonServerProtocol(ServerProtocol):
    """websockets' server side of the handshake, refusing with JSON (a bad handshake, a
    WebSocket the application closed before accepting it, as a cross-site page's is)."""

    def reject(self, status: Any, text: str) -> Response:
        status = HTTPStatus(status)
        response = super().reject(status, text)
        reason = text.strip() or {
            HTTPStatus.FORBIDDEN: "this WebSocket is refused (another site's page, or no such path)"
        }.get(status, status.phrase)
        body = refusal_body(reason)
        kept = [
            (name, value)
            for name, value in response.headers.raw_items()
            if name.lower() not in ("content-type", "content-length")
        ]
        headers = Headers(
            [
                *kept,
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Cache-Control", "no-store"),
                *((name.decode(), value.decode()) for name, value in SECURITY_HEADERS),
            ]
        )
        return Response(response.status_code, response.reason_phrase, headers, body)


class JsonWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets protocol whose handshake refusals are JSON."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The same connection object uvicorn configured, refusing in JSON: a subclass that adds
        # no state, so its class can be swapped.
        self.conn.__class__ = JsonServerProtocol
