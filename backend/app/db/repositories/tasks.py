"""Every task query, always scoped by the owner. Mutations are single statements with RETURNING.

Writes name the `version` they read (`... WHERE id = :id AND user_id = :uid AND version = :v`),
so when two requests race on one task exactly one wins; the other sees zero rows.

`candidates` is every read a lookup by title does: on Postgres an exact title first, and for users
with many tasks a shortlist from the trigram index (migration 0002), so 100k titles never travel
to Python.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import Task, utcnow

_T = Task.__table__  # type: ignore[attr-defined]

# pg_trgm thresholds of the shortlist: loose enough to keep typos, plurals and a reference that is
# part of a longer title ("budget report" in "Email the budget report to Dana"), which the resolver
# then scores; tighter ones drop such matches, looser ones cost more index work at 100k tasks.
SIMILARITY_THRESHOLD = 0.5
WORD_SIMILARITY_THRESHOLD = 0.6
_WORD = re.compile(r"\w+")


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
    source: Literal["exact", "all", "shortlist"]
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

    async def candidates(self, reference: str, *, limit: int, all_up_to: int, exact_first: bool = True) -> Candidates:
        """The titles the resolver should choose from for `reference`: every read a lookup by title does.

        SQLite: every task (resolved in process). Postgres, in one indexed statement first: the tasks
        titled `reference` (lowercased), which decide alone as in the resolver (`exact_first`); else
        every task when the owner has at most `all_up_to`; else a shortlist of at most `limit`
        titles close to it (pg_trgm, migration 0002), `cut` when it may have left some out.
        """
        if self.session.get_bind().dialect.name != "postgresql":
            return Candidates(await self._all_rows(), "all", cut=False)
        ref = reference.strip().lower()
        exact, owned = await self._exact_and_count(ref, cap=all_up_to + 1)
        if exact and exact_first:
            return Candidates(exact, "exact", cut=False)
        if owned <= all_up_to:
            return Candidates(await self._all_rows(), "all", cut=False)
        rows = await self._shortlist(ref, limit=limit)
        return Candidates(rows, "shortlist", cut=len(rows) >= limit)

    async def _all_rows(self) -> list[TaskRow]:
        result = await self.session.execute(
            sa.select(_T.c.id, _T.c.title, _T.c.version).where(_T.c.user_id == self.user_id)
        )
        return [TaskRow(r.id, r.title, r.version) for r in result]

    async def _exact_and_count(self, ref: str, *, cap: int) -> tuple[list[TaskRow], int]:
        """Tasks whose lowercased title is `ref`, and how many tasks the owner has, counted up to `cap`.

        Both halves run on indexes (the lower(title) btree; the owner's index, read only), so this
        costs the same at 100k tasks, and most references are a title as listed.
        """
        owned = sa.select(sa.literal(1)).where(_T.c.user_id == self.user_id).limit(cap).subquery()
        count = sa.select(sa.func.count()).select_from(owned).scalar_subquery().correlate(None)
        # (SELECT 1) LEFT JOIN the exact matches: one row with NULL columns and the count when none match.
        one = sa.select(sa.literal(1).label("one")).subquery("one")
        task = _T.alias("t")
        matches = sa.and_(task.c.user_id == self.user_id, sa.func.lower(task.c.title) == ref)
        query = sa.select(count.label("owned"), task.c.id, task.c.title, task.c.version).select_from(
            one.outerjoin(task, matches)
        )
        rows = (await self.session.execute(query)).all()
        return [TaskRow(r.id, r.title, r.version) for r in rows if r.id is not None], int(rows[0].owned)

    async def _shortlist(self, ref: str, *, limit: int) -> list[TaskRow]:
        """At most `limit` tasks whose titles are close to `ref`, closest first.

        A task qualifies by title equal to it (those come first), by trigram similarity to the whole
        title, by word similarity (the reference close to a part of the title), or by containing every
        word of the reference; the trigram index serves all of them.
        """
        lowered = sa.func.lower(_T.c.title)
        # SET LOCAL, for this transaction only: the thresholds (only these operators read them), and the
        # price of an operator: the planner prices a trigram comparison (~10 us) like an integer one
        # (cpu_operator_cost 0.0025), so with some 10k rows it filters them all (150 ms) rather than
        # read the trigram index (3 ms). The tool's other statements here go by primary key either way.
        await self.session.execute(
            sa.select(
                sa.func.set_config("pg_trgm.similarity_threshold", str(SIMILARITY_THRESHOLD), True),
                sa.func.set_config("pg_trgm.word_similarity_threshold", str(WORD_SIMILARITY_THRESHOLD), True),
                sa.func.set_config("cpu_operator_cost", "0.1", True),
            )
        )
        words = [lowered.like(f"%{w}%") for w in _stems(ref)]
        close = sa.or_(
            lowered == ref,
            lowered.op("%")(ref),
            sa.literal(ref).op("<%")(lowered),
            sa.and_(*words) if words else sa.false(),
        )
        similarity = sa.func.similarity(lowered, ref)
        score = sa.func.greatest(similarity, sa.func.word_similarity(ref, lowered))
        # Ties (a reference inside several titles) go to the title closest to it as a whole.
        order = ((lowered == ref).desc(), score.desc(), similarity.desc(), _T.c.id)
        query = sa.select(_T.c.id, _T.c.title, _T.c.version).where(_T.c.user_id == self.user_id, close)
        query = query.order_by(*order).limit(limit)
        return [TaskRow(r.id, r.title, r.version) for r in await self.session.execute(query)]

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


def _stems(reference: str) -> list[str]:
    """The reference's words of 3+ letters, plural endings cut so "%book%" also finds "books".

    Cutting too much only widens the LIKE filter ("notes" -> "not"); the resolver scores the rest.
    Words are \\w only, so they hold no LIKE wildcard.
    """
    stems = []
    for word in _WORD.findall(reference):
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3]
        elif word.endswith("es") and len(word) > 4:
            word = word[:-2]
        elif word.endswith("s") and len(word) > 3:
            word = word[:-1]
        if len(word) >= 3 and "_" not in word:
            stems.append(word)
    return stems
