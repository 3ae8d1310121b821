"""What the conversation has shown and done: "it", "the second one", "#2", and the answer to a question.

Each assistant turn stores a compact account of itself (`turn_context`, in `messages.context`): the
tasks it acted on, the tasks it showed (a list, or the candidates of an ambiguous title, in their
order), and one line for the model's history. The next turn reads those accounts back
(`ConversationContext`) and resolves references to them before any title matching: deterministic,
owner-scoped (the ids are the user's own, and TaskTools looks each up under the owner), and saying how
it resolved ("'it' → Water plants (the task added in the previous turn)"). The words ("it", "that
one", "the second", "número 2", yes, no) come from the language files' `[references]`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.app.agent.types import ExecutedCall, ToolResult
from backend.app.db.models import Task
from backend.app.db.repositories.conversations import HistoryRow
from backend.app.language.lexicon import Lexicon, fold, lexicons

SHOWN_LIMIT = 20  # tasks of a list remembered (and numbered) for the next turn
_DONE = {
    "add_task": "added",
    "complete_task": "completed",
    "delete_task": "deleted",
    "update_task": "updated",
}
_EDGES = re.compile(r"^[\s\"'.,!?¿¡:;()-]+|[\s\"'.,!?¿¡:;()-]+$")
_POLITE_TAIL = re.compile(
    r"\s+(?:please|pls|thanks|thank you|por favor|s'il te plait|stp|bitte|danke|per favore|grazie|obrigad[oa]"
    r"|gracias|merci|shukriya|plz)$"
)
_NUMBER = re.compile(r"\d{1,2}")


@dataclass(frozen=True, slots=True)
class TaskRef:
    id: str
    title: str
    detail: str = ""  # what tells it apart from tasks of the same name (due date, priority, ...)


@dataclass(frozen=True, slots=True)
class Pick:
    """A reference resolved into the conversation: the task, and how ("the task added ...")."""

    task: TaskRef
    how: str


@dataclass(frozen=True, slots=True)
class Unclear:
    """A reference into the conversation that names no single task: the user is asked."""

    reference: str
    candidates: tuple[TaskRef, ...]

    @property
    def message(self) -> str:
        numbered = "; ".join(f"{i}. {c.title}" for i, c in enumerate(self.candidates, start=1))
        if not numbered:
            return f"'{self.reference}' names no task I showed or changed in this conversation; name the task."
        return f"'{self.reference}' could be several tasks: {numbered}. Say which one."


def turn_context(executed: Sequence[ExecutedCall]) -> dict[str, Any] | None:
    """A turn's account for the next turns: what it acted on, what it showed, one line for the model."""
    acted: list[dict[str, str]] = []
    shown: list[dict[str, str]] = []
    for e in executed:
        data = e.result.data if isinstance(e.result.data, dict) else {}
        if e.result.success and e.call.name in _DONE and data.get("id"):
            acted.append({"id": str(data["id"]), "title": str(data.get("title", "")), "action": e.call.name})
        elif e.result.success and e.call.name == "list_tasks":
            tasks = [t for t in data.get("tasks") or [] if isinstance(t, dict)][:SHOWN_LIMIT]
            shown = [{"id": str(t.get("id")), "title": str(t.get("title", "")), "detail": _detail(t)} for t in tasks]
        elif e.result.code == "AMBIGUOUS" and isinstance(data.get("choices"), list):
            shown = [
                {"id": str(c["id"]), "title": str(c["title"]), "detail": str(c.get("detail", ""))}
                for c in data["choices"]
            ]
    if not acted and not shown:
        return None
    return {"acted": acted, "shown": shown, "line": _line(acted, shown)}


def ambiguous(reference: str, tasks: Sequence[Task]) -> ToolResult:
    """The answer to a title that fits several tasks: each numbered, with what tells it apart (the
    title, or when titles are the same their due date, priority, status and the day it was added),
    so the user can answer "2" or "the one due Friday"; the contract's opening words are kept."""
    choices = []
    for number, task in enumerate(tasks, start=1):
        twins = [t for t in tasks if t.title.casefold() == task.title.casefold()]
        choices.append({"number": number, "id": str(task.id), "title": task.title, "detail": _apart(task, twins)})
    listed = "; ".join(f"{c['number']}. {c['title']}" + (f" ({c['detail']})" if c["detail"] else "") for c in choices)
    return ToolResult(
        success=False,
        code="AMBIGUOUS",
        error=f"Multiple tasks match '{reference}'. Please be more specific: {listed}",
        data={"candidates": [t.title for t in tasks], "choices": choices},
    )


def _apart(task: Task, twins: Sequence[Task]) -> str:
    if len(twins) < 2:
        return ""
    parts = []
    if len({t.due_date for t in twins}) > 1:
        parts.append(f"due {task.due_date.isoformat()}" if task.due_date else "no due date")
    if len({t.priority for t in twins}) > 1:
        parts.append(f"{task.priority} priority")
    if len({t.status for t in twins}) > 1:
        parts.append(task.status)
    parts.append(f"added {task.created_at.date().isoformat()}" if task.created_at else "")
    return ", ".join(p for p in parts if p)


def _detail(task: dict[str, Any]) -> str:
    parts = [str(task.get("status") or "")]
    if task.get("due_date"):
        parts.append(f"due {task['due_date']}")
    if task.get("priority") and task["priority"] != "medium":
        parts.append(f"{task['priority']} priority")
    return ", ".join(p for p in parts if p)


def _line(acted: list[dict[str, str]], shown: list[dict[str, str]]) -> str:
    parts = [f"{_DONE[a['action']]} “{a['title']}” (id {a['id']})" for a in acted]
    if shown:
        numbered = " ".join(f"{i}. “{t['title']}” (id {t['id']})" for i, t in enumerate(shown, start=1))
        parts.append(f"showed: {numbered}")
    return "[tool results: " + "; ".join(parts) + "]"


@dataclass(frozen=True, slots=True)
class ConversationContext:
    """The tasks the conversation acted on last and showed last, and which came later."""

    acted: tuple[TaskRef, ...] = ()
    acted_how: str = ""
    shown: tuple[TaskRef, ...] = ()
    shown_last: bool = False  # the list was shown after the last action

    @classmethod
    def from_history(cls, rows: Sequence[HistoryRow]) -> ConversationContext:
        acted: tuple[TaskRef, ...] = ()
        shown: tuple[TaskRef, ...] = ()
        how, shown_last = "", False
        turns_ago = 0
        for row in reversed(rows):
            if row.role != "assistant":
                continue
            turns_ago += 1
            context = row.context or {}
            if not acted and context.get("acted"):
                items = context["acted"]
                acted = tuple(TaskRef(a["id"], a["title"]) for a in items)
                when = "in the previous turn" if turns_ago == 1 else f"{turns_ago} turns ago"
                how = f"the task {_DONE.get(items[-1]['action'], 'changed')} {when}"
            if not shown and context.get("shown"):
                shown = tuple(TaskRef(t["id"], t["title"], t.get("detail", "")) for t in context["shown"])
                shown_last = not acted
            if acted and shown:
                break
        return cls(acted, how, shown, shown_last)

    def resolve(self, reference: str) -> Pick | Unclear | None:
        """The task `reference` points to in this conversation, Unclear when it points to several or
        none, None when it is no reference into the conversation (then it is a title)."""
        for text in _forms(reference):
            for lex in lexicons():
                found = self._resolve_in(lex, text, reference)
                if found is not None:
                    return found
        return None

    def _resolve_in(self, lex: Lexicon, text: str, reference: str) -> Pick | Unclear | None:
        position = _position(lex, text)
        if position is not None:
            if 1 <= position <= len(self.shown):
                return Pick(self.shown[position - 1], f"number {position} of the tasks shown last")
            return Unclear(reference, self.shown)
        if _whole(lex.reference("last"), text):
            if self.shown and (self.shown_last or not self.acted):
                return Pick(self.shown[-1], "the last of the tasks shown last")
            return self._this(reference)
        if _whole(lex.reference("this"), text):
            return self._this(reference)
        return None

    def _this(self, reference: str) -> Pick | Unclear:
        if self.shown_last and len(self.shown) == 1:
            return Pick(self.shown[0], "the task shown last")
        if len(self.acted) == 1:
            return Pick(self.acted[0], self.acted_how)
        return Unclear(reference, self.acted or self.shown)

    def answer(self, message: str) -> bool | None:
        """True for a yes, False for a no, None for anything else (a whole answer, any language)."""
        for text in _forms(message):
            for lex in lexicons():
                if _whole(lex.reference("yes"), text):
                    return True
                if _whole(lex.reference("no"), text):
                    return False
        return None


def _forms(text: str) -> list[str]:
    folded = _EDGES.sub("", " ".join(fold(text).split()))
    polite = _EDGES.sub("", _POLITE_TAIL.sub("", folded))
    return list(dict.fromkeys(t for t in (folded, polite) if t))


def _whole(pattern: re.Pattern[str] | None, text: str) -> bool:
    return pattern is not None and pattern.fullmatch(text) is not None


def _position(lex: Lexicon, text: str) -> int | None:
    for index, ordinal in enumerate(lex.ordinals, start=1):
        if ordinal.fullmatch(text):
            return index
    number = lex.reference("number")
    rest = text
    if number is not None and (m := number.match(text)) and m.end() < len(text):
        rest = text[m.end() :].strip()
    return int(rest) if _NUMBER.fullmatch(rest) else None
