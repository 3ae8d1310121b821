"""Tool executions outside a chat turn: `tool_executions.conversation_id` may be NULL.

MCP clients call the same tools with no conversation; their calls are now recorded like a chat
turn's, in the transaction of their effects (`TaskTools`), with no conversation. The downgrade
deletes those rows: the older schema cannot hold them.

Revision ID: 0005_mcp_tool_executions
Revises: 0004_idempotency_turn
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0005_mcp_tool_executions"
down_revision = "0004_idempotency_turn"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tool_executions") as batch:
        batch.alter_column("conversation_id", existing_type=sa.Uuid(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM tool_executions WHERE conversation_id IS NULL")
    with op.batch_alter_table("tool_executions") as batch:
        batch.alter_column("conversation_id", existing_type=sa.Uuid(), nullable=False)
