"""Every migration runs down and up again, on Postgres (a private database) and on SQLite: a deploy
can roll back a release, and the title lookup's function (0003) and indexes (0002) go and come back."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from support.db import POSTGRES_URL

from alembic import command
from backend.app.core.config import get_settings
from backend.app.db.migrate import alembic_config

SCHEMA_OBJECTS = {
    "tables": "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    "indexes": "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'",
    "functions": "SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace",
}


async def _objects(url: str) -> dict[str, set[str]]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return {kind: set((await conn.execute(sa.text(q))).scalars()) for kind, q in SCHEMA_OBJECTS.items()}
    finally:
        await engine.dispose()


@pytest.fixture
async def private_postgres() -> AsyncIterator[str]:
    name = f"test_migrations_{uuid.uuid4().hex[:8]}"
    # The server's own database: the test database may not exist yet (a pytest -n worker's is made
    # by the session's first database fixture, which this one does not wait for).
    admin = create_async_engine(make_url(POSTGRES_URL).set(database="postgres"), isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            await conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


def _run(url: str, *steps: tuple[str, str]) -> None:
    config = alembic_config(url)
    config.attributes["configure_logger"] = False
    for direction, target in steps:
        getattr(command, direction)(config, target)


async def test_postgres_migrations_go_down_and_up_again(private_postgres: str) -> None:
    await asyncio.to_thread(_run, private_postgres, ("upgrade", "head"))
    head = await _objects(private_postgres)
    assert {"tasks", "messages", "conversations", "tool_executions", "alembic_version"} <= head["tables"]
    assert {"task_title_words", "task_title_candidates", "rate_limit_take"} <= head["functions"]
    assert "ix_tasks_title_words" in head["indexes"]

    await asyncio.to_thread(_run, private_postgres, ("downgrade", "0002_task_title_trgm"))
    assert "task_title_candidates" not in (await _objects(private_postgres))["functions"]

    await asyncio.to_thread(_run, private_postgres, ("downgrade", "base"))
    base = await _objects(private_postgres)
    assert base["tables"] <= {"alembic_version"} and not {"task_title_words"} & base["functions"], base

    await asyncio.to_thread(_run, private_postgres, ("upgrade", "head"))
    assert await _objects(private_postgres) == head


async def test_migrations_run_through_pgbouncer_in_transaction_mode(
    private_postgres: str, _pgbouncer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`taskchat migrate` where DATABASE_URL is the pooler (as on managed Postgres) with DB_POOLER=transaction."""
    through = make_url(_pgbouncer).set(database=make_url(private_postgres).database)
    monkeypatch.setenv("DB_POOLER", "transaction")
    get_settings.cache_clear()
    try:
        url = through.render_as_string(hide_password=False)
        await asyncio.to_thread(_run, url, ("upgrade", "head"), ("downgrade", "base"), ("upgrade", "head"))
    finally:
        get_settings.cache_clear()
    assert {"tasks", "rate_limit_events", "deleted_tasks"} <= (await _objects(private_postgres))["tables"]


def test_sqlite_migrations_go_down_and_up_again(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'taskchat.db'}"
    _run(url, ("upgrade", "head"), ("downgrade", "base"))
    sync_url = f"sqlite:///{tmp_path / 'taskchat.db'}"
    engine = sa.create_engine(sync_url)
    with engine.connect() as conn:
        assert set(sa.inspect(conn).get_table_names()) <= {"alembic_version"}
    _run(url, ("upgrade", "head"))
    with engine.connect() as conn:
        assert {"tasks", "messages", "conversations", "tool_executions"} <= set(sa.inspect(conn).get_table_names())
    engine.dispose()
