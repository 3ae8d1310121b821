"""update_task clears a field: null for due_date and description, [] for tags (issue 14)."""

from __future__ import annotations

from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def test_null_and_empty_clear_the_fields_and_the_reply_says_so(make_client: MakeClient) -> None:
    from datetime import date

    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed_tasks(client, "Gym", description="leg day", due_date=date(2026, 12, 1), tags=["health"])
    llm.push(calls(("update_task", {"task_id": "Gym", "due_date": None, "description": None, "tags": []})))

    body = (await chat(client, "clear the date, the notes and the tags of gym")).json()

    [gym] = await tasks_of(client)
    assert (gym["due_date"], gym["description"], gym["tags"]) == (None, None, [])
    assert body["tool_calls"][0]["result"]["success"] is True
    assert body["assistant_message"] == "Updated: “Gym” (description cleared, due date cleared, tags cleared)."


async def test_a_null_where_clearing_means_nothing_is_no_change(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed_tasks(client, "Gym")
    llm.push(calls(("update_task", {"task_id": "Gym", "title": None, "priority": None})), completion("What to change?"))

    body = (await chat(client, "update gym")).json()

    assert body["tool_calls"][0]["result"]["code"] == "NO_CHANGES"
    assert [t["title"] for t in await tasks_of(client)] == ["Gym"]


async def test_the_schema_the_model_sees_says_null_clears(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed_tasks(client, "Gym")
    llm.push(calls(("list_tasks", {})))

    await chat(client, "list my tasks")

    [update] = [t["function"] for t in llm.requests[0]["tools"] if t["function"]["name"] == "update_task"]
    properties = update["parameters"]["properties"]
    for field in ("due_date", "description"):
        assert {"type": "null"} in properties[field]["anyOf"] and "null clears" in properties[field]["description"]
    assert "[] clears" in properties["tags"]["description"]
    assert "anyOf" not in properties["title"]  # null means nothing there, so it is not offered
