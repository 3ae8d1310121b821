"""Structured JSON logs; request and turn ids ride on context variables onto every line."""

from __future__ import annotations

import contextvars
import logging
import sys
from typing import Any

import orjson

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
turn_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("turn_id", default=None)

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__()
        self._second, self._stamp = -1, ""  # a line's time is to the second: formatted once a second

    def format(self, record: logging.LogRecord) -> str:
        if (second := int(record.created)) != self._second:  # (a handler formats under its lock)
            self._second, self._stamp = second, self.formatTime(record, "%Y-%m-%dT%H:%M:%S")
        payload: dict[str, Any] = {
            "ts": self._stamp,
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
        }
        if (rid := request_id_var.get()) is not None:
            payload["request_id"] = rid
        if (tid := turn_id_var.get()) is not None:
            payload["turn_id"] = tid
        payload.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD})
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(payload, default=str).decode()


def configure_logging(level: str = "INFO", *, json: bool = True) -> None:
    # No line says which thread, process or source line wrote it, so a record does not look them up
    # (the logging HOWTO's "Optimization" section names these switches, `_srcfile` included): the
    # caller's frame was found by walking the stack for every line.
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if json else logging.Formatter("%(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("httpx", "httpcore", "sqlalchemy.engine", "aiosqlite", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
