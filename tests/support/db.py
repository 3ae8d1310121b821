"""Test databases: Postgres (the production target) and SQLite, migrated once per session by Alembic."""

from __future__ import annotations

import asyncio
import os

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from backend.app.db.migrate import migrate
from backend.app.db.session import delete_all_rows

POSTGRES_URL = os.environ.get("TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


async def reset_postgres(url: str) -> None:
    """Drop everything in the test database, then migrate from zero: the suite tests the migrations too."""
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.execute(sa.text("DROP SCHEMA IF EXISTS public CASCADE"))
        await conn.execute(sa.text("CREATE SCHEMA public"))
    await engine.dispose()
    await asyncio.to_thread(migrate, url, quiet=True)


async def migrate_sqlite(url: str) -> None:
    await asyncio.to_thread(migrate, url, quiet=True)


async def clean(engine: AsyncEngine) -> None:
    # Chat turns commit several short transactions and race each other in some tests, so each test
    # starts from empty tables instead of running inside one rolled-back transaction.
    async with engine.begin() as conn:
        await delete_all_rows(conn)
