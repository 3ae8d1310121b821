"""How each model did on each turn: what the choice among several models learns from (issue 26).

Insert-only, one row per model per turn (a model that failed a request and the one that answered),
so no row is hot however many turns run at once; every instance reads the last ROUTING_WINDOW rows
of each model, and the periodic prune keeps no more.

Revision ID: 0011_routing_outcomes
Revises: 0010_task_words_gin
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0011_routing_outcomes"
down_revision = "0010_task_words_gin"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "routing_outcomes",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("policy", sa.String(32), nullable=False),
        sa.Column("reward", sa.Float(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_routing_outcomes"),
    )
    op.create_index("ix_routing_outcomes_policy_model_at", "routing_outcomes", ["policy", "model", "at"])


def downgrade() -> None:
    op.drop_index("ix_routing_outcomes_policy_model_at", table_name="routing_outcomes")
    op.drop_table("routing_outcomes")
