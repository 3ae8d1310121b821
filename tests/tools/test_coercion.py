"""Each recommended coercion with its warning, and each refused one rejected by validation."""

from __future__ import annotations

from typing import Any

import pytest

from backend.app.tools.coercion import coerce_arguments


@pytest.mark.parametrize(
    ("tool", "given", "expected", "kind"),
    [
        ("add_task", {"title": "x", "tags": "work"}, {"title": "x", "tags": ["work"]}, "string_to_list"),
        ("add_task", {"title": "x", "priority": "HIGH"}, {"title": "x", "priority": "high"}, "enum_case"),
        ("list_tasks", {"status": "Pending"}, {"status": "pending"}, "enum_case"),
        (
            "add_task",
            {"title": "x", "due_date": "2026-11-30T09:00:00Z"},
            {"title": "x", "due_date": "2026-11-30"},
            "datetime_to_date",
        ),
        (
            "update_task",
            {"task_id": "x", "completed": True},
            {"task_id": "x", "status": "completed"},
            "completed_to_status",
        ),
        (
            "update_task",
            {"task_id": "x", "completed": False},
            {"task_id": "x", "status": "pending"},
            "completed_to_status",
        ),
        ("add_task", {"title": "x", "user_id": "mallory"}, {"title": "x"}, "dropped_owner"),
    ],
)
def test_recommended_coercions_warn(tool: str, given: dict[str, Any], expected: dict[str, Any], kind: str) -> None:
    args, done = coerce_arguments(tool, given)
    assert args == expected
    assert [c.kind for c in done] == [kind]
    assert kind in done[0].message


@pytest.mark.parametrize(
    "given",
    [
        {"title": "x", "tags": ["a", "b"]},  # already right
        {"title": "x", "priority": "urgent"},  # not a case problem: left for validation to reject
        {"title": "x", "due_date": "next week"},  # not ISO: left alone
        {"title": "x", "tags": "a,b"},  # wrapped, never split on commas (checked below)
    ][:3],
)
def test_no_coercion_when_not_safe(given: dict[str, Any]) -> None:
    args, done = coerce_arguments("add_task", given)
    assert args == given
    assert done == []


def test_comma_string_is_wrapped_not_split() -> None:
    args, done = coerce_arguments("add_task", {"title": "x", "tags": "a, b"})
    assert args["tags"] == ["a, b"]
    assert [c.kind for c in done] == ["string_to_list"]


def test_input_is_not_mutated() -> None:
    given = {"title": "x", "tags": "work", "user_id": "m"}
    coerce_arguments("add_task", given)
    assert given == {"title": "x", "tags": "work", "user_id": "m"}
