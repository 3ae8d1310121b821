"""The Postgres shortlist (pg_trgm, migration 0002) gives the resolver's answers: on 2,000 generated
titles, where the in-process resolver still scores every title, both paths agree on every probe."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from backend.app.bench.resolver import insert_tasks
from backend.app.bench.titles import probes
from backend.app.core.clock import SystemClock
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.db.session import create_sessionmaker, unit_of_work
from backend.app.tools.resolver import Ambiguous, NotFound, ReferenceResolver, Resolution, Resolved
from backend.app.tools.task_tools import TaskTools

TITLES = 2_000
PER_KIND = 20


def outcome(resolution: Resolution) -> tuple[str, Any]:
    if isinstance(resolution, NotFound):
        return ("not_found", None)
    if isinstance(resolution, Ambiguous):
        return ("ambiguous", None)
    return ("resolved", resolution.candidate.id)


@pytest.fixture
async def engine(database: str) -> Any:
    engine = create_async_engine(database)
    yield engine
    await engine.dispose()


async def test_prefilter_resolves_like_the_in_process_resolver(engine) -> None:  # type: ignore[no-untyped-def]
    user = f"many-{uuid.uuid4().hex[:6]}"
    titles = await insert_tasks(engine, user, TITLES)
    await insert_tasks(engine, "someone-else", 200)  # other owners' titles never leak in
    sessionmaker = create_sessionmaker(engine)

    def tools(prefilter_above: int) -> TaskTools:
        return TaskTools(
            sessionmaker=sessionmaker,
            user_id=user,
            clock=SystemClock(),
            resolver=ReferenceResolver(),
            prefilter_above=prefilter_above,
        )

    shortlisted, in_process = tools(0), tools(10**9)
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


async def test_a_cut_shortlist_never_picks_a_fuzzy_winner(engine) -> None:  # type: ignore[no-untyped-def]
    user = f"cut-{uuid.uuid4().hex[:6]}"
    sessionmaker = create_sessionmaker(engine)
    async with unit_of_work(sessionmaker) as session:
        repo = TaskRepository(session, user)
        for title in ("Water the plants", *(f"Water the plants for {n}" for n in ("Ana", "Bo", "Cy", "Di"))):
            await repo.add(title=title, description=None, priority="medium", due_date=None, tags=[])

    def tools(prefilter_limit: int) -> TaskTools:
        return TaskTools(
            sessionmaker=sessionmaker,
            user_id=user,
            clock=SystemClock(),
            resolver=ReferenceResolver(),
            prefilter_above=0,
            prefilter_limit=prefilter_limit,
        )

    async with unit_of_work(sessionmaker) as session:
        whole, _ = await tools(50).resolve_title(TaskRepository(session, user), "water the plant")
        cut, rows = await tools(3).resolve_title(TaskRepository(session, user), "water the plant")
    assert outcome(whole)[0] == "resolved" and whole.candidate.title == "Water the plants"  # type: ignore[union-attr]
    # Three of five close titles: the best is offered first, never picked (a cut one could be better).
    assert len(rows) == 3
    assert isinstance(cut, Ambiguous)
    assert cut.candidates[0].title == "Water the plants"
    # A title as listed (any case, quoted) is found by one indexed statement and decides alone.
    async with unit_of_work(sessionmaker) as session:
        quoted, rows = await tools(3).resolve_title(TaskRepository(session, user), '"WATER THE PLANTS"')
    assert isinstance(quoted, Resolved) and quoted.method == "exact" and len(rows) == 1
