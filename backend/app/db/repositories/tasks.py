"""Every task query, always scoped by the owner. Mutations are single statements with RETURNING.

Writes name the `version` they read (`... WHERE id = :id AND user_id = :uid AND version = :v`),
so when two requests race on one task exactly one wins; the other sees zero rows.

`candidates` is every read a lookup by title does: on Postgres one statement (migration 0003) that
tries an exact title first and, for users with many tasks, a shortlist from the title indexes
(migration 0002: the owner's title words, then trigrams), so 100k titles never travel to Python.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import Task, utcnow

_T = Task.__table__  # type: ignore[attr-defined]

# One lookup by title, every step in the database (migration 0003): see `TaskRepository.candidates`.
_CANDIDATES = sa.text(
    "SELECT id, title, version, source "
    "FROM task_title_candidates(:owner, :ref, :all_up_to, :lim, :exact_first, :words_first)"
)


@dataclass(frozen=True, slots=True)
class TaskRow:
    id: uuid.UUID
    title: str
    version: int


@dataclass(frozen=True, slots=True)
class Candidates:
    """What `TaskRepository.candidates` found: the rows, how they were chosen, and whether a
    shortlist may have left out a title as close as the ones it kept."""

    rows: list[TaskRow]
    source: Literal["exact", "all", "words", "all_but_one_word", "trigrams"]
    cut: bool


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
        result = (await self.session.execute(_CANDIDATES, params)).all()
        rows = [TaskRow(r.id, r.title, r.version) for r in result if r.id is not None]
        source = result[0].source
        return Candidates(rows, source, cut=source not in ("exact", "all") and len(rows) >= limit)

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
