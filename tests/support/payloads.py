"""A tool result's payload (backend/app/calls/payloads.py) read as a test expects it to be: each reader
fails the test when the result carries another shape, and gives what reads it the shape's type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

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


def task(result: ToolResult) -> TaskData:
    """The task a call added, completed or updated (not a deleted one: that has only its id and title)."""
    data = task_of(result.data)
    assert data is not None and "priority" in data, result
    return data


def task_id(result: ToolResult) -> str:
    """The id of the one task a result names (a task, a deleted one, a refusal about one)."""
    found = task_id_of(result.data)
    assert found is not None, result
    return found


def listing(result: ToolResult) -> TaskListing:
    data = listing_of(result.data)
    assert data is not None, result
    return data


def choices(result: ToolResult) -> Choices:
    data = choices_of(result.data)
    assert data is not None, result
    return data


def output_size(result: ToolResult) -> OutputSize:
    data = result.data
    assert data is not None and "bytes" in data, result
    return data


def unshaped(data: Mapping[str, object]) -> Payload:
    """`data` handed on as a result's payload though it is none of the shapes: a part of one, or what
    no tool returns. For a test of code that passes a payload on without reading it by shape, or that
    must cope with one it does not know. mypy would refuse it, rightly: the cast says it is meant."""
    return cast(Payload, data)
