"""Search, faster: the owners' vocabulary indexed with GIN, and a word's LIKE pattern in one function.

0009 indexed `task_words` with GiST so that the closest words could be read nearest first (`<->`).
Measured at 100k tasks (6,000 words for the owner), that scan still reads most of the owner's index
entries: ~3 ms a word, and the planner also chose the GiST index to test whether a word is present
(~1 ms, against 0.05 ms on the btree). A GIN index on (owner, word trigrams) answers "the owner's
words sharing enough trigrams with this one" (`%`, at the search's similarity threshold) from a few
short posting lists: 0.1-0.3 ms. The closest of those words, by similarity, are the same words the
nearest-first scan returned (`<->` is 1 - similarity); see `TaskRepository._close_words`.

Without GIN's pending list (`fastupdate = off`): the vocabulary is written rarely (a word the owner
never used before) and read by every misspelt search. With the pending list, new entries wait
unsorted until a vacuum merges them, every lookup scans them all, and the planner, counting them,
turns to a sequential scan: measured after 11,000 new words, 50 ms a lookup instead of 1.7.

`task_search_pattern(word)`: the LIKE pattern matching a word anywhere in `search_doc` (folded as the
document is, LIKE's wildcards taken literally). One function call per searched word in the query
instead of five nested ones: building that expression, for every word and each of its close words,
was a third of a misspelt search's time in the application.

Revision ID: 0010_task_words_gin
Revises: 0009_task_words
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

PATTERN_FUNCTION = "task_search_pattern"

revision = "0010_task_words_gin"
down_revision = "0009_task_words"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite searches in Python (db/session.py); its task_words is unused
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")  # GIN over the owner's id beside the trigrams
    op.execute(
        "CREATE INDEX ix_task_words_user_gin ON task_words USING gin (user_id, word gin_trgm_ops) "
        "WITH (fastupdate = off)"
    )
    op.execute("DROP INDEX IF EXISTS ix_task_words_user_trgm")
    op.execute("ANALYZE task_words")
    op.execute(
        f"CREATE OR REPLACE FUNCTION {PATTERN_FUNCTION}(value text) RETURNS text "
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT '%' || "
        "replace(replace(replace(task_search_fold(value), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' $$"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("CREATE INDEX ix_task_words_user_trgm ON task_words USING gist (user_id, word gist_trgm_ops)")
    op.execute("DROP INDEX IF EXISTS ix_task_words_user_gin")
    op.execute(f"DROP FUNCTION IF EXISTS {PATTERN_FUNCTION}(text)")
