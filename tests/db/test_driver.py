"""A statement sent alone on the driver's connection (db/driver.py) gives what the session gives: the
same rows and values, the same errors, no transaction left behind; a connection it leaves in an
unknown state is not lent again; it goes past the ORM only where it may, and inside a transaction
`fetch` is the session's own statement, kept by its commit and undone by its rollback."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from support.api import make_settings
from support.db import checked_out

from backend.app.db.driver import _DBAPI_ERRORS, ALONE, fetch
from backend.app.db.repositories.conversation_statements import CONVERSATIONS, MESSAGES
from backend.app.db.session import create_engine, create_sessionmaker, only_statement_next, unit_of_work

_C, _M = CONVERSATIONS, MESSAGES
PID = sa.select(sa.func.pg_backend_pid().label("pid"))


def _insert_message() -> sa.Insert:
    return sa.insert(_M).values({c.name: sa.bindparam(c.name, type_=c.type) for c in _M.columns})


INSERT_MESSAGE = _insert_message()
MESSAGES = sa.select(_M.c.id, _M.c.content, _M.c.execution_metadata, _M.c.created_at, _M.c.is_error).where(
    _M.c.conversation_id == sa.bindparam("conversation_id", type_=_M.c.conversation_id.type)
)
SLEEP = sa.select(sa.func.pg_sleep(sa.bindparam("seconds", type_=sa.Float)).label("slept"))


def _message(conversation_id: uuid.UUID, content: str) -> dict[str, object]:
    return {
        "id": uuid.uuid4(),
        "conversation_id": conversation_id,
        "user_id": "alice",
        "role": "user",
        "content": content,
        "tool_call_metadata": None,
        "action_metadata": None,
        "execution_metadata": {"llm_calls": 1, "nested": {"é": [1, 2.5, None, True]}},
        "context": None,
        "is_error": False,
        "created_at": datetime(2026, 11, 29, 4, 5, 6, 789000, tzinfo=UTC),
    }


@pytest.fixture
async def engine(database: str) -> AsyncIterator[AsyncEngine]:
    """The app's engine on the test's database, as `create_engine` makes it."""
    made = create_engine(make_settings(database))
    try:
        yield made
    finally:
        await made.dispose()


async def _conversation(sessionmaker: async_sessionmaker[AsyncSession], conversation_id: uuid.UUID) -> None:
    now = datetime.now(UTC)
    async with unit_of_work(sessionmaker) as session:
        await session.execute(
            sa.insert(_C).values(id=conversation_id, user_id="alice", title="t", created_at=now, updated_at=now)
        )


async def test_a_statement_sent_alone_writes_and_reads_what_the_session_does(engine: AsyncEngine) -> None:
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    alone, through = _message(conversation_id, "sent alone"), _message(conversation_id, "through the session")
    async with unit_of_work(sessionmaker, single_statement=True) as session:
        assert session.info.get(ALONE) is True
        assert await fetch(session, INSERT_MESSAGE, alone) == []
        assert not session.in_transaction()  # nothing of the session was used
    async with unit_of_work(sessionmaker) as session:
        await fetch(session, INSERT_MESSAGE, through)  # not marked: the session's statement
        assert session.in_transaction()

    async with unit_of_work(sessionmaker, single_statement=True) as session:
        read_alone = await fetch(session, MESSAGES, {"conversation_id": conversation_id})
    async with unit_of_work(sessionmaker) as session:
        read_through = await fetch(session, MESSAGES, {"conversation_id": conversation_id})

    def values(rows: list[Any]) -> list[tuple[Any, ...]]:
        return sorted((tuple(r) for r in rows), key=lambda r: r[1])

    assert values(read_alone) == values(read_through)
    by_content = {r.content: r for r in read_alone}  # attributes by column name, as SQLAlchemy's rows
    for sent in (alone, through):
        row = by_content[sent["content"]]
        assert (row.id, row.execution_metadata, row.created_at, row.is_error) == (
            sent["id"],
            sent["execution_metadata"],
            sent["created_at"],
            False,
        )
        assert isinstance(row.id, uuid.UUID)


async def test_a_write_returning_its_row_gives_it_as_the_session_does(engine: AsyncEngine) -> None:
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    returning = _insert_message().returning(_M.c.id, _M.c.execution_metadata)
    sent = _message(conversation_id, "returned")
    async with unit_of_work(sessionmaker, single_statement=True) as session:
        (row,) = await fetch(session, returning, sent)
    assert (row.id, row.execution_metadata) == (sent["id"], sent["execution_metadata"])


async def test_rows_are_named_as_the_sessions_rows(engine: AsyncEngine) -> None:
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    returning = _insert_message().returning(_M.c.id, _M.c.content.label("said"))
    for statement, params in (
        (returning, lambda: _message(conversation_id, "named")),
        (MESSAGES, lambda: {"conversation_id": conversation_id}),
        (PID, dict),
    ):
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            sent = await fetch(session, statement, params())
        async with unit_of_work(sessionmaker) as session:
            through = (await session.execute(statement, params())).all()
        assert sent[0]._fields == through[0]._fields


async def test_a_write_whose_returned_columns_sqlalchemy_misremembers_is_refused_not_misread(
    engine: AsyncEngine,
) -> None:
    """SQLAlchemy memoizes a write's `exported_columns`: a write given RETURNING after its parent's
    were read (as `fetch` reads them) names none. Its rows are refused, not made of the wrong columns."""
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    parent = _insert_message()
    async with unit_of_work(sessionmaker, single_statement=True) as session:
        await fetch(session, parent, _message(conversation_id, "sent by the parent"))
    misremembered = parent.returning(_M.c.id)
    with pytest.raises(RuntimeError, match="returned 1 columns where it names 0"):
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            await fetch(session, misremembered, _message(conversation_id, "returned, not named"))


async def test_the_mark_is_for_one_statement_and_not_after_the_session_sent_one(engine: AsyncEngine) -> None:
    sessionmaker = create_sessionmaker(engine)
    async with unit_of_work(sessionmaker, single_statement=True) as session:
        (first,) = await fetch(session, PID, {})
        assert not session.in_transaction()
        await fetch(session, PID, {})  # the mark was spent: through the session
        assert session.in_transaction()
    async with unit_of_work(sessionmaker) as session:
        await session.execute(PID)
        only_statement_next(session)  # too late: the session has sent a statement
        assert ALONE not in session.info
    assert isinstance(first.pid, int)


@pytest.mark.parametrize("database", ["sqlite", "pgbouncer"], indirect=True)
async def test_without_postgres_reached_directly_nothing_goes_past_the_session(engine: AsyncEngine) -> None:
    sessionmaker = create_sessionmaker(engine)
    sent: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *args: sent.append(args[2]))
    for single in (True, False):
        async with unit_of_work(sessionmaker, single_statement=single) as session:
            assert ALONE not in session.info
            rows = await fetch(session, sa.select(sa.literal(7).label("seven")), {})
            assert [r.seven for r in rows] == [7]
            assert session.in_transaction()
    assert sum("seven" in statement for statement in sent) == 2  # both through the session


async def test_a_refused_statement_raises_what_the_session_raises_and_keeps_its_connection(database: str) -> None:
    engine = create_engine(make_settings(database, db_pool_size=1, db_max_overflow=0))
    sessionmaker = create_sessionmaker(engine)
    try:
        conversation_id = uuid.uuid4()
        await _conversation(sessionmaker, conversation_id)
        row = _message(conversation_id, "once")
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            (before,) = await fetch(session, PID, {})
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            await fetch(session, INSERT_MESSAGE, row)
        errors: list[sa.exc.IntegrityError] = []
        for mark in (True, False):
            with pytest.raises(sa.exc.IntegrityError) as raised:
                async with unit_of_work(sessionmaker, single_statement=mark) as session:
                    await fetch(session, INSERT_MESSAGE, row)  # the same id again
            errors.append(raised.value)
        alone, through = errors
        assert type(alone.orig) is type(through.orig)  # the dialect's UniqueViolationError, the driver's as its cause
        assert alone.orig is not None and type(alone.orig.__cause__).__name__ == "UniqueViolationError"
        assert not alone.connection_invalidated
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            (after,) = await fetch(session, PID, {})
        assert after.pid == before.pid  # the connection was sound, and went back to the pool
        assert checked_out(engine) == 0
    finally:
        await engine.dispose()


MISSING_TABLE: sa.Select[Any] = sa.select(sa.column("x")).select_from(sa.table("no_such_table"))
DIVIDED_BY_ZERO: sa.Select[Any] = sa.select(sa.literal_column("1 / 0").label("q"))


@pytest.mark.parametrize(
    ("refused", "kind", "cause"),
    [
        ("unique", sa.exc.IntegrityError, "UniqueViolationError"),
        ("not null", sa.exc.IntegrityError, "NotNullViolationError"),
        ("foreign key", sa.exc.IntegrityError, "ForeignKeyViolationError"),
        ("missing table", sa.exc.ProgrammingError, "UndefinedTableError"),
        ("division by zero", sa.exc.DBAPIError, "DivisionByZeroError"),
    ],
)
async def test_each_kind_of_refusal_is_raised_as_the_session_raises_it(
    engine: AsyncEngine, refused: str, kind: type[sa.exc.DBAPIError], cause: str
) -> None:
    """Alone, in a transaction, or through the session: the same SQLAlchemy error, around the same
    DBAPI error of the dialect (its message and SQLSTATE), around the driver's error."""
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    taken = _message(conversation_id, "taken")
    async with unit_of_work(sessionmaker, single_statement=True) as session:
        await fetch(session, INSERT_MESSAGE, taken)
    statement, params = {
        "unique": (INSERT_MESSAGE, taken),
        "not null": (INSERT_MESSAGE, _message(conversation_id, "no role") | {"role": None}),
        "foreign key": (INSERT_MESSAGE, _message(uuid.uuid4(), "no conversation")),
        "missing table": (MISSING_TABLE, {}),
        "division by zero": (DIVIDED_BY_ZERO, {}),
    }[refused]
    errors = []
    for way in ("alone", "in a transaction", "through the session"):
        with pytest.raises(sa.exc.DBAPIError) as raised:
            async with unit_of_work(sessionmaker, single_statement=way == "alone") as session:
                if way == "through the session":
                    await session.execute(statement, params)
                else:
                    await fetch(session, statement, params)
        errors.append(raised.value)
    for error in errors:
        assert type(error) is kind
        assert type(error.orig) is type(errors[-1].orig)  # the dialect's DBAPI error of this kind
        assert isinstance(error.orig, engine.dialect.loaded_dbapi.Error)
        assert type(error.orig.__cause__).__name__ == cause  # the driver's error
        assert error.orig.driver_exception is error.orig.__cause__
        last = errors[-1].orig
        assert (str(error.orig), error.orig.sqlstate) == (str(last), getattr(last, "sqlstate", None))
        assert error.orig.sqlstate is not None
        assert not error.connection_invalidated
    assert checked_out(engine) == 0


def test_every_driver_error_translated_has_its_kind_in_the_dialects_dbapi(engine: AsyncEngine) -> None:
    """The kinds the driver's errors are translated into are the dialect's (an upgrade that renames
    one fails here, not in the middle of an error)."""
    dbapi = engine.dialect.loaded_dbapi
    for driver_error, name in _DBAPI_ERRORS.items():
        assert issubclass(getattr(dbapi, name), dbapi.Error), (driver_error, name)


XACT = sa.select(sa.func.pg_backend_pid().label("pid"), sa.func.txid_current().label("xact"))
CONTENTS = sa.select(_M.c.content).where(_M.c.conversation_id == sa.bindparam("conversation_id", type_=_M.c.id.type))


async def _contents(sessionmaker: async_sessionmaker[AsyncSession], conversation_id: uuid.UUID) -> set[str]:
    async with unit_of_work(sessionmaker) as session:
        return {r.content for r in await session.execute(CONTENTS, {"conversation_id": conversation_id})}


async def test_in_a_transaction_statements_are_the_sessions_own_kept_by_its_commit_undone_by_its_rollback(
    engine: AsyncEngine,
) -> None:
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    sent: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *args: sent.append(args[2]))
    async with unit_of_work(sessionmaker) as session:
        (first,) = await fetch(session, XACT, {})  # the transaction's first statement
        (through,) = (await session.execute(XACT)).all()
        await fetch(session, INSERT_MESSAGE, _message(conversation_id, "kept"))
        (last,) = await fetch(session, XACT, {})
    assert first == tuple(through) == last  # one connection, one transaction
    assert sum("txid_current" in statement for statement in sent) == 3  # each the session's own
    with pytest.raises(RuntimeError):
        async with unit_of_work(sessionmaker) as session:
            await fetch(session, INSERT_MESSAGE, _message(conversation_id, "undone, sent first"))
            await session.execute(INSERT_MESSAGE, _message(conversation_id, "undone, through the session"))
            await fetch(session, INSERT_MESSAGE, _message(conversation_id, "undone, sent last"))
            raise RuntimeError("the block fails after its statements")
    assert await _contents(sessionmaker, conversation_id) == {"kept"}
    assert checked_out(engine) == 0


async def test_a_statement_refused_inside_a_savepoint_is_undone_to_it_and_the_rest_commits(engine: AsyncEngine) -> None:
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    twice = _message(conversation_id, "once")
    async with unit_of_work(sessionmaker) as session:
        await fetch(session, INSERT_MESSAGE, twice)
        with pytest.raises(sa.exc.IntegrityError) as raised:
            async with session.begin_nested():
                await fetch(session, INSERT_MESSAGE, _message(conversation_id, "in the savepoint"))
                await fetch(session, INSERT_MESSAGE, twice)  # the same id again
        assert not raised.value.connection_invalidated
        orig = raised.value.orig
        assert orig is not None and type(orig.__cause__).__name__ == "UniqueViolationError"
        await fetch(session, INSERT_MESSAGE, _message(conversation_id, "after the savepoint"))
    assert await _contents(sessionmaker, conversation_id) == {"once", "after the savepoint"}


async def test_a_refused_statement_in_a_transaction_fails_the_block_and_nothing_stays(engine: AsyncEngine) -> None:
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    row = _message(conversation_id, "once")
    with pytest.raises(sa.exc.IntegrityError):
        async with unit_of_work(sessionmaker) as session:
            await fetch(session, INSERT_MESSAGE, _message(conversation_id, "before it"))
            await fetch(session, INSERT_MESSAGE, row)
            await fetch(session, INSERT_MESSAGE, row)
    assert await _contents(sessionmaker, conversation_id) == set()
    async with unit_of_work(sessionmaker) as session:  # the connection went back sound, out of any transaction
        await fetch(session, INSERT_MESSAGE, row)
    assert await _contents(sessionmaker, conversation_id) == {"once"}
    assert checked_out(engine) == 0


async def test_a_statement_holding_its_own_values_sends_them(engine: AsyncEngine) -> None:
    """A literal inside a statement (`version + 1`'s 1) is a bind parameter with a value: sent as it
    is when the call does not give it, as the session sends it."""
    bumped = sa.select((sa.bindparam("n", type_=sa.Integer) + 1).label("bumped"), sa.literal("x").label("fixed"))
    sessionmaker = create_sessionmaker(engine)
    async with unit_of_work(sessionmaker) as session:
        (sent,) = await fetch(session, bumped, {"n": 41})
        (through,) = (await session.execute(bumped, {"n": 41})).all()
    assert (sent.bumped, sent.fixed) == tuple(through) == (42, "x")


BOTH_WAYS = pytest.mark.parametrize("alone", [True, False], ids=["alone", "in-a-transaction"])


@BOTH_WAYS
async def test_a_connection_killed_mid_statement_is_invalidated_and_the_error_says_so(
    database: str, alone: bool
) -> None:
    engine, admin = create_engine(make_settings(database)), create_async_engine(database)
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    try:
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            (killed,) = await fetch(session, PID, {})  # the pool's one connection, lent again below

        async def kill_soon() -> None:
            await asyncio.sleep(0.3)
            async with admin.connect() as conn:
                await conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": killed.pid})

        killer = asyncio.create_task(kill_soon())
        with pytest.raises(sa.exc.DBAPIError) as raised:
            async with unit_of_work(sessionmaker, single_statement=alone) as session:
                if not alone:
                    await fetch(session, INSERT_MESSAGE, _message(conversation_id, "lost with its transaction"))
                await fetch(session, SLEEP, {"seconds": 5})
        await killer
        assert raised.value.connection_invalidated
        from backend.app.db.outage import unreachable

        assert unreachable(raised.value)  # the API's 503, as for the session's statement
        assert await _contents(sessionmaker, conversation_id) == set()
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            (after,) = await fetch(session, PID, {})
        assert after.pid != killed.pid
        assert checked_out(engine) == 0
    finally:
        await engine.dispose()
        await admin.dispose()


@BOTH_WAYS
async def test_a_statement_cancelled_mid_way_does_not_lend_its_connection_again(
    engine: AsyncEngine, alone: bool
) -> None:
    sessionmaker = create_sessionmaker(engine)
    async with unit_of_work(sessionmaker, single_statement=True) as session:
        (before,) = await fetch(session, PID, {})

    async def sleep() -> None:
        async with unit_of_work(sessionmaker, single_statement=alone) as session:
            if not alone:
                await fetch(session, PID, {})  # the transaction's first statement
            await fetch(session, SLEEP, {"seconds": 5})

    task = asyncio.create_task(sleep())
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with unit_of_work(sessionmaker, single_statement=True) as session:
        (after,) = await fetch(session, PID, {})
    assert after.pid != before.pid  # a new connection: the cancelled one's state was not known
    assert checked_out(engine) == 0


async def test_each_transaction_of_a_session_is_its_own(engine: AsyncEngine) -> None:
    """A session that commits or rolls back and goes on sends its next statement in its next
    transaction, not in the one that ended."""
    sessionmaker = create_sessionmaker(engine)
    conversation_id = uuid.uuid4()
    await _conversation(sessionmaker, conversation_id)
    async with sessionmaker() as session:
        (first,) = await fetch(session, XACT, {})
        await fetch(session, INSERT_MESSAGE, _message(conversation_id, "committed"))
        await session.commit()
        (second,) = await fetch(session, XACT, {})
        await fetch(session, INSERT_MESSAGE, _message(conversation_id, "rolled back"))
        await session.rollback()
        (third,) = await fetch(session, XACT, {})
        (through,) = (await session.execute(XACT)).all()
        await session.commit()
    assert len({first.xact, second.xact, third.xact}) == 3
    assert tuple(through) == third
    assert await _contents(sessionmaker, conversation_id) == {"committed"}
