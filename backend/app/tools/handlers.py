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
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any, cast

from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Do, Verdict
from backend.app.calls.facts import Arg, Given, Hold, ValueFacts
from backend.app.calls.payloads import DeletedTask, TaskData, TaskListing, task_id_of
from backend.app.calls.said import Said, SaidAdd
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.calls.verdicts import decide, verdict_of
from backend.app.core.clock import Clock, shown_at
from backend.app.db.models import Task
from backend.app.db.repositories.task_filter import TaskFilter
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.tools.references import TaskFinder
from backend.app.tools.referents import needs_confirmation_to_add
from backend.app.tools.repeats import edited_timing, local_due, new_timing
from backend.app.tools.schemas import AddTaskArgs, ListTasksArgs, TaskRefArgs, UndoArgs, UpdateTaskArgs
from backend.app.tools.target import Found
from backend.app.tools.titles import partly_named, shares_words
from backend.app.tools.undo import undo_last_change
from backend.app.tools.values import Dropped, Values


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
    dropped: tuple[Dropped, ...] = ()  # values not stored or filters not applied: nobody gave them

    @classmethod
    def valued(cls, values: Values, result: ToolResult, change: Change | None = None) -> Done:
        """A call's result with what the table made of its values (repaired, dropped)."""
        applied = values.applied if result.success else {}
        return cls(result, change, repairs=tuple(values.repairs), applied=applied, dropped=tuple(values.dropped))

    def with_values(self, values: Values) -> Done:
        """This result with what the table made of the call's values besides its target."""
        applied = {**values.applied, **self.applied} if self.result.success else dict(self.applied)
        repairs = tuple(values.repairs) + self.repairs
        return replace(self, repairs=repairs, applied=applied, dropped=tuple(values.dropped))

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
    titles: tuple[str, ...] = ()  # the titles of the step's adds, as the model gave them
    repaired: list[str] = field(default_factory=list)  # the titles its adds took from the user's words
    sweeps: frozenset[str] = frozenset()  # the tools whose calls in this step name every task of the list


def snapshot(task: Task) -> dict[str, Any]:
    return {**task_to_dict(task), "version": task.version}


def task_to_dict(task: Task) -> TaskData:
    data: TaskData = {
        "id": str(task.id),
        "title": task.title,
        "description": task.description,
        "status": task.status,
        "priority": task.priority,
        "due_date": task.due_date.isoformat() if task.due_date else None,
        "tags": list(task.tags or []),
    }
    # A due time and a repeat only where the task has them: what every other task's data was stays so.
    if task.due_at is not None:
        data["due_at"] = shown_at(task.due_at, task.time_zone)
    if task.recurrence:
        data["recurrence"] = task.recurrence
    if task.due_at is not None or task.recurrence:
        data["time_zone"] = task.time_zone
    return data


# The values of a task the user's words must give (rows V1-V6): what a model fills in is not stored.
WHEN_AND_HOW = ("priority", "due_date", "tags", "due_at", "recurrence")
# The fields whose change depends on the task as it is (its due time, its date, its repeat), as does a
# completion (of a repeating task: a move to its next occurrence).
TIMING = frozenset({"due_date", "due_at", "recurrence"})


def _overdue(data: TaskData, task: Task, today: date) -> TaskData:
    """A listed task marked overdue when it is pending and due before the user's today."""
    if task.status == "pending" and task.due_date is not None and task.due_date < today:
        data["overdue"] = True
    return data


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
        """An add, its title and fields as the decision table keeps, repairs or drops them (rows V1-V6):
        a title the user's words make plausible is never rewritten; a field they do not give is not
        stored (`Done.dropped`)."""
        grounding = call.grounding
        values = Values(self.said, grounding)
        title, said = self._title(args.title, values, step)
        if isinstance(title, Verdict):
            if title.do is Do.ASK:
                return Done.valued(values, needs_confirmation_to_add(title, args.title))
            return Done.valued(
                values, title.refusal(f"The user's message does not mention '{args.title}'; nothing was done.")
            )
        args = args.model_copy(update={"title": title})
        args = values.fields(args, self._users_fields(said, args.due_at), WHEN_AND_HOW)
        if grounding is not None and grounding.hold is Hold.ASK:  # nothing added: the user is asked first
            return Done.valued(values, needs_confirmation_to_add(verdict_of(grounding.rule), args.title))
        self.titles_added.add(args.title.casefold())
        timing = new_timing(
            due_date=args.due_date,
            due_at=args.due_at,
            recurrence=args.recurrence,
            zone=self.clock.zone,
            today=self.clock.today(),
        )
        task = await step.repo.add(
            title=args.title, description=args.description, priority=args.priority, tags=list(args.tags), **timing
        )
        self.finder.touched.add(task.id)
        return Done.valued(
            values, ToolResult(success=True, data=task_to_dict(task)), Change(task.id, None, snapshot(task))
        )

    def _users_fields(self, said: SaidAdd | None, due_at: datetime | None) -> dict[str, Any]:
        """The fields the user gave the task the add is. A due time read from the words alone is a
        guess ("look at 2 houses" reads as 02:00; "at 2" names no half of the day): it only mends a
        due time the model gave, taking the day the words say, and their time unless the model's is
        the same or twelve hours later (its reading of the same words). With no due time from the
        model, the words give only the day they say."""
        users = dict(said.fields) if said is not None else {}
        words = users.pop("due_at", None)
        if due_at is None or not isinstance(words, datetime):
            return users
        day = users.pop("due_date", None)  # the due time's day, where the words say one
        mine = local_due(due_at, self.clock.zone) if due_at.tzinfo is not None else due_at
        later = words.time().replace(hour=words.hour + 12) if 1 <= words.hour <= 11 else words.time()
        wanted = datetime.combine(
            day or mine.date(), mine.time() if mine.time() in (words.time(), later) else words.time()
        )
        users["due_at"] = due_at if wanted == mine else wanted
        return users

    def _title(self, title: str, values: Values, step: StepScope) -> tuple[str | Verdict, SaidAdd | None]:
        """The add's title as the table has it (or the verdict that refuses or asks), and the task the
        user's message asks to add that it is (whose priority and due date the user gave). A title
        the user quoted is theirs; any other that their words (or the conversation) make plausible is
        never rewritten."""
        grounding = values.grounding
        names = grounding.names if grounding is not None else None
        quoted = self._quoted_add()
        users: SaidAdd | None = None
        if grounding is not None and grounding.title and _plain(title) != grounding.title.casefold():
            users = SaidAdd(grounding.title, quoted=True)  # the whole message, where it quotes one title
        elif grounding is not None and quoted is not None and _plain(title) != quoted.title.casefold():
            users = quoted  # the one title the user quoted
        plausible = names is None or shares_words(names, title)
        given = Given.OTHER if users is not None else Given.YES if plausible else Given.NO
        said_words = self.said.message if self.said is not None else ""
        upcoming = self._stands_for(names, step) if names is not None and given is Given.NO else None
        facts = ValueFacts(
            Arg.TITLE,
            guarded=grounding is not None,
            given=given,
            held_to_ask=grounding is not None and grounding.hold is Hold.ASK,
            next_add=upcoming is not None,
            elsewhere=given is Given.NO  # only read for a title nobody gave (row V4)
            and bool(said_words)
            and (shares_words(said_words, title) or partly_named(said_words, title)),
        )
        verdict = decide(facts)
        if verdict.do is Do.KEEP:
            return title, next((a for a in self._unadded() if a.title.casefold() == _plain(title)), None)
        if verdict.do is not Do.REPAIR:
            return verdict, None
        if users is not None:
            why = f"title '{title}' is not the title the user quoted: added '{users.title}'"
            values.repaired("title", users.title, why)
            return users.title, users
        assert upcoming is not None
        why = f"title '{title}' is not in the user's words: added '{upcoming.title}', as they said"
        values.repaired("title", upcoming.title, why)
        step.repaired.append(upcoming.title)
        return upcoming.title, upcoming

    async def list_tasks(self, step: StepScope, args: ListTasksArgs, call: ToolCall) -> Done:
        """A listing, with only the filters the user's words ask for (a filter nobody asked for is not
        applied: row V6; the reply says what was searched)."""
        values = Values(self.said, call.grounding, guarded=self.said is not None)
        args = values.filters(args)
        where = TaskFilter(args.status, args.query, args.priority, args.tag, args.due_before, args.due_after)
        limit = min(args.limit or self.list_limit, self.list_limit)
        page = await step.repo.search(where, limit=limit)
        truncated = page.cursor is not None
        count = await step.repo.count(where=where, fuzzy=page.fuzzy) if truncated else len(page.tasks)
        today = self.clock.today()  # the user's: what is overdue where they are
        shown = [_overdue(task_to_dict(t), t, today) for t in page.tasks]
        filters = args.model_dump(mode="json", exclude={"status", "limit"}, exclude_none=True)  # those asked for
        listing = {"status": args.status, "count": count, "tasks": shown, "truncated": truncated, **filters}
        data = cast(TaskListing, listing)  # the filters are ListTasksArgs' fields: TaskListing's optional keys
        if truncated:
            data["more"] = f"{count - len(shown)} more not shown: narrow the filters to see them"
        return Done.valued(values, ToolResult(success=True, data=data))

    async def complete_task(self, step: StepScope, args: TaskRefArgs, call: ToolCall) -> Done:
        return await self._mutate(step, args.task_id, {"status": "completed"}, call)

    async def update_task(self, step: StepScope, args: UpdateTaskArgs, call: ToolCall) -> Done:
        values = Values(self.said, call.grounding)
        args = values.fields(args, {}, (*WHEN_AND_HOW, "status"), edit=True)
        changes = args.changes()
        if not changes:
            error = "Give at least one field to change besides task_id (a value the user gave)."
            return Done.valued(values, ToolResult.fixable(ResultCode.NO_CHANGES, error))
        return (await self._mutate(step, args.task_id, changes, call)).with_values(values)

    async def delete_task(self, step: StepScope, args: TaskRefArgs, call: ToolCall) -> Done:
        found = await self._find(step, args.task_id, call)
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

    async def _find(self, step: StepScope, reference: str, call: ToolCall) -> Found:
        """The task the call's reference names (`TaskFinder`); one the user asked how it stands about
        (STATED) comes whole, as it is now, for the reply to say."""
        found = await self.finder.find(
            step.repo, reference, call, step=step.references, sweeps=call.name in step.sweeps
        )
        stated = found.match
        if isinstance(stated, ToolResult) and stated.code == ResultCode.STATED and (of := task_id_of(stated.data)):
            task = await step.repo.get(uuid.UUID(of))
            if task is not None:
                return replace(
                    found, match=replace(stated, data=_overdue(task_to_dict(task), task, self.clock.today()))
                )
        return found

    async def _mutate(self, step: StepScope, reference: str, values: dict[str, Any], call: ToolCall) -> Done:
        found = await self._find(step, reference, call)
        row = found.match
        if isinstance(row, ToolResult):
            return Done.of(found, row)
        done = values.get("status") == "completed"
        if done or TIMING & values.keys():  # they depend on the task as it is (tools/repeats.py)
            current = row.whole or await step.repo.get(row.id)
            if current is None:
                return Done.of(found, _conflict(row.title))
            values = edited_timing(values, current, zone=self.clock.zone, today=self.clock.today())
        changed = await step.repo.change(row, values)
        if changed is None:
            return Done.of(found, _conflict(row.title))
        before, task = changed
        data = task_to_dict(task)
        if done and "status" not in values:  # a repeating task done: moved to its next occurrence
            data["next_due"] = data.get("due_at") or data["due_date"]
        return Done.of(found, ToolResult(success=True, data=data), Change(task.id, snapshot(before), snapshot(task)))

    @property
    def said(self) -> Said | None:
        return self.finder.said

    def _unadded(self) -> list[SaidAdd]:
        adds = self.said.adds if self.said is not None else ()
        return [a for a in adds if a.title.casefold() not in self.titles_added]

    def _stands_for(self, grounding: str, step: StepScope) -> SaidAdd | None:
        """The task the message asks to add that this add, whose title names nothing the user said,
        stands for: only when the adds no call of the step names pair one to one with the step's adds
        whose titles name nothing (a weak model's noise for "add milk and eggs"). Where they do not pair
        ("add these:" and a pasted list, one item's title noise), which one it meant is not known."""
        named = [t for t in step.titles if shares_words(grounding, t)]
        noise = len(step.titles) - len(named) - len(step.repaired)
        left = [
            a
            for a in self._unadded()
            if shares_words(grounding, a.title) and not any(shares_words(t, a.title) for t in named)
        ]
        return left[0] if left and len(left) == noise else None

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
