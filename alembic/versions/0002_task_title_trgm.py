"""Title indexes so the resolver shortlists candidates in Postgres (`TaskRepository.candidates`).

Postgres only (SQLite resolves in process and gets nothing):
- a GIN trigram index on (user_id, lower(title)); `btree_gin` lets one GIN index hold both the
  owner and the title's trigrams, so a lookup reads only that user's matching rows;
- a btree on (user_id, lower(title)) for the exact, case-insensitive match tried first.
Both are built CONCURRENTLY: on a large `tasks` table, writes go on while they build.

The downgrade drops the indexes but leaves the extensions: other objects may use them, and they
cost nothing installed.

Revision ID: 0002_task_title_trgm
Revises: 0001_initial
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0002_task_title_trgm"
down_revision = "0001_initial"
branch_labels = None
depends_on = None

TRGM_INDEX = "ix_tasks_user_title_trgm"
LOWER_INDEX = "ix_tasks_user_title_lower"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    with op.get_context().autocommit_block():
        op.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {TRGM_INDEX} "
            "ON tasks USING gin (user_id, lower(title) gin_trgm_ops)"
        )
        op.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {LOWER_INDEX} ON tasks (user_id, lower(title))")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {LOWER_INDEX}")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {TRGM_INDEX}")
