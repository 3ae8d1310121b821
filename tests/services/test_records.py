"""The reply step's records (services/turn/record.py): typed from the run, with the JSON the contract shows."""

from __future__ import annotations

from support.payloads import unshaped
from support.runs import done, failed

from backend.app.calls.types import ExecutedCall, ToolCall, ToolResult
from backend.app.schemas.chat import ToolCallRecord
from backend.app.services.turn.apply_report import apply_report
from backend.app.services.turn.record import tool_call_records


def test_a_call_record_is_typed_and_its_json_is_the_results_payload() -> None:
    warned = ExecutedCall(
        ToolCall("w", "add_task", {"title": "Milk"}),
        {"title": "Milk"},
        ToolResult(True, data=unshaped({"id": "id-Milk"}), warnings=("due date in the past",)),
        0,
        0,
        retried=True,
        retry_reason="missing_tool",
    )
    records = tool_call_records([done("add_task", "Bread"), failed("delete_task", "Gym", "NOT_FOUND"), warned])

    assert all(isinstance(r, ToolCallRecord) for r in records)
    assert [r.model_dump(mode="json") for r in records] == [
        {
            "name": "add_task",
            "arguments": {"title": "Bread"},
            "result": {
                "success": True,
                "data": {"id": "id-Bread", "title": "Bread"},
                "error": None,
                "code": None,
                "warnings": None,
            },
            "retried": False,
            "retry_reason": None,
        },
        {
            "name": "delete_task",
            "arguments": {"task_id": "Gym"},
            "result": {
                "success": False,
                "data": None,
                "error": "NOT_FOUND error",
                "code": "NOT_FOUND",
                "warnings": None,
            },
            "retried": False,
            "retry_reason": None,
        },
        {
            "name": "add_task",
            "arguments": {"title": "Milk"},
            "result": {
                "success": True,
                "data": {"id": "id-Milk"},
                "error": None,
                "code": None,
                "warnings": ["due date in the past"],
            },
            "retried": True,
            "retry_reason": "missing_tool",
        },
    ]


def test_the_apply_report_says_applied_partial_or_rejected() -> None:
    ok, bad = done("add_task", "Bread"), failed("delete_task", "Gym", "NOT_FOUND")

    assert apply_report([]).status is None
    assert apply_report([ok]).status == "applied"
    assert apply_report([bad]).status == "rejected"
    partial = apply_report([ok, bad])
    assert partial.status == "partial"
    assert [a.model_dump() for a in partial.applied] == [{"index": 0, "tool": "add_task", "task_id": "id-Bread"}]
    assert [r.model_dump() for r in partial.rejected] == [
        {"index": 1, "tool": "delete_task", "code": "NOT_FOUND", "error": "NOT_FOUND error"}
    ]
