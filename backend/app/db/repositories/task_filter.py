"""What narrows a listing of the owner's tasks (`TaskFilter`: `GET /tasks` and `list_tasks`) and the
SQL conditions it becomes, the text search above all: folded words in the stored `search_doc`
(migration 0008) and, for a misspelt word, the owner's closest words (migrations 0009, 0010).
SQLite runs the same functions in Python (db/session.py). `TaskRepository` (tasks.py) pages and
counts with these conditions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import Task
from backend.app.db.session import like_anywhere

_T = Task.__table__  # type: ignore[attr-defined]
SHORT_WORD = 3  # a search word this long or shorter is not required on its own ("the", "for")
# A misspelt search word may mean the owner's words most similar to it (trigram similarity): at most
# CLOSE_WORDS of them, none under WORD_SIMILARITY: "grocereis" ~ "groceries" (0.36), "asaps" ~ "asap"
# (0.57); "quantum" finds nothing in a vocabulary of errands.
WORD_SIMILARITY = 0.25
CLOSE_WORDS = 5
# Postgres only (migration 0008: generated from title and description, not in the model: SQLite has none).
_SEARCH_DOC = sa.literal_column("tasks.search_doc", sa.Text)
# For the search's transaction: a plan made for each query. A cached generic plan knows neither the
# words' patterns (so not the trigram index) nor whether they are common or rare: walking the newest
# tasks through a filter is right for "photos" (1,200 matches: 7 ms) but 800 ms for a rare title.
# And the similarity `%` means when a misspelt word is looked up among the owner's words.
_SEARCH_SETTINGS = sa.text(
    "SELECT set_config('plan_cache_mode', 'force_custom_plan', true), "
    f"set_config('pg_trgm.similarity_threshold', '{WORD_SIMILARITY}', true)"
)
# What each asked word may mean, from the owner's words (migrations 0009, 0010): the word itself when
# the owner has it (a word someone wrote is taken as meant; the btree on (user_id, word)), else the
# CLOSE_WORDS most similar words at or above WORD_SIMILARITY (the GIN trigram index: ~0.2 ms a word
# at 6,000 words). Several rows may hold one word (task_words has no unique constraint): GROUP BY.
_CLOSE_WORDS = sa.text(
    "WITH asked AS MATERIALIZED ("
    "  SELECT a.word, task_search_fold(a.word) AS folded FROM unnest(CAST(:words AS text[])) AS a(word)), "
    "present AS MATERIALIZED ("
    "  SELECT asked.word, asked.folded FROM asked WHERE EXISTS ("
    "    SELECT 1 FROM task_words t WHERE t.user_id = :owner AND t.word = asked.folded)) "
    "SELECT word, folded, true FROM present "
    "UNION ALL "
    "SELECT asked.word, close.word, false FROM asked CROSS JOIN LATERAL ("
    "  SELECT t.word FROM task_words t WHERE t.user_id = :owner AND t.word % asked.folded"
    f"  GROUP BY t.word ORDER BY similarity(t.word, asked.folded) DESC, t.word LIMIT {CLOSE_WORDS}"
    ") AS close "
    "WHERE asked.word NOT IN (SELECT word FROM present)"
)


@dataclass(frozen=True, slots=True)
class TaskFilter:
    """What `GET /tasks` and `list_tasks` narrow by; every field optional. Due dates are inclusive."""

    status: Literal["all", "pending", "completed"] = "all"
    query: str | None = None  # in the title or description: any case, any accents, a typo allowed
    priority: Literal["low", "medium", "high"] | None = None
    tag: str | None = None
    due_before: date | None = None
    due_after: date | None = None
    overdue_on: date | None = None  # pending tasks due before this day (the user's today): overdue


class TaskConditions:
    """The owner's filter as SQL conditions, on one session (the search's settings are per transaction)."""

    def __init__(self, session: AsyncSession, user_id: str) -> None:
        self.session = session
        self.user_id = user_id

    async def conditions(self, where: TaskFilter, *, fuzzy: bool = False) -> list[sa.ColumnElement[bool]]:
        conditions: list[sa.ColumnElement[bool]] = []
        if where.status != "all":
            conditions.append(_T.c.status == where.status)
        if where.priority is not None:
            conditions.append(_T.c.priority == where.priority)
        if where.due_before is not None:
            conditions.append(_T.c.due_date <= where.due_before)
        if where.due_after is not None:
            conditions.append(_T.c.due_date >= where.due_after)
        if where.overdue_on is not None:
            conditions += [_T.c.status == "pending", _T.c.due_date < where.overdue_on]
        if where.tag is not None:
            conditions.append(self._has_tag(where.tag))
        if where.query is not None and where.query.strip():
            conditions.append(await self._matches(where.query.strip(), fuzzy=fuzzy))
        return conditions

    def _has_tag(self, tag: str) -> sa.ColumnElement[bool]:
        if self.session.get_bind().dialect.name == "postgresql":
            return sa.type_coerce(_T.c.tags, JSONB).op("@>")(sa.bindparam(None, [tag], type_=JSONB))
        tags = sa.func.json_each(_T.c.tags).table_valued("value")
        return sa.exists(sa.select(1).select_from(tags).where(tags.c.value == tag))

    async def _matches(self, text: str, *, fuzzy: bool) -> sa.ColumnElement[bool]:
        """The text is in the title or description (folded: any case, any accents), or each of its
        longer words is; `fuzzy`: or a word close to it is (a typo). Words of three letters or fewer
        ("the", "for") are not required unless there are only such words. Postgres: the stored,
        indexed `search_doc` of migration 0008, and for a typo the owner's words of 0009; SQLite:
        the same functions in Python (db/session.py)."""
        postgres = self.session.get_bind().dialect.name == "postgresql"
        doc = _SEARCH_DOC if postgres else sa.func.task_search_doc(_T.c.title, _T.c.description)
        words = text.split()
        required = [w for w in words if len(w) > SHORT_WORD] or words
        close = await self._close_words(required) if postgres and fuzzy else {}

        def contains(value: str, *, folded: bool = False) -> sa.ColumnElement[bool]:
            # task_search_pattern (migration 0010): the folded value between %s, its wildcards escaped
            pattern = sa.literal(like_anywhere(value)) if folded else sa.func.task_search_pattern(value)
            return doc.like(pattern, escape="\\")

        def found(word: str) -> sa.ColumnElement[bool]:
            if not fuzzy:
                return contains(word)
            if postgres:
                return sa.or_(contains(word), *(contains(known, folded=True) for known in close.get(word, ())))
            return sa.or_(contains(word), sa.func.task_search_similar(sa.func.task_search_fold(word), doc) == 1)

        # (The whole text found is each of its words found: no separate test for it.)
        return sa.and_(*(found(w) for w in required))

    async def plan_each_query(self, where: TaskFilter) -> None:
        """A text search on Postgres: a plan made for each of this transaction's queries (see
        `_SEARCH_SETTINGS`); once per search, however many statements it sends."""
        if where.query and where.query.strip() and self.session.get_bind().dialect.name == "postgresql":
            await self.session.execute(_SEARCH_SETTINGS)

    async def _close_words(self, words: list[str]) -> dict[str, list[str]]:
        """For each word, what else it may mean among the owner's words (migration 0009): nothing when
        the owner has it as written, else the closest (`_CLOSE_WORDS`). Every word also matches as
        written (`contains`). One statement for all the words."""
        params = {"owner": self.user_id, "words": words}
        rows = await self.session.execute(_CLOSE_WORDS, params)
        close: dict[str, list[str]] = {}
        for asked, known, present in rows:
            close.setdefault(asked, [])
            if not present:  # a word as written is already searched for (`contains`): not twice
                close[asked].append(known)
        return close
