"""The change log behind undo: `tool_executions` rows that changed a task, owner-scoped.

A change set is one turn's successful changes (a chat turn, one MCP call, one REST request): the
rows sharing its `turn_id`. Undo takes the newest change set not undone yet, newest change first.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.calls.tools import Tool, traits
from backend.app.db.models import ToolExecution
from backend.app.db.session import lock_until_commit

_X = ToolExecution.__table__  # type: ignore[attr-defined]
CHANGE_TOOLS = tuple(t for t in Tool if traits(t).changes and t is not Tool.UNDO)  # what undo takes back


@dataclass(frozen=True, slots=True)
class RecordedChange:
    id: uuid.UUID
    turn_id: uuid.UUID
    tool_name: str
    task_id: uuid.UUID
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    source: str
    created_at: datetime


class ChangeRepository:
    def __init__(self, session: AsyncSession, user_id: str) -> None:
        self.session = session
        self.user_id = user_id

    def _changes(self, *, undone: bool = False) -> sa.ColumnElement[bool]:
        """The user's recorded changes that are not undone (or, with `undone`, that are)."""
        return sa.and_(
            _X.c.user_id == self.user_id,
            _X.c.success.is_(True),
            _X.c.undone_at.is_not(None) if undone else _X.c.undone_at.is_(None),
            _X.c.task_id.is_not(None),
            _X.c.tool_name.in_(CHANGE_TOOLS),
        )

    async def last_change_set(self) -> list[RecordedChange]:
        """The newest turn's changes that are not undone, newest first (the order to revert them in)."""
        newest = sa.select(_X.c.turn_id).where(self._changes()).order_by(_X.c.created_at.desc()).limit(1)
        return await self._change_set(self._changes(), newest)

    async def _change_set(self, which: sa.ColumnElement[bool], turn: sa.Select[Any]) -> list[RecordedChange]:
        """The changes `which` selects of the change set `turn` names, newest first."""
        query = (
            sa.select(_X)
            .where(which, _X.c.turn_id == turn.scalar_subquery())
            .order_by(_X.c.created_at.desc(), _X.c.id.desc())
        )
        rows = (await self.session.execute(query)).all()
        return [
            RecordedChange(r.id, r.turn_id, r.tool_name, r.task_id, r.before, r.after, r.source, r.created_at)
            for r in rows
        ]

    async def touched_later(self, change: RecordedChange) -> bool:
        """Whether a change of another change set, made after `change` and not undone, touched its task."""
        query = sa.select(
            sa.exists().where(
                self._changes(),
                _X.c.task_id == change.task_id,
                _X.c.created_at > change.created_at,
                _X.c.turn_id != change.turn_id,
            )
        )
        return bool((await self.session.execute(query)).scalar())

    async def lock_undo(self) -> None:
        """Run this user's undos one at a time, to the end of the transaction."""
        await lock_until_commit(self.session, f"taskchat.undo:{self.user_id}")

    async def last_undone(self, *, since: datetime) -> list[RecordedChange]:
        """The change set undone most recently, if that was at or after `since`, newest change first."""
        undone = self._changes(undone=True)
        latest = sa.select(_X.c.turn_id).where(undone, _X.c.undone_at >= since).order_by(_X.c.undone_at.desc())
        return await self._change_set(undone, latest.limit(1))

    async def mark_undone(self, ids: Sequence[uuid.UUID], *, when: datetime) -> int:
        """Mark the changes undone; how many were not already (a racing undo may have been first)."""
        statement = (
            sa.update(_X)
            .where(_X.c.user_id == self.user_id, _X.c.id.in_(list(ids)), _X.c.undone_at.is_(None))
            .values(undone_at=when)
        )
        result = await self.session.execute(statement)
        return int(result.rowcount)  # type: ignore[attr-defined]
