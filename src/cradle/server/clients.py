"""Who a client is, for every per-client limit: one key per address, or per network where one
holder has many addresses.

An IPv6 host is handed a whole /64 (a home, a server's range) and picks any address in it at
will, so the /64 is the client; an IPv4-mapped IPv6 address (``::ffff:1.2.3.4``, as a dual-stack
socket reports IPv4 peers) is that IPv4 address. The address itself comes from uvicorn: the
peer's, or behind a trusted proxy (``cradle serve --trusted-proxy``), the one it forwarded.
"""

from __future__ import annotations

import ipaddress

IPV6_PREFIX = 64
UNKNOWN = "unknown"  # no peer address (a Unix socket): all such clients share one key


def client_key(host: str | None) -> str:
    """The key of the client at ``host`` (an address as uvicorn reports it)."""
    if not host:
        return UNKNOWN
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])  # without an IPv6 zone ("%eth0")
    except ValueError:
        return host[:64]  # not an address (a test client's name): itself, bounded
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)
