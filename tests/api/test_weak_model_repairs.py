"""A weak model that picks the right tool and passes noise as its argument (issue 17): the target
the user's own message names is used instead, said in the result; a model's argument that resolves is
never replaced, and a repair never invents a target the message does not name."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def state(client: Any) -> list[tuple[str, str]]:
    return sorted((t["title"], t["status"]) for t in await tasks_of(client))


@pytest.mark.parametrize(
    ("message", "call", "after"),
    [
        ("delete the taxes task", ("delete_task", {"task_id": "21648537900"}), [("Gym", "pending")]),
        (
            "please mark gym as done",
            ("complete_task", {"task_id": "Awesome"}),
            [("Gym", "completed"), ("Taxes", "pending")],
        ),
        ("remove gym", ("delete_task", {"task_id": "00000000-0000-4000-8000-000000000000"}), [("Taxes", "pending")]),
        # No parser reads these; the titles the message names (`named_in`) still say which task it is.
        ("elimina la tarea taxes", ("delete_task", {"task_id": ".2026-11-23.delete"}), [("Gym", "pending")]),
        (
            "strike gym off my list",
            ("complete_task", {"task_id": "./tasks.json"}),
            [("Gym", "completed"), ("Taxes", "pending")],
        ),
        ("Hak die Aufgabe gym ab", ("complete_task", {"task_id": "1.0"}), [("Gym", "completed"), ("Taxes", "pending")]),
    ],
)
async def test_a_reference_that_names_no_task_is_replaced_by_the_one_the_message_names(  # type: ignore[no-untyped-def]
    make_client, message: str, call: Any, after: list[tuple[str, str]]
) -> None:
    client = await make_client(ScriptedLLM(calls(call), completion("Done.")))
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, message)).json()

    assert await state(client) == after
    result = body["tool_calls"][0]["result"]
    assert result["success"] is True
    repaired = result["data"]["repaired"]
    assert len(repaired) == 1 and repaired[0].startswith(f"'{call[1]['task_id']}' names no task: used '")
    assert repaired[0] in result["warnings"]


async def test_a_forced_call_with_noise_still_lands_on_the_task_the_user_named(make_client) -> None:  # type: ignore[no-untyped-def]
    """The weak model claims success without a tool, is forced, and then passes noise."""
    llm = ScriptedLLM(
        completion("Taxes has been removed from your list."),
        calls(("delete_task", {"task_id": "21648537900"})),
        completion("Done."),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "delete the taxes task")).json()

    assert await state(client) == [("Gym", "pending")]
    assert llm.tool_choice(1) == {"type": "function", "function": {"name": "delete_task"}}
    assert body["action_metadata"]["success"] is True


@pytest.mark.parametrize(
    ("message", "junk", "said"),
    [
        ("add call the plumber", "Awesome", "call the plumber"),
        ("add milk to my list", "Add task to the list", "milk"),  # a title from the tool's own description
    ],
)
async def test_a_junk_title_is_replaced_by_the_title_the_user_asked_for(  # type: ignore[no-untyped-def]
    make_client, message: str, junk: str, said: str
) -> None:
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": junk})), completion("Added.")))

    body = (await chat(client, message)).json()

    assert await state(client) == [(said, "pending")]
    assert body["tool_calls"][0]["result"]["data"]["repaired"] == [
        f"title '{junk}' is not in the user's words: added '{said}', as they said"
    ]


async def test_each_junk_add_takes_the_next_title_asked_for_and_none_twice(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(
        calls(("add_task", {"title": "milk"}), ("add_task", {"title": "Task"}), ("add_task", {"title": "x"}))
    )
    llm.push(completion("Added."))
    client = await make_client(llm)

    body = (await chat(client, "add milk, eggs")).json()

    assert await state(client) == [("eggs", "pending"), ("milk", "pending")]
    results = [c["result"] for c in body["tool_calls"]]
    assert [r["success"] for r in results] == [True, True, False]  # the third has nothing left to take
    assert "repaired" not in results[0]["data"]  # the model's own title, in the user's words
    assert results[2]["code"] == "NOT_GROUNDED"


async def test_a_reference_that_resolves_is_never_replaced(make_client) -> None:  # type: ignore[no-untyped-def]
    client = await make_client(ScriptedLLM(calls(("complete_task", {"task_id": "taxes"})), completion("Done.")))
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "mark taxes as done")).json()

    assert await state(client) == [("Gym", "pending"), ("Taxes", "completed")]
    assert "repaired" not in body["tool_calls"][0]["result"]["data"]


@pytest.mark.parametrize(
    ("message", "why"),
    [
        ("delete the old stuff", "the message names no task that exists"),
        ("delete report", "the message's words fit two tasks"),
        ("delete q3 report and delete gym", "the message names two tasks: which one the call meant is unknown"),
        ("what's on my list?", "the message names no task at all"),
    ],
)
async def test_a_repair_never_invents_a_target(make_client, message: str, why: str) -> None:  # type: ignore[no-untyped-def]
    client = await make_client(ScriptedLLM(calls(("delete_task", {"task_id": "21648537900"})), completion("Done.")))
    await seed_tasks(client, "Q3 report", "Q4 report", "Gym")
    before = await state(client)

    body = (await chat(client, message)).json()

    assert await state(client) == before, why
    assert all(not c["result"]["success"] for c in body["tool_calls"]), why


async def test_the_title_the_user_quoted_and_the_priority_and_date_they_gave_win(make_client) -> None:  # type: ignore[no-untyped-def]
    junk = {"title": "Pay rent&#34; with high priority, due in 3 days", "priority": "low"}
    client = await make_client(ScriptedLLM(calls(("add_task", junk)), completion("Added.")))

    body = (await chat(client, 'Add a task "Pay rent" with high priority, due in 3 days')).json()

    [task] = await tasks_of(client)
    assert (task["title"], task["priority"], task["due_date"]) == ("Pay rent", "high", "2026-11-25")
    assert body["tool_calls"][0]["result"]["data"]["repaired"] == [
        f"title '{junk['title']}' is not the title the user quoted: added 'Pay rent'",
        "priority 'low' is not what the user said: used 'high'",
        "due_date 'None' is not what the user said: used '2026-11-25'",
    ]


async def test_the_raw_auto_policy_repairs_nothing(make_client) -> None:  # type: ignore[no-untyped-def]
    """`auto` is the model on its own (the eval's baseline): its noise stays noise."""
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "21648537900"})), completion("Done."))
    client = await make_client(llm, tool_policy="auto")
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "delete the taxes task")).json()

    assert await state(client) == [("Gym", "pending"), ("Taxes", "pending")]
    assert body["tool_calls"][0]["result"]["code"] == "NOT_FOUND"
