"""Engine and unit of work: a connection the server closed is replaced without a per-checkout ping, and a
single-statement unit of work on Postgres runs in autocommit."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine
from support.api import make_settings

from backend.app.db import session as session_module
from backend.app.db.session import create_engine, create_sessionmaker, unit_of_work

PID = sa.text("SELECT pg_backend_pid()")
XID = sa.text("SELECT txid_current()")


@pytest.mark.parametrize("noticed", [True, False], ids=["close-seen-by-the-loop", "idle-connection-pinged"])
async def test_a_pooled_connection_killed_by_the_server_is_replaced_at_checkout(
    database: str, noticed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, admin = create_engine(make_settings(database)), create_async_engine(database)
    try:
        assert not engine.pool._pre_ping  # type: ignore[attr-defined]
        async with unit_of_work(create_sessionmaker(engine)) as session:
            killed = await session.scalar(PID)  # the pool's only connection from now on
        async with admin.connect() as conn:
            assert await conn.scalar(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": killed})
        if noticed:
            await asyncio.sleep(0.2)  # the event loop reads the server's close
        else:
            monkeypatch.setattr(session_module, "PING_IDLE_AFTER_S", 0.0)  # not yet seen: the idle ping finds it
        async with unit_of_work(create_sessionmaker(engine)) as session:
            assert await session.scalar(PID) != killed
    finally:
        await engine.dispose()
        await admin.dispose()


async def test_a_single_statement_unit_of_work_runs_in_autocommit_on_postgres(database: str) -> None:
    engine = create_engine(make_settings(database))
    try:
        sessionmaker = create_sessionmaker(engine)
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            assert await session.scalar(XID) != await session.scalar(XID)  # each statement its own transaction
        async with unit_of_work(sessionmaker) as session:  # the pooled connection is back to transactions
            assert await session.scalar(XID) == await session.scalar(XID)
    finally:
        await engine.dispose()
