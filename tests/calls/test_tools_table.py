"""The tools' traits as docs/guard.md shows them are the table the code reads (calls/tools.py), and
the sets the code needs come from it."""

from __future__ import annotations

from pathlib import Path

from backend.app.calls.tools import TRAITS, UNKNOWN, Tool, having, of_action, stated_by, traits
from backend.app.tools.registry import TOOL_SPECS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guard.md"
_FLAGS = ("reads", "targets", "destructive", "capped", "items", "claimable")


def _page_rows() -> dict[str, dict[str, str]]:
    text = PAGE.read_text(encoding="utf-8").split("## The tools and their traits", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in text.splitlines() if line.startswith("| `")]
    header = ["tool", "action", *_FLAGS, "states"]
    rows = {}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        row = dict(zip(header, cells, strict=True))
        rows[row["tool"].strip("`")] = row
    return rows


def test_the_page_shows_the_table_the_code_reads() -> None:
    rows = _page_rows()
    assert set(rows) == set(Tool)
    for tool, row in rows.items():
        found = traits(tool)
        assert row["action"] == found.action, tool
        assert {f for f in _FLAGS if row[f] == "yes"} == {f for f in _FLAGS if getattr(found, f)}, tool
        assert {s.strip("` ") for s in row["states"].split(",") if s.strip()} == set(found.states), tool


def test_every_tool_has_traits_and_a_spec_built_from_them() -> None:
    assert set(TRAITS) == set(Tool)
    specs = {s.name: s for s in TOOL_SPECS}
    assert set(specs) == set(Tool)
    for tool in Tool:
        assert (specs[tool].read_only, specs[tool].destructive) == (traits(tool).reads, traits(tool).destructive)


def test_the_sets_come_from_the_table() -> None:
    assert having("destructive") == {Tool.DELETE, Tool.COMPLETE}
    assert having("targets") == {Tool.DELETE, Tool.COMPLETE, Tool.UPDATE}
    assert having("reads") == {Tool.LIST}
    assert having("changes") == set(Tool) - {Tool.LIST}
    assert stated_by(Tool.COMPLETE) == {Tool.COMPLETE, Tool.UPDATE}
    assert stated_by(Tool.DELETE) == {Tool.DELETE}
    assert of_action("undo") is Tool.UNDO and of_action("archive") is None


def test_a_name_that_is_no_tool_is_a_change_never_a_read() -> None:
    assert traits("drop_database") is UNKNOWN
    assert traits("drop_database").changes and not traits("drop_database").destructive
