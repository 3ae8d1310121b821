"""Markdown tables for results.md: numbers formatted to read, a missing value as a dash."""

from __future__ import annotations

from typing import Any


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    """The table's lines, a blank line after it."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.1f}" if value >= 100 else f"{value:.2f}"
    return f"{value:,}" if isinstance(value, int) else str(value)
