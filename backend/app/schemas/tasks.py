"""Read models of tasks, conversations and messages."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

from pydantic import BaseModel, field_serializer


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class _Timestamped(BaseModel):
    """Serializes timestamps as UTC ISO-8601 (SQLite hands them back naive)."""

    @field_serializer("created_at", "updated_at", check_fields=False)
    def _ser_ts(self, value: datetime) -> str:
        return _utc(value).isoformat()


class TaskOut(_Timestamped):
    id: uuid.UUID
    title: str
    description: str | None
    status: str
    priority: str
    due_date: date | None
    tags: list[str]
    created_at: datetime
    updated_at: datetime


class ConversationOut(_Timestamped):
    id: uuid.UUID
    title: str
    created_at: datetime
    updated_at: datetime


class MessageOut(_Timestamped):
    id: uuid.UUID
    role: str
    content: str
    tool_calls: list[dict[str, Any]] | None = None
    action_metadata: dict[str, Any] | None = None
    execution_metadata: dict[str, Any] | None = None
    is_error: bool = False
    created_at: datetime
