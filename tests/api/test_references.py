"""References into the conversation (issue 14): "it", "the second one", "#2", in several languages,
resolved before title matching, recorded in the call's result, asked about when unclear. A delete or
complete whose task the backend read from the conversation is the backend's choice: it asks first,
and a yes does exactly that (docs/guard.md, row T9); an edit runs."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls


async def turn(client: Any, message: str, conversation: str | None) -> dict[str, Any]:
    response = await chat(client, message, conversation_id=conversation)
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.mark.parametrize("reference", ["it", "that one", "this task", "the same one", "eso", "ça", "das", "isay"])
async def test_it_is_the_task_the_previous_turn_acted_on(make_client: MakeClient, reference: str) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Water plants"})), calls(("delete_task", {"task_id": reference})))
    client = await make_client(llm)
    await seed_tasks(client, "Water the garden")

    added = await turn(client, "add water plants", None)
    body = await turn(client, f"delete {reference}", added["conversation_id"])

    result = body["tool_calls"][0]["result"]
    assert result["code"] == "NEEDS_CONFIRMATION" and result["data"]["title"] == "Water plants"
    assert result["warnings"] == [f"'{reference}' → Water plants (the task added in the previous turn)"]
    assert body["confirmation"]["question"] == "Do you want me to delete “Water plants”? Answer yes or no."
    yes = await turn(client, "yes", added["conversation_id"])
    assert yes["assistant_message"] == "Deleted: “Water plants”."
    assert [t["title"] for t in await tasks_of(client)] == ["Water the garden"]


@pytest.mark.parametrize(
    ("reference", "title"),
    [
        ("the second one", "Bread"),
        ("#2", "Bread"),
        ("number 3", "Taxes"),
        ("the last one", "Taxes"),
        ("la segunda", "Bread"),
        ("die dritte", "Taxes"),
        ("il primo", "Gym"),
        ("1", "Gym"),
    ],
)
async def test_positions_are_in_the_list_shown_last(make_client: MakeClient, reference: str, title: str) -> None:
    llm = ScriptedLLM(calls(("list_tasks", {"status": "all"})), calls(("complete_task", {"task_id": reference})))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes")
    await seed_tasks(client, "Bread")
    await seed_tasks(client, "Gym")  # newest first: 1. Gym 2. Bread 3. Taxes

    listed = await turn(client, "list my tasks", None)
    body = await turn(client, f"complete {reference}", listed["conversation_id"])

    result = body["tool_calls"][0]["result"]
    assert result["code"] == "NEEDS_CONFIRMATION" and result["data"]["title"] == title, result
    assert "of the tasks shown last" in result["warnings"][0]
    await turn(client, "yes", listed["conversation_id"])
    done = [t["title"] for t in await tasks_of(client) if t["status"] == "completed"]
    assert done == [title]


async def test_across_turns_and_with_the_offline_model(make_client: MakeClient) -> None:
    client = await make_client(offline=True)

    first = await turn(client, "add water plants", None)
    await turn(client, "list my tasks", first["conversation_id"])
    body = await turn(client, "mark it done", first["conversation_id"])

    assert body["tool_calls"][-1]["result"]["warnings"] == ["'it' → water plants (the task shown last)"]
    await turn(client, "yes", first["conversation_id"])
    [task] = await tasks_of(client)
    assert (task["title"], task["status"]) == ("water plants", "completed")


async def test_an_unclear_reference_is_asked_about_never_guessed(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Milk"}), ("add_task", {"title": "Eggs"})),
        calls(("delete_task", {"task_id": "it"})),
        calls(("delete_task", {"task_id": "the fifth one"})),
    )
    client = await make_client(llm)

    added = await turn(client, "add milk and eggs", None)
    unclear = await turn(client, "delete it", added["conversation_id"])
    nowhere = await turn(client, "delete the fifth one", added["conversation_id"])

    assert sorted(t["title"] for t in await tasks_of(client)) == ["Eggs", "Milk"]
    result = unclear["tool_calls"][0]["result"]
    assert result["code"] == "AMBIGUOUS" and "'it' could be several tasks: 1. Milk; 2. Eggs" in result["error"]
    assert unclear["confirmation"]["question"] == (
        "Multiple tasks match 'it'.\nWhich one should I delete?\n1. Milk\n2. Eggs\nAnswer with its number."
    )
    assert unclear["assistant_message"] == unclear["confirmation"]["question"]  # the options, once
    assert nowhere["tool_calls"][0]["result"]["code"] == "AMBIGUOUS"


async def test_a_reference_to_a_task_since_deleted_says_so(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Milk"})),
        calls(("delete_task", {"task_id": "Milk"})),
        calls(("complete_task", {"task_id": "it"})),
    )
    client = await make_client(llm)

    added = await turn(client, "add milk", None)
    await turn(client, "delete milk", added["conversation_id"])
    body = await turn(client, "complete it", added["conversation_id"])

    result = body["tool_calls"][0]["result"]
    assert result["code"] == "NOT_FOUND"
    assert result["error"] == "'it' was “Milk” (the task deleted in the previous turn), which no longer exists"


async def test_a_title_is_still_a_title(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Milk"})), calls(("delete_task", {"task_id": "Gym"})))
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    added = await turn(client, "add milk", None)
    body = await turn(client, "delete gym", added["conversation_id"])

    assert [t["title"] for t in await tasks_of(client)] == ["Milk"]
    assert "resolved" not in body["tool_calls"][0]["result"]["data"]
