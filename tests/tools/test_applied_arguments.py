"""The arguments a call is recorded with are the ones its handler applied (tools/task_tools.py,
tools/handlers.py `Done.applied`): the model's, with each value repaired from the user's words in its
place; a call that changed nothing applied nothing and keeps the model's. Through a chat turn: what
the response's `tool_calls` show and what `tool_executions` keeps."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from support.api import AppClient, MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def recorded(client: AppClient) -> list[dict[str, Any]]:
    """The arguments of every stored tool execution, oldest first."""
    async with client.app.state.engine.connect() as conn:
        rows = await conn.execute(sa.text("SELECT arguments FROM tool_executions ORDER BY created_at, tool_call_id"))
        return [r.arguments for r in rows]


async def test_an_add_whose_title_is_repaired_from_the_users_words_is_recorded_with_that_title(
    make_client: MakeClient,
) -> None:
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": "Awesome"})), completion("Added.")))

    body = (await chat(client, "add call the plumber")).json()

    assert [t["title"] for t in await tasks_of(client)] == ["call the plumber"]
    [shown] = body["tool_calls"]
    assert shown["result"]["data"]["repaired"] == [
        "title 'Awesome' is not in the user's words: added 'call the plumber', as they said"
    ]
    assert shown["arguments"] == {"title": "call the plumber"}  # not the model's "Awesome"
    assert await recorded(client) == [{"title": "call the plumber"}]


async def test_the_quoted_title_and_the_priority_and_date_the_user_gave_are_recorded_as_applied(
    make_client: MakeClient,
) -> None:
    junk = {"title": "Pay rent&#34; with high priority, due in 3 days", "priority": "low"}
    client = await make_client(ScriptedLLM(calls(("add_task", junk)), completion("Added.")))

    body = (await chat(client, 'Add a task "Pay rent" with high priority, due in 3 days')).json()

    applied = {"title": "Pay rent", "priority": "high", "due_date": "2026-11-25"}
    assert body["tool_calls"][0]["arguments"] == applied
    assert await recorded(client) == [applied]


async def test_an_edit_whose_reference_is_repaired_is_recorded_with_the_task_it_was_applied_to(
    make_client: MakeClient,
) -> None:
    client = await make_client(
        ScriptedLLM(calls(("update_task", {"task_id": "21648537900", "priority": "high"})), completion("Done."))
    )
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "make the gym task high priority")).json()

    assert body["tool_calls"][0]["result"]["data"]["repaired"]
    assert body["tool_calls"][0]["arguments"] == {"task_id": "Gym", "priority": "high"}
    assert (await recorded(client))[-1] == {"task_id": "Gym", "priority": "high"}


async def test_arguments_nothing_repaired_are_recorded_as_the_model_sent_them(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(calls(("complete_task", {"task_id": "taxes"})), completion("Done.")))
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "mark taxes as done")).json()

    assert body["tool_calls"][0]["arguments"] == {"task_id": "taxes"}
    assert (await recorded(client))[-1] == {"task_id": "taxes"}


async def test_a_call_only_asked_about_applied_nothing_and_keeps_the_models_arguments(make_client: MakeClient) -> None:
    # The delete's reference names no task: "Tax return", which the user's words name only in part,
    # is only asked about. Nothing was applied, so the model's arguments stand; the question names the task.
    client = await make_client(ScriptedLLM(calls(("delete_task", {"task_id": "21648537900"})), completion("Done.")))
    await seed_tasks(client, "Tax return", "Gym")

    body = (await chat(client, "delete the tax thing")).json()

    [shown] = body["tool_calls"]
    assert shown["result"]["code"] == "NEEDS_CONFIRMATION" and shown["result"]["data"]["title"] == "Tax return"
    assert shown["arguments"] == {"task_id": "21648537900"}
    assert (await recorded(client))[-1] == {"task_id": "21648537900"}
    assert body["confirmation"]["actions"][0]["arguments"] == {"task_id": shown["result"]["data"]["id"]}
