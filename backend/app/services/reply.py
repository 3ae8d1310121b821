"""Replies and action metadata built from tool results only, never from the model's text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.app.agent.types import ExecutedCall

_DONE = {
    "add_task": "Added",
    "delete_task": "Deleted",
    "complete_task": "Completed",
    "update_task": "Updated",
}
_VERB = {
    "add_task": "add",
    "delete_task": "delete",
    "complete_task": "complete",
    "update_task": "update",
    "list_tasks": "list tasks",
}


def final_calls(executed: Sequence[ExecutedCall]) -> list[ExecutedCall]:
    """The calls the user should hear about: a model-fixable failure later fixed is dropped."""
    last_fixable_step: dict[str, int] = {}
    succeeded_after: set[str] = set()
    for e in executed:
        if e.result.model_fixable:
            last_fixable_step[e.call.name] = e.step
    for e in executed:
        if e.result.success and e.step > last_fixable_step.get(e.call.name, 10**9):
            succeeded_after.add(e.call.name)
    return [e for e in executed if not (e.result.model_fixable and e.call.name in succeeded_after)]


def describe(e: ExecutedCall) -> str:
    data = e.result.data if isinstance(e.result.data, dict) else {}
    name = e.call.name
    if not e.result.success:
        target = e.arguments.get("task_id") or e.arguments.get("title")
        what = f"{_VERB.get(name, name)} “{target}”" if target else _VERB.get(name, name)
        return f"Couldn't {what}: {e.result.error}"
    if name == "list_tasks":
        return _describe_list(data)
    title = data.get("title", "")
    details = []
    if name == "add_task":
        if data.get("due_date"):
            details.append(f"due {data['due_date']}")
        if data.get("priority") and data.get("priority") != "medium":
            details.append(f"{data['priority']} priority")
        if data.get("tags"):
            details.append(" ".join(f"#{t}" for t in data["tags"]))
    if name == "update_task":
        changed = [k for k in ("title", "description", "priority", "due_date", "tags", "status") if k in e.arguments]
        details.extend(f"{k.replace('_', ' ')} {_fmt(data.get(k))}" for k in changed)
    suffix = f" ({', '.join(details)})" if details else ""
    return f"{_DONE.get(name, 'Done')}: “{title}”{suffix}."


def _describe_list(data: dict[str, Any]) -> str:
    tasks = data.get("tasks") or []
    status = data.get("status", "all")
    label = "" if status == "all" else f"{status} "
    if not tasks:
        return f"You have no {label}tasks."
    lines = [f"You have {data.get('count', len(tasks))} {label}task{'s' if data.get('count', 0) != 1 else ''}:"]
    for t in tasks:
        extra = [t.get("status", "")]
        if t.get("due_date"):
            extra.append(f"due {t['due_date']}")
        if t.get("priority") == "high":
            extra.append("high priority")
        lines.append(f"- {t.get('title')} ({', '.join(x for x in extra if x)})")
    if data.get("truncated"):
        lines.append(f"(showing the newest {len(tasks)})")
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value) if value is not None else "none"


class ResultComposer:
    """The ReplyComposer the loop uses in direct mode and whenever the model's text can't be trusted."""

    def compose(self, executed: Sequence[ExecutedCall]) -> str:
        calls = [e for e in final_calls(executed) if e.result.code not in ("REPEATED_CALL",)]
        return "\n".join(describe(e) for e in calls) or "Nothing was changed."


def action_metadata(executed: Sequence[ExecutedCall]) -> dict[str, Any] | None:
    calls = [e for e in final_calls(executed) if e.ran or not e.result.model_fixable]
    if not calls:
        return None
    actions = [_action(e) for e in calls]
    primary = actions[0]
    if len(actions) == 1:
        return primary
    return {
        **primary,
        "success": all(a["success"] for a in actions),
        "message": "; ".join(a["message"] for a in actions),
        "actions": actions,
    }


def _action(e: ExecutedCall) -> dict[str, Any]:
    data = e.result.data if isinstance(e.result.data, dict) else {}
    ok = e.result.success
    if e.call.name == "list_tasks":
        message = f"Listed {data.get('count', 0)} tasks" if ok else f"Failed: {e.result.error}"
        return {"action": "list_tasks", "success": ok, "task_id": None, "task_title": None, "message": message}
    title = data.get("title") if ok else None
    message = f"{_DONE.get(e.call.name, e.call.name)}: {title}" if ok else f"Failed: {e.result.error}"
    return {
        "action": e.call.name,
        "success": ok,
        "task_id": data.get("id") if ok else None,
        "task_title": title,
        "message": message,
    }


def apply_report(executed: Sequence[ExecutedCall]) -> dict[str, Any]:
    """Best-effort accounting over every call of the turn: applied, partial or rejected."""
    applied: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    warnings: list[dict[str, Any]] = []
    for index, e in enumerate(executed):
        if e.result.success:
            data = e.result.data if isinstance(e.result.data, dict) else {}
            applied.append({"index": index, "tool": e.call.name, "task_id": data.get("id")})
        else:
            rejected.append({"index": index, "tool": e.call.name, "code": e.result.code, "error": e.result.error})
        warnings.extend({"index": index, "tool": e.call.name, "warning": w} for w in e.result.warnings)
    if not executed:
        status = None
    elif not rejected:
        status = "applied"
    elif applied:
        status = "partial"
    else:
        status = "rejected"
    return {"apply_status": status, "applied": applied, "rejected": rejected, "warnings": warnings}
