"""A fixed one-minute window per user, counted in the database so every worker shares it."""

from __future__ import annotations

from functools import cache

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import RateLimitWindow

_R = RateLimitWindow.__table__  # type: ignore[attr-defined]


@cache
def _hit_statement(dialect: str) -> sa.Executable:
    # Built once per dialect with bind parameters: SQLAlchemy then reuses its cache key and compiled form.
    insert = postgresql.insert(_R) if dialect == "postgresql" else sqlite.insert(_R)
    return (
        insert.values(user_id=sa.bindparam("user_id"), window_start=sa.bindparam("window_start"), count=1)
        .on_conflict_do_update(index_elements=["user_id", "window_start"], set_={"count": _R.c.count + 1})
        .returning(_R.c.count)
    )


async def hit(session: AsyncSession, *, user_id: str, window_start: int) -> int:
    """Count one request in the user's current window and return the window's count (one statement)."""
    statement = _hit_statement(_dialect(session))
    result = await session.execute(statement, {"user_id": user_id, "window_start": window_start})
    return int(result.scalar_one())


async def prune(session: AsyncSession, *, before: int) -> None:
    await session.execute(sa.delete(_R).where(_R.c.window_start < before))


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name
