"""The Postgres shortlist (migration 0002: title words, then trigrams) gives the resolver's answers: on
2,000 generated titles, where the in-process resolver still scores every title, both paths agree on
every probe. Above PREFILTER_ABOVE tasks, each of its steps finds what it is there for (plural, typo,
part of a title) and never another owner's task, in one statement (migration 0003)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from backend.app.core.clock import SystemClock
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.db.session import create_sessionmaker, unit_of_work
from backend.app.tools.resolver import Ambiguous, NoMatch, ReferenceResolver, Resolution, Resolved
from backend.app.tools.task_tools import PREFILTER_ABOVE, PREFILTER_LIMIT, TaskTools
from backend.devtools.bench.resolver import insert_tasks
from backend.devtools.bench.titles import probes

TITLES = 2_000
PER_KIND = 20


def outcome(resolution: Resolution) -> tuple[str, Any]:
    if isinstance(resolution, NoMatch):
        return ("not_found", None)
    if isinstance(resolution, Ambiguous):
        return ("ambiguous", None)
    return ("resolved", resolution.candidate.id)


@pytest.fixture
async def engine(database: str) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(database)
    yield engine
    await engine.dispose()


def tools_for(
    sessionmaker: async_sessionmaker[AsyncSession],
    user: str,
    *,
    prefilter_above: int = PREFILTER_ABOVE,
    prefilter_limit: int = PREFILTER_LIMIT,
) -> TaskTools:
    return TaskTools(
        sessionmaker=sessionmaker,
        user_id=user,
        clock=SystemClock(),
        resolver=ReferenceResolver(),
        prefilter_above=prefilter_above,
        prefilter_limit=prefilter_limit,
    )


async def add_titles(sessionmaker: async_sessionmaker[AsyncSession], owner: str, titles: Iterable[str]) -> None:
    async with unit_of_work(sessionmaker) as session:
        repo = TaskRepository(session, owner)
        for title in titles:
            await repo.add(title=title, description=None, priority="medium", due_date=None, tags=[])


async def test_prefilter_resolves_like_the_in_process_resolver(engine: AsyncEngine) -> None:
    user = f"many-{uuid.uuid4().hex[:6]}"
    titles = await insert_tasks(engine, user, TITLES)
    await insert_tasks(engine, "someone-else", 200)  # other owners' titles never leak in
    sessionmaker = create_sessionmaker(engine)
    shortlisted = tools_for(sessionmaker, user, prefilter_above=0)
    in_process = tools_for(sessionmaker, user, prefilter_above=10**9)
    seen: dict[str, set[str]] = {}
    for probe in probes(titles, per_kind=PER_KIND):
        async with unit_of_work(sessionmaker) as session:
            repo = TaskRepository(session, user)
            fast, rows = await shortlisted.resolve_title(repo, probe.reference)
            slow, _ = await in_process.resolve_title(repo, probe.reference)
        assert outcome(fast) == outcome(slow), (probe, fast, slow)
        assert len(rows) <= shortlisted.prefilter_limit
        seen.setdefault(probe.kind, set()).add(outcome(fast)[0])
    # The probes cover what matters: exact, case, plural and typo references resolve; vague ones ask.
    for kind in ("exact", "case", "plural", "typo"):
        assert "resolved" in seen[kind], seen
    assert "ambiguous" in seen["ambiguous"] and seen["missing"] == {"not_found"}, seen


async def test_a_cut_shortlist_never_picks_a_fuzzy_winner(engine: AsyncEngine) -> None:
    user = f"cut-{uuid.uuid4().hex[:6]}"
    sessionmaker = create_sessionmaker(engine)
    others = [f"Water the plants for {n}" for n in ("Ana", "Bo", "Cy", "Di")]
    await add_titles(sessionmaker, user, ["Water the plants", *others])

    def tools(prefilter_limit: int) -> TaskTools:
        return tools_for(sessionmaker, user, prefilter_above=0, prefilter_limit=prefilter_limit)

    async with unit_of_work(sessionmaker) as session:
        whole, _ = await tools(50).resolve_title(TaskRepository(session, user), "water the plant")
        cut, rows = await tools(3).resolve_title(TaskRepository(session, user), "water the plant")
    assert isinstance(whole, Resolved) and whole.candidate.title == "Water the plants"
    # Three of five close titles: the best is offered first, never picked (a cut one could be better).
    assert len(rows) == 3
    assert isinstance(cut, Ambiguous)
    assert cut.candidates[0].title == "Water the plants"
    # A title as listed (any case, quoted) is found by one indexed statement and decides alone.
    async with unit_of_work(sessionmaker) as session:
        quoted, rows = await tools(3).resolve_title(TaskRepository(session, user), '"WATER THE PLANTS"')
    assert isinstance(quoted, Resolved) and quoted.method == "exact" and len(rows) == 1


MINE = (
    "Read book",
    "Email the budget report to Dana",
    "Practice piano scales before dinner",
    "Renew the library card",
)
# Another owner's tasks: as close to the references as can be, and never offered.
THEIRS = ("Read books", "Email the budget reports to Dana", "Practice piano scales", "Feed the zebra")


@pytest.mark.parametrize(
    ("reference", "title", "source"),
    [
        ("READ BOOK", "Read book", "exact"),  # case
        ("Read books", "Read book", "words"),  # plural
        ("budget report", "Email the budget report to Dana", "words"),  # part of a title
        ("library cards", "Renew the library card", "words"),
        ("Practcie piano scales before dinner", "Practice piano scales before dinner", "all_but_one_word"),  # typo
        ("Rad book", "Read book", "trigrams"),  # typo in a short reference
        ("Pianno scales", "Practice piano scales before dinner", "trigrams"),  # found, too short to pick it
    ],
)
async def test_the_shortlist_finds_plurals_typos_and_parts_of_the_owners_titles(
    engine: AsyncEngine, reference: str, title: str, source: str
) -> None:
    user, other = f"mine-{uuid.uuid4().hex[:6]}", f"theirs-{uuid.uuid4().hex[:6]}"
    await insert_tasks(engine, user, PREFILTER_ABOVE + 100)
    await insert_tasks(engine, other, PREFILTER_ABOVE + 100)
    sessionmaker = create_sessionmaker(engine)
    await add_titles(sessionmaker, user, MINE)
    await add_titles(sessionmaker, other, THEIRS)

    statements: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    async with unit_of_work(sessionmaker) as session:
        repo = TaskRepository(session, user)
        found = await repo.candidates(reference.lower(), limit=PREFILTER_LIMIT, all_up_to=PREFILTER_ABOVE)
        assert len(statements) == 1, statements  # every step in one round trip, whichever finds the title
        fast, rows = await tools_for(sessionmaker, user).resolve_title(repo, reference)
        slow, _ = await tools_for(sessionmaker, user, prefilter_above=10**9).resolve_title(repo, reference)
        owned = {r.id for r in await repo.rows()}
    assert found.source == source and not found.cut, found
    assert title in [r.title for r in found.rows][:3], found.rows
    assert set(rows) <= owned  # another owner's closer title never comes in
    assert outcome(fast) == outcome(slow), (fast, slow)
    if reference != "Pianno scales":
        assert isinstance(fast, Resolved) and fast.candidate.title == title, fast


async def test_the_shortlist_never_offers_another_owners_tasks(engine: AsyncEngine) -> None:
    user, other = f"mine-{uuid.uuid4().hex[:6]}", f"theirs-{uuid.uuid4().hex[:6]}"
    await insert_tasks(engine, user, PREFILTER_ABOVE + 100)
    sessionmaker = create_sessionmaker(engine)
    await add_titles(sessionmaker, other, THEIRS)
    async with unit_of_work(sessionmaker) as session:
        repo = TaskRepository(session, user)
        for reference in ("feed the zebra", "feed the zebras", "fede the zebra", "zebra"):
            found = await repo.candidates(reference, limit=PREFILTER_LIMIT, all_up_to=PREFILTER_ABOVE)
            assert found.source == "trigrams" and found.rows == [], (reference, found)
        # A reference of stop words only has no words to look up: it matches by trigrams, not every title.
        found = await repo.candidates("the", limit=PREFILTER_LIMIT, all_up_to=PREFILTER_ABOVE)
        assert found.rows and all("the" in r.title.lower() for r in found.rows), found


async def test_titles_that_only_hold_the_words_make_way_for_a_close_typo(engine: AsyncEngine) -> None:
    user = f"typo-{uuid.uuid4().hex[:6]}"
    await insert_tasks(engine, user, PREFILTER_ABOVE + 100)  # none holds both "read" and "book"
    sessionmaker = create_sessionmaker(engine)
    await add_titles(sessionmaker, user, ("Reading books club", "Read boks"))
    tools = tools_for(sessionmaker, user)
    async with unit_of_work(sessionmaker) as session:
        repo = TaskRepository(session, user)
        words = await repo.candidates("read books", limit=PREFILTER_LIMIT, all_up_to=PREFILTER_ABOVE)
        resolution, rows = await tools.resolve_title(repo, "Read books")
    # Full text search reads "Reading" as "read", the resolver does not: it turns that title down and
    # picks the one with a typo, as it does in process.
    assert [r.title for r in words.rows] == ["Reading books club"] and words.source == "words"
    assert isinstance(resolution, Resolved) and resolution.candidate.title == "Read boks", resolution
    assert "Read boks" in [r.title for r in rows.values()]
