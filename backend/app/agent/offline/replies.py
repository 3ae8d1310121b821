"""The offline model's words: small talk, and a summary of the tool results it was given."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from backend.app.agent.offline.common import _I, EXAMPLES, IDENTITY

# --- small talk -----------------------------------------------------------------------------
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|yo|howdy|greetings|good\s+(?:morning|afternoon|evening)"
    r"|how\s+are\s+you|how'?s\s+it\s+going|what'?s\s+up)\b",
    _I,
)
_THANKS = re.compile(r"\b(?:thanks|thank\s+you|thx|cheers)\b", _I)
_QUESTION = re.compile(
    r"^\W*(?:help|how|what|who|why|can|could|do|does|is|are|show\s+me\s+how|tell\s+me|explain)\b"
    r"|\?\s*$",
    _I,
)


def small_talk(text: str) -> str:
    if not text.strip() or _GREETING.match(text):
        return f"Hi! {IDENTITY}. Try {EXAMPLES}."
    if _THANKS.search(text):
        return f"You're welcome! {IDENTITY}, so keep commands simple, like {EXAMPLES}."
    if _QUESTION.search(text):
        return (
            f'{IDENTITY}, so I understand simple commands: "add buy milk tomorrow", "show my tasks", '
            '"mark buy milk done", "delete buy milk" or "rename buy milk to buy oat milk".'
        )
    return f"Sorry, I didn't understand that. {IDENTITY}, so I only understand simple commands like {EXAMPLES}."


# --- summarizing tool results ---------------------------------------------------------------
def _tool_results(messages: list[Mapping[str, Any]], start: int) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool name, arguments, decoded content) for each tool message after the last user message."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    results: list[tuple[str, dict[str, Any], Any]] = []
    for message in messages[start + 1 :]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, Mapping) else None
                if isinstance(function, Mapping):
                    args = _loads(function.get("arguments"))
                    args = args if isinstance(args, dict) else {}
                    calls[str(call.get("id"))] = (str(function.get("name") or ""), args)
        elif message.get("role") == "tool":
            name, args = calls.get(str(message.get("tool_call_id")), (str(message.get("name") or ""), {}))
            results.append((name, args, _loads(message.get("content"))))
    return results


def _loads(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _find_task(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    if "title" in data:
        return data
    keys = ("task", "item", "deleted", "updated", "created")
    inner = next((data[k] for k in keys if isinstance(data.get(k), dict)), None)
    return _find_task(inner)


def _summarize(name: str, args: dict[str, Any], payload: Any) -> str:
    if not isinstance(payload, dict) or "success" not in payload:
        shown = payload if isinstance(payload, str) else json.dumps(payload, default=str)
        return f"{f'The {name} tool' if name else 'A tool'} returned: {shown[:300]}"
    if not payload["success"]:
        error = str(payload.get("error") or "the tool reported a failure").rstrip(". ")
        return f"I couldn't do that: {error}."
    data = payload.get("data")
    if name == "list_tasks":
        return _summarize_list(data, str(args.get("status") or "all"))
    if name == "undo_last_change":
        undone = data.get("undone") if isinstance(data, dict) else None
        titles = ", ".join(f'"{u.get("title")}"' for u in undone or [] if isinstance(u, dict))
        return f"Undone ({titles})." if titles else "Undone."
    task = _find_task(data)
    title = task.get("title") or args.get("title") or args.get("task_id") or "the task"
    if name == "add_task":
        details = [
            f"due {task['due_date']}" if task.get("due_date") else "",
            f"{task['priority']} priority" if task.get("priority") not in (None, "medium") else "",
            " ".join(f"#{t}" for t in task.get("tags") or [] if isinstance(task.get("tags"), list)),
        ]
        shown = ", ".join(d for d in details if d)
        return f'Added "{title}"' + (f" ({shown})." if shown else ".")
    verbs = {
        "delete_task": 'Deleted "{}".',
        "complete_task": 'Marked "{}" as completed.',
        "update_task": 'Updated "{}".',
    }
    return verbs.get(name, "Done: {}.").format(title)


def _summarize_list(data: Any, status: str) -> str:
    tasks = data if isinstance(data, list) else data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, list):
        return "I looked up your tasks."
    count = data.get("count") if isinstance(data, dict) else None
    total = count if isinstance(count, int) and count >= len(tasks) else len(tasks)
    kind = "" if status == "all" else f"{status} "
    if not tasks:
        return f"You have no {kind}tasks."
    items = []
    for task in (t for t in tasks[:15] if isinstance(t, dict)):
        notes = [
            str(task["status"]) if status == "all" and task.get("status") else "",
            f"due {task['due_date']}" if task.get("due_date") else "",
        ]
        shown = ", ".join(n for n in notes if n)
        items.append(f"{task.get('title', '?')}" + (f" ({shown})" if shown else ""))
    more = f", and {total - len(items)} more" if total > len(items) else ""
    return f"You have {total} {kind}task{'s' if total != 1 else ''}: {', '.join(items)}{more}."
