"""A sliding-window rate limit: one row per accepted request instead of a counter per minute.

The fixed one-minute window let twice the limit through across a minute boundary, and every turn of
one user updated the same counter row: under many concurrent turns that row's lock queue ran into
the statement timeout (a 500). An insert-only log has no hot row; the count of a user's last 60
seconds is read through an index on (user_id, at). Old rows are pruned with the other retention
(`taskchat prune`, and the service's periodic prune).

Revision ID: 0007_sliding_rate_limit
Revises: 0006_undo_confirmations
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0007_sliding_rate_limit"
down_revision = "0006_undo_confirmations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_limit_events",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rate_limit_events"),
    )
    op.create_index("ix_rate_limit_events_user_at", "rate_limit_events", ["user_id", "at"])
    op.drop_table("rate_limit_windows")


def downgrade() -> None:
    op.create_table(
        "rate_limit_windows",
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("window_start", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "window_start", name="pk_rate_limit_windows"),
    )
    op.drop_index("ix_rate_limit_events_user_at", table_name="rate_limit_events")
    op.drop_table("rate_limit_events")
