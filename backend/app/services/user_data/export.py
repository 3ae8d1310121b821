"""A user's own data: all of it as JSON (`GET /api/{user_id}/export`), or none of it
(`DELETE /api/{user_id}/data`), and the conversations the service forgets past
`CONVERSATION_RETENTION_DAYS`.

Export holds what the user made and what was said: tasks, deleted tasks still restorable,
conversations with their messages, every tool execution (the change log, with each change's
before and after) and pending confirmations. Erase deletes every row that carries the user's id, in
every table (those too, and the derived ones: search words, idempotency keys, rate-limit events),
in one transaction: all of it or nothing. What was erased is logged by count, never by content.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import SQLModel

from backend.app.db import models

log = logging.getLogger(__name__)

# What an export holds, in this order: a key of the JSON per table.
_EXPORTED: tuple[tuple[str, Any], ...] = (
    ("tasks", models.Task),
    ("deleted_tasks", models.DeletedTask),
    ("conversations", models.Conversation),
    ("messages", models.Message),
    ("tool_executions", models.ToolExecution),
    ("pending_confirmations", models.PendingConfirmation),
    ("preferences", models.UserPreference),
)


def _table(model: Any) -> sa.Table:
    return model.__table__  # type: ignore[no-any-return]


async def export(session: AsyncSession, user_id: str) -> dict[str, object]:
    """Every row of the user's own data, table by table, oldest first (as the rows hold them: the
    route's JSON writes their times and ids as strings)."""
    data: dict[str, object] = {"user_id": user_id}
    for key, model in _EXPORTED:
        table = _table(model)
        order = [table.c.created_at] if "created_at" in table.c else []
        rows = await session.execute(sa.select(table).where(table.c.user_id == user_id).order_by(*order))
        data[key] = [row._asdict() for row in rows]
    return data


async def erase(session: AsyncSession, user_id: str) -> dict[str, int]:
    """Delete every row carrying the user's id, children first; how many of each table."""
    erased: dict[str, int] = {}
    for table in reversed(SQLModel.metadata.sorted_tables):
        if "user_id" not in table.c:
            continue
        result = await session.execute(sa.delete(table).where(table.c.user_id == user_id))
        erased[str(table.name)] = int(result.rowcount)  # type: ignore[attr-defined]
    log.info("user_data_erased", extra={"user_id": user_id, "rows": erased, "total": sum(erased.values())})
    return erased


async def forget_conversations(session: AsyncSession, *, older_than: datetime) -> int:
    """Conversations untouched since `older_than`, with their messages, tool executions and pending
    confirmations (the database cascades); and tool executions of no conversation (MCP, REST) made
    before then. How many rows went."""
    conversations, executions = _table(models.Conversation), _table(models.ToolExecution)
    stale = sa.select(conversations.c.id).where(conversations.c.updated_at < older_than)
    removed = 0
    for child in (models.Message, models.ToolExecution, models.PendingConfirmation):
        table = _table(child)
        result = await session.execute(sa.delete(table).where(table.c.conversation_id.in_(stale)))
        removed += int(result.rowcount)  # type: ignore[attr-defined]
    loose = sa.delete(executions).where(executions.c.conversation_id.is_(None), executions.c.created_at < older_than)
    removed += int((await session.execute(loose)).rowcount)  # type: ignore[attr-defined]
    result = await session.execute(sa.delete(conversations).where(conversations.c.updated_at < older_than))
    return removed + int(result.rowcount)  # type: ignore[attr-defined]
