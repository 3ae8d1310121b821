"""Synthetic executed calls and the guard of a message, for tests of what is made of a run."""

from __future__ import annotations

from typing import Any

from backend.app.calls.types import ExecutedCall, ToolCall, ToolResult
from backend.app.services.guard import ExecutionGuard
from backend.app.services.intent import classify

MUTATING = frozenset({"add_task", "complete_task", "delete_task", "update_task"})


def guard(message: str, *, model_mode: bool = False) -> ExecutionGuard:
    return ExecutionGuard(
        intent=classify(message),
        message=message,
        mutating_tools=MUTATING,
        instruction=lambda tool: tool,
        ghost_instruction="",
        words_beside_results=model_mode,
    )


def done(name: str, title: str, *, step: int = 0, **arguments: Any) -> ExecutedCall:
    data = {"id": f"id-{title}", "title": title, **({"status": "deleted"} if name == "delete_task" else {})}
    args = arguments or ({"title": title} if name == "add_task" else {"task_id": title})
    return ExecutedCall(ToolCall(f"c{step}{title}", name, args), args, ToolResult(True, data=data), step, 0)


def failed(
    name: str, target: str, code: str, *, step: int = 0, ran: bool = True, fixable: bool = False
) -> ExecutedCall:
    args = {"title": target} if name == "add_task" else {"task_id": target}
    result = ToolResult(False, error=f"{code} error", code=code, model_fixable=fixable)
    return ExecutedCall(ToolCall(f"f{step}{target}", name, args), args, result, step, 0, ran=ran)
