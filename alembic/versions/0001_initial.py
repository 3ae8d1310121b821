"""Initial schema: tasks, conversations, messages, tool executions, idempotency, rate limits.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(JSONB(), "postgresql")


def _ts(name: str) -> sa.Column[sa.DateTime]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("priority", sa.String(16), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("tags", JSONType, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        _ts("created_at"),
        _ts("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_tasks"),
    )
    op.create_index("ix_tasks_user_created", "tasks", ["user_id", "created_at"])

    op.create_table(
        "conversations",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        _ts("created_at"),
        _ts("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_conversations"),
    )
    op.create_index("ix_conversations_user_updated", "conversations", ["user_id", "updated_at"])

    op.create_table(
        "messages",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("conversation_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("tool_call_metadata", JSONType, nullable=True),
        sa.Column("action_metadata", JSONType, nullable=True),
        sa.Column("execution_metadata", JSONType, nullable=True),
        sa.Column("is_error", sa.Boolean(), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_messages"),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name="fk_messages_conversation_id_conversations",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_messages_conversation_created", "messages", ["conversation_id", "created_at"])

    op.create_table(
        "tool_executions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("conversation_id", sa.Uuid(), nullable=False),
        sa.Column("turn_id", sa.Uuid(), nullable=False),
        sa.Column("tool_call_id", sa.String(128), nullable=False),
        sa.Column("tool_name", sa.String(64), nullable=False),
        sa.Column("arguments", JSONType, nullable=False),
        sa.Column("result", JSONType, nullable=False),
        sa.Column("success", sa.Boolean(), nullable=False),
        sa.Column("retried", sa.Boolean(), nullable=False),
        sa.Column("retry_reason", sa.String(64), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_tool_executions"),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name="fk_tool_executions_conversation_id_conversations",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_tool_executions_turn_id", "tool_executions", ["turn_id"])
    op.create_index("ix_tool_executions_user_created", "tool_executions", ["user_id", "created_at"])

    op.create_table(
        "idempotency_keys",
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_body", JSONType, nullable=True),
        _ts("created_at"),
        _ts("expires_at"),
        sa.PrimaryKeyConstraint("user_id", "key", name="pk_idempotency_keys"),
    )

    op.create_table(
        "rate_limit_windows",
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("window_start", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "window_start", name="pk_rate_limit_windows"),
    )


def downgrade() -> None:
    op.drop_table("rate_limit_windows")
    op.drop_table("idempotency_keys")
    op.drop_index("ix_tool_executions_user_created", table_name="tool_executions")
    op.drop_index("ix_tool_executions_turn_id", table_name="tool_executions")
    op.drop_table("tool_executions")
    op.drop_index("ix_messages_conversation_created", table_name="messages")
    op.drop_table("messages")
    op.drop_index("ix_conversations_user_updated", table_name="conversations")
    op.drop_table("conversations")
    op.drop_index("ix_tasks_user_created", table_name="tasks")
    op.drop_table("tasks")
