"""Conversations, messages and tool executions, always scoped by the owner.

The writes of a chat turn are Core INSERTs executed at once (no ORM unit of work to flush at commit:
that was a third of a turn's database CPU); the rows' ids and times are set here, in Python.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.driver import fetch
from backend.app.db.models import Conversation, Message, utcnow
from backend.app.db.repositories import conversation_statements as sql
from backend.app.db.repositories import rate_limit
from backend.app.db.repositories.paging import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    after,
    decode,
    encode,
)
from backend.app.db.repositories.tasks import INSERT_TASK, HeldWrite


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """A message of the history; an assistant turn's `context` is its account as stored (JSON: read by
    tools/referents.py `TurnAccount.from_json`, and its `line` by services/turn/history.py)."""

    role: str
    content: str
    context: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Opened:
    """A turn's start in a conversation: whether the conversation is this user's (`found`), the rate
    limit's verdict, and, when both let the user's message in (it is then stored), the history
    before it."""

    conversation_id: uuid.UUID
    found: bool
    verdict: rate_limit.Verdict
    history: list[HistoryRow]


def _message_row(
    *,
    message_id: uuid.UUID,
    conversation_id: uuid.UUID,
    user_id: str,
    role: str,
    content: str,
    tool_call_metadata: list[dict[str, Any]] | None = None,
    action_metadata: dict[str, Any] | None = None,
    execution_metadata: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    is_error: bool = False,
) -> dict[str, Any]:
    """A message's row, every column of `messages`, written now."""
    return {
        "id": message_id,
        "conversation_id": conversation_id,
        "user_id": user_id,
        "role": role,
        "content": content,
        "tool_call_metadata": tool_call_metadata,
        "action_metadata": action_metadata,
        "execution_metadata": execution_metadata,
        "context": context,
        "is_error": is_error,
        "created_at": utcnow(),
    }


def _prefixed(row: dict[str, Any]) -> dict[str, Any]:
    """A message row as the bind parameters of a statement that also binds others (`m_` + column)."""
    return {f"m_{column}": value for column, value in row.items()}


class ConversationRepository:
    def __init__(self, session: AsyncSession, user_id: str) -> None:
        self.session = session
        self.user_id = user_id

    async def create(self, *, title: str, conversation_id: uuid.UUID | None = None) -> uuid.UUID:
        """A new conversation of this user (with `conversation_id` when given); returns its id."""
        conversation_id, now = conversation_id or uuid.uuid4(), utcnow()
        await self.session.execute(
            sql.INSERT_CONVERSATION,
            {
                "id": conversation_id,
                "user_id": self.user_id,
                "title": title[:200],
                "created_at": now,
                "updated_at": now,
            },
        )
        return conversation_id

    async def open(self, conversation_id: uuid.UUID, *, title: str) -> bool:
        """This user's conversation `conversation_id`, created when it is new: True when created.
        Two first turns racing to create it are one conversation (the loser's insert is undone in
        its savepoint and finds the winner's). An id another user holds is an IntegrityError (the
        ids given here are derived from the user's id, so it does not happen)."""
        if await self.exists(conversation_id):
            return False
        try:
            async with self.session.begin_nested():
                await self.create(title=title, conversation_id=conversation_id)
        except sa.exc.IntegrityError:
            if await self.exists(conversation_id):
                return False
            raise
        return True

    async def exists(self, conversation_id: uuid.UUID) -> bool:
        query = sa.select(sql.CONVERSATIONS.c.id).where(
            sql.CONVERSATIONS.c.id == conversation_id, sql.CONVERSATIONS.c.user_id == self.user_id
        )
        return (await self.session.execute(query)).first() is not None

    async def list_conversations(
        self, *, limit: int = DEFAULT_LIMIT, cursor: str | None = None
    ) -> tuple[list[Conversation], str | None]:
        """A page of conversations, most recently active first, and the next page's cursor."""
        query = sa.select(Conversation).where(sql.CONVERSATIONS.c.user_id == self.user_id)
        if cursor is not None:
            query = query.where(after(sql.CONVERSATION_ORDER, decode("conversations", cursor, sql.CONVERSATION_ORDER)))
        query = query.order_by(*(o.sort() for o in sql.CONVERSATION_ORDER)).limit(limit + 1)
        rows = list((await self.session.scalars(query)).all())
        page = rows[:limit]
        more = len(rows) > limit and page
        return page, encode("conversations", [page[-1].updated_at, page[-1].id]) if more else None

    async def touch(self, conversation_id: uuid.UUID) -> None:
        await self.session.execute(
            sql.TOUCH, {"conversation_id": conversation_id, "owner": self.user_id, "now": utcnow()}
        )

    async def recent_messages(self, conversation_id: uuid.UUID, *, limit: int) -> list[HistoryRow]:
        """The newest non-error messages, oldest first, with each assistant turn's context."""
        params = {"conversation_id": conversation_id, "owner": self.user_id, "limit": limit}
        rows = (await self.session.execute(sql.RECENT_MESSAGES, params)).all()
        return [HistoryRow(r.role, r.content, r.context) for r in reversed(rows)]

    async def start(self, *, title: str, content: str, take: rate_limit.Take) -> Opened:
        """A new conversation of this user with its first message, if the rate limit takes this
        request: one statement on Postgres (`sql.START`), three in the caller's transaction elsewhere."""
        conversation_id, now = uuid.uuid4(), utcnow()
        conversation = {"id": conversation_id, "user_id": self.user_id, "title": title[:200]}
        conversation |= {"created_at": now, "updated_at": now}
        message = _message_row(
            message_id=uuid.uuid4(), conversation_id=conversation_id, user_id=self.user_id, role="user", content=content
        )
        if self.session.get_bind().dialect.name != "postgresql":
            verdict = await rate_limit.take(self.session, user_id=self.user_id, take=take)
            if verdict.allowed:
                await self.session.execute(sql.INSERT_CONVERSATION, conversation)
                await self.session.execute(sql.INSERT_MESSAGE, message)
            return Opened(conversation_id, True, verdict, [])
        params = {f"c_{k}": v for k, v in conversation.items()} | _prefixed(message) | take.params()
        (taken,) = await fetch(self.session, sql.START, params | {"owner": self.user_id})
        return Opened(conversation_id, True, take.verdict(taken=taken.taken, oldest=taken.oldest), [])

    async def continue_with(
        self, conversation_id: uuid.UUID, *, content: str, limit: int, take: rate_limit.Take
    ) -> Opened:
        """The next user message of this user's conversation, if it is this user's and the rate limit
        takes it, with its history (`recent_messages`, the messages before this one): one statement
        on Postgres (`sql.CONTINUE`). Nothing is stored, nor counted, for a conversation not this user's."""
        if self.session.get_bind().dialect.name != "postgresql":
            history = await self.recent_messages(conversation_id, limit=limit)
            # Every conversation starts with a stored user message, so history found (it is filtered by
            # owner) proves the conversation is this user's: the existence query runs only if not.
            if not history and not await self.exists(conversation_id):
                return Opened(conversation_id, False, rate_limit.Verdict(False), [])
            verdict = await rate_limit.take(self.session, user_id=self.user_id, take=take)
            if verdict.allowed:
                await self.add_message(conversation_id=conversation_id, role="user", content=content)
            return Opened(conversation_id, True, verdict, history)
        message = _message_row(
            message_id=uuid.uuid4(), conversation_id=conversation_id, user_id=self.user_id, role="user", content=content
        )
        params = _prefixed(message) | take.params()
        params |= {"conversation_id": conversation_id, "owner": self.user_id, "limit": limit}
        rows = await fetch(self.session, sql.CONTINUE, params)
        taken = next((r for r in rows if r.taken is not None), None)
        if taken is None:
            return Opened(conversation_id, False, rate_limit.Verdict(False), [])
        before = sorted((r for r in rows if r.taken is None), key=lambda r: (r.created_at, r.id))  # oldest first
        history = [HistoryRow(r.role, r.content, r.context) for r in before]
        return Opened(conversation_id, True, take.verdict(taken=taken.taken, oldest=taken.created_at), history)

    async def messages(
        self, conversation_id: uuid.UUID, *, limit: int = MAX_LIMIT, cursor: str | None = None
    ) -> tuple[list[Message], str | None]:
        """A page of a conversation's messages, oldest first, and the next page's cursor."""
        query = sa.select(Message).where(
            sql.MESSAGES.c.conversation_id == conversation_id, sql.MESSAGES.c.user_id == self.user_id
        )
        if cursor is not None:
            query = query.where(after(sql.MESSAGE_ORDER, decode("messages", cursor, sql.MESSAGE_ORDER)))
        query = query.order_by(*(o.sort() for o in sql.MESSAGE_ORDER)).limit(limit + 1)
        rows = list((await self.session.scalars(query)).all())
        page = rows[:limit]
        more = len(rows) > limit and page
        return page, encode("messages", [page[-1].created_at, page[-1].id]) if more else None

    async def add_message(
        self,
        *,
        conversation_id: uuid.UUID,
        role: str,
        content: str,
        message_id: uuid.UUID | None = None,
        tool_call_metadata: list[dict[str, Any]] | None = None,
        action_metadata: dict[str, Any] | None = None,
        execution_metadata: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        is_error: bool = False,
    ) -> uuid.UUID:
        message_id = message_id or uuid.uuid4()
        row = _message_row(
            message_id=message_id,
            conversation_id=conversation_id,
            user_id=self.user_id,
            role=role,
            content=content,
            tool_call_metadata=tool_call_metadata,
            action_metadata=action_metadata,
            execution_metadata=execution_metadata,
            context=context,
            is_error=is_error,
        )
        await self.session.execute(sql.INSERT_MESSAGE, row)
        return message_id

    async def record_turn(
        self,
        *,
        conversation_id: uuid.UUID,
        message_id: uuid.UUID,
        content: str,
        tool_call_metadata: list[dict[str, Any]] | None,
        action_metadata: dict[str, Any] | None,
        execution_metadata: dict[str, Any] | None,
        context: dict[str, Any] | None = None,
    ) -> None:
        """The assistant message and the conversation's `updated_at` of a turn.

        One statement on Postgres (`sql.RECORD_TURN`; `unit_of_work(single_statement=True)` then runs it
        without BEGIN/COMMIT); two elsewhere, in the caller's transaction.
        """
        message = _message_row(
            message_id=message_id,
            conversation_id=conversation_id,
            user_id=self.user_id,
            role="assistant",
            content=content,
            tool_call_metadata=tool_call_metadata,
            action_metadata=action_metadata,
            execution_metadata=execution_metadata,
            context=context,
        )
        if self.session.get_bind().dialect.name != "postgresql":
            await self.session.execute(sql.INSERT_MESSAGE, message)
            await self.touch(conversation_id)
            return
        params = _prefixed(message) | {"conversation_id": conversation_id, "owner": self.user_id}
        params["now"] = message["created_at"]  # the conversation touched at the message's time
        await fetch(self.session, sql.RECORD_TURN, params)

    async def turn_changed_tasks(self, turn_id: uuid.UUID, *, mutating: Collection[str]) -> bool:
        """Whether a call of `mutating` tools in this turn succeeded: its change is committed (with its
        `tool_executions` row, in one transaction), whatever became of the turn afterwards."""
        query = sa.select(
            sa.exists().where(
                sql.TOOL_EXECUTIONS.c.user_id == self.user_id,
                sql.TOOL_EXECUTIONS.c.turn_id == turn_id,
                sql.TOOL_EXECUTIONS.c.success.is_(True),
                sql.TOOL_EXECUTIONS.c.tool_name.in_(sorted(mutating)),
            )
        )
        return bool((await self.session.execute(query)).scalar())

    async def add_tool_executions(
        self, rows: Sequence[dict[str, Any]], *, tasks: Sequence[dict[str, Any]] = (), write: HeldWrite | None = None
    ) -> bool:
        """Insert tool execution rows (column -> value; `id` and `created_at` are filled in) in one
        statement, and the new `tasks` (their rows, as `TaskRepository` held them) with them: one
        task and one row are ONE statement on Postgres (`sql.add_with_task`), atomic without a transaction.
        With the one row of a call whose `write` was held, the write and the row are one statement
        (`sql.write_with_execution`): False when the task was no longer the version read, and then
        neither was stored."""
        if not rows:
            return True
        now = utcnow()
        # A microsecond apart, so the calls of one step keep their order (undo reverts newest first).
        values = [
            {"id": uuid.uuid4(), "created_at": now + timedelta(microseconds=i), **row, "user_id": self.user_id}
            for i, row in enumerate(rows)
        ]
        if write is not None:
            assert len(values) == 1 and not tasks  # one call's write, held (TaskTools)
            params = write.params | {f"x_{k}": v for k, v in values[0].items()}
            return bool(await fetch(self.session, sql.write_with_execution(write.written, tuple(values[0])), params))
        if len(tasks) == 1 and len(values) == 1 and self.session.get_bind().dialect.name == "postgresql":
            task, execution = tasks[0], values[0]
            params = {f"t_{k}": v for k, v in task.items()} | {f"x_{k}": v for k, v in execution.items()}
            await fetch(self.session, sql.add_with_task(tuple(task), tuple(execution)), params)
            return True
        if tasks:
            await self.session.execute(INSERT_TASK, list(tasks))
        if len(values) == 1:
            await fetch(self.session, sql.insert_execution(tuple(values[0])), values[0])
            return True
        await self.session.execute(sql.INSERT_TOOL_EXECUTIONS, values)
        return True
