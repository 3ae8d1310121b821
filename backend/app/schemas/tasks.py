"""Read models of tasks, conversations and messages."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from backend.app.core.clock import shown_at
from backend.app.core.jsontypes import JsonObject

_TASK_EXAMPLE: JsonObject = {
    "id": "5f0c1c2e-8a4b-4f7e-9a8e-0d4c2b1a9e11",
    "title": "Buy milk",
    "description": None,
    "status": "pending",
    "priority": "medium",
    "due_date": "2026-11-23",
    "tags": ["shopping"],
    "created_at": "2026-11-22T12:00:00+00:00",
    "updated_at": "2026-11-22T12:00:00+00:00",
    "version": 1,
}


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class _Timestamped(BaseModel):
    """Serializes timestamps as UTC ISO-8601 (SQLite hands them back naive)."""

    @field_serializer("created_at", "updated_at", check_fields=False)
    def _ser_ts(self, value: datetime) -> str:
        return _utc(value).isoformat()


class TaskOut(_Timestamped):
    model_config = ConfigDict(json_schema_extra={"examples": [_TASK_EXAMPLE]})
    id: uuid.UUID
    title: str
    description: str | None
    status: str
    priority: str
    due_date: date | None = Field(description="The day it is due; with a due time, that time's date in `time_zone`.")
    due_at: datetime | None = Field(
        default=None, description="When it is due, RFC 3339 with the offset of `time_zone`; null: a date only."
    )
    time_zone: str | None = Field(default=None, description="The IANA zone the due time (or repeat) was said in.")
    recurrence: str | None = Field(
        default=None,
        description="How it repeats: an RFC 5545 RRULE (FREQ=WEEKLY;BYDAY=TU). Completing it moves it to its next "
        "occurrence.",
    )
    tags: list[str]
    created_at: datetime
    updated_at: datetime
    version: int = Field(description='Changes with every write; the task\'s `ETag` is it in quotes (`"1"`).')

    @field_serializer("due_at")
    def _ser_due_at(self, value: datetime | None) -> str | None:
        return shown_at(value, self.time_zone)


class UndoneItem(BaseModel):
    action: Literal["restored", "removed", "reverted"] = Field(
        description="restored: a deleted task is back; removed: an added task is gone; reverted: fields put back"
    )
    task_id: uuid.UUID
    title: str
    fields: list[str] | None = Field(default=None, description="The fields put back (reverted only).")


class UndoOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "undone": [
                        {"action": "restored", "task_id": "5f0c8a52-1c1e-4a0e-9a5e-3d1f6e2b7c90", "title": "Gym"}
                    ],
                    "source": "chat",
                    "turn_id": "0b7f3c1e-2f1a-4a57-9a53-6f1f2d0c9a11",
                }
            ]
        }
    )
    undone: list[UndoneItem]
    source: str = Field(description="What made the change set: chat, mcp or rest.")
    turn_id: uuid.UUID = Field(description="The change set undone (a chat turn's assistant message id, or a call's).")


class ConversationOut(_Timestamped):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "0b7f3c1e-2f1a-4a57-9a53-6f1f2d0c9a11",
                    "title": "add buy milk tomorrow",
                    "created_at": "2026-11-22T12:00:00+00:00",
                    "updated_at": "2026-11-22T12:01:00+00:00",
                }
            ]
        }
    )
    id: uuid.UUID
    title: str
    created_at: datetime
    updated_at: datetime


_FIRST_FIT = Field(union_mode="left_to_right")  # the typed record when the row fits it


class _Stored(BaseModel):
    """A record as a turn stored it. The keys every version has written are typed; any other key it
    holds is kept and served as stored (`extra="allow"`), and a key it lacks is not added (the route
    serialises what was set only). Rows of every version read, and read back exactly."""

    model_config = ConfigDict(extra="allow")


class StoredToolResult(_Stored):
    success: bool
    data: Any = None
    error: str | None = None


class StoredToolCall(_Stored):
    """A call of the turn, as `ChatResponse.tool_calls` had it (`ToolCallRecord`)."""

    name: str
    arguments: JsonObject | None = None
    result: StoredToolResult


class StoredActionMetadata(_Stored):
    """The turn's actions, as `ChatResponse.action_metadata` had them (`ActionMetadata`)."""

    action: str
    success: bool
    task_id: str | None = None
    task_title: str | None = None
    message: str | None = None
    actions: list[JsonObject] | None = None


class StoredExecutionMetadata(_Stored):
    """What explained the turn, as `ChatResponse.execution_metadata` had it (`ExecutionMetadata`;
    the keys after the contract's four depend on the version that wrote it)."""

    tool_calls_executed: int
    tool_calls_retried: int
    llm_calls: int
    total_latency_ms: int


class StoredTurnError(_Stored):
    """A failed turn's record in its reply's place (`is_error`): the error's code, text and status."""

    error: str
    detail: str | None = None
    status: int


class MessageOut(_Timestamped):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "9c1d7f0e-3b7a-4c55-8f7e-2a1b0c9d8e77",
                    "role": "user",
                    "content": "add buy milk tomorrow",
                    "tool_calls": None,
                    "action_metadata": None,
                    "execution_metadata": None,
                    "is_error": False,
                    "created_at": "2026-11-22T12:00:00+00:00",
                }
            ]
        }
    )
    id: uuid.UUID
    role: str
    content: str
    # Typed as every version wrote them; a record that does not fit its type (none is known) is still
    # served, as the object it is, rather than failing the history.
    tool_calls: list[Annotated[StoredToolCall | JsonObject, _FIRST_FIT]] | None = None
    action_metadata: Annotated[StoredActionMetadata | JsonObject | None, _FIRST_FIT] = None
    execution_metadata: Annotated[StoredExecutionMetadata | StoredTurnError | JsonObject | None, _FIRST_FIT] = None
    is_error: bool = False
    created_at: datetime
