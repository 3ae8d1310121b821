"""The turn that holds an idempotency key (`idempotency_keys.turn_id`).

A claim left in flight by a worker that died is taken over after `stale_after`; but if that turn
had already committed a change (its `tool_executions` rows say so), running it again would repeat
the change. The turn id on the claim lets the taker-over look (`ChatService._claim`).

Revision ID: 0004_idempotency_turn
Revises: 0003_task_title_candidates
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0004_idempotency_turn"
down_revision = "0003_task_title_candidates"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("idempotency_keys", sa.Column("turn_id", sa.Uuid(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.drop_column("turn_id")
