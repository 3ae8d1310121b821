"""Resolver time at 1k, 10k and 100k tasks for one user, through `TaskTools.resolve_title`.

Each size gets its own user, bulk-inserted (COPY on Postgres). A timed call is what a tool call
pays: the queries and the scoring, inside one short transaction. Paths:

- `postgres`: as shipped: an exact title first, then up to PREFILTER_ABOVE (300) tasks every title
  scored in process, above that the database's shortlist of at most 50 titles (title words, then
  trigrams: `TaskRepository.candidates`, one statement);
- `postgres, all in process`: every title loaded and scored in Python at any size (for comparison);
- `sqlite`: SQLite always resolves in process.

Search (`GET /tasks?q=`, `TaskRepository.search`) is timed on the same tasks with the same probes
as queries: one page of 50 in the shipped order (on SQLite up to SQLITE_SEARCH_UP_TO tasks).

`agreement` compares the prefilter's answers with the in-process answers for the same probes:
`same`; `decisive` where the prefilter resolves the very task the in-process resolver lists first but
will not pick (above 2,000 tasks it shortlists 200 titles itself and then only offers a fuzzy
winner); `conflicts`, anything else.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from backend.app.core.clock import SystemClock
from backend.app.db.models import Task
from backend.app.db.repositories.task_filter import TaskFilter
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.db.session import create_sessionmaker, unit_of_work
from backend.app.tools.resolver import Ambiguous, NoMatch, ReferenceResolver, Resolution
from backend.app.tools.task_tools import PREFILTER_ABOVE, TaskTools
from backend.devtools.bench.load import percentiles
from backend.devtools.bench.titles import Probe, probes, titles

NEVER = 10**9
# SQLite, the embedded default, searches by calling Python for every row: ~1 s a search at 100k tasks,
# so the benchmark times it up to this size only (it is for small data; Postgres has the index).
SQLITE_SEARCH_UP_TO = 10_000


@dataclass(frozen=True, slots=True)
class Path:
    name: str
    prefilter_above: int


async def insert_tasks(engine: AsyncEngine, user: str, count: int) -> list[str]:
    """Bulk-insert `count` generated tasks for `user`; returns their titles."""
    generated = titles(count, seed=count)
    now = datetime.now(UTC)
    # One second apart, as tasks added over time are (one shared timestamp would make "newest first"
    # a sort of every matching row instead of a walk that stops at the first page).
    rows = [
        (uuid.uuid4(), user, t, None, "pending", "medium", None, "[]", 1, at, at)
        for i, t in enumerate(generated)
        for at in [now - timedelta(seconds=i)]
    ]
    columns = [
        "id",
        "user_id",
        "title",
        "description",
        "status",
        "priority",
        "due_date",
        "tags",
        "version",
        "created_at",
        "updated_at",
    ]
    async with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            raw = await conn.get_raw_connection()
            await raw.driver_connection.copy_records_to_table("tasks", records=rows, columns=columns)  # type: ignore[union-attr]
        else:
            table = Task.__table__  # type: ignore[attr-defined]
            await conn.execute(sa.insert(table), [dict(zip(columns, r, strict=True)) | {"tags": []} for r in rows])
    if engine.dialect.name == "postgresql":
        async with engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(sa.text("VACUUM ANALYZE tasks"))
            # The trigger filled the owners' vocabulary; autovacuum would analyze it within a minute.
            await conn.execute(sa.text("VACUUM ANALYZE task_words"))
    return generated


def _label(resolution: Resolution) -> str:
    if isinstance(resolution, NoMatch):
        return "not_found"
    if isinstance(resolution, Ambiguous):
        return f"ambiguous:{resolution.candidates[0].id}"
    return f"resolved:{resolution.candidate.id}"


def agreement(shortlisted: list[str], in_process: list[str]) -> dict[str, int]:
    counts = {"probes": len(shortlisted), "same": 0, "decisive": 0, "conflicts": 0}
    for fast, slow in zip(shortlisted, in_process, strict=True):
        fast_kind, _, fast_id = fast.partition(":")
        slow_kind, _, slow_id = slow.partition(":")
        if fast_kind == slow_kind and (fast_kind != "resolved" or fast_id == slow_id):
            counts["same"] += 1
        elif fast_kind == "resolved" and slow_kind == "ambiguous" and fast_id == slow_id:
            counts["decisive"] += 1
        else:
            counts["conflicts"] += 1
    return counts


async def time_path(
    sessionmaker: async_sessionmaker[Any],
    *,
    user: str,
    path: Path,
    probe_list: list[Probe],
    repeat: int,
    on_call: Callable[[], object],
) -> tuple[dict[str, Any], list[str]]:
    tools = TaskTools(
        sessionmaker=sessionmaker,
        user_id=user,
        clock=SystemClock(),
        resolver=ReferenceResolver(),
        prefilter_above=path.prefilter_above,
    )
    by_kind: dict[str, list[float]] = {}
    labels: list[str] = []
    for r in range(repeat):
        for probe in probe_list:
            began = time.perf_counter()
            async with unit_of_work(sessionmaker) as session:
                resolution, _ = await tools.resolve_title(TaskRepository(session, user), probe.reference)
            by_kind.setdefault(probe.kind, []).append((time.perf_counter() - began) * 1000)
            if r == 0:
                labels.append(_label(resolution))
            on_call()
    every = [x for v in by_kind.values() for x in v]
    outcome_counts: dict[str, int] = {}
    for label in labels:
        key = label.split(":")[0]
        outcome_counts[key] = outcome_counts.get(key, 0) + 1
    return {
        "path": path.name,
        "calls": len(every),
        "all": percentiles(every),
        "by_kind": {k: percentiles(v) for k, v in by_kind.items()},
        "outcomes": outcome_counts,
    }, labels


async def run_resolver(
    engine: AsyncEngine,
    *,
    sizes: list[int],
    per_kind: int,
    repeat: int,
    compare: bool,
    on_call: Callable[[], object],
) -> list[dict[str, Any]]:
    """Time the paths this engine's database offers at each size; see the module docstring."""
    sessionmaker = create_sessionmaker(engine)
    postgres = engine.dialect.name == "postgresql"
    out = []
    # Every size's tasks go in first: the table (and the planner's statistics) is the same for all.
    users = {size: f"resolver-{size}-{uuid.uuid4().hex[:6]}" for size in sizes}
    generated_by_size = {size: await insert_tasks(engine, users[size], size) for size in sizes}
    for size in sizes:
        user, generated = users[size], generated_by_size[size]
        probe_list = list(probes(generated, per_kind=per_kind))
        paths = [Path("postgres", PREFILTER_ABOVE)] if postgres else [Path("sqlite", NEVER)]
        if postgres and compare:
            paths.append(Path("postgres, all in process", NEVER))
        rows: dict[str, list[str]] = {}
        for path in paths:
            slow = path.prefilter_above == NEVER and size >= 50_000
            result, labels = await time_path(
                sessionmaker, user=user, path=path, probe_list=probe_list, repeat=1 if slow else repeat, on_call=on_call
            )
            rows[path.name] = labels
            out.append({"tasks": size, **result})
        if len(rows) == 2:
            out[-2]["agreement_with_in_process"] = agreement(*rows.values())
        if postgres or size <= SQLITE_SEARCH_UP_TO:
            searched = await time_search(sessionmaker, user=user, probe_list=probe_list, repeat=repeat)
            out.append({"tasks": size, **searched, "path": f"search ({'postgres' if postgres else 'sqlite'})"})
    return out


async def time_search(
    sessionmaker: async_sessionmaker[Any], *, user: str, probe_list: list[Probe], repeat: int
) -> dict[str, Any]:
    """One page (50) of `q=<probe>` per call, as `GET /tasks` runs it, in its own transaction."""
    by_kind: dict[str, list[float]] = {}
    found: dict[str, int] = {}
    for r in range(repeat):
        for probe in probe_list:
            began = time.perf_counter()
            async with unit_of_work(sessionmaker) as session:
                page = await TaskRepository(session, user).search(TaskFilter(query=probe.reference), limit=50)
            by_kind.setdefault(probe.kind, []).append((time.perf_counter() - began) * 1000)
            if r == 0:
                found[probe.kind] = found.get(probe.kind, 0) + (1 if page.tasks else 0)
    every = [x for v in by_kind.values() for x in v]
    return {
        "path": "search",
        "calls": len(every),
        "all": percentiles(every),
        "by_kind": {k: percentiles(v) for k, v in by_kind.items()},
        "outcomes": {"probes with a match": sum(found.values()), "probes": len(probe_list)},
    }
