"""Every task query, always scoped by the owner. Mutations are single statements with RETURNING.

Writes name the `version` they read (`... WHERE id = :id AND user_id = :uid AND version = :v`),
so when two requests race on one task exactly one wins; the other sees zero rows.

`candidates` is every read a lookup by title does: on Postgres one statement (migration 0003; 0013
returns the whole task of an exact match, so that a write of it can be held: `change`) that
tries an exact title first and, for users with many tasks, a shortlist from the title indexes
(migration 0002: the owner's title words, then trigrams), so 100k titles never travel to Python.
What a listing is narrowed by (filters, the text search) is task_filter.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.driver import fetch, reads_alone_next
from backend.app.db.models import Task, utcnow
from backend.app.db.repositories import task_statements as sql
from backend.app.db.repositories.paging import (
    DEFAULT_LIMIT,
    Order,
    after,
    decode,
    encode,
)
from backend.app.db.repositories.paging import (
    cursor_kind as _cursor_kind,
)
from backend.app.db.repositories.task_filter import TaskConditions, TaskFilter
from backend.app.db.repositories.task_statements import TaskSort


def _whole(row: Any, owner: str) -> Task | None:
    """The whole task of a lookup's row, when the lookup read it (`sql.WHOLE` not NULL: its exact step)."""
    if row.status is None:
        return None
    return Task.model_construct(
        id=row.id,
        user_id=owner,
        title=row.title,
        version=row.version,
        **{column: getattr(row, column) for column in sql.WHOLE},
    )


def _task(row: Any) -> Task:
    """A task from a row of all its columns that `driver.fetch` returned (the values are the
    columns' own: nothing to validate; 5 µs a task against 38 validated)."""
    return Task.model_construct(**row._asdict())


@dataclass(frozen=True, slots=True)
class TaskPage:
    tasks: list[Task]
    cursor: str | None  # where the next page starts; None on the last page
    fuzzy: bool = False  # the query's words matched nowhere as written, so they were read as misspelt


async def purge_deleted(session: AsyncSession, *, older_than: datetime) -> int:
    """Forget deleted tasks past retention (every owner's: maintenance, not a user's request)."""
    result = await session.execute(sa.delete(sql.DELETED).where(sql.DELETED.c.deleted_at < older_than))
    return int(result.rowcount)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class TaskRow:
    """A task as a lookup found it: its id, title and version, and the whole task at that version
    when the lookup read it (by id, `get_row`; by exact title, on Postgres, `candidates`)."""

    id: uuid.UUID
    title: str
    version: int
    whole: Task | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class HeldWrite:
    """A change or delete `TaskRepository` held (`hold_writes`): the write as a CTE returning the task's
    id (no row when the task is no longer the version read) and its bind parameters, for the caller
    to send with the call's record in one statement (conversations.py)."""

    written: sa.CTE
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Candidates:
    """What `TaskRepository.candidates` found: the rows, how they were chosen, and whether a
    shortlist may have left out a title as close as the ones it kept."""

    rows: list[TaskRow]
    source: Literal["exact", "all", "words", "all_but_one_word", "trigrams"]
    cut: bool


INSERT_TASK = sa.insert(sql.TASKS)  # a new task's row (and, held, with its tool execution row: conversations.py)


class TaskRepository:
    """The owner's tasks. `hold_writes`: a new task's row is not sent by `add` but held (`take_held`),
    and neither is the first change or delete of a task whose whole row its lookup read, on Postgres
    (`take_held_write`), for the caller to send with what it writes next, in the same statement
    (TaskTools: a lone call's write and its tool execution row are one statement, in autocommit where
    it can)."""

    def __init__(self, session: AsyncSession, user_id: str, *, hold_writes: bool = False) -> None:
        self.session = session
        self.user_id = user_id
        self._filter = TaskConditions(session, user_id)
        self._held: list[dict[str, Any]] | None = [] if hold_writes else None
        self._held_write: HeldWrite | None = None

    async def add(
        self,
        *,
        title: str,
        description: str | None,
        priority: str,
        due_date: date | None,
        tags: list[str],
        due_at: datetime | None = None,
        time_zone: str | None = None,
        recurrence: str | None = None,
    ) -> Task:
        now = utcnow()
        # Built as `_task` builds a fetched one (the model's defaults: id, status, version), without
        # the mapper's instrumented attributes, which the row is never given to: 12 µs against 43 in
        # a loop, 60 against 250 in a turn. Its values were validated as the tool's arguments.
        task = Task.model_construct(
            user_id=self.user_id,
            title=title,
            description=description,
            priority=priority,
            due_date=due_date,
            due_at=due_at,
            time_zone=time_zone,
            recurrence=recurrence,
            tags=tags,
            created_at=now,
            updated_at=now,
        )
        # One Core INSERT of the task's columns (defaults set in Python), not the ORM's unit of work:
        # a flush cost 0.2 ms more CPU per add (0.78 against 0.58 ms a transaction, medians of 6).
        row = {column.name: getattr(task, column.name) for column in sql.TASKS.columns}
        if self._held is not None:
            self._held.append(row)
        else:
            await self.session.execute(INSERT_TASK, row)
        return task

    def take_held(self) -> list[dict[str, Any]]:
        """The rows of the tasks `add` held and no one sent yet (`hold_writes`); they are the caller's now."""
        if not self._held:
            return []
        held, self._held = self._held, []
        return held

    def take_held_write(self) -> HeldWrite | None:
        """The change or delete `change`/`delete` held and no one sent yet; it is the caller's now."""
        held, self._held_write = self._held_write, None
        return held

    def _holds(self, row: TaskRow) -> bool:
        """Whether a write of `row` is held: writes are (`hold_writes`), none is held yet, the lookup
        read the whole task, so what it is before and after the write is known unsent, and the write
        can be sent with its record in one statement (Postgres: a data-modifying CTE)."""
        return (
            self._held is not None
            and self._held_write is None
            and row.whole is not None
            and self.session.get_bind().dialect.name == "postgresql"
        )

    async def list_tasks(self, *, status: str = "all", limit: int | None = None) -> Sequence[Task]:
        query = sa.select(Task).where(sql.TASKS.c.user_id == self.user_id)
        if status != "all":
            query = query.where(sql.TASKS.c.status == status)
        query = query.order_by(sql.TASKS.c.created_at.desc(), sql.TASKS.c.id)
        if limit is not None:
            query = query.limit(limit)
        return (await self.session.scalars(query)).all()

    async def count(self, *, status: str = "all", where: TaskFilter | None = None, fuzzy: bool = False) -> int:
        query = sa.select(sa.func.count()).select_from(sql.TASKS).where(sql.TASKS.c.user_id == self.user_id)
        if status != "all":
            query = query.where(sql.TASKS.c.status == status)
        if where is not None:
            await self._filter.plan_each_query(where)
            query = query.where(*await self._filter.conditions(where, fuzzy=fuzzy))
        return int((await self.session.execute(query)).scalar_one())

    async def search(
        self, where: TaskFilter, *, sort: TaskSort = "created", limit: int = DEFAULT_LIMIT, cursor: str | None = None
    ) -> TaskPage:
        """One page of the owner's tasks that match, in `sort` order, after `cursor` (see paging.py).

        A text query matches its words as they are written first; only when nothing does is it read
        as possibly misspelt (`fuzzy`: each word close to a word of the task), and the pages that
        follow keep that reading (their cursor says so). Exact words are what people type most, and
        the typo-tolerant reading costs a round trip more (the owner's vocabulary, task_filter.py),
        so it runs only when it can help."""
        await self._filter.plan_each_query(where)
        orders = sql.orders(sort)
        kinds = {False: sort, True: f"{sort}~"}  # the cursor's listing: this sort, exact or fuzzy
        fuzzy = cursor is not None and _cursor_kind(cursor) == kinds[True]
        key = decode(kinds[fuzzy], cursor, orders) if cursor is not None else None
        rows = await self._page(where, orders, key, limit, fuzzy=fuzzy, sort=sort)
        if not rows and key is None and not fuzzy and where.query and where.query.strip():
            fuzzy = True
            rows = await self._page(where, orders, None, limit, fuzzy=True, sort=sort)
        page, more = rows[:limit], len(rows) > limit
        if not more or not page:
            return TaskPage(page, None, fuzzy)
        last = page[-1]
        last_key = {
            "created": [last.created_at, last.id],
            "due": [last.due_date or sql.NO_DUE_DATE, last.created_at, last.id],
            "priority": [{"high": 0, "medium": 1}.get(last.priority, 2), last.created_at, last.id],
        }[sort]
        return TaskPage(page, encode(kinds[fuzzy], last_key), fuzzy)

    async def _page(
        self, where: TaskFilter, orders: list[Order], key: list[Any] | None, limit: int, *, fuzzy: bool, sort: TaskSort
    ) -> list[Task]:
        if key is None and where == TaskFilter(where.status):
            statement = sql.first_page(sort, by_status=where.status != "all")
            params = {"owner": self.user_id, "status": where.status, "lim": limit + 1}
            return [_task(row) for row in await fetch(self.session, statement, params)]
        query = sa.select(Task).where(
            sql.TASKS.c.user_id == self.user_id, *await self._filter.conditions(where, fuzzy=fuzzy)
        )
        if key is not None:
            query = query.where(after(orders, key))
        query = query.order_by(*(o.sort() for o in orders)).limit(limit + 1)
        return list((await self.session.scalars(query)).all())

    async def get_row(self, task_id: uuid.UUID) -> TaskRow | None:
        """The owner's task with this id (a reference by id, or into the conversation), whole, so that a
        write of it may be held (`change`, `delete`); sent alone where the session has begun nothing."""
        reads_alone_next(self.session)
        task = await self.get(task_id)
        return TaskRow(task.id, task.title, task.version, task) if task is not None else None

    async def rows(self) -> list[TaskRow]:
        """Id, title and version of every task of the owner: the resolver's candidates."""
        result = await self.session.execute(
            sa.select(sql.TASKS.c.id, sql.TASKS.c.title, sql.TASKS.c.version).where(sql.TASKS.c.user_id == self.user_id)
        )
        return [TaskRow(r.id, r.title, r.version) for r in result]

    async def candidates(
        self, reference: str, *, limit: int, all_up_to: int, exact_first: bool = True, words_first: bool = True
    ) -> Candidates:
        """The titles the resolver should choose from for `reference`: every read a lookup by title does.

        SQLite: every task (resolved in process). Postgres, in one statement (`task_title_candidates`,
        migration 0003), the first step that finds titles: the tasks titled `reference` (lowercased),
        which decide alone as in the resolver (`exact_first`); else every task when the owner has at
        most `all_up_to`; else a shortlist of at most `limit` titles close to it, `cut` when it may
        have left some out: `words` when titles holding every word of the reference were found
        (`words_first`), else `all_but_one_word` when titles holding all of them but one were, else
        `trigrams` (similar as a whole or in part).
        """
        if self.session.get_bind().dialect.name != "postgresql":
            return Candidates(await self.rows(), "all", cut=False)
        params = {
            "owner": self.user_id,
            "ref": reference.strip().lower(),
            "all_up_to": all_up_to,
            "lim": limit,
            "exact_first": exact_first,
            "words_first": words_first,
        }
        reads_alone_next(self.session)
        result = await fetch(self.session, sql.CANDIDATES, params)
        rows = [TaskRow(r.id, r.title, r.version, _whole(r, self.user_id)) for r in result if r.id is not None]
        source = result[0].source
        return Candidates(rows, source, cut=source not in ("exact", "all") and len(rows) >= limit)

    async def change(self, row: TaskRow, values: dict[str, Any]) -> tuple[Task, Task] | None:
        """The task before and after `values` are applied to it (for the undo record), if it is still
        the version `row` read; None when another request changed or deleted it. One statement on
        Postgres (`sql.SEEN`), two elsewhere (in the caller's transaction). Held instead (`hold_writes`,
        nothing sent) when the lookup read the whole task: the task after is the one before with
        `values`, the next version and this time, and the caller learns whether it was still that
        version when it sends the write (`take_held_write`)."""
        if self.session.get_bind().dialect.name != "postgresql":
            before = await self.get(row.id)
            after = await self.update(row, values)
            return (before, after) if before is not None and after is not None else None
        params = {"task": row.id, "owner": self.user_id, "seen_version": row.version, "now": utcnow()}
        params |= {f"new_{column}": value for column, value in values.items()}
        if self._holds(row):
            assert row.whole is not None
            self._held_write = HeldWrite(sql.held_change(tuple(values)), params)
            now = {"version": row.version + 1, "updated_at": params["now"]}
            return row.whole, Task.model_construct(
                **{c: getattr(row.whole, c) for c in sql.TASK_COLUMNS} | values | now
            )
        found = await fetch(self.session, sql.change(tuple(values)), params)
        if not found:
            return None
        both = found[0]._asdict()
        before = Task.model_construct(**{c: both[f"seen_{c}"] for c in sql.TASK_COLUMNS})
        return before, Task.model_construct(**{c: both[c] for c in sql.TASK_COLUMNS})

    async def update(self, row: TaskRow, values: dict[str, Any]) -> Task | None:
        statement = (
            sa.update(sql.TASKS)
            .where(sql.TASKS.c.id == row.id, sql.TASKS.c.user_id == self.user_id, sql.TASKS.c.version == row.version)
            .values(**values, version=sql.TASKS.c.version + 1, updated_at=utcnow())
            .returning(*sql.TASKS.c)
        )
        found = (await self.session.execute(statement)).first()
        return Task.model_validate(found._mapping) if found else None

    async def by_ids(self, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Task]:
        query = sa.select(Task).where(sql.TASKS.c.user_id == self.user_id, sql.TASKS.c.id.in_(list(ids)))
        return {t.id: t for t in (await self.session.scalars(query)).all()}

    async def get(self, task_id: uuid.UUID) -> Task | None:
        """The owner's task with this id, whole (the state a change starts from, for its undo record)."""
        found = await fetch(self.session, sql.BY_ID, {"task": task_id, "owner": self.user_id})
        return _task(found[0]) if found else None

    async def delete(self, row: TaskRow) -> Task | None:
        """Move the task to `deleted_tasks` (kept for undo); the task as it was, or None if it changed.

        On Postgres one statement (the DELETE feeds the INSERT as a data-modifying CTE); SQLite has
        no such CTE, so there it is two. Held instead, as `change` holds its write: then the task as
        the lookup read it, and whether it changed since is learnt when the write is sent."""
        params = {"id": row.id, "owner": self.user_id, "version": row.version, "deleted_at": utcnow()}
        if self._holds(row):
            self._held_write = HeldWrite(sql.HELD_DELETE, params)
            return row.whole
        if self.session.get_bind().dialect.name == "postgresql":
            moved = await fetch(self.session, sql.MOVE_TO_BIN, params)
            return _task(moved[0]) if moved else None
        gone = (await self.session.execute(sql.DELETE_RETURNING, params)).first()
        if gone is None:
            return None
        await self.session.execute(sa.insert(sql.DELETED).values(**gone._mapping, deleted_at=params["deleted_at"]))
        return Task.model_validate(gone._mapping)

    async def restore(self, task_id: uuid.UUID) -> Task | None:
        """Bring a deleted task back with its id (undo); None when it is not in `deleted_tasks`."""
        statement = (
            sa.delete(sql.DELETED)
            .where(sql.DELETED.c.id == task_id, sql.DELETED.c.user_id == self.user_id)
            .returning(*sql.DELETED.c[sql.TASK_COLUMNS])
        )
        found = (await self.session.execute(statement)).first()
        if found is None:
            return None
        values = {**found._mapping, "version": found.version + 1, "updated_at": utcnow()}
        await self.session.execute(sa.insert(sql.TASKS).values(**values))
        return Task.model_validate(values)

    async def remove(self, task_id: uuid.UUID, *, version: int) -> bool:
        """Delete a task for good (undoing its add), only if it is still at `version`."""
        statement = (
            sa.delete(sql.TASKS)
            .where(sql.TASKS.c.id == task_id, sql.TASKS.c.user_id == self.user_id, sql.TASKS.c.version == version)
            .returning(sql.TASKS.c.id)
        )
        return (await self.session.execute(statement)).first() is not None
