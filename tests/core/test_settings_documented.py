"""Every setting is documented with what a deployer would set it for (docs/configuration.md)."""

from __future__ import annotations

import re
from pathlib import Path

from backend.app.core.config import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_every_setting_is_documented_with_what_it_is_for() -> None:
    """A row of the page's tables names each setting, its default and what it is for: a setting
    nobody can find is one nobody should have."""
    doc = DOC.read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        for name in re.findall(r"`([A-Z][A-Z_0-9]+)`", cells[0] if len(cells) >= 3 else ""):
            rows.setdefault(name, cells[-1])
    names = [name.upper() for name in Settings.model_fields]
    assert [n for n in names if n not in rows] == []
    assert [n for n in names if len(rows[n].strip()) < 12] == []  # a reason, not a word
