"""Every task query, always scoped by the owner. Mutations are single statements with RETURNING.

Writes name the `version` they read (`... WHERE id = :id AND user_id = :uid AND version = :v`),
so when two requests race on one task exactly one wins; the other sees zero rows.

`candidates` is every read a lookup by title does: on Postgres an exact title first, and for users
with many tasks a shortlist from the title indexes (migration 0002: the owner's title words, then
trigrams), so 100k titles never travel to Python.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import Task, utcnow

_T = Task.__table__  # type: ignore[attr-defined]

# pg_trgm thresholds of the shortlist: loose enough to keep typos, plurals and a reference that is
# part of a longer title ("budget report" in "Email the budget report to Dana"), which the resolver
# then scores; tighter ones drop such matches, looser ones cost more index work at 100k tasks.
SIMILARITY_THRESHOLD = 0.5
WORD_SIMILARITY_THRESHOLD = 0.6
# A reference of more words than this skips "all words but one" (as many index scans as words).
MAX_WORDS_LEFT_OUT = 12
_WORDS = postgresql.ARRAY(sa.Text)
# SET LOCAL (this transaction only) by the lookup's first statement, which saves the shortlist a round
# trip: the trigram thresholds (only the trigram operators read them); the price of an operator: the
# planner prices a trigram comparison (~10 us) like an integer one (cpu_operator_cost 0.0025), so with
# some 10k rows it filters them all (150 ms) rather than read the trigram index (3 ms); and a plan made
# for this owner each time: a plan cached for any owner (after five runs of a statement) guesses an
# owner has a few tasks, and so would read a 100k-task owner's rows through the owner's index,
# filtering each one (10-15 ms at 100k tasks, seconds where owners are many); and no parallel worker:
# priced by those operator costs, a trigram lookup looks worth one, whose start alone takes longer
# (5-15 ms) than the lookup. The tool's other statements here go by primary key either way.
_LOOKUP_SETTINGS = (
    sa.func.set_config("pg_trgm.similarity_threshold", str(SIMILARITY_THRESHOLD), True).label("similarity_threshold"),
    sa.func.set_config("pg_trgm.word_similarity_threshold", str(WORD_SIMILARITY_THRESHOLD), True).label(
        "word_similarity_threshold"
    ),
    sa.func.set_config("cpu_operator_cost", "0.1", True).label("cpu_operator_cost"),
    sa.func.set_config("plan_cache_mode", "force_custom_plan", True).label("plan_cache_mode"),
    sa.func.set_config("max_parallel_workers_per_gather", "0", True).label("max_parallel_workers_per_gather"),
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

        SQLite: every task (resolved in process). Postgres, in one indexed statement first: the tasks
        titled `reference` (lowercased), which decide alone as in the resolver (`exact_first`); else
        every task when the owner has at most `all_up_to`; else a shortlist of at most `limit`
        titles close to it (`_by_words`, then `_by_trigrams`), `cut` when it may have left some out:
        `words` when titles holding every word of the reference were found (`words_first`), else
        `all_but_one_word` when titles holding all of them but one were, else `trigrams`.
        """
        if self.session.get_bind().dialect.name != "postgresql":
            return Candidates(await self._all_rows(), "all", cut=False)
        ref = reference.strip().lower()
        exact, owned = await self._exact_and_count(ref, cap=all_up_to + 1)
        if exact and exact_first:
            return Candidates(exact, "exact", cut=False)
        if owned <= all_up_to:
            return Candidates(await self._all_rows(), "all", cut=False)
        rows, every_word = await self._by_words(ref, limit=limit) if words_first else ([], False)
        if rows:
            return Candidates(rows, "words" if every_word else "all_but_one_word", cut=len(rows) >= limit)
        rows = await self._by_trigrams(ref, limit=limit)
        return Candidates(rows, "trigrams", cut=len(rows) >= limit)

    async def _all_rows(self) -> list[TaskRow]:
        result = await self.session.execute(
            sa.select(_T.c.id, _T.c.title, _T.c.version).where(_T.c.user_id == self.user_id)
        )
        return [TaskRow(r.id, r.title, r.version) for r in result]

    async def _exact_and_count(self, ref: str, *, cap: int) -> tuple[list[TaskRow], int]:
        """Tasks whose lowercased title is `ref`, and how many tasks the owner has, counted up to `cap`.

        Both halves run on indexes (the lower(title) btree; the owner's index, read only), so this
        costs the same at 100k tasks, and most references are a title as listed. The same statement
        sets what the shortlist's statements need (`_LOOKUP_SETTINGS`).
        """
        owned = sa.select(sa.literal(1)).where(_T.c.user_id == self.user_id).limit(cap).subquery()
        count = sa.select(sa.func.count()).select_from(owned).scalar_subquery().correlate(None)
        # (SELECT 1) LEFT JOIN the exact matches: one row with NULL columns and the count when none match.
        one = sa.select(sa.literal(1).label("one")).subquery("one")
        task = _T.alias("t")
        matches = sa.and_(task.c.user_id == self.user_id, sa.func.lower(task.c.title) == ref)
        query = sa.select(count.label("owned"), task.c.id, task.c.title, task.c.version, *_LOOKUP_SETTINGS)
        query = query.select_from(one.outerjoin(task, matches))
        rows = (await self.session.execute(query)).all()
        return [TaskRow(r.id, r.title, r.version) for r in rows if r.id is not None], int(rows[0].owned)

    async def _by_words(self, ref: str, *, limit: int) -> tuple[list[TaskRow], bool]:
        """At most `limit` tasks whose titles hold the words of `ref`, closest first, and whether they
        hold every word; the shortlist's first two steps, each one statement on the owner's word
        entries (migration 0002):

        1. titles holding every word of the reference, as full text search reads words (so "reports"
           finds "report"): the plural, case and vague references, and a part of a longer title;
        2. with three words or more, titles holding all of them but one: a typo in one word.

        Nothing found, the caller's third step is `_by_trigrams`: similarity to the whole title or to a
        part of it (a typo in a short reference, or nothing close at all). The word steps read a few
        index entries, well under a millisecond at 100k tasks, where the trigram step reads thousands
        (common trigrams are in thousands of titles), so they go first.
        """
        title_words = _title_words(_T.c.user_id, _T.c.title)
        # One statement: the reference's words (as the index holds them) and the titles holding them all.
        wanted = _title_words(sa.literal(self.user_id, sa.Text), sa.literal(ref, sa.Text))
        matches = self._closest(ref, title_words.contains(wanted), limit=limit, trigrams=False).subquery("m")
        one = sa.select(sa.literal(1).label("one")).subquery("one")
        query = (
            sa.select(wanted.label("words"), matches.c.id, matches.c.title, matches.c.version)
            .select_from(one.outerjoin(matches, sa.true()))
            .order_by(matches.c.equal.desc(), matches.c.distance, matches.c.id)
        )
        result = (await self.session.execute(query)).all()
        rows = [TaskRow(r.id, r.title, r.version) for r in result if r.id is not None]
        words: list[str] = list(result[0].words or [])
        if rows or not 3 <= len(words) <= MAX_WORDS_LEFT_OUT:
            return rows, True
        all_but_one = [title_words.contains(sa.literal(words[:i] + words[i + 1 :], _WORDS)) for i in range(len(words))]
        return await self._rows(self._closest(ref, sa.or_(*all_but_one), limit=limit, trigrams=False)), False

    async def _by_trigrams(self, ref: str, *, limit: int) -> list[TaskRow]:
        """At most `limit` tasks whose titles are close to `ref` by trigrams, closest first: equal to it,
        similar to the whole title, or to a part of it (the thresholds: `_LOOKUP_SETTINGS`, set first)."""
        lowered = sa.func.lower(_T.c.title)
        close = sa.or_(lowered == ref, lowered.op("%")(ref), sa.literal(ref).op("<%")(lowered))
        return await self._rows(self._closest(ref, close, limit=limit, trigrams=True))

    def _closest(self, ref: str, where: sa.ColumnElement[bool], *, limit: int, trigrams: bool) -> sa.Select[Any]:
        """The owner's tasks matching `where`, at most `limit`, closest to `ref` first: a title equal to it,
        then (`trigrams`) by trigram similarity to the whole title or to a part of it, ties to the title
        closest as a whole (a reference inside several titles); else, for titles holding the reference's
        words, by how far their length is from its own (the fewer other words, the closer): free to
        compute, where the trigram similarities cost some 20-70 us a title."""
        lowered = sa.func.lower(_T.c.title)
        equal = (lowered == ref).label("equal")
        query = sa.select(_T.c.id, _T.c.title, _T.c.version, equal).where(_T.c.user_id == self.user_id, where)
        if trigrams:
            similarity = sa.func.similarity(lowered, ref)
            score = sa.func.greatest(similarity, sa.func.word_similarity(ref, lowered))
            return query.order_by(equal.desc(), score.desc(), similarity.desc(), _T.c.id).limit(limit)
        distance = sa.func.abs(sa.func.length(_T.c.title) - len(ref)).label("distance")
        return query.add_columns(distance).order_by(equal.desc(), distance, _T.c.id).limit(limit)

    async def _rows(self, query: sa.Select[Any]) -> list[TaskRow]:
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


def _title_words(owner: sa.ColumnElement[Any], title: sa.ColumnElement[Any]) -> sa.ColumnElement[list[str]]:
    """`task_title_words(owner, title)` (migration 0002): the title's words, stemmed, prefixed with the owner."""
    return sa.func.task_title_words(owner, title, type_=_WORDS)
