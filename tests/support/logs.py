"""The log sink of the whole run: tests/conftest.py puts it on the root logger and, at the end, fails
the run if any line holds a secret the suite used."""

from __future__ import annotations

import logging


class LogSink(logging.Handler):
    """Every record logged during the run, as text with its extra fields (what a JSON log would show)."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            fields = " ".join(f"{k}={v}" for k, v in record.__dict__.items() if k not in ("msg", "args"))
            self.lines.append(f"{record.getMessage()} {fields}")
        except Exception:  # a record that cannot be formatted is a bug elsewhere, not here
            self.lines.append(str(record.msg))
