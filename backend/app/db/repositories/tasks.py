"""Every task query, always scoped by the owner. Mutations are single statements with RETURNING.

Writes name the `version` they read (`... WHERE id = :id AND user_id = :uid AND version = :v`),
so when two requests race on one task exactly one wins; the other sees zero rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import Task, utcnow

_T = Task.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class TaskRow:
    id: uuid.UUID
    title: str
    version: int


class TaskRepository:
    def __init__(self, session: AsyncSession, user_id: str) -> None:
        self.session = session
        self.user_id = user_id

    async def add(
        self, *, title: str, description: str | None, priority: str, due_date: date | None, tags: list[str]
    ) -> Task:
        now = utcnow()
        task = Task(
            user_id=self.user_id,
            title=title,
            description=description,
            priority=priority,
            due_date=due_date,
            tags=tags,
            created_at=now,
            updated_at=now,
        )
        self.session.add(task)
        await self.session.flush()
        return task

    async def list_tasks(self, *, status: str = "all", limit: int | None = None) -> Sequence[Task]:
        query = sa.select(Task).where(_T.c.user_id == self.user_id)
        if status != "all":
            query = query.where(_T.c.status == status)
        query = query.order_by(_T.c.created_at.desc(), _T.c.id)
        if limit is not None:
            query = query.limit(limit)
        return (await self.session.scalars(query)).all()

    async def count(self, *, status: str = "all") -> int:
        query = sa.select(sa.func.count()).select_from(_T).where(_T.c.user_id == self.user_id)
        if status != "all":
            query = query.where(_T.c.status == status)
        return int((await self.session.execute(query)).scalar_one())

    async def get_row(self, task_id: uuid.UUID) -> TaskRow | None:
        row = (
            await self.session.execute(
                sa.select(_T.c.id, _T.c.title, _T.c.version).where(_T.c.id == task_id, _T.c.user_id == self.user_id)
            )
        ).first()
        return TaskRow(row.id, row.title, row.version) if row else None

    async def rows(self) -> list[TaskRow]:
        """Id, title and version of every task of the owner: the resolver's candidates."""
        result = await self.session.execute(
            sa.select(_T.c.id, _T.c.title, _T.c.version).where(_T.c.user_id == self.user_id)
        )
        return [TaskRow(r.id, r.title, r.version) for r in result]

    async def update(self, row: TaskRow, values: dict[str, Any]) -> Task | None:
        statement = (
            sa.update(_T)
            .where(_T.c.id == row.id, _T.c.user_id == self.user_id, _T.c.version == row.version)
            .values(**values, version=_T.c.version + 1, updated_at=utcnow())
            .returning(*_T.c)
        )
        found = (await self.session.execute(statement)).first()
        return Task.model_validate(found._mapping) if found else None

    async def delete(self, row: TaskRow) -> bool:
        statement = (
            sa.delete(_T)
            .where(_T.c.id == row.id, _T.c.user_id == self.user_id, _T.c.version == row.version)
            .returning(_T.c.id)
        )
        return (await self.session.execute(statement)).first() is not None
