"""SQLModel tables. Every row that belongs to a user carries `user_id`; queries filter on it."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel

# Stable constraint names so Alembic migrations are reproducible on Postgres and SQLite.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

JSONType = sa.JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """A stored timestamp as an aware UTC datetime (SQLite hands them back naive; all are stored UTC)."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _ts() -> Any:
    return Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True), nullable=False)


class Task(SQLModel, table=True):
    __tablename__ = "tasks"
    __table_args__ = (sa.Index("ix_tasks_user_created", "user_id", "created_at"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    user_id: str = Field(max_length=255, nullable=False)
    title: str = Field(max_length=500, nullable=False)
    description: str | None = Field(default=None, sa_type=sa.Text)
    status: str = Field(default="pending", max_length=16, nullable=False)
    priority: str = Field(default="medium", max_length=16, nullable=False)
    due_date: date | None = Field(default=None)
    # A due time: the instant, and the IANA zone it was said in (`due_date` is its date there); a repeat
    # (an RFC 5545 RRULE, tools/repeats.py). Migration 0015; NULL: a date only, once.
    due_at: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))
    time_zone: str | None = Field(default=None, max_length=64)
    recurrence: str | None = Field(default=None, max_length=255)
    tags: list[str] = Field(default_factory=list, sa_type=JSONType, nullable=False)
    # Bumped by every update: a write names the version it read, so two racing writers
    # cannot both win (see TaskRepository).
    version: int = Field(default=1, nullable=False)
    created_at: datetime = _ts()
    updated_at: datetime = _ts()


class TaskWord(SQLModel, table=True):
    """A word of one of the owner's titles or descriptions, folded (migration 0009): the vocabulary a
    misspelt search word is matched against on Postgres. A trigger on `tasks` writes it."""

    __tablename__ = "task_words"
    __table_args__ = (sa.Index("ix_task_words_user_word", "user_id", "word"),)

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger().with_variant(sa.Integer(), "sqlite"), sa.Identity(), primary_key=True),
    )
    user_id: str = Field(max_length=255, nullable=False)
    word: str = Field(sa_type=sa.Text, nullable=False)


class DeletedTask(SQLModel, table=True):
    """A deleted task, kept for undo until UNDO_RETENTION_DAYS have passed (migration 0006). `tasks`
    holds only live tasks, so nothing that reads tasks has to skip deleted ones."""

    __tablename__ = "deleted_tasks"

    id: uuid.UUID = Field(primary_key=True)
    user_id: str = Field(max_length=255, nullable=False, index=True)
    title: str = Field(max_length=500, nullable=False)
    description: str | None = Field(default=None, sa_type=sa.Text)
    status: str = Field(max_length=16, nullable=False)
    priority: str = Field(max_length=16, nullable=False)
    due_date: date | None = Field(default=None)
    due_at: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))
    time_zone: str | None = Field(default=None, max_length=64)
    recurrence: str | None = Field(default=None, max_length=255)
    tags: list[str] = Field(default_factory=list, sa_type=JSONType, nullable=False)
    version: int = Field(nullable=False)
    created_at: datetime = Field(sa_type=sa.DateTime(timezone=True), nullable=False)
    updated_at: datetime = Field(sa_type=sa.DateTime(timezone=True), nullable=False)
    deleted_at: datetime = Field(sa_type=sa.DateTime(timezone=True), nullable=False, index=True)


class Conversation(SQLModel, table=True):
    __tablename__ = "conversations"
    __table_args__ = (sa.Index("ix_conversations_user_updated", "user_id", "updated_at"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    user_id: str = Field(max_length=255, nullable=False)
    title: str = Field(default="", max_length=200, nullable=False)
    created_at: datetime = _ts()
    updated_at: datetime = _ts()


class Message(SQLModel, table=True):
    __tablename__ = "messages"
    __table_args__ = (sa.Index("ix_messages_conversation_created", "conversation_id", "created_at"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    conversation_id: uuid.UUID = Field(
        sa_column=sa.Column(sa.Uuid, sa.ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False)
    )
    user_id: str = Field(max_length=255, nullable=False)
    role: str = Field(max_length=16, nullable=False)  # user | assistant
    content: str = Field(sa_type=sa.Text, nullable=False)
    tool_call_metadata: list[dict[str, Any]] | None = Field(default=None, sa_type=JSONType)
    action_metadata: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    execution_metadata: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    # An assistant turn's compact account (tools/referents.py): the tasks it acted on and showed.
    context: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    # Messages with an error (the LLM server failed) are kept for the record but are not
    # replayed to the model as history.
    is_error: bool = Field(default=False, nullable=False)
    created_at: datetime = _ts()


class ToolExecution(SQLModel, table=True):
    """One executed tool call: the audit trail behind every success the user is shown."""

    __tablename__ = "tool_executions"
    __table_args__ = (sa.Index("ix_tool_executions_user_created", "user_id", "created_at"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    user_id: str = Field(max_length=255, nullable=False)
    # NULL for a call from outside a chat (MCP).
    conversation_id: uuid.UUID | None = Field(
        default=None,
        sa_column=sa.Column(sa.Uuid, sa.ForeignKey("conversations.id", ondelete="CASCADE"), nullable=True),
    )
    # The assistant message of the turn; its id is chosen when the turn starts, and the rows are
    # written with each step's changes, before that message exists, so this is not a foreign key.
    turn_id: uuid.UUID = Field(nullable=False, index=True)
    tool_call_id: str = Field(max_length=128, nullable=False)
    tool_name: str = Field(max_length=64, nullable=False)
    arguments: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType, nullable=False)
    result: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType, nullable=False)
    success: bool = Field(nullable=False)
    retried: bool = Field(default=False, nullable=False)
    retry_reason: str | None = Field(default=None, max_length=64)
    duration_ms: float = Field(default=0.0, nullable=False)
    # What the change did, so it can be undone: the task, and its fields before and after.
    task_id: uuid.UUID | None = Field(default=None)
    before: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    after: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    source: str = Field(default="chat", max_length=16, nullable=False)  # chat | mcp | rest | undo
    undone_at: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))
    created_at: datetime = _ts()


class PendingConfirmation(SQLModel, table=True):
    """A question waiting for the user's answer in one conversation: a yes runs exactly `actions`
    (kind `confirm`), or the user picks one of the tasks listed (kind `choose`)."""

    __tablename__ = "pending_confirmations"

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    user_id: str = Field(max_length=255, nullable=False)
    conversation_id: uuid.UUID = Field(
        sa_column=sa.Column(sa.Uuid, sa.ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    kind: str = Field(max_length=16, nullable=False)  # confirm | choose
    question: str = Field(sa_type=sa.Text, nullable=False)
    actions: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSONType, nullable=False)
    state: str = Field(default="pending", max_length=16, nullable=False)  # pending | done | cancelled
    turn_id: uuid.UUID = Field(nullable=False)  # the turn that asked
    created_at: datetime = _ts()
    expires_at: datetime = Field(sa_type=sa.DateTime(timezone=True), nullable=False)


class IdempotencyRecord(SQLModel, table=True):
    __tablename__ = "idempotency_keys"

    user_id: str = Field(max_length=255, primary_key=True)
    key: str = Field(max_length=255, primary_key=True)
    request_hash: str = Field(max_length=64, nullable=False)
    state: str = Field(max_length=16, nullable=False)  # in_flight | done
    response_status: int | None = Field(default=None)
    response_body: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    turn_id: uuid.UUID | None = Field(default=None)  # the turn holding the claim
    created_at: datetime = _ts()
    expires_at: datetime = Field(sa_type=sa.DateTime(timezone=True), nullable=False)


class RateLimitEvent(SQLModel, table=True):
    """One accepted chat request: a user's count is the rows of their last 60 seconds (migration 0007)."""

    __tablename__ = "rate_limit_events"
    __table_args__ = (sa.Index("ix_rate_limit_events_user_at", "user_id", "at"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    user_id: str = Field(max_length=255, nullable=False)
    at: datetime = Field(sa_type=sa.DateTime(timezone=True), nullable=False)


class RoutingOutcome(SQLModel, table=True):
    """How one model did on one turn under one tool policy: what the choice of model learns from,
    on every instance (services/turn/routing.py). Insert-only, so no row is hot; the last ROUTING_WINDOW
    of each model are read and kept (migration 0011)."""

    __tablename__ = "routing_outcomes"
    __table_args__ = (sa.Index("ix_routing_outcomes_policy_model_at", "policy", "model", "at"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    model: str = Field(max_length=255, nullable=False)
    policy: str = Field(max_length=32, nullable=False)
    reward: float = Field(nullable=False)  # 0..1: the guard's verdict and the tools' results
    latency_ms: float = Field(nullable=False)
    cost_usd: float = Field(nullable=False)
    at: datetime = Field(sa_type=sa.DateTime(timezone=True), nullable=False)


class UserPreference(SQLModel, table=True):
    """What a user keeps between requests: the time zone their dates are read in when a request does
    not say one (`PUT /api/{user_id}/preferences`; core/clock.py; migration 0014)."""

    __tablename__ = "user_preferences"

    user_id: str = Field(max_length=255, primary_key=True)
    time_zone: str | None = Field(default=None, max_length=64)
    updated_at: datetime = _ts()
