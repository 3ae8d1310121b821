"""The sentences of a reply, in the user's language: what a call did, why it failed, what was not done,
a task's facts, a listing, an undo. Every one is a message of the catalogs (`language/catalog.py`);
nothing here is written for the model or a developer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import Payload, TaskListing, UndoData, listing_of, task_of, title_of, undo_of
from backend.app.calls.tools import Tool
from backend.app.calls.types import ExecutedCall
from backend.app.language.catalog import Texts
from backend.app.language.failures import failure_reason, field_name
from backend.app.language.reading.asks import Intent
from backend.app.tools.titles import named_in


def quoted(t: Texts, title: object) -> str:
    return t("“{title}”", title=title)


def action_phrase(t: Texts, tool: str, title: object) -> str:
    """ "delete “Gym”": what a question asks to do, or a line says was not done."""
    phrases: dict[str, str] = {
        Tool.ADD: t("add “{title}”", title=title),
        Tool.DELETE: t("delete “{title}”", title=title),
        Tool.COMPLETE: t("complete “{title}”", title=title),
        Tool.UPDATE: t("update “{title}”", title=title),
        Tool.LIST: t("list your tasks"),
        Tool.UNDO: t("undo your last change"),
    }
    return phrases.get(tool, tool)


def bulk_line(t: Texts, tool: str, titles: Sequence[object]) -> str | None:
    """ "Added 12 tasks: “milk”, “eggs” and …": many changes of one kind done, in one line."""
    listed = t.join([quoted(t, title) for title in titles])
    lines: dict[str, str] = {
        Tool.ADD: t("Added {count} tasks: {titles}.", count=len(titles), titles=listed),
        Tool.DELETE: t("Deleted {count} tasks: {titles}.", count=len(titles), titles=listed),
        Tool.COMPLETE: t("Completed {count} tasks: {titles}.", count=len(titles), titles=listed),
    }
    return lines.get(tool)


def bulk_phrase(t: Texts, tool: str, titles: Sequence[object]) -> str:
    """ "delete 12 tasks (“A”, “B”, “C” and 9 more)": what a question asks, for many changes of one kind."""
    shown, more = t(", ").join(quoted(t, title) for title in titles[:3]), len(titles) - 3
    phrases: dict[str, str] = {
        Tool.ADD: t("add {count} tasks ({titles} and {more} more)", count=len(titles), titles=shown, more=more),
        Tool.DELETE: t("delete {count} tasks ({titles} and {more} more)", count=len(titles), titles=shown, more=more),
        Tool.COMPLETE: t(
            "complete {count} tasks ({titles} and {more} more)", count=len(titles), titles=shown, more=more
        ),
        Tool.UPDATE: t("update {count} tasks ({titles} and {more} more)", count=len(titles), titles=shown, more=more),
    }
    return phrases.get(tool) or t.join([action_phrase(t, tool, title) for title in titles])


def done_line(t: Texts, e: ExecutedCall) -> str:
    data = e.result.data
    name, title = e.call.name, title_of(data) or ""
    if name == Tool.LIST and (listing := listing_of(data)) is not None:
        return describe_list(t, listing)
    if name == Tool.UNDO and (undo := undo_of(data)) is not None:
        return describe_undo(t, undo)
    details: list[str] = []
    task: Mapping[str, Any] = data or {}
    if name == Tool.ADD:
        details = task_details(t, task, ("due_date", "repeats", "priority", "tags"))
    elif name in (Tool.COMPLETE, Tool.UPDATE) and task.get("next_due"):  # a repeating task moved on
        details = [t("next {date}", date=when(task["next_due"]))]
    elif name == Tool.UPDATE:
        fields = ("title", "description", "priority", "due_date", "due_at", "recurrence", "tags", "status")
        dropped = {d.get("argument") for d in e.result.dropped}  # not stored: nothing to say of them
        changed = [k for k in fields if k in e.arguments and k not in dropped]
        details = [_change(t, k, task.get(k)) for k in changed]
    done: dict[str, str] = {
        Tool.ADD: t("Added: “{title}”", title=title),
        Tool.DELETE: t("Deleted: “{title}”", title=title),
        Tool.COMPLETE: t("Completed: “{title}”", title=title),
        Tool.UPDATE: t("Updated: “{title}”", title=title),
    }
    line = done.get(name, t("Done: “{title}”", title=title))
    return f"{line} ({', '.join(details)})." if details else f"{line}."


def when(value: object) -> str:
    """A due date as it stands, or a due time (RFC 3339, in its own zone) as that day and wall-clock
    time: "2026-12-08 09:30"."""
    text = str(value)
    return f"{text[:10]} {text[11:16]}" if len(text) > 10 and text[10] == "T" else text


def _change(t: Texts, field: str, value: Any) -> str:
    label = field_name(t, field)
    if value in (None, []):
        return t("{field} cleared", field=label)
    return t("{field} {value}", field=label, value=value_text(t, field, value))


def value_text(t: Texts, field: str, value: Any) -> str:
    if field == "status":
        return status_text(t, str(value))
    if field == "priority":
        return {"high": t("high"), "medium": t("medium"), "low": t("low")}.get(str(value), str(value))
    if field == "due_at":
        return when(value)
    if field == "recurrence":  # a rule is not words: that it is set is what the user reads
        return t("set")
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def status_text(t: Texts, status: str) -> str:
    return {"completed": t("completed"), "pending": t("pending"), "deleted": t("deleted")}.get(status, status)


def task_details(t: Texts, facts: Mapping[str, Any], keys: Sequence[str], *, apart: bool = False) -> list[str]:
    """A task's facts as words: "due 2026-11-27", "high priority", "#work", "completed", "added
    2026-11-20". With `apart` (telling twins apart) a missing due date or tag is said too, and a
    medium priority."""
    parts: list[str] = []
    for key in keys:
        value = facts.get(key)
        if key == "status" and value:
            parts.append(status_text(t, str(value)))
        elif key == "due_date" and (value or apart):
            parts.append(t("due {date}", date=when(facts.get("due_at") or value)) if value else t("no due date"))
        elif key == "repeats" and facts.get("recurrence"):
            parts.append(t("repeats"))
        elif key == "priority" and value and (value != "medium" or apart):
            priorities = {"high": t("high priority"), "low": t("low priority"), "medium": t("medium priority")}
            parts.append(priorities.get(str(value), str(value)))
        elif key == "tags" and (value or apart):
            parts.append(" ".join(f"#{tag}" for tag in value or []) or t("no tags"))
        elif key == "created" and value:
            parts.append(t("added {date}", date=str(value)[:10]))
    return parts


def failed_line(t: Texts, e: ExecutedCall, *, said: str = "") -> str:
    """A call that failed, for the user. A task it found is named by its title; a reference that found
    none is quoted only when the user's words (`said`) hold it: a model's own argument ("./notes.txt",
    an id) is no name the user would know."""
    target = title_of(e.result.data) or e.arguments.get("task_id") or e.arguments.get("title") or ""
    why = failure_reason(t, e.result.code, e.arguments, e.result.data)
    if e.result.code == ResultCode.NOT_FOUND and not (said and named_in(said, str(target))):
        target = t("the task you meant")
        lines: dict[str, str] = {
            Tool.DELETE: t("Couldn't delete {target}: {why}", target=target, why=why),
            Tool.COMPLETE: t("Couldn't complete {target}: {why}", target=target, why=why),
            Tool.UPDATE: t("Couldn't update {target}: {why}", target=target, why=why),
        }
        if e.call.name in lines:
            return lines[e.call.name]
    lines = {
        Tool.ADD: t("Couldn't add “{target}”: {why}", target=target, why=why),
        Tool.DELETE: t("Couldn't delete “{target}”: {why}", target=target, why=why),
        Tool.COMPLETE: t("Couldn't complete “{target}”: {why}", target=target, why=why),
        Tool.UPDATE: t("Couldn't update “{target}”: {why}", target=target, why=why),
        Tool.LIST: t("Couldn't list your tasks: {why}", why=why),
        Tool.UNDO: t("Couldn't undo: {why}", why=why),
    }
    return lines.get(e.call.name, t("Something went wrong: {why}", why=why))


def describe_undo(t: Texts, undo: UndoData) -> str:
    """ "Undone: restored “Gym”; removed “Milk”; put back the status of “Taxes”." """
    parts = []
    for item in undo["undone"]:
        title = item["title"]
        if item["action"] == "reverted":
            fields = t.join([field_name(t, f) for f in item.get("fields", [])])
            parts.append(t("put back the {fields} of “{title}”", fields=fields, title=title))
        elif item["action"] == "restored":
            parts.append(t("restored “{title}”", title=title))
        else:
            parts.append(t("removed “{title}”", title=title))
    return t("Undone: {parts}.", parts="; ".join(parts)) if parts else t("Undone.")


def describe_list(t: Texts, listing: TaskListing) -> str:
    """A listing as the user reads it, saying exactly what it searched: "You have no tasks." only when
    the user has none at all, never for a search that found nothing."""
    tasks, status, count = listing["tasks"], listing["status"], listing["count"]
    searched = _searched(t, listing)
    if not tasks:
        if searched:
            return t("No tasks match: {filters}.", filters=t.join(searched))
        return {"pending": t("You have no pending tasks."), "completed": t("You have no completed tasks.")}.get(
            status, t("You have no tasks.")
        )
    heads = {
        "pending": t.n("You have {count} pending task:", "You have {count} pending tasks:", count),
        "completed": t.n("You have {count} completed task:", "You have {count} completed tasks:", count),
    }
    head = heads.get(status, t.n("You have {count} task:", "You have {count} tasks:", count))
    if searched:
        head = t.n("{count} task matches: {filters}", "{count} tasks match: {filters}", count, filters=t.join(searched))
    lines = [head]
    for task in tasks:
        extra = _standing(t, task)
        if task["priority"] == "high":
            extra.append(t("high priority"))
        lines.append(f"- {task['title']} ({', '.join(extra)})")
    if listing["truncated"]:
        lines.append(t("(showing the newest {count})", count=len(tasks)))
    return "\n".join(lines)


def state_line(t: Texts, data: Payload | None) -> str:
    """How a task stands, for a user who asked ("did I pay the rent?"): "“Rent”: pending, due 2026-12-01.";
    a task gone between its lookup and its reading (deleted by another request) is no longer listed."""
    task = task_of(data)
    if task is None:
        return t("“{title}”: {details}.", title=title_of(data) or "", details=t("no longer on your list"))
    return t("“{title}”: {details}.", title=task["title"], details=", ".join(_standing(t, task)))


def _standing(t: Texts, task: Mapping[str, Any]) -> list[str]:
    """A task's status, due date (overdue, if it is) and repeat, as a listing says them."""
    found = task_details(t, task, ("status", "due_date"))
    if task.get("overdue"):
        found.append(t("overdue"))
    return found + task_details(t, task, ("repeats",))


def _searched(t: Texts, listing: TaskListing) -> list[str]:
    """The filters a listing applied besides its status, as words (with the status, when it has any)."""
    found = []
    if query := listing.get("query"):
        found.append(t("the words “{query}”", query=query))
    if tag := listing.get("tag"):
        found.append(t("the tag #{tag}", tag=tag))
    if priority := listing.get("priority"):
        found.append(t("{priority} priority", priority=value_text(t, "priority", priority)))
    if due_after := listing.get("due_after"):
        found.append(t("due from {date}", date=due_after))
    if due_before := listing.get("due_before"):
        found.append(t("due by {date}", date=due_before))
    if found and listing["status"] in ("pending", "completed"):
        found.insert(0, status_text(t, listing["status"]))
    return found


def without_words(t: Texts, intent: Intent, *, claimed: bool) -> str:
    """The reply when nothing was done or asked and the model's words cannot be shown: to a message
    that asks for no change (a greeting, thanks, a question on how to use the app), an answer from the
    catalog, never a bare "Nothing was changed." (said first where the words `claimed` a change)."""
    nothing = t("Nothing was changed.")
    if intent.needs_tool:
        return nothing
    if intent.kind == "small_talk":
        examples = t('"add buy milk tomorrow", "show my tasks" or "mark buy milk done"')
        answer = t(
            "Glad to help. Tell me what to add, change or check on your list, like {examples}.", examples=examples
        )
    else:
        examples = t(
            '"add buy milk tomorrow", "show my tasks", "mark buy milk done", "delete buy milk" or '
            '"rename buy milk to buy oat milk"'
        )
        answer = t(
            "I keep your to-do list: I add tasks (with a due date, a priority or tags), show them, mark them "
            "done, change or delete them, and undo the last change. Just say it, like {examples}.",
            examples=examples,
        )
    return f"{nothing} {answer}" if claimed else answer
