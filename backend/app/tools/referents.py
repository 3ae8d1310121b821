"""What the conversation has shown and done: "it", "the second one", "#2", "the one I just added",
and the answer to a question.

Each assistant turn stores a compact account of itself (`turn_context`, in `messages.context`): the
tasks it acted on, the tasks it showed (a list, or the candidates of an ambiguous title, in their
order, with the facts that tell them apart), the language it answered in, and one line for the
model's history. The next turn reads those accounts back (`Referents`) and resolves
references to them before any title matching: deterministic, owner-scoped (the ids are the user's
own, and TaskTools looks each up under the owner), and saying how it resolved ("'it' → Water plants
(the task added in the previous turn)"). The words ("it", "that one", "the second", "número 2", "the
previous one", yes, no) come from the language files' `[references]`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from backend.app.calls.codes import ResultCode
from backend.app.calls.types import ExecutedCall, ToolResult
from backend.app.db.models import Task
from backend.app.db.repositories.conversations import HistoryRow
from backend.app.language.lexicon import Lexicon, fold, lexicons

SHOWN_LIMIT = 20  # tasks of a list remembered (and numbered) for the next turn
FACTS = ("status", "due_date", "priority", "tags", "created")  # what can tell two tasks of one title apart
_DONE = {
    "add_task": "added",
    "complete_task": "completed",
    "delete_task": "deleted",
    "update_task": "updated",
}
_EDGES = re.compile(r"^[\s\"'.,!?¿¡:;()-]+|[\s\"'.,!?¿¡:;()-]+$")
_POLITE_TAIL = re.compile(
    r"\s+(?:please|pls|thanks|thank you|por favor|s'il te plait|stp|bitte|danke|per favore|grazie|obrigad[oa]"
    r"|gracias|merci|shukriya|plz|alsjeblieft|aub|dank je)$"
)
_NUMBER = re.compile(r"\d{1,2}")


@dataclass(frozen=True, slots=True)
class TaskRef:
    """A task the conversation showed or acted on, with its facts (status, due date, priority,
    tags, when it was added) as they were then."""

    id: str
    title: str
    facts: Mapping[str, Any] = field(default_factory=dict)


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


def facts_of(task: Mapping[str, Any] | Task) -> dict[str, Any]:
    """The facts that can tell a task from another of the same title."""
    if isinstance(task, Task):
        return {
            "status": task.status,
            "due_date": task.due_date.isoformat() if task.due_date else None,
            "priority": task.priority,
            "tags": list(task.tags or []),
            "created": task.created_at.isoformat() if task.created_at else None,
        }
    return {k: task.get(k) for k in FACTS if k in task}


def turn_context(executed: Sequence[ExecutedCall], *, language: str | None = None) -> dict[str, Any] | None:
    """A turn's account for the next turns: what it acted on, what it showed, its language, one line
    for the model."""
    acted: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []
    for e in executed:
        data = e.result.data if isinstance(e.result.data, dict) else {}
        if e.result.success and e.call.name in _DONE and data.get("id"):
            acted.append({"id": str(data["id"]), "title": str(data.get("title", "")), "action": e.call.name})
        elif e.result.success and e.call.name == "list_tasks":
            tasks = [t for t in data.get("tasks") or [] if isinstance(t, dict)][:SHOWN_LIMIT]
            shown = [{"id": str(t.get("id")), "title": str(t.get("title", "")), **facts_of(t)} for t in tasks]
        elif e.result.code == ResultCode.AMBIGUOUS and isinstance(data.get("choices"), list):
            shown = [
                {"id": str(c["id"]), "title": str(c["title"]), **facts_of(c)}
                for c in data["choices"]
                if isinstance(c, dict)
            ]
    if not acted and not shown:
        return {"language": language} if language else None
    context: dict[str, Any] = {"acted": acted, "shown": shown, "line": _line(acted, shown)}
    if language:
        context["language"] = language
    return context


def ambiguous(reference: str, tasks: Sequence[Task]) -> ToolResult:
    """The answer to a title that fits several tasks: each numbered with its facts, twins (tasks of
    one title) in the order they were added, so the user can answer "2" or "the one due Friday"; the
    contract's opening words are kept."""
    ranked = sorted(
        tasks, key=lambda t: (_first(tasks, t), t.created_at.isoformat() if t.created_at else "", str(t.id))
    )
    choices = []
    for number, task in enumerate(ranked, start=1):
        twins = [t for t in tasks if t.title.casefold() == task.title.casefold()]
        facts = facts_of(task)
        apart = [k for k in FACTS if len({str(facts_of(t).get(k)) for t in twins}) > 1] if len(twins) > 1 else []
        choices.append({"number": number, "id": str(task.id), "title": task.title, **facts, "apart": apart})
    listed = "; ".join(f"{c['number']}. {c['title']}" + (f" ({_english(c)})" if c["apart"] else "") for c in choices)
    return ToolResult(
        success=False,
        code=ResultCode.AMBIGUOUS,
        error=f"Multiple tasks match '{reference}'. Please be more specific: {listed}",
        data={"reference": reference, "candidates": [c["title"] for c in choices], "choices": choices},
    )


def _first(tasks: Sequence[Task], task: Task) -> int:
    """Where the first task of this one's title stands among the candidates (best match first)."""
    return next(i for i, t in enumerate(tasks) if t.title.casefold() == task.title.casefold())


def _english(choice: Mapping[str, Any]) -> str:
    """The facts that tell a twin apart, for the model (the user reads them in their language)."""
    parts = []
    for key in choice["apart"]:
        value = choice.get(key)
        if key == "due_date":
            parts.append(f"due {value}" if value else "no due date")
        elif key == "priority":
            parts.append(f"{value} priority")
        elif key == "created" and value:
            parts.append(f"added {str(value)[:10]}")
        elif key == "tags":
            parts.append(" ".join(f"#{t}" for t in value or []) or "no tags")
        elif value:
            parts.append(str(value))
    return ", ".join(parts)


def _line(acted: list[dict[str, Any]], shown: list[dict[str, Any]]) -> str:
    parts = [f"{_DONE[a['action']]} “{a['title']}” (id {a['id']})" for a in acted]
    if shown:
        numbered = " ".join(f"{i}. “{t['title']}” (id {t['id']})" for i, t in enumerate(shown, start=1))
        parts.append(f"showed: {numbered}")
    return "[tool results: " + "; ".join(parts) + "]"


def _refs(items: Sequence[Mapping[str, Any]]) -> tuple[TaskRef, ...]:
    return tuple(TaskRef(str(i["id"]), str(i.get("title", "")), facts_of(i)) for i in items)


@dataclass(frozen=True, slots=True)
class Referents:
    """The tasks the conversation acted on last and showed last, which came later, the task acted on
    before those, the task added last, and the language the conversation was answered in."""

    acted: tuple[TaskRef, ...] = ()
    acted_how: str = ""
    shown: tuple[TaskRef, ...] = ()
    shown_last: bool = False  # the list was shown after the last action
    before: tuple[TaskRef, ...] = ()  # what the turn acting before the last one acted on
    added: TaskRef | None = None  # the task added most recently
    added_how: str = ""
    language: str | None = None

    @classmethod
    def from_history(cls, rows: Sequence[HistoryRow]) -> Referents:
        acted: tuple[TaskRef, ...] = ()
        shown: tuple[TaskRef, ...] = ()
        before: tuple[TaskRef, ...] = ()
        added: TaskRef | None = None
        how = added_how = ""
        shown_last = False
        language: str | None = None
        turns_ago = 0
        for row in reversed(rows):
            if row.role != "assistant":
                continue
            turns_ago += 1
            context = row.context or {}
            language = language or context.get("language")
            items = context.get("acted") or []
            when = "in the previous turn" if turns_ago == 1 else f"{turns_ago} turns ago"
            if items and acted and not before:
                before = _refs(items)
            if items and not acted:
                acted = _refs(items)
                how = f"the task {_DONE.get(items[-1]['action'], 'changed')} {when}"
            adds = [a for a in items if a.get("action") == "add_task"]
            if adds and added is None:
                added, added_how = _refs(adds[-1:])[0], f"the task added {when}"
            if not shown and context.get("shown"):
                shown = _refs(context["shown"])
                shown_last = not acted
            if acted and shown and before and added is not None and language:
                break
        return cls(acted, how, shown, shown_last, before, added, added_how, language)

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
        if _whole(lex.reference("just_added"), text):
            return Pick(self.added, self.added_how) if self.added is not None else Unclear(reference, ())
        if _whole(lex.reference("previous"), text):
            if len(self.before) == 1:
                return Pick(self.before[0], "the task acted on before the last one")
            return Unclear(reference, self.before)
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
