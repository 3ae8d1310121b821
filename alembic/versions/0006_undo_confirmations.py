"""Reversible changes and confirmations: `deleted_tasks`, each change's before/after, pending confirmations.

- A deleted task moves to `deleted_tasks` (same columns, plus when) instead of vanishing, and comes
  back on undo with its id; `tasks` keeps only live tasks, so no query, index or the title lookup
  function has to learn to skip deleted rows. They are purged after UNDO_RETENTION_DAYS.
- `tool_executions` records what each change did to which task (`task_id`, `before`, `after`),
  where it came from (`source`: chat, mcp, rest, undo) and when it was undone (`undone_at`).
- `pending_confirmations`: at most one question per conversation waiting for the user's yes (or
  their pick among tasks of the same name), with exactly the calls a yes runs.
- `messages.context`: what an assistant turn acted on and showed (task ids and titles, compact), so
  the next turn can resolve "it", "the second one" and tell the model what happened.

The downgrade drops them: deleted tasks past recall and pending questions are lost.

Revision ID: 0006_undo_confirmations
Revises: 0005_mcp_tool_executions
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from alembic import op

revision = "0006_undo_confirmations"
down_revision = "0005_mcp_tool_executions"
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(JSONB(), "postgresql")


def _ts(name: str, *, nullable: bool = False) -> sa.Column[sa.DateTime]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "deleted_tasks",
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
        _ts("deleted_at"),
        sa.PrimaryKeyConstraint("id", name="pk_deleted_tasks"),
    )
    op.create_index("ix_deleted_tasks_deleted_at", "deleted_tasks", ["deleted_at"])
    op.create_index("ix_deleted_tasks_user_id", "deleted_tasks", ["user_id"])
    with op.batch_alter_table("tool_executions") as batch:
        batch.add_column(sa.Column("task_id", sa.Uuid(), nullable=True))
        batch.add_column(sa.Column("before", JSONType, nullable=True))
        batch.add_column(sa.Column("after", JSONType, nullable=True))
        batch.add_column(sa.Column("source", sa.String(16), nullable=False, server_default="chat"))
        batch.add_column(_ts("undone_at", nullable=True))
    op.create_table(
        "pending_confirmations",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("conversation_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("actions", JSONType, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("turn_id", sa.Uuid(), nullable=False),
        _ts("created_at"),
        _ts("expires_at"),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name="fk_pending_confirmations_conversation_id_conversations",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_pending_confirmations"),
    )
    op.create_index("ix_pending_confirmations_conversation_id", "pending_confirmations", ["conversation_id"])
    with op.batch_alter_table("messages") as batch:
        batch.add_column(sa.Column("context", JSONType, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("context")
    op.drop_index("ix_pending_confirmations_conversation_id", table_name="pending_confirmations")
    op.drop_table("pending_confirmations")
    with op.batch_alter_table("tool_executions") as batch:
        for column in ("undone_at", "source", "after", "before", "task_id"):
            batch.drop_column(column)
    op.drop_index("ix_deleted_tasks_user_id", table_name="deleted_tasks")
    op.drop_index("ix_deleted_tasks_deleted_at", table_name="deleted_tasks")
    op.drop_table("deleted_tasks")
