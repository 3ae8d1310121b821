"""The payload of every kind of tool result, as it reaches the wire, has the shape calls/payloads.py
declares for it: each required key, and no key the shape does not name (the reply, the wording, the
confirmations and the records read these shapes, and the model and the stored rows receive them).
Driven through the chat route with a scripted model; one case per kind of answer."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.calls import payloads

FUTURE = "2027-03-01"


def fits(data: dict[str, Any], shape: Any) -> None:
    required, optional = set(shape.__required_keys__), set(shape.__optional_keys__)
    assert required <= data.keys() <= required | optional, (shape.__name__, sorted(data))


async def results(client: Any, llm: ScriptedLLM, message: str, *steps: Any) -> list[dict[str, Any]]:
    llm.push(*steps)  # then the model's words (the default answer)
    body = (await chat(client, message)).json()
    return [call["result"] for call in body["tool_calls"]]


async def test_each_kind_of_result_carries_its_declared_payload(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("Done."))
    client = await make_client(llm, response_mode="model", reply_check="lists")
    await seed_tasks(client, "Gym", "Gym", "Taxes")

    [added] = await results(
        client,
        llm,
        f"add buy milk, high priority, due {FUTURE}",
        calls(("add_task", {"title": "Buy milk", "priority": "high", "due_date": FUTURE})),
    )
    fits(added["data"], payloads.TaskData)
    assert added["success"] and added["data"]["priority"] == "high" and added["data"]["due_date"] == FUTURE

    [listed] = await results(
        client, llm, "show my pending tasks about milk", calls(("list_tasks", {"status": "pending", "query": "milk"}))
    )
    fits(listed["data"], payloads.TaskListing)
    for task in listed["data"]["tasks"]:
        fits(task, payloads.TaskData)
    assert listed["data"]["query"] == "milk" and listed["data"]["count"] == 1

    [updated] = await results(
        client, llm, "set buy milk to low priority", calls(("update_task", {"task_id": "buy milk", "priority": "low"}))
    )
    fits(updated["data"], payloads.TaskData)
    [completed] = await results(client, llm, "complete buy milk", calls(("complete_task", {"task_id": "Buy milk"})))
    fits(completed["data"], payloads.TaskData)
    [deleted] = await results(client, llm, "delete buy milk", calls(("delete_task", {"task_id": "Buy milk"})))
    fits(deleted["data"], payloads.DeletedTask)
    assert deleted["data"]["status"] == "deleted"

    [undone] = await results(client, llm, "undo that", calls(("undo_last_change", {})))
    fits(undone["data"], payloads.UndoData)
    for item in undone["data"]["undone"]:
        fits(item, payloads.Undone)
    assert [i["action"] for i in undone["data"]["undone"]] == ["restored"]

    [twins] = await results(client, llm, "delete gym", calls(("delete_task", {"task_id": "gym"})))
    assert twins["code"] == "AMBIGUOUS"
    fits(twins["data"], payloads.Choices)
    for choice in twins["data"]["choices"]:
        fits(choice, payloads.Choice)
    await chat(client, "no")  # the question it asked is answered: nothing is deleted

    invalid, *_ = await results(client, llm, "add taxes again", calls(("add_task", {"title": 5})))
    assert invalid["code"] == "INVALID_ARGUMENTS"
    fits(invalid["data"], payloads.InvalidFields)
    for field in invalid["data"]["fields"]:
        fits(field, payloads.FieldError)

    unknown, *_ = await results(client, llm, "add pay rent", calls(("archive_task", {"task_id": "Taxes"})))
    assert unknown["code"] == "UNKNOWN_TOOL"
    fits(unknown["data"], payloads.ValidTools)
    assert "add_task" in unknown["data"]["valid_tools"]


@pytest.mark.parametrize("limit", [1])
async def test_a_refusal_that_asks_names_its_task(make_client: MakeClient, limit: int) -> None:
    llm = ScriptedLLM(default=completion("Done."))
    client = await make_client(llm, max_destructive_calls_per_turn=limit)
    await seed_tasks(client, "Taxes", "Bread")

    first, second = await results(
        client,
        llm,
        "delete taxes and bread",
        calls(("delete_task", {"task_id": "Taxes"}), ("delete_task", {"task_id": "Bread"})),
    )

    assert first["success"] and second["code"] == "DESTRUCTIVE_LIMIT"
    fits(second["data"], payloads.TaskNamed)
    assert second["data"]["title"] == "Bread"
