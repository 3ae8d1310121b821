"""Tool argument models: the JSON schema the model sees and the validation come from these classes."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from backend.app.core.text import visible_text
from backend.app.tools.repeats import normalized_rule

Priority = Literal["low", "medium", "high"]
_VISIBLE = AfterValidator(visible_text)  # something visible in it, no bidi controls (core/text.py)
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50), _VISIBLE]
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500), _VISIBLE]
TaskRef = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
REF_HELP = "The task's title as the user said it (matched fuzzily) or its UUID."


def _in_range(value: datetime) -> datetime:
    if not 1900 <= value.year <= 9000:  # past year 9999 in any zone, the arithmetic would overflow
        raise ValueError("a date and time between the years 1900 and 9000")
    return value


DueAt = Annotated[datetime, AfterValidator(_in_range)]
# A repeat: an RFC 5545 RRULE, stored upper case without its "RRULE:" prefix (tools/repeats.py).
Rule = Annotated[str, AfterValidator(normalized_rule)]  # at most 255 characters, checked there
DUE_AT_HELP = "Due time, e.g. 2026-12-05T15:00 (the user's clock)."
RULE_HELP = "Repeat as an RRULE, e.g. FREQ=WEEKLY;BYDAY=TU."


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddTaskArgs(_Args):
    title: Title = Field(description="Short title.")
    description: Annotated[str, StringConstraints(max_length=4000)] | None = None
    priority: Priority = "medium"
    due_date: date | None = Field(default=None, description="YYYY-MM-DD, today or later.")
    due_at: DueAt | None = Field(default=None, description=DUE_AT_HELP)
    recurrence: Rule | None = Field(default=None, description=RULE_HELP)
    tags: list[Tag] = Field(default_factory=list, max_length=20)


class ListTasksArgs(_Args):
    status: Literal["all", "pending", "completed"] = "all"
    query: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] | None = Field(
        default=None, description="Words in title or description."
    )
    priority: Priority | None = None
    tag: Tag | None = None
    due_before: date | None = Field(default=None, description="Inclusive.")
    due_after: date | None = Field(default=None, description="Inclusive.")
    limit: int | None = Field(default=None, ge=1, le=50)


class TaskRefArgs(_Args):
    task_id: TaskRef = Field(description=REF_HELP)


# Fields update_task can clear: null for these, [] for tags (the model sees the null in the schema).
CLEARABLE = frozenset({"description", "due_date", "due_at", "recurrence"})
_CLEARABLE: dict[str, Any] = {"x-clearable": True}


class TaskFields(_Args):
    """The fields of a task a change may set: `update_task` (with the task it names) and REST's PATCH."""

    title: Title | None = None
    description: Annotated[str, StringConstraints(max_length=4000)] | None = Field(
        default=None, description="null clears it.", json_schema_extra=_CLEARABLE
    )
    priority: Priority | None = None
    due_date: date | None = Field(
        default=None, description="YYYY-MM-DD, today or later; null clears it.", json_schema_extra=_CLEARABLE
    )
    due_at: DueAt | None = Field(
        default=None, description=DUE_AT_HELP + " null: no time.", json_schema_extra=_CLEARABLE
    )
    recurrence: Rule | None = Field(default=None, description=RULE_HELP + " null: stop.", json_schema_extra=_CLEARABLE)
    tags: list[Tag] | None = Field(default=None, max_length=20, description="Replaces the tags; [] clears them.")
    status: Literal["pending", "completed"] | None = None

    def changes(self) -> dict[str, Any]:
        """The fields given: a null clears `description`, `due_date`, `due_at` and `recurrence` and means
        nothing elsewhere."""
        given = self.model_dump(exclude={"task_id"}, exclude_unset=True)
        return {k: v for k, v in given.items() if v is not None or k in CLEARABLE}


# Bases in this order put `task_id` first in the schema the model reads.
class UpdateTaskArgs(TaskFields, TaskRefArgs):
    pass


class UndoArgs(_Args):
    """No arguments: undo reverts the most recent change set, whatever it was."""


def compact_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema without pydantic's decorations (titles, anyOf-null), to save tokens."""
    schema: dict[str, Any] = _compact(model.model_json_schema())
    return schema


def _compact(node: Any) -> Any:
    if isinstance(node, dict):
        # Only pydantic's string decorations go: a *property* named "title" (add_task's) is a dict and stays.
        node = {k: v for k, v in node.items() if k not in ("title", "default") or not isinstance(v, str | None)}
        any_of = node.get("anyOf")
        if node.pop("x-clearable", False):
            any_of = None  # null is a value the model may send here: it clears the field
        if isinstance(any_of, list):
            non_null = [o for o in any_of if o != {"type": "null"}]
            if len(non_null) == 1:
                node.pop("anyOf")
                node.update(non_null[0])
        return {k: _compact(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_compact(v) for v in node]
    return node
