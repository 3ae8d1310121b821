"""Engine and sessions. This is the one place that commits or rolls back."""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import sqlalchemy as sa
from rapidfuzz import fuzz
from sqlalchemy import event, exc
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import configure_mappers
from sqlmodel import SQLModel

from backend.app.core.config import Settings
from backend.app.db import models  # noqa: F401  (puts the tables on SQLModel.metadata)
from backend.app.db.driver import ALONE, DIRECT, direct
from backend.app.db.outage import NotAnswering
from backend.app.language.lexicon import fold


def create_engine(settings: Settings, *, url: str | None = None) -> AsyncEngine:
    # A task a tool reads, adds or changes is built without the ORM (`Task.model_construct`) and read
    # through the mapped class's attributes, which work once the mappers are configured: configured
    # here, in every process that reaches the database (a served worker, `taskchat mcp`), not by
    # whichever request first used the ORM (a worker's first turn may be a listing).
    configure_mappers()
    url = url or settings.database_url
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 15})
        configure_sqlite(engine)
        return engine
    timeouts = {
        "statement_timeout": settings.db_statement_timeout_ms,
        "lock_timeout": settings.db_lock_timeout_ms,
        "idle_in_transaction_session_timeout": settings.db_idle_in_transaction_timeout_ms,
    }
    behind_pooler = settings.db_pooler == "transaction"
    connect_args: dict[str, Any] = {
        "server_settings": {"application_name": "taskchat"},
        # asyncpg would wait 60 s for a connection and forever for an answer: a server that takes
        # either and stays silent is given up on (`NotAnswering`, a 503) and the service goes on.
        "timeout": settings.db_connect_timeout_s,
        "command_timeout": settings.db_command_timeout_s,
    }
    if behind_pooler:
        # A transaction pooler may run each transaction on another server connection: a prepared
        # statement must not outlive its transaction, nor share a name with another client's.
        connect_args |= {
            "statement_cache_size": 0,
            "prepared_statement_cache_size": 0,
            "prepared_statement_name_func": _unique_statement_name,
        }
    else:
        connect_args["server_settings"] |= {name: str(value) for name, value in timeouts.items()}
    engine = create_async_engine(
        url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        pool_timeout=settings.db_connect_timeout_s,  # no longer for a pooled connection than for a new one
        connect_args=connect_args,
        json_serializer=_json_dumps,
        json_deserializer=orjson.loads,
        # Read by `unit_of_work` and `driver.fetch`: only on a direct connection may a lone statement
        # run without a transaction, and statements go past the ORM.
        execution_options={DIRECT: not behind_pooler},
    )
    if behind_pooler:
        _set_timeouts_per_transaction(engine, timeouts)
    _drop_closed_connections(engine)
    _silence_is_an_outage(engine, connect_timeout_s=settings.db_connect_timeout_s)
    return engine


_XACT_LOCK = sa.text("SELECT pg_advisory_xact_lock(hashtextextended(:name, 0))")


async def lock_until_commit(session: AsyncSession, name: str) -> None:
    """Wait for, then hold to the end of the transaction, the lock called `name` (Postgres: a
    transaction-scoped advisory lock, which needs no session and so works behind PgBouncer; SQLite
    runs one writer at a time anyway)."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(_XACT_LOCK, {"name": name})


def _unique_statement_name() -> str:
    return f"__asyncpg_{uuid.uuid4().hex}__"


def _set_timeouts_per_transaction(engine: AsyncEngine, timeouts: dict[str, int]) -> None:
    """`SET LOCAL` the session limits as each transaction begins: a pooler refuses them at connect.

    One round trip per transaction (a `set_config(…, true)` for each, which is `SET LOCAL`); the
    values are the integers of the settings, so they are written into the statement as they are.
    """
    calls = ", ".join(f"set_config('{name}', '{int(value)}', true)" for name, value in timeouts.items())
    statement = f"SELECT {calls}"

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        connection.exec_driver_sql(statement)


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
    close, so asking costs nothing; one idle for more than `PING_IDLE_AFTER_S` is pinged as before
    (one whose ping times out is `NotAnswering`: dropped, and the request fails as an outage). One
    that dies in the middle of a statement is invalidated by SQLAlchemy's disconnect handling.
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
            except TimeoutError as error:  # a stalled link: no new connection is tried (it would wait too)
                raise NotAnswering("The database did not answer a ping in time") from error
            except Exception as error:
                raise exc.DisconnectionError("connection did not answer a ping") from error


def _silence_is_an_outage(engine: AsyncEngine, *, connect_timeout_s: float) -> None:
    """The driver's timeouts (a connection or a statement the server took and never answered) raised
    as `NotAnswering`, which the API answers with a 503, and that connection dropped at once.

    Dropped alone: the pool's other connections are tried as they come (a slow statement is the
    server's own to cancel, so a timeout here means that link is stalled, not necessarily all).
    Aborted, not closed: a graceful close would wait for a server that does not answer."""

    @event.listens_for(engine.sync_engine, "do_connect")
    def _connect(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        try:
            return dialect.connect(*cargs, **cparams)
        except TimeoutError as error:
            raise NotAnswering(f"The database did not answer a connection within {connect_timeout_s:g} s") from error

    @event.listens_for(engine.sync_engine, "handle_error")
    def _statement(context: sa.engine.ExceptionContext) -> BaseException | None:
        if not isinstance(context.original_exception, TimeoutError):
            return None
        context.is_disconnect = True
        context.invalidate_pool_on_disconnect = False
        return NotAnswering("The database did not answer a statement in time")

    @event.listens_for(engine.sync_engine, "invalidate")
    def _abort(dbapi_connection: Any, _record: Any, error: BaseException | None) -> None:
        if isinstance(error, TimeoutError | NotAnswering):
            dbapi_connection.driver_connection.terminate()


def configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=15000")
        cursor.close()
        # What migration 0008 defines in Postgres for search, here in Python.
        dbapi_connection.create_function("task_search_fold", 1, _fold, deterministic=True)
        dbapi_connection.create_function("task_search_pattern", 1, _pattern, deterministic=True)
        dbapi_connection.create_function("task_search_doc", 2, _search_doc, deterministic=True)
        dbapi_connection.create_function("task_search_similar", 2, _similar, deterministic=True)


def _fold(value: str | None) -> str | None:
    return None if value is None else fold(value)


def like_anywhere(folded: str) -> str:
    """LIKE's pattern for a folded text anywhere in another, its wildcards literal (escape `\\`):
    Postgres's `task_search_pattern` (migration 0010) after folding."""
    for char in ("\\", "%", "_"):
        folded = folded.replace(char, "\\" + char)
    return f"%{folded}%"


def _pattern(value: str | None) -> str | None:
    return None if value is None else like_anywhere(fold(value))


def _search_doc(title: str | None, description: str | None) -> str:
    return fold(f"{title or ''} {description or ''}")


def _similar(query: str | None, doc: str | None) -> int:
    """1 when every word of the (folded) query is close to a word of the (folded) text: Postgres's
    trigram word similarity, approximated for SQLite's small data."""
    words = (doc or "").split()
    wanted = (query or "").split()
    return int(bool(wanted) and all(any(fuzz.ratio(w, d) >= SIMILAR_WORD for d in words) for w in wanted))


SIMILAR_WORD = 80  # rapidfuzz ratio: "dentst" ~ "dentist" (92), "taxs" ~ "taxes" (89), "mlik" !~ "milk" (75)


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)


@asynccontextmanager
async def unit_of_work(
    sessionmaker: async_sessionmaker[AsyncSession], *, single_statement: bool = False
) -> AsyncIterator[AsyncSession]:
    """A short transaction: commit when the block ends, roll back if it raises.

    Chat turns open several of these (never one across an LLM call); request handlers get one
    through the session dependency. `single_statement=True` promises that the block runs at most
    one statement on Postgres, which is atomic by itself: it then runs without a transaction
    (`only_statement_next`), sparing the BEGIN and COMMIT round trips (other databases, and Postgres
    behind a transaction pooler, where a statement's prepare and execute could reach different
    server connections, keep the transaction).
    """
    session = sessionmaker()
    began = True  # a block that fails is rolled back and closed, whatever it began
    try:
        if single_statement:
            only_statement_next(session)
        yield session
        began = session.in_transaction()
        if began:
            await session.commit()
    except BaseException:
        await session.rollback()
        raise
    finally:
        # A block whose statements all went past the ORM alone (`driver.fetch`) leaves a session that
        # began nothing: no connection, no object, no transaction; its commit and close cost ~180 µs.
        if began:
            await session.close()


def only_statement_next(session: AsyncSession) -> None:
    """The session's next statement is the only one of its transaction: the session began nothing before
    it (else this does nothing; reads sent alone do not count: `driver.reads_alone_next`) and the caller
    sends nothing after it but statements it marks so again. On Postgres reached directly it then runs
    without a transaction, atomic by itself, sparing the BEGIN and COMMIT round trips: sent through
    `driver.fetch`, on the driver's connection past the ORM (a turn's hot statements); through
    the session, in autocommit. Elsewhere (SQLite, a transaction pooler) the transaction stays. Nothing
    is sent here: the connection is taken when the statement runs."""
    if session.in_transaction():
        return
    bind = session.get_bind()
    assert isinstance(bind, Engine)
    if direct(bind):
        session.sync_session.bind = _autocommit(bind)
        session.info[ALONE] = True


@functools.lru_cache(maxsize=8)
def _autocommit(engine: Engine) -> Engine:
    """`engine` lending its connections in autocommit (its pool's, reset when they go back); built
    once, as building it costs about 50 µs."""
    return engine.execution_options(isolation_level="AUTOCOMMIT")


async def delete_all_rows(conn: AsyncConnection) -> None:
    """Empty every table of the models, children first (the benchmark's clean slate; the tests delete
    rows instead, tests/support/db.py, as their tables are small)."""
    tables = [t.name for t in reversed(SQLModel.metadata.sorted_tables)]
    if conn.dialect.name == "postgresql":
        await conn.execute(sa.text(f"TRUNCATE {', '.join(tables)}"))
    else:
        for table in tables:
            await conn.execute(sa.text(f"DELETE FROM {table}"))
