"""Conversations, messages and tool executions, always scoped by the owner."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import Conversation, Message, ToolExecution, utcnow

_C = Conversation.__table__  # type: ignore[attr-defined]
_M = Message.__table__  # type: ignore[attr-defined]


class ConversationRepository:
    def __init__(self, session: AsyncSession, user_id: str) -> None:
        self.session = session
        self.user_id = user_id

    async def create(self, *, title: str) -> Conversation:
        now = utcnow()
        conversation = Conversation(user_id=self.user_id, title=title[:200], created_at=now, updated_at=now)
        self.session.add(conversation)
        await self.session.flush()
        return conversation

    async def exists(self, conversation_id: uuid.UUID) -> bool:
        query = sa.select(_C.c.id).where(_C.c.id == conversation_id, _C.c.user_id == self.user_id)
        return (await self.session.execute(query)).first() is not None

    async def list_conversations(self, *, limit: int = 100) -> Sequence[Conversation]:
        query = (
            sa.select(Conversation)
            .where(_C.c.user_id == self.user_id)
            .order_by(_C.c.updated_at.desc(), _C.c.id)
            .limit(limit)
        )
        return (await self.session.scalars(query)).all()

    async def touch(self, conversation_id: uuid.UUID) -> None:
        await self.session.execute(
            sa.update(_C).where(_C.c.id == conversation_id, _C.c.user_id == self.user_id).values(updated_at=utcnow())
        )

    async def recent_messages(self, conversation_id: uuid.UUID, *, limit: int) -> list[tuple[str, str]]:
        """(role, content) of the newest non-error messages, oldest first."""
        query = (
            sa.select(_M.c.role, _M.c.content)
            .where(_M.c.conversation_id == conversation_id, _M.c.user_id == self.user_id, _M.c.is_error.is_(False))
            .order_by(_M.c.created_at.desc(), _M.c.id.desc())
            .limit(limit)
        )
        rows = (await self.session.execute(query)).all()
        return [(r.role, r.content) for r in reversed(rows)]

    async def messages(self, conversation_id: uuid.UUID, *, limit: int = 500) -> Sequence[Message]:
        query = (
            sa.select(Message)
            .where(_M.c.conversation_id == conversation_id, _M.c.user_id == self.user_id)
            .order_by(_M.c.created_at, _M.c.id)
            .limit(limit)
        )
        return (await self.session.scalars(query)).all()

    def add_message(
        self,
        *,
        conversation_id: uuid.UUID,
        role: str,
        content: str,
        message_id: uuid.UUID | None = None,
        tool_call_metadata: list[dict[str, Any]] | None = None,
        action_metadata: dict[str, Any] | None = None,
        execution_metadata: dict[str, Any] | None = None,
        is_error: bool = False,
    ) -> Message:
        message = Message(
            id=message_id or uuid.uuid4(),
            conversation_id=conversation_id,
            user_id=self.user_id,
            role=role,
            content=content,
            tool_call_metadata=tool_call_metadata,
            action_metadata=action_metadata,
            execution_metadata=execution_metadata,
            is_error=is_error,
            created_at=utcnow(),
        )
        self.session.add(message)
        return message

    def add_tool_executions(self, rows: Sequence[ToolExecution]) -> None:
        self.session.add_all(rows)
