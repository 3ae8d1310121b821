"""A tool result's payload (backend/app/calls/payloads.py) read as a test expects it to be: each reader
fails the test when the result carries another shape, and gives what reads it the shape's type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar, cast

from backend.app.calls.payloads import (
    Choices,
    OutputSize,
    Payload,
    TaskData,
    TaskListing,
    choices_of,
    listing_of,
    task_id_of,
    task_of,
)
from backend.app.calls.types import ToolResult

T = TypeVar("T")


def task(result: ToolResult) -> TaskData:
    """The task a call added, completed or updated (not a deleted one: that has only its id and title)."""
    data = task_of(result.data)
    assert data is not None and "priority" in data, result
    return data


def _present(found: T | None, result: ToolResult) -> T:
    assert found is not None, result
    return found


def task_id(result: ToolResult) -> str:
    """The id of the one task a result names (a task, a deleted one, a refusal about one)."""
    return _present(task_id_of(result.data), result)


def listing(result: ToolResult) -> TaskListing:
    return _present(listing_of(result.data), result)


def choices(result: ToolResult) -> Choices:
    return _present(choices_of(result.data), result)


def output_size(result: ToolResult) -> OutputSize:
    data = result.data
    assert data is not None and "bytes" in data, result
    return data


def unshaped(data: Mapping[str, object]) -> Payload:
    """`data` handed on as a result's payload though it is none of the shapes: a part of one, or what
    no tool returns. For a test of code that passes a payload on without reading it by shape, or that
    must cope with one it does not know. mypy would refuse it, rightly: the cast says it is meant."""
    return cast(Payload, data)
