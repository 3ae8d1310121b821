"""Test databases: Postgres (the production target) and SQLite, migrated once per session by Alembic."""

from __future__ import annotations

import asyncio
import os

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import QueuePool
from sqlmodel import SQLModel

import backend.app.db.models  # noqa: F401  (the tables, for clean)
from backend.app.db.migrate import migrate
from backend.devtools.bench.servers import create_database

_BASE_URL = os.environ.get("TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
# Under `pytest -n` (make test-fast) each worker (gw0, gw1, ...) has a database of its own beside it.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
POSTGRES_URL = (
    _BASE_URL
    if _WORKER is None
    else make_url(_BASE_URL).set(database=f"{make_url(_BASE_URL).database}_{_WORKER}").render_as_string(False)
)


async def reset_postgres(url: str) -> None:
    """Drop everything in the test database, then migrate from zero: the suite tests the migrations too.
    A worker's database is created first if it is new."""
    if url != _BASE_URL:
        await create_database(url)
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.execute(sa.text("DROP SCHEMA IF EXISTS public CASCADE"))
        await conn.execute(sa.text("CREATE SCHEMA public"))
    await engine.dispose()
    await asyncio.to_thread(migrate, url, quiet=True)


async def migrate_sqlite(url: str) -> None:
    await asyncio.to_thread(migrate, url, quiet=True)


async def clean(engine: AsyncEngine) -> None:
    """Empty every table, children first. Chat turns commit several short transactions and race each
    other in some tests, so each test starts from empty tables instead of running inside one
    rolled-back transaction. DELETE, not TRUNCATE: a test's tables hold a few rows, and a TRUNCATE of
    them all (new files for every table and index) takes ~40 ms where the DELETEs take ~4."""
    async with engine.begin() as conn:
        for table in reversed(SQLModel.metadata.sorted_tables):
            await conn.execute(sa.text(f"DELETE FROM {table.name}"))


def checked_out(engine: AsyncEngine) -> int:
    """The connections `engine`'s pool has lent and not had back (its pool is a QueuePool, as the app's
    create_engine makes it: the only pool that counts them)."""
    pool = engine.pool
    assert isinstance(pool, QueuePool), pool
    return pool.checkedout()
