"""What a tool result's `data` holds: one shape per kind of answer, the contract between the task
tools that write them and the reply, the wording, the confirmations and the records that read them.

A result carries at most one of these (or none). They are JSON as they go to the model and into the
stored rows, so they are TypedDicts, not classes. Each is `@final`, so that a key test (`"tasks" in
data`) tells them apart; the readers below are the only place that does, and every other module
asks them instead of reading the dict by key.
"""

# No `from __future__ import annotations` here: Python 3.11 reads a TypedDict's NotRequired keys only
# from evaluated annotations (with string ones, every key is required at run time).
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, final


@final
class TaskData(TypedDict):
    """A task as add_task, complete_task and update_task return it, and as list_tasks lists it.
    `version` only where the REST routes ask for it; `resolved` (how a reference was read) and
    `repaired` (what was taken from the user's words) only on a call's own success."""

    id: str
    title: str
    description: str | None
    status: str
    priority: str
    due_date: str | None
    tags: list[str]
    due_at: NotRequired[str | None]  # RFC 3339 in `time_zone`: only a task with a due time has them
    time_zone: NotRequired[str | None]
    recurrence: NotRequired[str]  # an RRULE: only a repeating task has it
    next_due: NotRequired[str | None]  # a repeating task's completion: when it comes next (it moved there)
    overdue: NotRequired[bool]  # in a listing: pending and due before the user's today
    version: NotRequired[int]
    resolved: NotRequired[str]
    repaired: NotRequired[list[str]]


@final
class DeletedTask(TypedDict):
    id: str
    title: str
    status: Literal["deleted"]
    resolved: NotRequired[str]
    repaired: NotRequired[list[str]]


@final
class TaskListing(TypedDict):
    """list_tasks: a page of tasks, how many match in all, and the filters it was asked for."""

    status: str
    count: int
    tasks: list[TaskData]
    truncated: bool
    more: NotRequired[str]
    query: NotRequired[str]
    priority: NotRequired[str]
    tag: NotRequired[str]
    due_before: NotRequired[str]
    due_after: NotRequired[str]


@final
class Undone(TypedDict):
    action: Literal["restored", "removed", "reverted"]
    task_id: str
    title: str
    fields: NotRequired[list[str]]  # a reverted update's fields


@final
class UndoData(TypedDict):
    """undo_last_change: what it reverted, which change set (its source and turn); `replayed` when a
    repeated request is answered with the undo it already did."""

    undone: list[Undone]
    source: str
    turn_id: str
    replayed: NotRequired[bool]


@final
class Choice(TypedDict):
    """One candidate of an AMBIGUOUS answer, with the facts that tell it from its twins (`apart`)."""

    id: str
    title: str
    apart: list[str]
    number: NotRequired[int]
    status: NotRequired[str]
    due_date: NotRequired[str | None]
    priority: NotRequired[str]
    tags: NotRequired[list[str]]
    created: NotRequired[str | None]


@final
class Choices(TypedDict):
    """AMBIGUOUS: the reference and the tasks it could be (`offered`: it named none of them, a pointer
    into a conversation that showed no task: they are the user's newest pending tasks)."""

    reference: str
    candidates: list[str]
    choices: list[Choice]
    offered: NotRequired[bool]


class AskedFacts(TypedDict, total=False):
    """What tells a choice of a pending question from its twins: its task's title, and the facts a
    `Choice` carried (None where the task has none)."""

    title: str
    status: str | None
    due_date: str | None
    priority: str | None
    tags: list[str] | None
    created: str | None


@final
class AskedAction(TypedDict):
    """One call a pending question's answer runs, as services/confirmations/questions.py keeps it (in
    `pending_confirmations.actions`): the tool, its arguments, the label it is asked with and, for a
    choice among twins, the facts of its task."""

    name: str
    arguments: dict[str, Any]
    label: str
    facts: NotRequired[AskedFacts]


@final
class FieldError(TypedDict):
    field: str
    message: str


@final
class InvalidFields(TypedDict):
    """INVALID_ARGUMENTS: which argument was not valid, and why."""

    fields: list[FieldError]


@final
class ValidTools(TypedDict):
    """UNKNOWN_TOOL: the tools there are."""

    valid_tools: list[str]


@final
class TaskNamed(TypedDict):
    """A task a refusal names, so that the user can be asked about exactly it (NEEDS_CONFIRMATION,
    NOT_GROUNDED, DESTRUCTIVE_LIMIT, PRECONDITION_FAILED with its `version`)."""

    id: str
    title: str
    version: NotRequired[int]


@final
class TitleNamed(TypedDict):
    """A title a refusal names: the add the user is asked about, or the task a call was not asked to touch."""

    title: str


@final
class OutputSize(TypedDict):
    """TOOL_OUTPUT_TOO_LARGE: the result's size and the limit it was over."""

    bytes: int
    limit: int


Payload = (
    TaskData
    | DeletedTask
    | TaskListing
    | UndoData
    | Choices
    | InvalidFields
    | ValidTools
    | TaskNamed
    | TitleNamed
    | OutputSize
)


def task_id_of(data: Payload | None) -> str | None:
    """The id of the one task a result is about, if it names one."""
    return _text(data, "id")


def title_of(data: Payload | None) -> str | None:
    """The title of the one task a result is about, if it names one."""
    return _text(data, "title")


def _text(data: Payload | None, key: Literal["id", "title"]) -> str | None:
    # Several shapes have the key: read through the mapping (a key test narrows a union of
    # TypedDicts only to the shapes that have it alone).
    fields: Mapping[str, object] = data or {}
    value = fields.get(key)
    return value if isinstance(value, str) else None


def task_of(data: Payload | None) -> TaskData | DeletedTask | None:
    """The task a call acted on (its own success's payload: a task, or a deleted one)."""
    return data if data is not None and "status" in data and "id" in data else None


def listing_of(data: Payload | None) -> TaskListing | None:
    return data if data is not None and "tasks" in data else None


def undo_of(data: Payload | None) -> UndoData | None:
    return data if data is not None and "undone" in data else None


def choices_of(data: Payload | None) -> Choices | None:
    return data if data is not None and "choices" in data else None


def invalid_fields(data: Payload | None) -> list[FieldError]:
    return data["fields"] if data is not None and "fields" in data else []
