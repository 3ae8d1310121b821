"""Each owner's vocabulary (`task_words`), so that a misspelt search reads a few thousand words, not
every task.

A search whose words are all found as written is served by the trigram index of 0008. When nothing
matches, the words may be misspelt ("grocereis", "invoices" for "invoice"). Comparing each word with
every task's text (`<%` on `search_doc`) rechecks every task that shares trigrams with it: 30 to 450
ms at 100k tasks. Instead each misspelt word is first matched against the owner's distinct words
(a small table, its own trigram index: ~1 ms), and the task query then asks for those words as written,
which the index of 0008 answers like any exact search (see `TaskRepository.search`).

- `task_words(user_id, word)`: every word longer than three characters of an owner's titles and
  descriptions, folded as `search_doc` is (lowercase, no accents), split on anything not a letter
  or digit;
- kept by a trigger on `tasks` (insert, and update of the title or description). It never waits on
  another transaction: no unique constraint, only "insert the words not there yet", so two turns
  adding the same new word at once may both insert it (the lookup reads distinct words); with a
  unique constraint, two transactions adding two new words in opposite orders could deadlock.
  Words of tasks since deleted stay: a stale word finds no task, it costs nothing else;
- filled from the tasks already stored.

SQLite (the embedded default) has the table, unused: its search compares in Python (db/session.py).

Revision ID: 0009_task_words
Revises: 0008_task_search
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0009_task_words"
down_revision = "0008_task_search"
branch_labels = None
depends_on = None

MIN_LENGTH = 4  # as TaskRepository's SHORT_WORD: shorter words are never required, so never corrected
_WORDS_OF = "regexp_split_to_table({doc}, '[^[:alnum:]]+')"


def upgrade() -> None:
    op.create_table(
        "task_words",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), sa.Identity(), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("word", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_task_words"),
    )
    op.create_index("ix_task_words_user_word", "task_words", ["user_id", "word"])
    if op.get_bind().dialect.name != "postgresql":
        return
    # GiST, not GIN: it lists one owner's words nearest first (`<->`), so finding the few closest
    # words reads a handful of index pages; GIN can only test each candidate against a threshold.
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
    op.execute("CREATE INDEX ix_task_words_user_trgm ON task_words USING gist (user_id, word gist_trgm_ops)")
    op.execute(
        f"""
        CREATE OR REPLACE FUNCTION task_words_note() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO task_words (user_id, word)
            SELECT DISTINCT NEW.user_id, w FROM {_WORDS_OF.format(doc="NEW.search_doc")} AS w
            WHERE length(w) >= {MIN_LENGTH}
              AND NOT EXISTS (SELECT 1 FROM task_words t WHERE t.user_id = NEW.user_id AND t.word = w);
            RETURN NULL;
        END $$
        """
    )
    op.execute(
        "CREATE TRIGGER task_words_note AFTER INSERT OR UPDATE OF title, description ON tasks "
        "FOR EACH ROW EXECUTE FUNCTION task_words_note()"
    )
    op.execute(
        "INSERT INTO task_words (user_id, word) "
        f"SELECT DISTINCT user_id, w FROM tasks, {_WORDS_OF.format(doc='search_doc')} AS w "
        f"WHERE length(w) >= {MIN_LENGTH}"
    )
    op.execute("ANALYZE task_words")  # statistics now, not at autovacuum's leisure


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS task_words_note ON tasks")
        op.execute("DROP FUNCTION IF EXISTS task_words_note()")
    op.drop_table("task_words")
