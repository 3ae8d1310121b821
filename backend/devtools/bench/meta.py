"""results.json's `meta`: what ran, when, on what machine and with which settings, and how fast the
machine ran Python at the start and at the end (the CPU probe), so two result files can be compared."""

from __future__ import annotations

import os
import platform
import shlex
import sys
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import create_async_engine

from backend.app.core.config import Settings


def at_start(*, quick: bool, duration: float, warmup: float, fake_latency_ms: float) -> dict[str, Any]:
    """The command, the machine and the run's settings, with its load and CPU probe as it starts."""
    return {
        "command": "taskchat bench" + ("" if len(sys.argv) <= 2 else " " + shlex.join(sys.argv[2:])),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "loadavg_start": _loadavg(),
        "cpu_probe_ms_start": cpu_probe_ms(),
        "quick": quick,
        "duration_s": duration,
        "warmup_s": warmup,
        "fake_latency_ms": fake_latency_ms,
        "settings": f"taskchat serve defaults (LOG_LEVEL=INFO JSON logs, DB pool {_pool()} per worker, "
        "RESPONSE_MODE=direct, TOOL_POLICY=guarded); RATE_LIMIT_PER_MINUTE raised so the limiter never refuses",
    }


def at_end(meta: dict[str, Any], *, started: float) -> None:
    """Add the load and CPU probe as the run ends, and its time since `started` (time.monotonic)."""
    meta["loadavg_end"] = _loadavg()
    meta["cpu_probe_ms_end"] = cpu_probe_ms()
    meta["elapsed_s"] = round(time.monotonic() - started, 1)


async def postgres_version(url: str) -> str:
    import sqlalchemy as sa

    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            version = str(await conn.scalar(sa.text("SHOW server_version")))
    finally:
        await engine.dispose()
    return f"PostgreSQL {version.split()[0]}"


def _pool() -> str:
    fields = Settings.model_fields
    return f"{fields['db_pool_size'].default}+{fields['db_max_overflow'].default}"


def cpu_probe_ms() -> float:
    """How fast this machine runs Python right now: the best of 3 runs of a fixed 2M-iteration loop.

    Shared hosts change speed from hour to hour (this one by 2x in a day); the probe lets two result
    files be compared. Only runs measured back to back, with their probes close, compare changes."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i
        best = min(best, time.perf_counter() - started)
    return round(best * 1000, 1)


def _loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []
