"""The server's log: plain lines, or one JSON object a line (``cradle serve --log-format json``)
for a log collector: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, the fields a
line was given (``extra={...}``: a game, a client key), and ``exception`` with its traceback."""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any

FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")
# What every LogRecord has: the rest of its attributes are the fields a line was given.
_PLAIN = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonLines(logging.Formatter):
    """One JSON object per log record (see the module's doc)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _PLAIN and not key.startswith("_") and key not in line:
                line[key] = (
                    value if isinstance(value, str | int | float | bool | None) else str(value)
                )
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def config(log_format: str = "text", level: str = "warning") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the server's and uvicorn's loggers (uvicorn takes it
    as ``log_config``, and hands it to each of its workers)."""
    if log_format not in FORMATS:
        raise ValueError(f"the log format is one of {', '.join(FORMATS)}")
    if level not in LEVELS:
        raise ValueError(f"the log level is one of {', '.join(LEVELS)}")
    formatter: dict[str, Any] = (
        {"()": "cradle.server.logs.JsonLines"}
        if log_format == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    shown = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"cradle": formatter},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "cradle",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "cradle": {"handlers": ["stderr"], "level": shown, "propagate": False},
            "uvicorn": {"handlers": ["stderr"], "level": shown, "propagate": False},
            "uvicorn.access": {"handlers": ["stderr"], "level": shown, "propagate": False},
        },
    }
