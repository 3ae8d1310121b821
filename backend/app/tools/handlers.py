"""What each task tool does to the owner's tasks: the handlers `TOOLS` (tools/registry.py) names.

A handler gets one call's validated arguments and the step's repository, and returns the call's
result with the `Change` it made (for undo), or None. It never commits: `TaskTools` (tools/task_tools.py)
runs the step's calls in one transaction and records them. The handlers are a mixin of `TaskTools`,
as `FindsTasks` is; their state is TaskTools' own.
"""

from __future__ import annotations

import html
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from backend.app.calls.codes import ResultCode
from backend.app.calls.said import SaidAdd
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.core.clock import Clock
from backend.app.db.models import Task
from backend.app.db.repositories.task_filter import TaskFilter
from backend.app.db.repositories.tasks import TaskRepository, TaskRow
from backend.app.tools.references import FindsTasks, needs_confirmation_to_add, not_grounded
from backend.app.tools.resolver import partly_named, shares_words
from backend.app.tools.schemas import AddTaskArgs, ListTasksArgs, TaskRefArgs, UndoArgs, UpdateTaskArgs
from backend.app.tools.undo import undo_last_change


@dataclass(frozen=True, slots=True)
class Change:
    """What a call did to one task, for its undo: the task as it was and as it is (None: absent)."""

    task_id: uuid.UUID
    before: dict[str, Any] | None
    after: dict[str, Any] | None


def snapshot(task: Task) -> dict[str, Any]:
    return {**task_to_dict(task), "version": task.version}


def task_to_dict(task: Task) -> dict[str, Any]:
    return {
        "id": str(task.id),
        "title": task.title,
        "description": task.description,
        "status": task.status,
        "priority": task.priority,
        "due_date": task.due_date.isoformat() if task.due_date else None,
        "tags": list(task.tags or []),
    }


Done = tuple[ToolResult, Change | None]


class ToolHandlers(FindsTasks):
    """The tools' handlers, as `TaskTools` methods: what a call does once its arguments are valid.
    How its reference becomes one of the owner's tasks is `FindsTasks` (tools/references.py)."""

    clock: Clock
    list_limit: int
    _titles_added: set[str]  # titles added this turn (folded): a repair never adds one twice

    async def _add_task(self, repo: TaskRepository, args: AddTaskArgs, call: ToolCall) -> Done:
        said: SaidAdd | None = None
        names = call.grounding.names if call.grounding is not None else None
        if call.grounding is not None and call.grounding.title and args.title != call.grounding.title:
            self._repairs.append(f"title '{args.title}' is the whole message: used '{call.grounding.title}', quoted")
            args = args.model_copy(update={"title": call.grounding.title})
        if names is not None and not shares_words(names, args.title):
            said = self._next_add(names)
            if said is None:
                said_words = self.said.message if self.said is not None else ""
                if said_words and (shares_words(said_words, args.title) or partly_named(said_words, args.title)):
                    # In the user's words, but not where they ask for an add (a quote the reader gave
                    # to no action): asked about, never added on a guess, never dropped unsaid.
                    return needs_confirmation_to_add(args.title), None
                return not_grounded(f"The user's message does not mention '{args.title}'"), None
            self._repairs.append(f"title '{args.title}' is not in the user's words: added '{said.title}', as they said")
        elif (quoted := self._quoted_add()) is not None and _plain(args.title) != quoted.title.casefold():
            said = quoted
            self._repairs.append(f"title '{args.title}' is not the title the user quoted: added '{said.title}'")
        if said is not None:
            args = args.model_copy(update={"title": said.title})
        else:  # the user's own title, as the model wrote it: the user's priority and due date still hold
            said = next((a for a in self._unadded() if a.title.casefold() == _plain(args.title)), None)
        if said is not None:
            for name, value in said.fields.items():
                if getattr(args, name) != value:
                    self._repairs.append(f"{name} '{getattr(args, name)}' is not what the user said: used '{value}'")
                    args = args.model_copy(update={name: value})
        if call.grounding is not None and call.grounding.ask:  # nothing added: the user is asked first
            return needs_confirmation_to_add(args.title), None
        self._titles_added.add(args.title.casefold())
        task = await repo.add(
            title=args.title,
            description=args.description,
            priority=args.priority,
            due_date=args.due_date,
            tags=list(args.tags),
        )
        self._touched.add(task.id)
        return ToolResult(success=True, data=task_to_dict(task)), Change(task.id, None, snapshot(task))

    async def _list_tasks(self, repo: TaskRepository, args: ListTasksArgs, call: ToolCall) -> Done:
        where = TaskFilter(args.status, args.query, args.priority, args.tag, args.due_before, args.due_after)
        limit = min(args.limit or self.list_limit, self.list_limit)
        page = await repo.search(where, limit=limit)
        truncated = page.cursor is not None
        count = await repo.count(where=where, fuzzy=page.fuzzy) if truncated else len(page.tasks)
        shown = [task_to_dict(t) for t in page.tasks]
        filters = {k: v for k, v in args.model_dump(mode="json", exclude={"status", "limit"}).items() if v is not None}
        data = {"status": args.status, "count": count, "tasks": shown, "truncated": truncated, **filters}
        if truncated:
            data["more"] = f"{count - len(shown)} more not shown: narrow the filters to see them"
        return ToolResult(success=True, data=data), None

    async def _complete_task(self, repo: TaskRepository, args: TaskRefArgs, call: ToolCall) -> Done:
        return await self._mutate(repo, args.task_id, {"status": "completed"}, call)

    async def _update_task(self, repo: TaskRepository, args: UpdateTaskArgs, call: ToolCall) -> Done:
        changes = args.changes()
        if not changes:
            return ToolResult.fixable(ResultCode.NO_CHANGES, "Give at least one field to change besides task_id."), None
        return await self._mutate(repo, args.task_id, changes, call)

    async def _delete_task(self, repo: TaskRepository, args: TaskRefArgs, call: ToolCall) -> Done:
        row = await self._resolve(repo, args.task_id, call)
        if isinstance(row, ToolResult):
            return row, None
        task = await repo.delete(row)
        if task is None:
            return _conflict(row), None
        data = {"id": str(row.id), "title": row.title, "status": "deleted"}
        return ToolResult(success=True, data=data), Change(task.id, snapshot(task), None)

    async def _undo_last_change(self, repo: TaskRepository, args: UndoArgs, call: ToolCall) -> Done:
        now = self.clock.now()
        return await undo_last_change(
            repo, now=now, expected=call.expected_change, repeat_window=timedelta(seconds=call.repeat_window_s)
        ), None

    async def _mutate(self, repo: TaskRepository, reference: str, values: dict[str, Any], call: ToolCall) -> Done:
        row = await self._resolve(repo, reference, call)
        if isinstance(row, ToolResult):
            return row, None
        before = await repo.get(row.id)
        task = await repo.update(row, values)
        if task is None or before is None:
            return _conflict(row), None
        return ToolResult(success=True, data=task_to_dict(task)), Change(task.id, snapshot(before), snapshot(task))

    def _unadded(self) -> list[SaidAdd]:
        adds = self.said.adds if self.said is not None else ()
        return [a for a in adds if a.title.casefold() not in self._titles_added]

    def _next_add(self, grounding: str) -> SaidAdd | None:
        """The next task the user's message asks to add that no call of this turn added yet."""
        return next((a for a in self._unadded() if shares_words(grounding, a.title)), None)

    def _quoted_add(self) -> SaidAdd | None:
        """The one task to add whose title the user quoted, if it is not added yet."""
        adds = self.said.adds if self.said is not None else ()
        quoted = [a for a in adds if a.quoted]
        return quoted[0] if len(adds) == 1 and quoted and quoted[0] in self._unadded() else None


def _plain(title: str) -> str:
    """A title as compared with the user's: no HTML entities, no quotes or punctuation around, any case."""
    return html.unescape(title).strip().strip("\"'“”‘’«».,;:!? ").casefold()


def _conflict(row: TaskRow) -> ToolResult:
    return ToolResult(
        success=False,
        code=ResultCode.CONFLICT,
        error=f"'{row.title}' was changed or deleted by another request at the same time; "
        "nothing was done. Please try again.",
    )
