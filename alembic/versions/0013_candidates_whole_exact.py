"""A lookup by exact title returns the whole task: `task_title_candidates` with the task's other columns.

A chat turn's complete, update or delete of one task by its title took five round trips in one
transaction (BEGIN, the lookup, the write, its tool execution row, COMMIT). Given the whole row the
lookup read, the tool knows the task before and after its write, so the write and its record are ONE
statement, atomic without a transaction (`TaskRepository` holds the write, `TaskTools` sends it with
the record; the write names the version read, so a task changed meanwhile gets neither). The
function is 0003's with the rows of its `exact` step whole; its other steps (shortlists, up to
`lim` titles) stay light and give NULL for the new columns, and a write found through them is sent
as before, in the step's transaction.

Revision ID: 0013_candidates_whole_exact
Revises: 0012_rate_limit_take
Create Date: 2026-11-29
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0013_candidates_whole_exact"
down_revision = "0012_rate_limit_take"
branch_labels = None
depends_on = None


def _version(name: str) -> ModuleType:
    """Another migration of this directory (their file names are not importable)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_0003 = _version("0003_task_title_candidates")
FUNCTION, SIGNATURE = _0003.FUNCTION, _0003.SIGNATURE
WHOLE = "t.description, t.status::text, t.priority::text, t.due_date, t.tags, t.created_at, t.updated_at"
NONE = "NULL::text, NULL::text, NULL::text, NULL::date, NULL::jsonb, NULL::timestamptz, NULL::timestamptz"


def _replaced(text: str, old: str, new: str, count: int) -> str:
    assert text.count(old) == count, (old, text.count(old))  # 0003's text is what this rewrites
    return text.replace(old, new)


def _candidates() -> str:
    """0003's function, its `exact` rows whole and the others' new columns NULL."""
    text = _replaced(
        _0003.CANDIDATES,
        "RETURNS TABLE (id uuid, title text, version integer, source text)",
        "RETURNS TABLE (id uuid, title text, version integer, source text, description text, status text, "
        "priority text, due_date date, tags jsonb, created_at timestamptz, updated_at timestamptz)",
        1,
    )
    text = _replaced(text, "'exact'::text", f"'exact'::text, {WHOLE}", 1)
    for source, count in (("'all'", 2), ("'words'", 1), ("''all_but_one_word''", 1), ("'trigrams'", 2)):
        text = _replaced(text, f"{source}::text", f"{source}::text, {NONE}", count)
    return text


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}({SIGNATURE})")  # its result's type changes
    op.execute(_candidates())


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}({SIGNATURE})")
    op.execute(_0003.CANDIDATES)
