"""TaskTools (tools/task_tools.py) on a real database, through the entry point the loop, MCP and REST
use (`execute_batch`): each tool's success and its main failures, and what it left in the database."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.api import NOW, make_settings
from support.payloads import choices, listing, task, task_id

from backend.app.calls.payloads import title_of
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.core.clock import FixedClock
from backend.app.db.session import create_engine, create_sessionmaker
from backend.app.tools.factory import ToolsFor, task_tools_factory

USER = "alice"


@pytest.fixture
async def tools_for(database: str) -> AsyncIterator[ToolsFor]:
    """The production factory (the one chat, REST and MCP use) on the test database."""
    settings = make_settings(database)
    engine = create_engine(settings)
    yield task_tools_factory(settings=settings, sessionmaker=create_sessionmaker(engine), clock=FixedClock(NOW))
    await engine.dispose()


async def call(tools_for: ToolsFor, name: str, user: str = USER, **arguments: Any) -> ToolResult:
    outcome = await tools_for(user, source="test").execute_batch([ToolCall("c1", name, arguments)])
    return outcome.results[0]


async def titles(tools_for: ToolsFor, user: str = USER, **filters: Any) -> list[str]:
    listed = await call(tools_for, "list_tasks", user, **filters)
    assert listed.success, listed
    return [t["title"] for t in listing(listed)["tasks"]]


async def test_add_task_stores_the_task_with_its_fields(tools_for: ToolsFor) -> None:
    added = await call(tools_for, "add_task", title="  Buy milk ", priority="high", tags=["home"])

    assert added.success, added
    task_added = task(added)
    assert (task_added["title"], task_added["priority"], task_added["tags"]) == ("Buy milk", "high", ["home"])
    assert uuid.UUID(task_added["id"])
    assert await titles(tools_for) == ["Buy milk"]


@pytest.mark.parametrize("title", ["", "   ", "x" * 501])
async def test_add_task_refuses_a_title_that_is_empty_or_too_long_and_stores_nothing(
    tools_for: ToolsFor, title: str
) -> None:
    refused = await call(tools_for, "add_task", title=title)

    assert (refused.success, refused.code, refused.model_fixable) == (False, "INVALID_ARGUMENTS", True)
    assert await titles(tools_for) == []


async def test_list_tasks_filters_by_status_and_says_when_there_are_more(tools_for: ToolsFor) -> None:
    for title in ("Buy milk", "Call mom", "File taxes"):
        assert (await call(tools_for, "add_task", title=title)).success
    assert (await call(tools_for, "complete_task", task_id="call mom")).success

    assert await titles(tools_for, status="completed") == ["Call mom"]
    assert sorted(await titles(tools_for, status="pending")) == ["Buy milk", "File taxes"]
    page = await call(tools_for, "list_tasks", limit=2)
    listed = listing(page)
    assert (listed["count"], len(listed["tasks"]), listed["truncated"]) == (3, 2, True)
    assert listed["more"].startswith("1 more not shown")


@pytest.mark.parametrize("reference", ["READ BOOK", "read book", "Read bok", "the read book task"])
async def test_complete_task_finds_the_task_by_its_title_in_any_case_or_with_a_typo(
    tools_for: ToolsFor, reference: str
) -> None:
    assert (await call(tools_for, "add_task", title="Read book")).success
    assert (await call(tools_for, "add_task", title="Walk the dog")).success

    done = await call(tools_for, "complete_task", task_id=reference)

    assert done.success, done
    assert (task(done)["title"], task(done)["status"]) == ("Read book", "completed")
    assert await titles(tools_for, status="completed") == ["Read book"]


async def test_a_reference_by_id_works_and_an_unknown_one_is_not_found(tools_for: ToolsFor) -> None:
    added = await call(tools_for, "add_task", title="Read book")

    by_id = await call(tools_for, "delete_task", task_id=task_id(added))
    missing = await call(tools_for, "delete_task", task_id="Quantum physics homework")

    assert by_id.success and title_of(by_id.data) == "Read book"
    assert (missing.success, missing.code) == (False, "NOT_FOUND")
    assert await titles(tools_for) == []


async def test_an_ambiguous_reference_changes_nothing_and_offers_the_choices(tools_for: ToolsFor) -> None:
    for title in ("Call mom", "Call dad"):
        assert (await call(tools_for, "add_task", title=title)).success

    ambiguous = await call(tools_for, "delete_task", task_id="call")

    assert (ambiguous.success, ambiguous.code) == (False, "AMBIGUOUS")
    assert sorted(c["title"] for c in choices(ambiguous)["choices"]) == ["Call dad", "Call mom"]
    assert sorted(await titles(tools_for)) == ["Call dad", "Call mom"]


async def test_another_users_task_is_never_found(tools_for: ToolsFor) -> None:
    bobs = await call(tools_for, "add_task", "bob", title="Bob's secret")

    by_title = await call(tools_for, "delete_task", task_id="Bob's secret")
    by_id = await call(tools_for, "delete_task", task_id=task_id(bobs))

    assert (by_title.code, by_id.code) == ("NOT_FOUND", "NOT_FOUND")
    assert await titles(tools_for, "bob") == ["Bob's secret"]


async def test_update_task_changes_only_the_given_fields_and_clears_with_null(tools_for: ToolsFor) -> None:
    assert (await call(tools_for, "add_task", title="Pay rent", description="by transfer", priority="low")).success

    updated = await call(tools_for, "update_task", task_id="pay rent", priority="high", description=None)

    assert updated.success, updated
    changed = task(updated)
    assert (changed["title"], changed["priority"], changed["description"]) == ("Pay rent", "high", None)


async def test_undo_last_change_takes_back_the_last_change_set(tools_for: ToolsFor) -> None:
    assert (await call(tools_for, "add_task", title="Keep me")).success
    assert (await call(tools_for, "delete_task", task_id="keep me")).success
    assert await titles(tools_for) == []

    undone = await call(tools_for, "undo_last_change")

    assert undone.success, undone
    assert await titles(tools_for) == ["Keep me"]
    again = await call(tools_for, "undo_last_change")  # the delete's undo, then the add's
    assert again.success and await titles(tools_for) == []
