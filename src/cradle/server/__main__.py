"""`python -m cradle.server DATABASE_URL HOST PORT BOT_DELAY`: the bare server, for tests and
the load test (people use `cradle serve`)."""

from __future__ import annotations

import sys

from cradle.server.app import run_server


def main(argv: list[str]) -> None:
    if len(argv) != 4:
        sys.exit("usage: python -m cradle.server DATABASE_URL HOST PORT BOT_DELAY")
    url, host, port, bot_delay = argv
    run_server(url, host, int(port), bot_delay=float(bot_delay))


if __name__ == "__main__":
    main(sys.argv[1:])
