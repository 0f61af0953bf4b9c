"""`python -m cradle.server DATABASE_URL HOST PORT BOT_DELAY [NAME=VALUE ...]`: the bare server,
for tests and the load test (people use `cradle serve`). NAME is a field of
:class:`cradle.server.limits.Limits`, ``origins`` or ``trusted_proxies`` (comma-separated),
``workers``, the turn notices' ``smtp_url``, ``mail_from`` and ``public_url``, the
``metrics_token``, or the ``log_format`` (text, json) and ``log_level``."""

from __future__ import annotations

import sys
from dataclasses import fields
from typing import Any

from cradle.server.app import AppOptions, run_server
from cradle.server.limits import Limits
from cradle.server.mail import MailSettings

USAGE = "usage: python -m cradle.server DATABASE_URL HOST PORT BOT_DELAY [NAME=VALUE ...]"


def main(argv: list[str]) -> None:
    if len(argv) < 4:
        sys.exit(USAGE)
    url, host, port, bot_delay, *settings = argv
    kinds = {f.name: f.type for f in fields(Limits)}
    limits: dict[str, Any] = {}
    origins: list[str] = []
    trusted_proxies: list[str] = []
    workers = 1
    mail: dict[str, str] = {}
    logging_: dict[str, str] = {}
    metrics_token = None
    for setting in settings:
        name, _, value = setting.partition("=")
        if name in ("smtp_url", "mail_from", "public_url"):
            mail[name] = value
        elif name == "metrics_token":
            metrics_token = value
        elif name in ("log_format", "log_level"):
            logging_[name] = value
        elif name == "origins":
            origins = [o for o in value.split(",") if o]
        elif name == "trusted_proxies":
            trusted_proxies = [a for a in value.split(",") if a]
        elif name == "workers":
            workers = int(value)
        elif name in kinds and kinds[name] in ("bool", bool):
            limits[name] = value.strip().lower() in ("1", "true", "yes", "on")
        elif name in kinds:
            limits[name] = float(value) if kinds[name] in ("float", float) else int(value)
        else:
            sys.exit(f"unknown setting {name!r}\n{USAGE}")
    notices = None
    if "smtp_url" in mail:
        notices = MailSettings(
            url=mail["smtp_url"],
            sender=mail.get("mail_from", "cradle@localhost"),
            public_url=mail.get("public_url", f"http://{host}:{port}/"),
        )
    options = AppOptions(
        bot_delay=float(bot_delay),
        limits=Limits.from_dict(limits),
        origins=origins,
        upgrade=True,
        mail=notices,
        metrics_token=metrics_token,
    )
    run_server(
        url,
        host,
        int(port),
        options,
        workers=workers,
        trusted_proxies=trusted_proxies,
        log_format=logging_.get("log_format", "text"),
        log_level=logging_.get("log_level", "warning"),
    )


if __name__ == "__main__":
    main(sys.argv[1:])
