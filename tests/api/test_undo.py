"""Undo (issue 14): soft delete, `undo_last_change` in chat, `POST /api/{user_id}/undo`, the change log,
refusals, and deleted tasks invisible everywhere."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from support.api import NOW, USER, MakeClient, auth, chat, make_settings, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls

from backend.app.calls.types import ToolCall
from backend.app.core.clock import FixedClock
from backend.app.services.user_data.maintenance import prune

pytestmark = pytest.mark.through_pgbouncer  # the same tests through PgBouncer in transaction mode

BOTH = pytest.mark.parametrize("database", ["postgres", "sqlite", "pgbouncer"], indirect=True)


async def undo(client: Any, user: str = USER, *, later: FixedClock | None = None) -> Any:
    """`POST /undo`; with `later`, first move that clock past the repeat window (a deliberate next undo,
    not a double-click)."""
    if later is not None:
        later.moment += timedelta(seconds=3)
    return await client.post(f"/api/{user}/undo", headers=auth(user))


def state(tasks: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted((t["id"], t["title"], t["status"], t["priority"], t["due_date"], tuple(t["tags"])) for t in tasks)


@BOTH
async def test_a_deleted_task_comes_back_with_its_id(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes", priority="high", tags=["x"])
    before = await tasks_of(client)
    llm.push(calls(("delete_task", {"task_id": "Gym"})), calls(("undo_last_change", {})))

    await chat(client, "delete gym")
    assert [t["title"] for t in await tasks_of(client)] == ["Taxes"]
    body = (await chat(client, "undo that")).json()

    assert state(await tasks_of(client)) == state(before)
    assert body["assistant_message"] == "Undone: restored “Gym”."
    assert body["action_metadata"]["action"] == "undo_last_change" and body["action_metadata"]["success"] is True


async def test_the_offline_model_undoes_in_any_covered_language(make_client: MakeClient) -> None:
    client = await make_client(offline=True)

    await chat(client, "add buy milk tomorrow")
    await chat(client, "add call mom")
    for message in ("undo", "deshaz eso"):
        body = (await chat(client, message)).json()
        assert body["tool_calls"][0]["name"] == "undo_last_change", body
        assert body["tool_calls"][0]["result"]["success"] is True
    assert await tasks_of(client) == []
    body = (await chat(client, "mach das rückgängig")).json()
    assert body["tool_calls"][0]["result"]["code"] == "NOTHING_TO_UNDO"
    assert body["assistant_message"] == "Ich konnte nichts rückgängig machen: es gibt nichts rückgängig zu machen."


async def test_a_completion_and_an_update_get_their_fields_back(make_client: MakeClient) -> None:
    llm, clock = ScriptedLLM(), FixedClock(NOW)
    client = await make_client(llm, clock=clock)
    await seed_tasks(client, "Gym", due_date=date(2026, 12, 1), tags=["health"])
    before = await tasks_of(client)
    change: dict[str, Any] = {
        "task_id": "Gym",
        "title": "Gym session",
        "priority": "high",
        "due_date": None,
        "tags": [],
    }
    llm.push(calls(("complete_task", {"task_id": "Gym"})), calls(("update_task", change)))

    await chat(client, "mark gym done")
    await chat(client, "rename gym to gym session, high priority, no date, no tags")
    first = (await undo(client)).json()
    [gym] = await tasks_of(client)
    assert (gym["title"], gym["priority"], gym["due_date"], gym["tags"], gym["status"]) == (
        "Gym",
        "medium",
        "2026-12-01",
        ["health"],
        "completed",
    )
    assert first["undone"] == [
        {
            "action": "reverted",
            "task_id": gym["id"],
            "title": "Gym",
            "fields": ["due_date", "priority", "tags", "title"],
        }
    ]
    second = (await undo(client, later=clock)).json()

    assert state(await tasks_of(client)) == state(before)
    assert second["undone"][0]["fields"] == ["status"] and second["source"] == "chat"


async def test_an_add_is_removed_and_a_multi_call_turn_is_undone_whole(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")
    before = await tasks_of(client)
    step = calls(
        ("add_task", {"title": "Milk"}), ("delete_task", {"task_id": "Gym"}), ("complete_task", {"task_id": "Taxes"})
    )
    llm.push(step, calls(("undo_last_change", {})))

    await chat(client, "add milk, delete gym and complete taxes")
    body = (await chat(client, "undo")).json()

    assert state(await tasks_of(client)) == state(before)
    assert body["assistant_message"] == ("Undone: put back the status of “Taxes”; restored “Gym”; removed “Milk”.")


async def test_rest_undo_walks_back_one_change_set_at_a_time_then_says_there_is_none(make_client: MakeClient) -> None:
    llm, clock = ScriptedLLM(), FixedClock(NOW)
    client = await make_client(llm, clock=clock)
    llm.push(calls(("add_task", {"title": "Milk"})), calls(("add_task", {"title": "Eggs"})))
    await chat(client, "add milk")
    await chat(client, "add eggs")

    first, second, third = (
        await undo(client, later=clock),
        await undo(client, later=clock),
        await undo(client, later=clock),
    )

    assert (first.status_code, [u["title"] for u in first.json()["undone"]]) == (200, ["Eggs"])
    assert (second.status_code, [u["title"] for u in second.json()["undone"]]) == (200, ["Milk"])
    assert third.status_code == 409 and third.json() == {
        "error": "NOTHING_TO_UNDO",
        "detail": "There is no change to undo.",
    }
    assert await tasks_of(client) == []


async def test_an_mcp_change_is_undone_and_another_users_change_never_is(make_client: MakeClient) -> None:
    clock = FixedClock(NOW)
    client = await make_client(ScriptedLLM(), clock=clock)
    tools_for = client.app.state.tools_for
    await tools_for("bob", source="mcp").execute_batch([ToolCall("m1", "add_task", {"title": "Bob's task"})])
    await tools_for(USER, source="mcp").execute_batch([ToolCall("m2", "add_task", {"title": "Alice's task"})])

    undone = await undo(client)

    assert undone.status_code == 200 and undone.json()["source"] == "mcp"
    assert await tasks_of(client) == []
    assert [t["title"] for t in await tasks_of(client, "bob")] == ["Bob's task"]
    assert (await undo(client, later=clock)).status_code == 409  # Bob's change is not Alice's to undo


async def test_undo_refuses_when_a_later_change_touched_the_task_and_changes_nothing(make_client: MakeClient) -> None:
    # Turn A changes Gym, an MCP call changes Gym after it, then turn A (still running) changes Taxes:
    # A is the newest change set, but undoing its Gym change would overwrite the later one.
    client = await make_client(ScriptedLLM())
    await seed_tasks(client, "Gym", "Taxes")
    tools_for = client.app.state.tools_for
    turn_a = tools_for(USER, source="chat")
    await turn_a.execute_batch([ToolCall("a1", "update_task", {"task_id": "Gym", "priority": "high"})])
    await tools_for(USER, source="mcp").execute_batch(
        [ToolCall("b1", "update_task", {"task_id": "Gym", "tags": ["x"]})]
    )
    await turn_a.execute_batch([ToolCall("a2", "complete_task", {"task_id": "Taxes"})])
    before = await tasks_of(client)

    refused = await undo(client)

    assert refused.status_code == 409 and refused.json()["error"] == "UNDO_CONFLICT"
    assert "“Gym” was changed again after that" in refused.json()["detail"]
    assert await tasks_of(client) == before  # Taxes was not half-undone


async def test_a_deleted_task_past_retention_is_purged_and_can_no_longer_come_back(
    make_client: MakeClient, database: str
) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm, undo_retention_days=30)
    await seed_tasks(client, "Gym")
    llm.push(calls(("delete_task", {"task_id": "Gym"})))
    await chat(client, "delete gym")

    later = FixedClock(datetime.now(UTC) + timedelta(days=31))  # rows are stamped with the real time
    removed = await prune(make_settings(database, undo_retention_days=30), clock=later)

    assert removed["deleted tasks past UNDO_RETENTION_DAYS"] == 1
    refused = await undo(client)
    assert refused.status_code == 409 and "can no longer be restored" in refused.json()["detail"]


async def test_deleted_tasks_are_invisible_to_lists_tools_and_the_resolver(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")
    llm.push(
        calls(("delete_task", {"task_id": "Gym"})),
        calls(("list_tasks", {"status": "all"})),
        calls(("complete_task", {"task_id": "Gym"})),
    )
    await chat(client, "delete gym")

    listed = (await chat(client, "list my tasks")).json()
    completed = (await chat(client, "complete gym")).json()
    tools_for = client.app.state.tools_for
    via_mcp = await tools_for(USER).execute_batch([ToolCall("m", "list_tasks", {})])

    assert [t["title"] for t in await tasks_of(client)] == ["Taxes"]
    assert [t["title"] for t in listed["tool_calls"][0]["result"]["data"]["tasks"]] == ["Taxes"]
    assert completed["tool_calls"][0]["result"]["code"] == "NOT_FOUND"
    assert [t["title"] for t in via_mcp.results[0].data["tasks"]] == ["Taxes"]


async def _two_changes(make_client: MakeClient, clock: FixedClock) -> Any:
    llm = ScriptedLLM()
    client = await make_client(llm, clock=clock)
    llm.push(calls(("add_task", {"title": "Milk"})), calls(("add_task", {"title": "Eggs"})))
    await chat(client, "add milk")
    await chat(client, "add eggs")
    return client


async def test_a_double_clicked_undo_undoes_once(make_client: MakeClient) -> None:
    clock = FixedClock(NOW)
    client = await _two_changes(make_client, clock)

    first, second = await undo(client), await undo(client)  # the second click, at once

    assert first.status_code == second.status_code == 200
    assert second.json() == first.json() and second.headers["Idempotency-Replayed"] == "true"
    assert [t["title"] for t in await tasks_of(client)] == ["Milk"]  # Eggs undone, Milk kept
    later = await undo(client, later=clock)  # a deliberate next undo, after the window
    assert [u["title"] for u in later.json()["undone"]] == ["Milk"] and await tasks_of(client) == []


async def test_an_undo_with_an_idempotency_key_runs_once_whatever_the_timing(make_client: MakeClient) -> None:
    clock = FixedClock(NOW)
    client = await _two_changes(make_client, clock)
    headers = {**auth(), "Idempotency-Key": "undo-1"}

    first = await client.post(f"/api/{USER}/undo", headers=headers)
    clock.moment += timedelta(minutes=5)  # long past the repeat window: the key still holds
    again = await client.post(f"/api/{USER}/undo", headers=headers)

    assert first.status_code == again.status_code == 200 and again.json() == first.json()
    assert again.headers["Idempotency-Replayed"] == "true"
    assert [t["title"] for t in await tasks_of(client)] == ["Milk"]
    other = await client.post(f"/api/{USER}/undo", headers={**auth(), "Idempotency-Key": "undo-2"})
    assert other.status_code == 200 and await tasks_of(client) == []


async def test_an_undo_naming_the_change_it_saw_reverts_only_that_one(make_client: MakeClient) -> None:
    clock = FixedClock(NOW)
    client = await _two_changes(make_client, clock)
    first = await undo(client)
    seen = first.json()["turn_id"]  # the Eggs turn, now undone

    clock.moment += timedelta(minutes=1)
    again = await client.post(f"/api/{USER}/undo", json={"turn_id": seen}, headers=auth())

    assert again.status_code == 409 and again.json()["error"] == "UNDO_CONFLICT", again.text
    assert [t["title"] for t in await tasks_of(client)] == ["Milk"]  # nothing more was undone
    rows = (await client.get(f"/api/{USER}/tasks", headers=auth())).json()
    assert [t["title"] for t in rows] == ["Milk"]


async def test_concurrent_undo_clicks_revert_one_change_set(make_client: MakeClient) -> None:
    clock = FixedClock(NOW)
    client = await _two_changes(make_client, clock)

    responses = await asyncio.gather(*(undo(client) for _ in range(4)))

    assert all(r.status_code in (200, 409) for r in responses), [r.text for r in responses]
    assert [t["title"] for t in await tasks_of(client)] == ["Milk"]


async def test_with_no_repeat_window_each_undo_reverts_one_more_change_set(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm, undo_repeat_window_s=0)
    llm.push(calls(("add_task", {"title": "Milk"})), calls(("add_task", {"title": "Eggs"})))
    await chat(client, "add milk")
    await chat(client, "add eggs")

    first, second = await undo(client), await undo(client)  # at once, and the clock does not move

    assert [u["title"] for u in first.json()["undone"]] == ["Eggs"]
    assert [u["title"] for u in second.json()["undone"]] == ["Milk"]
    assert await tasks_of(client) == []
