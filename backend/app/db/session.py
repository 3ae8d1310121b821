"""Engine and sessions. This is the one place that commits or rolls back."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlmodel import SQLModel

from backend.app.core.config import Settings
from backend.app.db import models  # noqa: F401  (puts the tables on SQLModel.metadata)


def create_engine(settings: Settings, *, url: str | None = None) -> AsyncEngine:
    url = url or settings.database_url
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 15})
        _configure_sqlite(engine)
        return engine
    connect_args: dict[str, Any] = {
        "server_settings": {
            "statement_timeout": str(settings.db_statement_timeout_ms),
            "lock_timeout": str(settings.db_lock_timeout_ms),
            "idle_in_transaction_session_timeout": str(settings.db_idle_in_transaction_timeout_ms),
            "application_name": "taskchat",
        }
    }
    engine = create_async_engine(
        url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        connect_args=connect_args,
        json_serializer=_json_dumps,
        json_deserializer=orjson.loads,
    )
    _drop_closed_connections(engine)
    return engine


def _json_dumps(value: Any) -> str:
    """JSON columns through orjson (several times faster than the stdlib on execution metadata)."""
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


# A connection idle longer than this is pinged at checkout (a NAT or proxy may have dropped it silently).
PING_IDLE_AFTER_S = 10.0


def _drop_closed_connections(engine: AsyncEngine) -> None:
    """Replace, at checkout, a pooled connection the server has closed or that sat idle and no longer answers.

    This is `pool_pre_ping` without its cost on the hot path: on asyncpg a ping is three round trips
    (BEGIN, an empty query, ROLLBACK), and a turn checks out three times. A connection the server
    closed (a restart, a killed backend) is known to asyncpg as soon as the event loop has read the
    close, so asking costs nothing; one idle for more than `PING_IDLE_AFTER_S` is pinged as before.
    One that dies in the middle of a statement is invalidated by SQLAlchemy's disconnect handling.
    """

    @event.listens_for(engine.sync_engine, "checkin")
    def _checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _check(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if dbapi_connection.driver_connection.is_closed():
            raise exc.DisconnectionError("connection closed by the server")
        idle_since = record.info.get("idle_since")
        if idle_since is not None and time.monotonic() - idle_since > PING_IDLE_AFTER_S:
            try:
                dbapi_connection.ping()
            except Exception as error:
                raise exc.DisconnectionError("connection did not answer a ping") from error


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=15000")
        cursor.close()


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)


@asynccontextmanager
async def unit_of_work(
    sessionmaker: async_sessionmaker[AsyncSession], *, single_statement: bool = False
) -> AsyncIterator[AsyncSession]:
    """A short transaction: commit when the block ends, roll back if it raises.

    Chat turns open several of these (never one across an LLM call); request handlers get one
    through the session dependency. `single_statement=True` promises that the block runs at most
    one statement on Postgres, which is atomic by itself: it then runs in autocommit, sparing the
    BEGIN and COMMIT round trips (other databases keep the transaction).
    """
    async with sessionmaker() as session:
        if single_statement and session.get_bind().dialect.name == "postgresql":
            await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        try:
            yield session
            await session.commit()
        except BaseException:
            await session.rollback()
            raise


async def delete_all_rows(conn: AsyncConnection) -> None:
    """Empty every table of the models, children first (the benchmark's and the tests' clean slate)."""
    tables = [t.name for t in reversed(SQLModel.metadata.sorted_tables)]
    if conn.dialect.name == "postgresql":
        await conn.execute(sa.text(f"TRUNCATE {', '.join(tables)}"))
    else:
        for table in tables:
            await conn.execute(sa.text(f"DELETE FROM {table}"))
