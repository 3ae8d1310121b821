"""A task's due time and repeat (issue 50): `due_at` (the instant), `time_zone` (the zone it was said
in) and `recurrence` (an RFC 5545 RRULE), on live and deleted tasks.

All NULL for every existing row: a date only, once, as before. The lookup by exact title returns the
whole task (0013), so on Postgres `task_title_candidates` returns these three columns too; without
them, a completion found by title would not know its task repeats.

Revision ID: 0015_due_times_and_repeats
Revises: 0014_user_preferences
Create Date: 2026-12-05
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa

from alembic import op

revision = "0015_due_times_and_repeats"
down_revision = "0014_user_preferences"
branch_labels = None
depends_on = None

TABLES = ("tasks", "deleted_tasks")


def _version(name: str) -> ModuleType:
    """Another migration of this directory (their file names are not importable)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_0013 = _version("0013_candidates_whole_exact")
FUNCTION, SIGNATURE = _0013.FUNCTION, _0013.SIGNATURE


def _replaced(text: str, old: str, new: str, count: int) -> str:
    assert text.count(old) == count, (old, text.count(old))  # 0013's text is what this rewrites
    return text.replace(old, new)


def _candidates() -> str:
    """0013's function, its `exact` rows carrying the new columns too (NULL in the other steps')."""
    text = _replaced(
        _0013._candidates(),
        "created_at timestamptz, updated_at timestamptz)",
        "created_at timestamptz, updated_at timestamptz, due_at timestamptz, time_zone text, recurrence text)",
        1,
    )
    text = _replaced(text, _0013.WHOLE, f"{_0013.WHOLE}, t.due_at, t.time_zone::text, t.recurrence::text", 1)
    return _replaced(text, _0013.NONE, f"{_0013.NONE}, NULL::timestamptz, NULL::text, NULL::text", 6)


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("due_at", sa.DateTime(timezone=True), nullable=True))
            batch.add_column(sa.Column("time_zone", sa.String(64), nullable=True))
            batch.add_column(sa.Column("recurrence", sa.String(255), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}({SIGNATURE})")  # its result's type changes
        op.execute(_candidates())


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}({SIGNATURE})")
        op.execute(_0013._candidates())
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            for column in ("recurrence", "time_zone", "due_at"):
                batch.drop_column(column)
