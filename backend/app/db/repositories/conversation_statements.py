"""The statements of conversation queries (conversations.py), built once: the inserts of a turn's
rows, a held write sent with its call's record, the newest messages, the turn's record with the
conversation's `updated_at`, and a turn's first statement (the rate limit, the message, the history)."""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa

from backend.app.db.driver import typed
from backend.app.db.models import Conversation, Message, Task, ToolExecution
from backend.app.db.repositories import rate_limit
from backend.app.db.repositories.paging import Order, load_datetime, load_uuid

CONVERSATIONS = Conversation.__table__  # type: ignore[attr-defined]
MESSAGES = Message.__table__  # type: ignore[attr-defined]
CONVERSATION_ORDER = [
    Order(CONVERSATIONS.c.updated_at, descending=True, load=load_datetime),
    Order(CONVERSATIONS.c.id, descending=True, load=load_uuid),
]
MESSAGE_ORDER = [
    Order(MESSAGES.c.created_at, descending=False, load=load_datetime),
    Order(MESSAGES.c.id, descending=False, load=load_uuid),
]
TOOL_EXECUTIONS = ToolExecution.__table__  # type: ignore[attr-defined]

# The statements of every chat turn, built once with bind parameters: building a statement and its
# cache key costs more than SQLAlchemy's execution of it, so the hot path only binds values.
INSERT_CONVERSATION = sa.insert(CONVERSATIONS)
INSERT_MESSAGE = sa.insert(MESSAGES)
INSERT_TOOL_EXECUTIONS = sa.insert(TOOL_EXECUTIONS)
TASKS = Task.__table__  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=8)
def insert_execution(columns: tuple[str, ...]) -> sa.Insert:
    """One tool execution row of these columns (the others take their defaults), built once: a
    statement `driver.fetch` sends (its compiled form is cached by the statement itself)."""
    return sa.insert(TOOL_EXECUTIONS).values(typed(TOOL_EXECUTIONS, columns))


@functools.lru_cache(maxsize=8)
def add_with_task(task_columns: tuple[str, ...], execution_columns: tuple[str, ...]) -> sa.Insert:
    """Postgres: a new task and the tool execution row of the call that added it, in ONE statement
    (the task as a data-modifying CTE): the change is never stored without its record, with no
    BEGIN/COMMIT. For rows of these columns (the others take their defaults), built once; the bind
    parameters are prefixed, `t_` the task's and `x_` the execution's."""
    task = sa.insert(TASKS).values(typed(TASKS, task_columns, prefix="t_"))
    return (
        sa.insert(TOOL_EXECUTIONS)
        .values(typed(TOOL_EXECUTIONS, execution_columns, prefix="x_"))
        .add_cte(task.cte("task"))
    )


@functools.lru_cache(maxsize=128)
def write_with_execution(written: sa.CTE, execution_columns: tuple[str, ...]) -> sa.Insert:
    """Postgres: a held change or delete of a task (`written`, tasks.py) and the tool execution row of
    the call that made it, in ONE statement: the row is inserted for each task the write returns, so
    a task no longer at the version read gets neither, and the change is never stored without its
    record. Returns the row's id; the row's bind parameters are prefixed `x_`."""
    row = sa.select(*typed(TOOL_EXECUTIONS, execution_columns, prefix="x_").values()).select_from(written)
    return (
        sa.insert(TOOL_EXECUTIONS)
        .from_select(list(execution_columns), row, include_defaults=False)
        .returning(TOOL_EXECUTIONS.c.id)
    )


TOUCH = (
    sa.update(CONVERSATIONS)
    .where(CONVERSATIONS.c.id == sa.bindparam("conversation_id"), CONVERSATIONS.c.user_id == sa.bindparam("owner"))
    .values(updated_at=sa.bindparam("now"))
)


def newest_messages(*columns: Any) -> sa.Select[Any]:
    """The owner's newest non-error messages of a conversation, newest first (bind parameters:
    conversation_id, owner, limit)."""
    return (
        sa.select(*columns)
        .where(
            MESSAGES.c.conversation_id == sa.bindparam("conversation_id"),
            MESSAGES.c.user_id == sa.bindparam("owner"),
            MESSAGES.c.is_error.is_(False),
        )
        .order_by(MESSAGES.c.created_at.desc(), MESSAGES.c.id.desc())
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


RECENT_MESSAGES = newest_messages(MESSAGES.c.role, MESSAGES.c.content, MESSAGES.c.context)


# Postgres: a turn's assistant message and the conversation's `updated_at` (`TOUCH`, as a CTE) in ONE
# statement (a data-modifying CTE runs exactly once, atomically), so recording a turn is one round
# trip with no BEGIN/COMMIT. (The turn's tool executions are already stored, with their effects:
# `TaskTools`.) The message's bind parameters are prefixed so they cannot meet `TOUCH`'s.
RECORD_TURN = (
    sa.insert(MESSAGES)
    .values(typed(MESSAGES, (c.name for c in MESSAGES.columns), prefix="m_"))
    .add_cte(TOUCH.cte("touch"))
)

# Postgres: a turn's first statement, ONE round trip, in autocommit when nothing else shares its
# transaction (services/turn/store.py). The rate limit (`rate_limit_take`) runs once for the
# conversation's row when it is this user's (a LATERAL call on the row: no row, no call), the message is
# inserted (a data-modifying CTE) only if the limit took it, and the history beside it is read from the
# statement's snapshot, so it holds the messages before this one. The history comes first in the UNION
# so that its columns' types (JSON `context`) are the result's; the rate limit's row is told apart by
# its `taken`, NULL on the history's rows. The message's bind parameters are prefixed (`_prefixed`).
TAKEN = rate_limit.taken_for(CONVERSATIONS.c.user_id)
LIMITED = (
    sa.select(TAKEN.c.oldest, TAKEN.c.taken)
    .select_from(CONVERSATIONS)
    .join(TAKEN, sa.true())
    .where(CONVERSATIONS.c.id == sa.bindparam("conversation_id"), CONVERSATIONS.c.user_id == sa.bindparam("owner"))
    .cte("limited")
)


def insert_message_from(source: sa.CTE, *, where: Any = None) -> sa.CTE:
    """The message of `_prefixed` bind parameters inserted once for each row of `source` (that meets `where`)."""
    values = sa.select(*(sa.bindparam(f"m_{c.name}", type_=c.type) for c in MESSAGES.columns)).select_from(source)
    if where is not None:
        values = values.where(where)
    return sa.insert(MESSAGES).from_select([c.name for c in MESSAGES.columns], values).cte("added")


HISTORY = newest_messages(
    MESSAGES.c.role,
    MESSAGES.c.content,
    MESSAGES.c.context,
    MESSAGES.c.created_at,
    MESSAGES.c.id,
    sa.cast(sa.null(), sa.Boolean).label("taken"),
).subquery("history")
CONTINUE = sa.union_all(
    sa.select(HISTORY),
    sa.select(sa.null(), sa.null(), sa.null(), LIMITED.c.oldest, sa.null(), LIMITED.c.taken),
).add_cte(insert_message_from(LIMITED, where=LIMITED.c.taken))

# Postgres: a new conversation's first statement: the rate limit, then the conversation and its first
# message only if the limit took them (the conversation's bind parameters are prefixed `c_`).
TAKEN_NEW = rate_limit.taken_for(sa.bindparam("owner"))
LIMITED_NEW = sa.select(TAKEN_NEW.c.oldest, TAKEN_NEW.c.taken).cte("limited")
CREATED = (
    sa.insert(CONVERSATIONS)
    .from_select(
        [c.name for c in CONVERSATIONS.columns],
        sa.select(*(sa.bindparam(f"c_{c.name}", type_=c.type) for c in CONVERSATIONS.columns))
        .select_from(LIMITED_NEW)
        .where(LIMITED_NEW.c.taken),
    )
    .returning(CONVERSATIONS.c.id)
    .cte("created")
)
START = sa.select(LIMITED_NEW.c.oldest, LIMITED_NEW.c.taken).add_cte(CREATED, insert_message_from(CREATED))
