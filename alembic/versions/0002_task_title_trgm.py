"""Title indexes so the resolver shortlists candidates in Postgres (`TaskRepository.candidates`).

Postgres only (SQLite resolves in process and gets nothing):
- `task_title_words(owner, title)`: the title's words as Postgres full text search reads them
  (`english`: lowercased, stemmed so "reports" is "report", stop words out), each prefixed with the
  owner, and a GIN index on it. An entry's list holds only that owner's tasks with that word, so a
  lookup reads one user's few matching rows however many tasks other users have, and titles holding
  every word of a reference (or all but one) are found in well under a millisecond at 100k tasks;
- a GIN trigram index on (user_id, lower(title)) (`btree_gin` puts the owner in the same index) for
  what words miss: a typo in a short reference ("Rad book"), a reference with no title words;
- a btree on (user_id, lower(title)) for the exact, case-insensitive match tried first;
- few statistics on lower(title) (see `upgrade`), so planning a trigram lookup stays cheap.
The indexes are built CONCURRENTLY: on a large `tasks` table, writes go on while they build.

Measured, not chosen: a GiST trigram index (gist_trgm_ops, siglen 12 to 512 bytes, with the owner
through btree_gist) ordered by distance (`<->`, `<<->`) reads nearly the whole index at 100k tasks
(~2,400 pages, 90-130 ms): titles share so many trigrams that no subtree can be ruled out.

The downgrade drops the indexes and the function but leaves the extensions: other objects may use
them, and they cost nothing installed.

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

WORDS_FUNCTION = "task_title_words"
WORDS_INDEX = "ix_tasks_title_words"
TRGM_INDEX = "ix_tasks_user_title_trgm"
LOWER_INDEX = "ix_tasks_user_title_lower"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    # NULL (not an empty array) for a title of stop words only: `@>` an empty array would match every row.
    op.execute(
        f"CREATE OR REPLACE FUNCTION {WORDS_FUNCTION}(owner text, title text) RETURNS text[] "
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE "
        "AS $$ SELECT array_agg(owner || ' ' || lexeme) "
        "FROM unnest(pg_catalog.to_tsvector('pg_catalog.english'::pg_catalog.regconfig, title)) $$"
    )
    with op.get_context().autocommit_block():
        op.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {WORDS_INDEX} "
            f"ON tasks USING gin ({WORDS_FUNCTION}(user_id, title))"
        )
        op.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {TRGM_INDEX} "
            "ON tasks USING gin (user_id, lower(title) gin_trgm_ops)"
        )
        op.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {LOWER_INDEX} ON tasks (user_id, lower(title))")
    # The planner estimates a trigram operator by computing it on each sampled lower(title) of these
    # indexes' statistics: 2 ms to plan the trigram lookup at the default 100 samples, 0.2 ms at 10,
    # with the same plan (the index) at 1k to 100k tasks.
    for index in (TRGM_INDEX, LOWER_INDEX):
        op.execute(f"ALTER INDEX {index} ALTER COLUMN 2 SET STATISTICS 10")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    with op.get_context().autocommit_block():
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {LOWER_INDEX}")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {TRGM_INDEX}")
        op.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {WORDS_INDEX}")
    op.execute(f"DROP FUNCTION IF EXISTS {WORDS_FUNCTION}(text, text)")
