"""How a read's or an undo's result reads: the lines of a listing, the parts of an undo."""

from __future__ import annotations

from typing import Any


def describe_undo(data: dict[str, Any]) -> str:
    """ "Undone: restored “Gym”; removed “Milk”; put back the status of “Taxes”." """
    parts = []
    for item in data.get("undone") or []:
        title = f"“{item.get('title')}”"
        if item.get("action") == "reverted":
            fields = ", ".join(str(f).replace("_", " ") for f in item.get("fields") or [])
            parts.append(f"put back the {fields} of {title}")
        else:
            parts.append(f"{item.get('action')} {title}")
    return f"Undone: {'; '.join(parts)}." if parts else "Undone."


def describe_list(data: dict[str, Any]) -> str:
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


def fmt(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value) if value is not None else "none"
