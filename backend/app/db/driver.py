"""A turn's lone statements, sent past the ORM on the driver's connection.

Through the ORM session a statement cost 480-660 µs of worker CPU when it was the only one of its
transaction (the session, its connection and transaction bookkeeping, the compiled cache's lookup,
the parameters built and processed), through an `AsyncConnection` 430-450 µs, and sent on the asyncpg
connection the pool lends 130-170 µs (one INSERT, 8 at a time, three rounds, 2026-11-29). `fetch`
sends such a statement on the driver's connection, keeping what SQLAlchemy gives:

- the statement is a SQLAlchemy statement, compiled once for the engine's dialect (its bind casts,
  its positional parameters), its parameters and results processed by the column types' own
  processors (a JSON value serialised as the engine serialises it), its rows named by the columns
  it returns (its public `exported_columns`: a query's columns, a write's RETURNING);
- an error is raised as the session would raise it: asyncpg's error translated into the dialect's
  DBAPI error of its kind by the dialect's own table (`_DBAPI_ERRORS`), wrapped in
  `sqlalchemy.exc.DBAPIError`'s kind for it; a connection left in an unknown state (a broken
  connection, a cancelled statement) is invalidated, not lent again.

Where it goes:

- **Alone**, when it is the only statement of its transaction (a turn's start, its record, a lone
  add: atomic by itself on Postgres): the session is marked for it (`session.only_statement_next`,
  which `unit_of_work(single_statement=True)` calls) and has sent nothing since. It runs without a
  transaction, on a connection taken from the engine's pool through its checkout checks (a connection
  the server closed is replaced: `session._drop_closed_connections`), and given back. A read the
  session sends before its transaction begins goes alone the same way (`reads_alone_next`: a tool
  step's title lookup), as at READ COMMITTED it sees what it would have seen inside it.
- **Through the session**, otherwise: in its transaction, so that what the session sends before and
  after (a savepoint, its commit or rollback) is the same transaction; and always on SQLite and
  behind a transaction pooler (`DIRECT` is false), where nothing is marked.

Statements inside a transaction went on the driver's connection too, until 2026-12-06: that needed
the asyncpg adapter's private transaction (`_transaction`, `_start_transaction`), and the bench's
turns at c8 send none of their statements there, so the interleaved A/B could not show it worth
anything (docs/performance/2026-12-05-house.md, "The driver path"). This module uses no private
name of SQLAlchemy.

SQLAlchemy memoizes a write's `exported_columns`: a write given `.returning()` after its parent's
columns were read (as `fetch` reads them) names its parent's, and its rows are then refused, not
misread. A write that returns rows is built whole before it is sent (the project's are module
constants or built once, from a fresh `insert`/`update`).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import asyncpg
import sqlalchemy as sa
from sqlalchemy.engine import CursorResult, Dialect, Engine
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql import ClauseElement, Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ReturnsRows
from sqlalchemy.util import greenlet_spawn

from backend.app.db.outage import NotAnswering

ALONE = "taskchat_alone"  # session.info: the next statement sent through `fetch` may go alone, without a transaction

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the bind parameters, in the order of $1, $2, ...
    binds: tuple[Processor, ...]
    fixed: dict[str, Any]  # the values the statement holds itself (`version + 1`'s 1), unless given
    row: type[tuple[Any, ...]]  # the result's rows: attributes by column name, as SQLAlchemy's rows
    results: tuple[Processor, ...]

    def args(self, params: Mapping[str, Any]) -> list[Any]:
        return [
            value if process is None or value is None else process(value)
            for value, process in zip(
                (params[name] if name in params else self.fixed[name] for name in self.names), self.binds, strict=True
            )
        ]

    def rows(self, records: Sequence[asyncpg.Record]) -> list[tuple[Any, ...]]:
        processors = self.results
        if records and len(records[0]) != len(processors):
            raise RuntimeError(
                f"the statement returned {len(records[0])} columns where it names {len(processors)}: {self.sql}"
            )
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
    # What the statement returns (a query's columns, a write's RETURNING), by their keys. SQLAlchemy
    # memoizes a write's `exported_columns`, and a write derived with `.returning()` after its
    # parent's were read inherits the parent's: `rows` then meets records of another length, and says so.
    returned = cast(ReturnsRows, statement).exported_columns
    made = _Compiled(
        sql=compiled.string,
        names=names,
        binds=tuple(b.type.dialect_impl(dialect).bind_processor(dialect) for b in binds),
        fixed={name: b.effective_value for name, b in zip(names, binds, strict=True) if not b.required},
        row=namedtuple("Row", list(map(str, returned.keys())), rename=True),
        results=tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in returned),
    )
    _COMPILED[statement, dialect.name] = made
    return made


def typed(table: sa.Table, columns: Iterable[str], *, prefix: str = "") -> dict[str, sa.BindParameter[Any]]:
    """Column -> a bind parameter named `prefix` + column and typed as the column: the values of an
    INSERT or UPDATE that `fetch` sends, whose values are then processed as the session would process
    them (a JSON column's value serialised, not handed to the driver as a dict)."""
    return {c: sa.bindparam(f"{prefix}{c}", type_=table.c[c].type) for c in columns}


DIRECT = "taskchat_postgres_direct"  # engine option: Postgres reached directly, not behind a transaction pooler


def direct(engine: Engine) -> bool:
    """Whether statements may go past the ORM on `engine`'s connections: Postgres, reached directly."""
    return engine.dialect.name == "postgresql" and bool(engine.get_execution_options().get(DIRECT, False))


def reads_alone_next(session: AsyncSession) -> None:
    """The next statement `fetch` sends only reads: where the session has begun nothing (on Postgres
    reached directly), it goes alone, without a transaction. At READ COMMITTED a statement sees what
    was committed when it starts, in a transaction or not, so a read sent before the session's
    transaction begins sees what it would have seen as that transaction's first statement; a step
    whose lookup finds nothing to write, or whose write goes alone too, then sends no BEGIN at all."""
    engine = session.get_bind()
    if isinstance(engine, Engine) and direct(engine) and not session.in_transaction():
        session.info[ALONE] = True


async def fetch(session: AsyncSession, statement: Executable, params: Mapping[str, Any]) -> list[Any]:
    """The rows of `statement` (attributes by column name, as SQLAlchemy's rows; none for a write
    without RETURNING): sent alone on the driver's connection when the session is marked for it and
    has sent nothing since, else through the session, in its transaction (see the module's docstring)."""
    engine = session.get_bind()
    assert isinstance(engine, Engine)
    if session.info.pop(ALONE, False) and not session.in_transaction():  # marked only where `direct`
        compiled = _compiled(statement, engine.dialect)
        return compiled.rows(await _alone(engine, compiled, compiled.args(params)))
    result = cast(CursorResult[Any], await session.execute(statement, params))
    return list(result.all()) if result.returns_rows else []


async def _alone(engine: Engine, compiled: _Compiled, args: list[Any]) -> list[asyncpg.Record]:
    """`compiled` sent without a transaction on a connection of the engine's pool (taken through its
    checkout checks, given back)."""
    pooled = await greenlet_spawn(engine.raw_connection)
    try:
        return await _sent(pooled, compiled, args, engine.dialect)
    finally:
        await greenlet_spawn(pooled.close)


async def _sent(
    pooled: PoolProxiedConnection, compiled: _Compiled, args: list[Any], dialect: Dialect
) -> list[asyncpg.Record]:
    """`compiled` sent on `pooled`'s driver connection; a connection whose state is not known after
    the statement (broken, or cancelled in the middle of it) is invalidated, not lent again."""
    driver = pooled.driver_connection
    assert driver is not None
    try:
        return cast(list[asyncpg.Record], await driver.fetch(compiled.sql, *args))
    except BaseException as error:
        # The server refused the statement: the connection is sound.
        sound = isinstance(error, asyncpg.PostgresError) and not driver.is_closed()
        if not isinstance(error, Exception):
            await greenlet_spawn(pooled.invalidate)
            raise
        translated = _translated(error, compiled.sql, args, dialect, invalidated=not sound)
        if not sound:
            await greenlet_spawn(pooled.invalidate, error)
        if isinstance(error, TimeoutError):  # the driver's own: no answer (as the engine raises it, db/session.py)
            raise NotAnswering("The database did not answer a statement in time") from error
        raise translated from error


# asyncpg's errors, each with the error of its kind that SQLAlchemy's asyncpg dialect raises in its
# place, named as its DBAPI module (`dialect.loaded_dbapi`) names it: an error is translated by the
# first of its classes found here (the most specific first), as the dialect's own table translates it
# (sqlalchemy/dialects/postgresql/asyncpg.py); others are left as they are.
_DBAPI_ERRORS: dict[type[Exception], str] = {
    asyncpg.PostgresError: "Error",
    asyncpg.IntegrityConstraintViolationError: "IntegrityError",
    asyncpg.RestrictViolationError: "RestrictViolationError",
    asyncpg.NotNullViolationError: "NotNullViolationError",
    asyncpg.ForeignKeyViolationError: "ForeignKeyViolationError",
    asyncpg.UniqueViolationError: "UniqueViolationError",
    asyncpg.CheckViolationError: "CheckViolationError",
    asyncpg.ExclusionViolationError: "ExclusionViolationError",
    asyncpg.SyntaxOrAccessError: "ProgrammingError",
    asyncpg.InvalidCachedStatementError: "InvalidCachedStatementError",
    asyncpg.InternalServerError: "InternalServerError",
    asyncpg.InterfaceError: "InterfaceError",
    asyncpg.InternalClientError: "InternalClientError",
}


def _translated(error: Exception, sql: str, args: list[Any], dialect: Dialect, *, invalidated: bool) -> BaseException:
    """`error` as the session raises it: the driver's error translated into the dialect's DBAPI error
    of its kind (the driver's error its `orig` and its cause), then wrapped in
    `sqlalchemy.exc.DBAPIError`'s kind for that error (IntegrityError, ...)."""
    dbapi = dialect.loaded_dbapi
    adapted: Exception = error
    kind = next((_DBAPI_ERRORS[c] for c in type(error).__mro__ if c in _DBAPI_ERRORS), None)
    if kind is not None:
        adapted = getattr(dbapi, kind)(error.args[0], error)
        adapted.__cause__ = error
    return sa.exc.DBAPIError.instance(
        sql, args, adapted, dbapi.Error, connection_invalidated=invalidated, dialect=dialect
    )
