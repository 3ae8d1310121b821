"""A statement that is the only one of its transaction, sent past the ORM on the driver's connection.

A turn's start, its record and a lone add are each ONE statement, atomic by itself on Postgres
(`unit_of_work(single_statement=True)`, `only_statement_next`). Through the ORM session such a
statement cost 480-660 µs of worker CPU (the session, its connection and transaction bookkeeping,
the compiled cache's lookup, the parameters built and processed), through an `AsyncConnection`
430-450 µs, and sent on the asyncpg connection the pool lends 130-170 µs (one INSERT, 8 at a time,
three rounds, 2026-11-29). `fetch_alone` does the last, keeping what SQLAlchemy gives:

- the statement is a SQLAlchemy statement, compiled once for the engine's dialect (its bind casts,
  its positional parameters), its parameters and results processed by the column types' own
  processors (a JSON value serialised as the engine serialises it);
- the connection comes from the engine's pool, through its checkout checks (a connection the
  server closed is replaced: `session._drop_closed_connections`), and goes back to it;
- an error is raised as the session would raise it (`sqlalchemy.exc.DBAPIError` and its kinds,
  the driver's error as its cause), and a connection left in an unknown state (a broken
  connection, a cancelled statement) is invalidated, not lent again.

The statement runs outside any transaction, so only where it is the only one: the session must be
marked for it (`session.only_statement_next`, which `unit_of_work(single_statement=True)` calls)
and must have sent nothing since; otherwise it goes through the session, in its transaction. On
SQLite, or behind a transaction pooler, a session is never marked.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import asyncpg
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection
from sqlalchemy.engine import CursorResult, Dialect, Engine
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import ClauseElement, Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.util import greenlet_spawn

ALONE = "taskchat_alone"  # session.info: the next statement sent through `fetch_alone` may go past the ORM

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the bind parameters, in the order of $1, $2, ...
    binds: tuple[Processor, ...]
    row: type[tuple[Any, ...]]  # the result's rows: attributes by column name, as SQLAlchemy's rows
    results: tuple[Processor, ...]

    def args(self, params: Mapping[str, Any]) -> list[Any]:
        return [
            value if process is None or value is None else process(value)
            for value, process in zip((params[name] for name in self.names), self.binds, strict=True)
        ]

    def rows(self, records: Sequence[asyncpg.Record]) -> list[tuple[Any, ...]]:
        processors = self.results
        if not any(processors):
            return [self.row(*record) for record in records]
        return [
            self.row(*(v if p is None or v is None else p(v) for v, p in zip(record, processors, strict=True)))
            for record in records
        ]


# Keyed by the statement itself (statements hash and compare by identity).
_COMPILED: dict[tuple[Executable, str], _Compiled] = {}


def _compiled(statement: Executable, dialect: Dialect) -> _Compiled:
    """`statement` compiled for `dialect`, once: statements sent alone are module constants (or
    built once per shape), so the cache stays as small as the statements' count."""
    found = _COMPILED.get((statement, dialect.name))
    if found is not None:
        return found
    compiled = cast(SQLCompiler, cast(ClauseElement, statement).compile(dialect=dialect))
    names = tuple(compiled.positiontup or ())
    binds = [compiled.binds[name] for name in names]
    if any(b.expanding or b.literal_execute for b in binds):
        raise ValueError("a statement sent alone takes plain bind parameters only")
    # What the statement returns, as the compiler says (a query's columns, a write's RETURNING), as
    # SQLAlchemy's own results read it. Not the statement's `exported_columns`: SQLAlchemy memoizes
    # them, and a statement derived with `.returning()` after its parent's were read inherits the memo.
    returned = compiled._result_columns
    keys, result_types = [c.keyname for c in returned], [c.type for c in returned]
    made = _Compiled(
        sql=compiled.string,
        names=names,
        binds=tuple(b.type.dialect_impl(dialect).bind_processor(dialect) for b in binds),
        row=namedtuple("Row", keys, rename=True),
        results=tuple(t.dialect_impl(dialect).result_processor(dialect, None) for t in result_types),
    )
    _COMPILED[statement, dialect.name] = made
    return made


async def fetch_alone(session: AsyncSession, statement: Executable, params: Mapping[str, Any]) -> list[Any]:
    """The rows of `statement` (attributes by column name), sent alone on the driver's connection
    when the session is marked for it (`session.only_statement_next`) and has sent nothing since;
    else through the session, in its transaction."""
    if not session.info.pop(ALONE, False) or session.in_transaction():
        result = cast(CursorResult[Any], await session.execute(statement, params))
        return list(result.all()) if result.returns_rows else []
    engine = session.get_bind()
    assert isinstance(engine, Engine)
    compiled = _compiled(statement, engine.dialect)
    args = compiled.args(params)
    pooled = await greenlet_spawn(engine.raw_connection)
    try:
        driver = pooled.driver_connection
        assert driver is not None
        try:
            records = await driver.fetch(compiled.sql, *args)
        except BaseException as error:
            # The server refused the statement: the connection is sound. Broken, or cancelled in the
            # middle of a statement: its state is not known, and it is not lent again.
            sound = isinstance(error, asyncpg.PostgresError) and not driver.is_closed()
            if not isinstance(error, Exception):
                await greenlet_spawn(pooled.invalidate)
                raise
            translated = _translated(error, compiled.sql, args, engine.dialect, invalidated=not sound)
            if not sound:
                await greenlet_spawn(pooled.invalidate, error)
            raise translated from error
    finally:
        await greenlet_spawn(pooled.close)
    return compiled.rows(records)


def _translated(error: Exception, sql: str, args: list[Any], dialect: Dialect, *, invalidated: bool) -> BaseException:
    """`error` as the session raises it: translated by SQLAlchemy's asyncpg adapter into its DBAPI
    error, then wrapped in `sqlalchemy.exc.DBAPIError`'s kind for that error (IntegrityError, ...)."""
    try:
        AsyncAdapt_asyncpg_connection._handle_exception_no_connection(dialect.loaded_dbapi, error)
    except Exception as adapted:
        return sa.exc.DBAPIError.instance(
            sql, args, adapted, dialect.loaded_dbapi.Error, connection_invalidated=invalidated, dialect=dialect
        )
    raise AssertionError("the adapter raises for every error")  # pragma: no cover
