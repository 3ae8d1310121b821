"""A turn's account of itself, kept with its message (`messages.context`) for the turns after it:
the tasks it acted on, the tasks it showed (a list, or the candidates of an ambiguous title, in
their order, with the facts that tell them apart), its language, the question it asked, the
model's own words in its reply, and one line for the model's history. `Referents`
(tools/referents.py) reads the accounts back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import choices_of, listing_of, task_id_of, title_of
from backend.app.calls.tools import Tool
from backend.app.calls.types import ExecutedCall
from backend.app.db.models import Task

SHOWN_LIMIT = 20  # tasks of a list remembered (and numbered) for the next turn
FACTS = ("status", "due_date", "priority", "tags", "created")  # what can tell two tasks of one title apart
DONE: dict[str, str] = {
    Tool.ADD: "added",
    Tool.COMPLETE: "completed",
    Tool.DELETE: "deleted",
    Tool.UPDATE: "updated",
}


@dataclass(frozen=True, slots=True)
class TaskRef:
    """A task the conversation showed or acted on, with its facts (status, due date, priority,
    tags, when it was added) as they were then."""

    id: str
    title: str
    facts: Mapping[str, Any] = field(default_factory=dict)


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


@dataclass(frozen=True, slots=True)
class Acted:
    """A task a turn acted on (`action`: the tool that did it)."""

    id: str
    title: str
    action: str

    @property
    def ref(self) -> TaskRef:
        return TaskRef(self.id, self.title)


@dataclass(frozen=True, slots=True)
class TurnAccount:
    """A turn's account for the next turns (`messages.context`): what it acted on, what it showed,
    its language, the question it asked (`confirmation`, its id), and one line for the model.
    `words`: the model's own words in the reply where the backend's lines stand beside them ("": it
    shows none); None where the reply is the model's words alone (or the account is older)."""

    acted: tuple[Acted, ...] = ()
    shown: tuple[TaskRef, ...] = ()
    language: str | None = None
    confirmation: str | None = None
    words: str | None = None

    @classmethod
    def of(
        cls, executed: Sequence[ExecutedCall], *, language: str | None = None, words: str | None = None
    ) -> TurnAccount:
        acted: list[Acted] = []
        shown: tuple[TaskRef, ...] = ()
        for e in executed:
            data = e.result.data
            if e.result.success and e.call.name in DONE and (task_id := task_id_of(data)):
                acted.append(Acted(task_id, title_of(data) or "", e.call.name))
            elif e.result.success and e.call.name == Tool.LIST and (listing := listing_of(data)) is not None:
                tasks = listing["tasks"][:SHOWN_LIMIT]
                shown = tuple(TaskRef(t["id"], t["title"], facts_of(t)) for t in tasks)
            elif e.result.code == ResultCode.AMBIGUOUS and (asked := choices_of(data)) is not None:
                shown = tuple(TaskRef(c["id"], c["title"], facts_of(c)) for c in asked["choices"])
        return cls(tuple(acted), shown, language, words=words)

    @property
    def line(self) -> str:
        """The turn's tool results in one line, beside its reply in the model's history."""
        parts = [f"{DONE[a.action]} “{a.title}” (id {a.id})" for a in self.acted]
        if self.shown:
            numbered = " ".join(f"{i}. “{t.title}” (id {t.id})" for i, t in enumerate(self.shown, start=1))
            parts.append(f"showed: {numbered}")
        return "[tool results: " + "; ".join(parts) + "]"

    def to_json(self) -> dict[str, Any] | None:
        """The stored JSON (None: nothing to keep); the line only when the turn acted or showed."""
        context: dict[str, Any] = {}
        if self.acted or self.shown:
            context["acted"] = [{"id": a.id, "title": a.title, "action": a.action} for a in self.acted]
            context["shown"] = [{"id": t.id, "title": t.title, **t.facts} for t in self.shown]
            context["line"] = self.line
        if self.language:
            context["language"] = self.language
        if self.confirmation is not None:
            context["confirmation"] = self.confirmation
        if self.words is not None:
            context["words"] = self.words
        return context or None

    @classmethod
    def from_json(cls, stored: Mapping[str, Any] | None) -> TurnAccount:
        """A stored account, of any version: none at all, no language or question, shown tasks with a
        `detail` in place of their facts (read as no facts), items that are no task (skipped)."""
        stored = stored or {}
        acted = tuple(
            Acted(str(i["id"]), str(i.get("title", "")), str(i.get("action", "")))
            for i in stored.get("acted") or ()
            if isinstance(i, Mapping) and "id" in i
        )
        shown = tuple(
            TaskRef(str(i["id"]), str(i.get("title", "")), facts_of(i))
            for i in stored.get("shown") or ()
            if isinstance(i, Mapping) and "id" in i
        )
        language, confirmation, words = stored.get("language"), stored.get("confirmation"), stored.get("words")
        return cls(
            acted,
            shown,
            language if isinstance(language, str) else None,
            confirmation if isinstance(confirmation, str) else None,
            words if isinstance(words, str) else None,
        )
