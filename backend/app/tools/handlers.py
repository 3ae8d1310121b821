"""What each task tool does to the owner's tasks: the handlers `TOOLS` (tools/registry.py) names.

A handler gets one call's validated arguments and the step it runs in (its repository, what its
calls name), and returns `Done`: the call's result, the `Change` it made (for undo), and what it
went on with besides the model's arguments (how a reference was read, what it repaired from the
user's words, the values it applied in their place). What a call reports is in that value, so
`TaskTools` (tools/task_tools.py) builds the result and the executed arguments from it; except when
the write raises (STORAGE_ERROR): then nothing is returned, and the notes and repairs made before it
are not reported. A handler never commits: `TaskTools` runs the step's calls in one transaction and records them
(a lone call's write the repository held, in one statement with its record: `conflicted` is what such a
call reports when the write finds its task changed). How
a reference becomes one of the owner's tasks is the `TaskFinder` (tools/references.py) they hold.
"""

from __future__ import annotations

import html
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import DeletedTask, TaskData, TaskListing
from backend.app.calls.said import Said, SaidAdd
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.core.clock import Clock
from backend.app.db.models import Task
from backend.app.db.repositories.task_filter import TaskFilter
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.tools.references import Found, TaskFinder, needs_confirmation_to_add, not_grounded
from backend.app.tools.resolver import partly_named, shares_words
from backend.app.tools.schemas import AddTaskArgs, ListTasksArgs, TaskRefArgs, UndoArgs, UpdateTaskArgs
from backend.app.tools.undo import undo_last_change


@dataclass(frozen=True, slots=True)
class Change:
    """What a call did to one task, for its undo: the task as it was and as it is (None: absent)."""

    task_id: uuid.UUID
    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Done:
    """What a handler did with one call: its result and the `Change` it made; how its reference was
    read (`notes`), what it repaired (`repairs`), and the arguments it applied in place of the
    model's (`applied`, JSON values: each repaired one, a reference as the title of the task used).
    Only a call that succeeded applied anything: one that was refused, or only looked its task up
    for the user to be asked, keeps the model's arguments (its result names the task asked about)."""

    result: ToolResult
    change: Change | None = None
    notes: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()
    applied: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, found: Found, result: ToolResult, change: Change | None = None) -> Done:
        """A call on the task `found`: its notes and repairs, its repaired reference applied."""
        applied = {"task_id": found.used} if found.used is not None and result.success else {}
        return cls(result, change, found.notes, found.repairs, applied)


@dataclass(frozen=True, slots=True)
class StepScope:
    """What the calls of one step share: the repository of its transaction, and what each of its
    calls names (a repair never takes a task another call of the step names)."""

    repo: TaskRepository
    references: tuple[str, ...] = ()


def snapshot(task: Task) -> dict[str, Any]:
    return {**task_to_dict(task), "version": task.version}


def task_to_dict(task: Task) -> TaskData:
    return {
        "id": str(task.id),
        "title": task.title,
        "description": task.description,
        "status": task.status,
        "priority": task.priority,
        "due_date": task.due_date.isoformat() if task.due_date else None,
        "tags": list(task.tags or []),
    }


class ToolHandlers:
    """The tools' handlers for one owner's turn (or MCP call, or REST request): what a call does once
    its arguments are valid. What the user's message asks to add (an add's title, priority and due
    date are repaired from it) is its finder's `said`; `titles_added` the turn's: a repair never adds
    one title twice."""

    def __init__(self, *, finder: TaskFinder, clock: Clock, list_limit: int) -> None:
        self.finder = finder
        self.clock = clock
        self.list_limit = list_limit
        self.titles_added: set[str] = set()  # folded

    async def add_task(self, step: StepScope, args: AddTaskArgs, call: ToolCall) -> Done:
        repairs: list[str] = []
        repaired: set[str] = set()  # the fields the user's words gave in place of the model's

        def use(name: str, value: Any, why: str) -> None:
            nonlocal args
            repairs.append(why)
            repaired.add(name)
            args = args.model_copy(update={name: value})

        def done(result: ToolResult, change: Change | None = None) -> Done:
            applied = args.model_dump(mode="json", include=repaired) if result.success else {}
            return Done(result, change, repairs=tuple(repairs), applied=applied)

        said: SaidAdd | None = None
        names = call.grounding.names if call.grounding is not None else None
        if call.grounding is not None and call.grounding.title and args.title != call.grounding.title:
            whole = call.grounding.title
            use("title", whole, f"title '{args.title}' is the whole message: used '{whole}', quoted")
        if names is not None and not shares_words(names, args.title):
            said = self._next_add(names)
            if said is None:
                said_words = self.said.message if self.said is not None else ""
                if said_words and (shares_words(said_words, args.title) or partly_named(said_words, args.title)):
                    # In the user's words, but not where they ask for an add (a quote the reader gave
                    # to no action): asked about, never added on a guess, never dropped unsaid.
                    return done(needs_confirmation_to_add(args.title))
                return done(not_grounded(f"The user's message does not mention '{args.title}'"))
            use(
                "title",
                said.title,
                f"title '{args.title}' is not in the user's words: added '{said.title}', as they said",
            )
        elif (quoted := self._quoted_add()) is not None and _plain(args.title) != quoted.title.casefold():
            said = quoted
            use("title", said.title, f"title '{args.title}' is not the title the user quoted: added '{said.title}'")
        else:  # the user's own title, as the model wrote it: the user's priority and due date still hold
            said = next((a for a in self._unadded() if a.title.casefold() == _plain(args.title)), None)
        for name, value in said.fields.items() if said is not None else ():
            if getattr(args, name) != value:
                use(name, value, f"{name} '{getattr(args, name)}' is not what the user said: used '{value}'")
        if call.grounding is not None and call.grounding.ask:  # nothing added: the user is asked first
            return done(needs_confirmation_to_add(args.title))
        self.titles_added.add(args.title.casefold())
        task = await step.repo.add(
            title=args.title,
            description=args.description,
            priority=args.priority,
            due_date=args.due_date,
            tags=list(args.tags),
        )
        self.finder.touched.add(task.id)
        return done(ToolResult(success=True, data=task_to_dict(task)), Change(task.id, None, snapshot(task)))

    async def list_tasks(self, step: StepScope, args: ListTasksArgs, call: ToolCall) -> Done:
        where = TaskFilter(args.status, args.query, args.priority, args.tag, args.due_before, args.due_after)
        limit = min(args.limit or self.list_limit, self.list_limit)
        page = await step.repo.search(where, limit=limit)
        truncated = page.cursor is not None
        count = await step.repo.count(where=where, fuzzy=page.fuzzy) if truncated else len(page.tasks)
        shown = [task_to_dict(t) for t in page.tasks]
        filters = args.model_dump(mode="json", exclude={"status", "limit"}, exclude_none=True)  # those asked for
        listing = {"status": args.status, "count": count, "tasks": shown, "truncated": truncated, **filters}
        data = cast(TaskListing, listing)  # the filters are ListTasksArgs' fields: TaskListing's optional keys
        if truncated:
            data["more"] = f"{count - len(shown)} more not shown: narrow the filters to see them"
        return Done(ToolResult(success=True, data=data))

    async def complete_task(self, step: StepScope, args: TaskRefArgs, call: ToolCall) -> Done:
        return await self._mutate(step, args.task_id, {"status": "completed"}, call)

    async def update_task(self, step: StepScope, args: UpdateTaskArgs, call: ToolCall) -> Done:
        changes = args.changes()
        if not changes:
            return Done(ToolResult.fixable(ResultCode.NO_CHANGES, "Give at least one field to change besides task_id."))
        return await self._mutate(step, args.task_id, changes, call)

    async def delete_task(self, step: StepScope, args: TaskRefArgs, call: ToolCall) -> Done:
        found = await self.finder.find(step.repo, args.task_id, call, step=step.references)
        row = found.match
        if isinstance(row, ToolResult):
            return Done.of(found, row)
        task = await step.repo.delete(row)
        if task is None:
            return Done.of(found, _conflict(row.title))
        data = DeletedTask(id=str(row.id), title=row.title, status="deleted")
        return Done.of(found, ToolResult(success=True, data=data), Change(task.id, snapshot(task), None))

    async def undo_last_change(self, step: StepScope, args: UndoArgs, call: ToolCall) -> Done:
        now = self.clock.now()
        window = timedelta(seconds=call.repeat_window_s)
        return Done(await undo_last_change(step.repo, now=now, expected=call.expected_change, repeat_window=window))

    async def _mutate(self, step: StepScope, reference: str, values: dict[str, Any], call: ToolCall) -> Done:
        found = await self.finder.find(step.repo, reference, call, step=step.references)
        row = found.match
        if isinstance(row, ToolResult):
            return Done.of(found, row)
        changed = await step.repo.change(row, values)
        if changed is None:
            return Done.of(found, _conflict(row.title))
        before, task = changed
        return Done.of(
            found, ToolResult(success=True, data=task_to_dict(task)), Change(task.id, snapshot(before), snapshot(task))
        )

    @property
    def said(self) -> Said | None:
        return self.finder.said

    def _unadded(self) -> list[SaidAdd]:
        adds = self.said.adds if self.said is not None else ()
        return [a for a in adds if a.title.casefold() not in self.titles_added]

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


def conflicted(done: Done) -> Done:
    """What a call whose write its repository held reports instead of `done` when the write, sent with
    the call's record, finds the task no longer the version its lookup read (TaskTools): the
    conflict the write would have met sent at once, with the same notes and repairs."""
    assert done.change is not None and done.change.before is not None  # a held write changes a task it read
    return Done(_conflict(done.change.before["title"]), None, done.notes, done.repairs)


def _conflict(title: str) -> ToolResult:
    return ToolResult(
        success=False,
        code=ResultCode.CONFLICT,
        error=f"'{title}' was changed or deleted by another request at the same time; "
        "nothing was done. Please try again.",
    )
