"""has_nul: a NUL anywhere in a JSON-like value, keys included, at any depth."""

from __future__ import annotations

from typing import Any

import pytest

from backend.app.core.text import has_nul


@pytest.mark.parametrize(
    ("value", "holds"),
    [
        ("plain", False),
        ("a\x00b", True),
        ({"choices": [{"message": {"content": "ok", "tool_calls": []}}], "n": 1, "x": None}, False),
        ({"choices": [{"message": {"content": "o\x00k"}}]}, True),
        ({"ke\x00y": 1}, True),
        ([1, 2.5, True, None, [["deep", ["\x00"]]]], True),
        ({1: "int keys are not text", "v": [{}]}, False),
    ],
)
def test_a_nul_is_found_wherever_it_is(value: Any, holds: bool) -> None:
    assert has_nul(value) is holds


def test_a_deeply_nested_value_is_read_without_recursion() -> None:
    value: Any = "\x00"
    for _ in range(5_000):  # deeper than Python's recursion limit
        value = [{"k": value}]
    assert has_nul(value) is True
