"""The offline model's words: small talk, and a summary of the tool results it was given."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, cast

from backend.app.agent.offline.common import _I, ASK_WHICH
from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import Payload
from backend.app.calls.tools import Tool
from backend.app.language.catalog import Texts
from backend.app.language.failures import failure_reason

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


def small_talk(text: str, t: Texts, *, kind: str = "chat") -> str:
    """The offline model's answer to a message that asks for no task: who it is and what it reads.
    `kind` is the reader's (small talk in any language is greeted)."""
    identity = t("I'm Taskchat's offline rule-based model, not an LLM (no API key is configured)")
    examples = t('"add buy milk tomorrow", "show my tasks" or "mark buy milk done"')
    if not text.strip() or _GREETING.match(text) or (kind == "small_talk" and not _THANKS.search(text)):
        return t("Hi! {identity}. Try {examples}.", identity=identity, examples=examples)
    if _THANKS.search(text):
        return t(
            "You're welcome! {identity}, so keep commands simple, like {examples}.",
            identity=identity,
            examples=examples,
        )
    if _QUESTION.search(text):
        every = t(
            '"add buy milk tomorrow", "show my tasks", "mark buy milk done", "delete buy milk" or '
            '"rename buy milk to buy oat milk"'
        )
        return t("{identity}, so I understand simple commands: {examples}.", identity=identity, examples=every)
    return t(
        "Sorry, I didn't understand that. {identity}, so I only understand simple commands like {examples}.",
        identity=identity,
        examples=examples,
    )


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


_NOT_RUN = frozenset(
    {ResultCode.NOT_REQUESTED, ResultCode.NOT_GROUNDED, ResultCode.NEEDS_CONFIRMATION, ResultCode.DESTRUCTIVE_LIMIT}
)


def _summarize(name: str, args: dict[str, Any], payload: Any, *, t: Texts) -> str:
    if not isinstance(payload, dict) or "success" not in payload:
        shown = payload if isinstance(payload, str) else json.dumps(payload, default=str)
        if name:
            return t("The {tool} tool returned: {result}", tool=name, result=shown[:300])
        return t("A tool returned: {result}", result=shown[:300])
    if not payload["success"]:  # said from the result's code: its error text is written for the model
        code = str(payload.get("code") or "")
        if code == ResultCode.AMBIGUOUS:
            return t(ASK_WHICH)
        if code in _NOT_RUN:  # refused or held for the user's yes: the reply asks, or says why
            return t("Nothing was changed.")
        why = failure_reason(t, code, args, cast(Payload | None, payload.get("data")))
        return t("I couldn't do that: {error}.", error=why.rstrip(". "))
    data = payload.get("data")
    if name == Tool.LIST:
        return _summarize_list(data, str(args.get("status") or "all"), t)
    if name == Tool.UNDO:
        undone = data.get("undone") if isinstance(data, dict) else None
        titles = ", ".join(f'"{u.get("title")}"' for u in undone or [] if isinstance(u, dict))
        return t("Undone ({titles}).", titles=titles) if titles else t("Undone.")
    task = _find_task(data)
    title = task.get("title") or args.get("title") or args.get("task_id") or "?"
    if name == Tool.ADD:
        details = [
            t("due {date}", date=task["due_date"]) if task.get("due_date") else "",
            {"high": t("high priority"), "low": t("low priority")}.get(str(task.get("priority")), ""),
            " ".join(f"#{tag}" for tag in task.get("tags") or [] if isinstance(task.get("tags"), list)),
        ]
        shown = ", ".join(d for d in details if d)
        return (
            t('Added "{title}" ({details}).', title=title, details=shown)
            if shown
            else t('Added "{title}".', title=title)
        )
    verbs: dict[str, str] = {
        Tool.DELETE: t('Deleted "{title}".', title=title),
        Tool.COMPLETE: t('Marked "{title}" as completed.', title=title),
        Tool.UPDATE: t('Updated "{title}".', title=title),
    }
    return verbs.get(name, t('Updated "{title}".', title=title))


def _summarize_list(data: Any, status: str, t: Texts) -> str:
    tasks = data if isinstance(data, list) else data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, list):
        return t("I looked up your tasks.")
    count = data.get("count") if isinstance(data, dict) else None
    total = count if isinstance(count, int) and count >= len(tasks) else len(tasks)
    if not tasks:
        return {"pending": t("You have no pending tasks."), "completed": t("You have no completed tasks.")}.get(
            status, t("You have no tasks.")
        )
    items = []
    for task in (item for item in tasks[:15] if isinstance(item, dict)):
        notes = [
            {"completed": t("completed"), "pending": t("pending")}.get(str(task.get("status")), "")
            if status == "all"
            else "",
            t("due {date}", date=task["due_date"]) if task.get("due_date") else "",
        ]
        shown = ", ".join(n for n in notes if n)
        items.append(f"{task.get('title', '?')}" + (f" ({shown})" if shown else ""))
    listed = ", ".join(items) + (t(", and {count} more", count=total - len(items)) if total > len(items) else "")
    heads = {
        "pending": t.n(
            "You have {count} pending task: {items}.", "You have {count} pending tasks: {items}.", total, items=listed
        ),
        "completed": t.n(
            "You have {count} completed task: {items}.",
            "You have {count} completed tasks: {items}.",
            total,
            items=listed,
        ),
    }
    return heads.get(
        status, t.n("You have {count} task: {items}.", "You have {count} tasks: {items}.", total, items=listed)
    )
