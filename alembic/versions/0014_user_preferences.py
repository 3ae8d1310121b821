"""A user's stored time zone: what "today" is read in when a request names no zone (issue 50).

One row per user who set one (`PUT /api/{user_id}/preferences`); a user without a row has the
deployment's DEFAULT_TIME_ZONE, so no existing data changes.

Revision ID: 0014_user_preferences
Revises: 0013_candidates_whole_exact
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0014_user_preferences"
down_revision = "0013_candidates_whole_exact"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "user_preferences",
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("time_zone", sa.String(64), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_user_preferences"),
    )


def downgrade() -> None:
    op.drop_table("user_preferences")
