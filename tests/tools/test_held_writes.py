"""A lone complete, update or delete of a task found by its exact title (Postgres): the lookup reads the
task whole (migration 0013), so the repository holds the write and `TaskTools` sends it with the
call's tool execution row, one statement without a transaction (tools/task_tools.py). What it stores
and reports must be what the write sent at once, in the step's transaction, stores and reports; a
task changed after its lookup gets neither the write nor its record, and the call reports the
conflict."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine
from support.api import NOW, make_settings
from support.payloads import task_id

from backend.app.calls.types import ToolCall, ToolResult
from backend.app.core.clock import FixedClock
from backend.app.db.repositories.tasks import HeldWrite, TaskRepository
from backend.app.db.session import create_engine, create_sessionmaker
from backend.app.tools.factory import ToolsFor, task_tools_factory

ID = "<the task's id>"  # a reference by id (as REST, MCP and a reference into the conversation look it up)
# Calls on the task "Pay Rent" (as the model writes its reference: any case), each on a fresh copy.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("complete_task", {}),
    ("update_task", {"priority": "low"}),
    ("update_task", {"title": "Pay rent to Ana", "description": "by transfer", "due_date": "2026-12-24"}),
    ("update_task", {"tags": ["home", "money"], "description": None}),
    ("delete_task", {}),
]
REFERENCES = ["Pay Rent", "pay rent", "PAY RENT", ID]
# What differs between two runs of the same call (two users): ids, owners, times and durations.
VOLATILE = {"id", "user_id", "task_id", "turn_id", "created_at", "updated_at", "deleted_at", "duration_ms"}


pytestmark = pytest.mark.through_pgbouncer  # there every statement stays in the step's transaction


@pytest.fixture(params=["best_effort", "strict"])
async def engine(database: str, request: pytest.FixtureRequest) -> AsyncIterator[tuple[ToolsFor, AsyncEngine]]:
    """The production factory (chat, REST and MCP use it) on the test database, in both apply modes."""
    settings = make_settings(database, apply_mode=request.param)
    engine = create_engine(settings)
    tools_for = task_tools_factory(settings=settings, sessionmaker=create_sessionmaker(engine), clock=FixedClock(NOW))
    yield tools_for, engine
    await engine.dispose()


@contextmanager
def held_writes() -> Iterator[list[HeldWrite | None]]:
    """What each batch's repository held for `_record` to send (None: a write sent at once, or none)."""
    taken: list[HeldWrite | None] = []
    real = TaskRepository.take_held_write

    def spied(self: TaskRepository) -> HeldWrite | None:
        held = real(self)
        taken.append(held)
        return held

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TaskRepository, "take_held_write", spied)
        yield taken


async def _seed(tools_for: ToolsFor, user: str) -> uuid.UUID:
    batch = [ToolCall("seed", "add_task", {"title": "Pay rent", "priority": "high", "tags": ["home"]})]
    added = (await tools_for(user, source="test").execute_batch(batch)).results[0]
    assert added.success, added
    return uuid.UUID(task_id(added))


async def _run(tools_for: ToolsFor, user: str, name: str, arguments: dict[str, Any]) -> ToolResult:
    call = ToolCall("c1", name, arguments)
    return (await tools_for(user, source="test").execute_batch([call])).results[0]


async def _stored(engine: AsyncEngine, user: str) -> dict[str, Any]:
    """The user's tasks, deleted tasks and tool execution rows, without ids and times."""

    def plain(rows: Any) -> list[dict[str, Any]]:
        return [{k: _plain(v) for k, v in row.items() if k not in VOLATILE} for row in rows.mappings()]

    async with engine.connect() as conn:
        found = {}
        for table in ("tasks", "deleted_tasks", "tool_executions"):
            rows = await conn.execute(
                sa.text(f"SELECT * FROM {table} WHERE user_id = :u ORDER BY created_at"),
                {"u": user},
            )
            found[table] = plain(rows)
        return found


def _plain(value: Any) -> Any:
    """A stored value without the task ids in it (a record's snapshots and result hold the task's, and
    its arguments the model's reference, which may be the id)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "id"}
    if isinstance(value, str) and _is_uuid(value):
        return ID
    return value


def _is_uuid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text
    except ValueError:
        return False


def _without_ids(result: ToolResult) -> Any:
    return _plain(result.to_payload())


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize(("name", "change"), CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
async def test_a_held_write_stores_and_reports_what_the_write_sent_at_once_does(
    engine: tuple[ToolsFor, AsyncEngine],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    change: dict[str, Any],
    reference: str,
) -> None:
    tools_for, db = engine
    held_user, sent_user = f"held-{uuid.uuid4().hex[:8]}", f"sent-{uuid.uuid4().hex[:8]}"
    held_id, sent_id = await _seed(tools_for, held_user), await _seed(tools_for, sent_user)

    def arguments(task_id: uuid.UUID) -> dict[str, Any]:
        return {"task_id": str(task_id) if reference == ID else reference, **change}

    with held_writes() as taken:
        held = await _run(tools_for, held_user, name, arguments(held_id))
    assert [type(h) for h in taken] == [HeldWrite], "the lookup read the task whole, and the write was held"

    with monkeypatch.context() as patch:
        patch.setattr(TaskRepository, "_holds", lambda self, row: False)  # every write sent at once
        with held_writes() as taken:
            sent = await _run(tools_for, sent_user, name, arguments(sent_id))
    assert taken == [None], "a write not held is sent at once, in the step's transaction"

    assert held.success and sent.success, (held, sent)
    assert _without_ids(held) == _without_ids(sent)
    assert await _stored(db, held_user) == await _stored(db, sent_user)
    # And the undo record is the task as it was and as it is now.
    stored = await _stored(db, held_user)
    record = stored["tool_executions"][-1]
    assert (record["before"]["title"], record["before"]["priority"], record["before"]["version"]) == (
        "Pay rent",
        "high",
        1,
    )
    if name == "delete_task":
        assert (stored["tasks"], record["after"], stored["deleted_tasks"][0]["title"]) == ([], None, "Pay rent")
    else:
        task = {k: v for k, v in stored["tasks"][0].items() if k != "search_doc"}  # the database's (0008)
        # A task with no due time or repeat is recorded without those keys (tools/handlers.py `task_to_dict`).
        unset = dict.fromkeys(("due_at", "time_zone", "recurrence"))
        assert {**unset, **record["after"]} == {**task, "due_date": task["due_date"] and task["due_date"].isoformat()}
        assert task["version"] == 2
    if "due_date" in change:
        assert stored["tasks"][0]["due_date"] == date(2026, 12, 24)


@pytest.mark.parametrize("name", ["complete_task", "delete_task", "update_task"])
async def test_a_task_changed_after_its_lookup_gets_neither_the_held_write_nor_its_record(
    engine: tuple[ToolsFor, AsyncEngine], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Another request changes the task between this call's lookup and its write: the write names the
    version it read, so nothing of this call is stored but its refusal, and the call says CONFLICT."""
    tools_for, db = engine
    user = f"race-{uuid.uuid4().hex[:8]}"
    task_id = await _seed(tools_for, user)
    real = TaskRepository.candidates

    async def looked_up_then_changed(self: TaskRepository, *args: Any, **kwargs: Any) -> Any:
        found = await real(self, *args, **kwargs)
        async with db.begin() as conn:  # the other request, committed before this call writes
            await conn.execute(
                sa.text("UPDATE tasks SET description = 'theirs', version = version + 1 WHERE id = :id"),
                {"id": task_id},
            )
        return found

    monkeypatch.setattr(TaskRepository, "candidates", looked_up_then_changed)
    with held_writes() as taken:
        result = await _run(
            tools_for,
            user,
            name,
            {"task_id": "Pay rent", "priority": "low"} if name == "update_task" else {"task_id": "Pay rent"},
        )

    assert [type(h) for h in taken] == [HeldWrite]
    assert (result.success, result.code) == (False, "CONFLICT"), result
    assert "'Pay rent' was changed or deleted by another request" in (result.error or "")
    stored = await _stored(db, user)
    assert [(t["description"], t["status"], t["priority"], t["version"]) for t in stored["tasks"]] == [
        ("theirs", "pending", "high", 2)
    ]
    assert stored["deleted_tasks"] == []
    mine = [r for r in stored["tool_executions"] if r["tool_name"] == name]
    assert len(mine) == 1, mine  # the refusal, recorded once, with nothing to undo
    assert (mine[0]["success"], mine[0]["result"]["code"], mine[0]["before"], mine[0]["after"]) == (
        False,
        "CONFLICT",
        None,
        None,
    )


async def test_a_lookup_that_is_not_by_the_exact_title_sends_its_write_at_once(
    engine: tuple[ToolsFor, AsyncEngine],
) -> None:
    """Only the exact step of the lookup reads the task whole; a fuzzy match ("pay rnt") writes as
    before, in the step's transaction, and does the same."""
    tools_for, db = engine
    user = f"fuzzy-{uuid.uuid4().hex[:8]}"
    await _seed(tools_for, user)
    with held_writes() as taken:
        result = await _run(tools_for, user, "complete_task", {"task_id": "pay rnt"})
    assert result.success, result
    assert taken == [None]
    assert [t["status"] for t in (await _stored(db, user))["tasks"]] == ["completed"]


async def test_a_change_beside_a_refused_call_is_sent_in_the_steps_transaction(
    engine: tuple[ToolsFor, AsyncEngine],
) -> None:
    """A step of one valid call and one refused (a due date in the past): each has its row, so the
    change is not held but written in the step's transaction with both rows (best-effort: it is
    applied; strict: nothing is)."""
    tools_for, db = engine
    user = f"beside-{uuid.uuid4().hex[:8]}"
    await _seed(tools_for, user)
    batch = [
        ToolCall("c1", "complete_task", {"task_id": "Pay rent"}),
        ToolCall("c2", "add_task", {"title": "Old bill", "due_date": "2001-01-01"}),
    ]
    with held_writes() as taken:
        outcome = await tools_for(user, source="test").execute_batch(batch)

    assert all(held is None for held in taken), taken  # (strict: the step never ran)
    strict = outcome.results[0].code == "NOT_APPLIED"
    assert outcome.results[0].success is not strict, outcome.results[0]
    assert outcome.results[1].code == "DUE_DATE_IN_PAST"
    stored = await _stored(db, user)
    assert [t["status"] for t in stored["tasks"]] == ["pending" if strict else "completed"]
    assert sorted(r["tool_call_id"] for r in stored["tool_executions"]) == ["c1", "c2", "seed"]
