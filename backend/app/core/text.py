"""Facts about text every layer needs."""

from __future__ import annotations

from typing import Any


def has_nul(value: Any) -> bool:
    """Whether a JSON-like value holds a NUL character anywhere (keys included): Postgres text cannot."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_nul(v) for v in value)
    return False
