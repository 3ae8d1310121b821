"""The statements of task queries (tasks.py), built once: a delete that moves the row to the bin, a
change at the version read and the task as it was, their held forms (sent with a call's record in one
statement: conversations.py), a lookup by id, the lookup by title (migrations 0003, 0013) and the
first page of a listing in each order."""

from __future__ import annotations

import functools
from datetime import date
from typing import Any, Literal

import sqlalchemy as sa

from backend.app.db.driver import typed
from backend.app.db.models import DeletedTask, Task
from backend.app.db.repositories.paging import Order, load_date, load_datetime, load_int, load_uuid

TaskSort = Literal["created", "due", "priority"]

TASKS = Task.__table__  # type: ignore[attr-defined]
DELETED = DeletedTask.__table__  # type: ignore[attr-defined]
TASK_COLUMNS = tuple(c.name for c in TASKS.columns)
DELETE_RETURNING = (
    sa.delete(TASKS)
    .where(
        TASKS.c.id == sa.bindparam("id"),
        TASKS.c.user_id == sa.bindparam("owner"),
        TASKS.c.version == sa.bindparam("version"),
    )
    .returning(*TASKS.c)
)
GONE = DELETE_RETURNING.cte("gone")
MOVE = sa.insert(DELETED).from_select(
    [*TASK_COLUMNS, "deleted_at"], sa.select(*(GONE.c[c] for c in TASK_COLUMNS), sa.bindparam("deleted_at"))
)
MOVE_TO_BIN = MOVE.returning(*DELETED.c[TASK_COLUMNS])
HELD_DELETE = MOVE.returning(DELETED.c.id).cte("written")  # held (`TaskRepository.delete`): the id returned

# Postgres: a change and the task as it was before it, in one statement (`TaskRepository.change`): the
# UPDATE changes the row of a CTE that reads the version the caller saw, and returns that row beside
# the new one. A row changed meanwhile is not that version (the UPDATE rechecks the version on the
# newest row), so nothing is changed and nothing returned.
SEEN = (
    sa.select(*TASKS.c)
    .where(
        TASKS.c.id == sa.bindparam("task"),
        TASKS.c.user_id == sa.bindparam("owner"),
        TASKS.c.version == sa.bindparam("seen_version"),
    )
    .cte("seen")
)
SEEN_COLUMNS = tuple(SEEN.c[c].label(f"seen_{c}") for c in TASK_COLUMNS)


def changed(columns: tuple[str, ...]) -> dict[str, Any]:
    """What a change of these columns sets: bind parameters `new_` + column, the next version, `now`."""
    return {**typed(TASKS, columns, prefix="new_"), "version": TASKS.c.version + 1, "updated_at": sa.bindparam("now")}


@functools.lru_cache(maxsize=64)
def change(columns: tuple[str, ...]) -> sa.Update:
    """The change of these columns at the seen version, built once for each set of columns a tool changes."""
    return (
        sa.update(TASKS)
        .where(TASKS.c.id == SEEN.c.id, TASKS.c.version == SEEN.c.version)
        .values(changed(columns))
        .returning(*TASKS.c, *SEEN_COLUMNS)
    )


@functools.lru_cache(maxsize=128)
def held_change(columns: tuple[str, ...]) -> sa.CTE:
    """A held change of these columns (`TaskRepository.change`), at the version read, as a CTE returning
    the task's id: nothing when the task is no longer that version. Built once for each set of columns."""
    return (
        sa.update(TASKS)
        .where(
            TASKS.c.id == sa.bindparam("task"),
            TASKS.c.user_id == sa.bindparam("owner"),
            TASKS.c.version == sa.bindparam("seen_version"),
        )
        .values(changed(columns))
        .returning(TASKS.c.id)
        .cte("written")
    )


BY_ID = sa.select(*TASKS.c).where(TASKS.c.id == sa.bindparam("task"), TASKS.c.user_id == sa.bindparam("owner"))

# One lookup by title, every step in the database (migrations 0003, 0013, 0015): see `TaskRepository.candidates`.
# An exact row's rest (migrations 0013, 0015).
WHOLE = (
    "description",
    "status",
    "priority",
    "due_date",
    "tags",
    "created_at",
    "updated_at",
    "due_at",
    "time_zone",
    "recurrence",
)
CANDIDATES = (
    sa.text(
        f"SELECT id, title, version, source, {', '.join(WHOLE)} "
        "FROM task_title_candidates(:owner, :ref, :all_up_to, :lim, :exact_first, :words_first)"
    )
    .bindparams(
        sa.bindparam("owner", type_=sa.String),
        sa.bindparam("ref", type_=sa.String),
        sa.bindparam("all_up_to", type_=sa.Integer),
        sa.bindparam("lim", type_=sa.Integer),
        sa.bindparam("exact_first", type_=sa.Boolean),
        sa.bindparam("words_first", type_=sa.Boolean),
    )
    .columns(
        id=TASKS.c.id.type,
        title=sa.String,
        version=sa.Integer,
        source=sa.String,
        **{column: TASKS.c[column].type for column in WHOLE},
    )
)


NO_DUE_DATE = date(9999, 12, 31)  # sorts last among due dates
PRIORITY_RANK = sa.case({"high": 0, "medium": 1}, value=TASKS.c.priority, else_=2)


def orders(sort: TaskSort) -> list[Order]:
    newest = [
        Order(TASKS.c.created_at, descending=True, load=load_datetime),
        Order(TASKS.c.id, descending=True, load=load_uuid),
    ]
    if sort == "due":
        due = sa.func.coalesce(TASKS.c.due_date, sa.literal(NO_DUE_DATE, sa.Date))
        return [Order(due, descending=False, load=load_date), *newest]
    if sort == "priority":
        return [Order(PRIORITY_RANK, descending=False, load=load_int), *newest]
    return newest


@functools.lru_cache(maxsize=8)
def first_page(sort: TaskSort, by_status: bool) -> sa.Select[Any]:
    """The first page of the owner's tasks in `sort` order, of one status if `by_status` (bind
    parameters: owner, status, lim), built once per shape: the usual listing (`list my tasks`, `what
    is left`), sent by `driver.fetch`. Other filters and later pages are built per request."""
    query = sa.select(*TASKS.c).where(TASKS.c.user_id == sa.bindparam("owner", type_=TASKS.c.user_id.type))
    if by_status:
        query = query.where(TASKS.c.status == sa.bindparam("status", type_=TASKS.c.status.type))
    return query.order_by(*(o.sort() for o in orders(sort))).limit(sa.bindparam("lim", type_=sa.Integer))
