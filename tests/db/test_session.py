"""Engine and unit of work: a connection the server closed is replaced without a per-checkout ping, a
single-statement unit of work on Postgres runs in autocommit, and the session limits hold directly and
through PgBouncer in transaction mode."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import create_async_engine
from sqlmodel import col
from support.api import make_settings
from support.db import checked_out
from support.pgbouncer import POOLED

from backend.app.db import session as session_module
from backend.app.db.driver import fetch
from backend.app.db.models import Conversation
from backend.app.db.session import create_engine, create_sessionmaker, unit_of_work
from backend.app.language.lexicon import fold

PID = sa.text("SELECT pg_backend_pid()")
XID = sa.text("SELECT txid_current()")


@pytest.mark.parametrize("noticed", [True, False], ids=["close-seen-by-the-loop", "idle-connection-pinged"])
async def test_a_pooled_connection_killed_by_the_server_is_replaced_at_checkout(
    database: str, noticed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, admin = create_engine(make_settings(database)), create_async_engine(database)
    try:
        assert not engine.pool._pre_ping
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


@pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)
async def test_a_unit_of_work_commits_what_its_session_holds_even_unsent(database: str) -> None:
    """A block that only added an object (not flushed) began its session's transaction: it is
    committed; a block that sent nothing through its session leaves nothing open and, on Postgres,
    begins no transaction only to commit it."""
    engine = create_engine(make_settings(database))
    try:
        sessionmaker = create_sessionmaker(engine)
        now = datetime.now(UTC)
        conversation = Conversation(id=uuid.uuid4(), user_id="alice", title="held", created_at=now, updated_at=now)
        async with unit_of_work(sessionmaker) as session:
            session.add(conversation)
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            pass
        assert checked_out(engine) == 0
        begun: list[object] = []
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            event.listen(session.sync_session, "after_transaction_create", lambda *args: begun.append(args))
            assert [r.one for r in await fetch(session, sa.select(sa.literal(1).label("one")), {})] == [1]
        # On Postgres the statement went alone: the session began nothing, not even to commit nothing.
        assert (begun == []) is database.startswith("postgresql")
        async with unit_of_work(sessionmaker) as session:
            titles = (await session.execute(sa.select(col(Conversation.title)))).scalars().all()
        assert titles == ["held"]
    finally:
        await engine.dispose()


TIMEOUTS = sa.text(
    "SELECT current_setting('statement_timeout'), current_setting('lock_timeout'), "
    "current_setting('idle_in_transaction_session_timeout')"
)


@pytest.mark.parametrize("database", ["postgres", "pgbouncer"], indirect=True)
async def test_the_session_limits_hold_directly_and_through_pgbouncer(database: str) -> None:
    """Directly they are sent at connect; a transaction pooler refuses that, so there they are set per
    transaction. Either way every transaction runs under them, and a statement past its limit is stopped."""
    settings = make_settings(database, db_statement_timeout_ms=300, db_lock_timeout_ms=250)
    assert settings.db_pooler == ("transaction" if database in POOLED else "none")
    engine = create_engine(settings)
    try:
        sessionmaker = create_sessionmaker(engine)
        for _ in range(3):  # through the bouncer, each transaction may reach another server connection
            async with unit_of_work(sessionmaker) as session:
                assert tuple((await session.execute(TIMEOUTS)).one()) == ("300ms", "250ms", "15s")
        with pytest.raises(sa.exc.DBAPIError, match="statement timeout"):
            async with unit_of_work(sessionmaker) as session:
                await session.execute(sa.text("SELECT pg_sleep(2)"))
        async with unit_of_work(sessionmaker, single_statement=True) as session:  # no autocommit behind a pooler
            same = await session.scalar(XID) == await session.scalar(XID)
            assert same is (database in POOLED)
    finally:
        await engine.dispose()


@pytest.mark.parametrize("database", ["pgbouncer"], indirect=True)
async def test_without_db_pooler_pgbouncer_refuses_the_connection(database: str) -> None:
    """Why DB_POOLER exists: the direct configuration sends the limits at connect, which PgBouncer refuses."""
    engine = create_engine(make_settings(database, db_pooler="none"))
    try:
        with pytest.raises(sa.exc.DBAPIError, match="unsupported startup parameter"):
            async with unit_of_work(create_sessionmaker(engine)) as session:
                await session.execute(sa.text("SELECT 1"))
    finally:
        await engine.dispose()


@pytest.mark.parametrize(
    "text", ["plain", "100%", "a_b", "back\\slash", "%_\\", "Crème BRÛLÉE", "50% off_now"], ids=repr
)
async def test_the_search_pattern_is_the_same_in_postgres_and_sqlite(database: str, text: str) -> None:
    """`task_search_pattern` (migration 0010) and SQLite's Python version agree, and the pattern
    takes LIKE's wildcards literally: it matches the text inside a longer one, and nothing else."""
    engine, sqlite = create_engine(make_settings(database)), create_engine(make_settings("sqlite+aiosqlite://"))
    query = sa.text(
        "SELECT task_search_pattern(:text), "
        "task_search_fold('x ' || :text || ' y') LIKE task_search_pattern(:text) ESCAPE '\\', "
        "task_search_fold('xy') LIKE task_search_pattern(:text) ESCAPE '\\'"
    )
    try:
        results = []
        for each in (engine, sqlite):
            async with unit_of_work(create_sessionmaker(each)) as session:
                results.append(tuple((await session.execute(query, {"text": text})).one()))
        assert results[0] == results[1]
        pattern, inside, elsewhere = results[0]
        assert (inside, elsewhere) == (True, False)
        assert pattern == session_module.like_anywhere(fold(text))
    finally:
        await engine.dispose()
        await sqlite.dispose()
