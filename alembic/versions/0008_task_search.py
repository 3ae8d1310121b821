"""Search in titles and descriptions (`GET /tasks?q=`, `list_tasks`'s `query`), indexed on Postgres.

- `task_search_doc(title, description)`: the text searched, lowercased and without accents
  (`unaccent`, wrapped so that it is IMMUTABLE: "Crème" is found by "creme");
- `tasks.search_doc`, that text as a stored generated column: `unaccent` is slow (~0.2 ms a row),
  and when a common word matches thousands of tasks the planner rightly walks the newest tasks and
  filters them, which computed the text for each row it passed (700 ms at 100k tasks; 15 ms stored);
- a GIN trigram index on (user_id, search_doc): `btree_gin` puts the owner in the same index, so a
  search for a rare word reads one user's matching rows. It serves both the substring match
  (`LIKE '%milk%'`) and the typo-tolerant one (`<%`, word similarity: "groceris" finds "Buy
  groceries");
- keyset paging orders by (created_at, id), (due date, created_at, id) or (priority, created_at,
  id); `ix_tasks_user_created` (0001) serves the first, the others sort one user's matching rows.

SQLite (the embedded default) gets the same functions from the application, in Python
(`db/session.py`), computed at query time, and no index. Adding the stored column rewrites `tasks`
once (a lock for the length of the rewrite: seconds at a million rows).

Revision ID: 0008_task_search
Revises: 0007_sliding_rate_limit
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import op

revision = "0008_task_search"
down_revision = "0007_sliding_rate_limit"
branch_labels = None
depends_on = None

DOC_FUNCTION = "task_search_doc"
FOLD_FUNCTION = "task_search_fold"
SEARCH_INDEX = "ix_tasks_user_search_trgm"
SEARCH_COLUMN = "search_doc"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
    # unaccent(regdictionary, text) with the dictionary named is what makes the wrapper safe to
    # declare IMMUTABLE (the one-argument form depends on search_path).
    op.execute(
        f"CREATE OR REPLACE FUNCTION {FOLD_FUNCTION}(value text) RETURNS text "
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE "
        "AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, value)) $$"
    )
    op.execute(
        f"CREATE OR REPLACE FUNCTION {DOC_FUNCTION}(title text, description text) RETURNS text "
        "LANGUAGE sql IMMUTABLE PARALLEL SAFE "
        f"AS $$ SELECT {FOLD_FUNCTION}(title || ' ' || coalesce(description, '')) $$"
    )
    op.execute(
        f"ALTER TABLE tasks ADD COLUMN IF NOT EXISTS {SEARCH_COLUMN} text "
        f"GENERATED ALWAYS AS ({DOC_FUNCTION}(title, description)) STORED"
    )
    # Few statistics: the planner estimates a trigram operator by running it on each sample.
    op.execute(f"ALTER TABLE tasks ALTER COLUMN {SEARCH_COLUMN} SET STATISTICS 10")
    with op.get_context().autocommit_block():
        op.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {SEARCH_INDEX} "
            f"ON tasks USING gin (user_id, {SEARCH_COLUMN} gin_trgm_ops)"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {SEARCH_INDEX}")
    op.execute(f"ALTER TABLE tasks DROP COLUMN IF EXISTS {SEARCH_COLUMN}")
    op.execute(f"DROP FUNCTION IF EXISTS {DOC_FUNCTION}(text, text)")
    op.execute(f"DROP FUNCTION IF EXISTS {FOLD_FUNCTION}(text)")
