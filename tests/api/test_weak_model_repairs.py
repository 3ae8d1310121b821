"""A weak model that picks the right tool and passes noise as its argument (issue 17): the target
the user's own message names is used instead, said in the result; a model's argument that resolves is
never replaced, and a repair never invents a target the message does not name."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.services.turn import commands
from backend.app.services.turn import pipeline as chat_service


async def state(client: Any) -> list[tuple[str, str]]:
    return sorted((t["title"], t["status"]) for t in await tasks_of(client))


@pytest.mark.parametrize(
    ("message", "call", "title", "after"),
    [
        ("delete the taxes task", ("delete_task", {"task_id": "21648537900"}), "Taxes", [("Gym", "pending")]),
        (
            "please mark gym as done",
            ("complete_task", {"task_id": "Awesome"}),
            "Gym",
            [("Gym", "completed"), ("Taxes", "pending")],
        ),
        (
            "remove gym",
            ("delete_task", {"task_id": "00000000-0000-4000-8000-000000000000"}),
            "Gym",
            [("Taxes", "pending")],
        ),
        ("elimina la tarea taxes", ("delete_task", {"task_id": ".2026-11-23.delete"}), "Taxes", [("Gym", "pending")]),
        (
            "strike gym off my list",
            ("complete_task", {"task_id": "./tasks.json"}),
            "Gym",
            [("Gym", "completed"), ("Taxes", "pending")],
        ),
        (
            "Hak die Aufgabe gym ab",
            ("complete_task", {"task_id": "1.0"}),
            "Gym",
            [("Gym", "completed"), ("Taxes", "pending")],
        ),
    ],
)
async def test_a_delete_or_complete_whose_reference_names_no_task_runs_on_the_task_its_words_name_exactly(
    make_client: MakeClient, message: str, call: Any, title: str, after: list[tuple[str, str]]
) -> None:
    """A destructive call whose reference names no task takes the task the words for that very action
    name exactly (docs/guard.md, rows T1 and T8): the user named it for that action, so it runs, and
    the result says what was repaired."""
    client = await make_client(ScriptedLLM(calls(call), completion("Done.")))
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, message)).json()

    assert await state(client) == after
    result = body["tool_calls"][0]["result"]
    assert result["success"] is True and result["data"]["title"] == title and result["data"]["repaired"]
    assert body["tool_calls"][0]["arguments"]["task_id"] == title  # the record says what was applied
    assert body["confirmation"] is None and title in body["assistant_message"]


@pytest.mark.parametrize(
    ("message", "call"),
    [
        ("delete the dentist thing", ("delete_task", {"task_id": "21648537900"})),
        ("marca lo del dentista como hecho", ("complete_task", {"task_id": "Awesome"})),
        ("streich den zahnarzt", ("delete_task", {"task_id": "./tasks.json"})),
    ],
)
async def test_a_delete_or_complete_repaired_onto_a_task_named_in_part_is_asked_about_never_run(
    make_client: MakeClient, message: str, call: Any
) -> None:
    """Where the words name the task only in part, the backend's choice is asked about (row T9), and a
    yes runs exactly that."""
    client = await make_client(ScriptedLLM(calls(call), completion("Done.")))
    await seed_tasks(client, "Dentist appointment", "Zahnarzt Termin", "Gym")
    before = await state(client)

    body = (await chat(client, message)).json()

    assert await state(client) == before
    result = body["tool_calls"][0]["result"]
    assert result["code"] == "NEEDS_CONFIRMATION", result
    assert body["confirmation"]["actions"][0]["arguments"]["task_id"] == result["data"]["id"]
    assert result["data"]["title"] in body["assistant_message"] and "Done" not in body["assistant_message"]


async def test_an_edit_whose_reference_names_no_task_takes_the_one_its_words_name(make_client: MakeClient) -> None:
    call = ("update_task", {"task_id": "21648537900", "priority": "high"})
    client = await make_client(ScriptedLLM(calls(call), completion("Done.")))
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "make the gym task high priority")).json()

    result = body["tool_calls"][0]["result"]
    assert result["success"] is True and result["data"]["title"] == "Gym"
    assert result["data"]["repaired"] == ["'21648537900' names no task: used 'Gym', which the user's message names"]


@pytest.mark.parametrize(
    ("message", "steps", "tasks", "after"),
    [
        # The delete's own words are "Trip", which names no task: never Laundry, the complete's.
        (
            "complete Laundry and delete Trip",
            [("complete_task", {"task_id": "Laundry"}), ("delete_task", {"task_id": "21648537900"})],
            ("Laundry", "Gym"),
            [("Gym", "pending"), ("Laundry", "completed")],
        ),
        (
            "termina Laundry y borra Trip",
            [("complete_task", {"task_id": "Laundry"}), ("delete_task", {"task_id": "Trip"})],
            ("Laundry", "Gym"),
            [("Gym", "pending"), ("Laundry", "completed")],
        ),
        (
            "Erledige Laundry und lösch Trip",
            [("complete_task", {"task_id": "Laundry"}), ("delete_task", {"task_id": "Trip"})],
            ("Laundry", "Gym"),
            [("Gym", "pending"), ("Laundry", "completed")],
        ),
        # A stray delete beside an add: not the task the turn just added.
        ("add Eggs", [("add_task", {"title": "Eggs"}), ("delete_task", {"task_id": "x"})], ("Gym",), None),
        ("ajoute Eggs", [("add_task", {"title": "Eggs"}), ("delete_task", {"task_id": "x"})], ("Gym",), None),
        ("aggiungi Eggs", [("add_task", {"title": "Eggs"}), ("complete_task", {"task_id": "0"})], ("Gym",), None),
        # The whole message is a task's title, and no action is about it.
        ("Laundry", [("delete_task", {"task_id": "21648537900"})], ("Laundry", "Gym"), None),
        ("eggs wala task", [("complete_task", {"task_id": "1"})], ("Eggs", "Gym"), None),
    ],
)
async def test_a_repair_never_moves_a_call_onto_another_actions_task(
    make_client: MakeClient, message: str, steps: Any, tasks: tuple[str, ...], after: list[tuple[str, str]] | None
) -> None:
    client = await make_client(ScriptedLLM(calls(*steps), completion("Done."), default=completion("Okay.")))
    await seed_tasks(client, *tasks)
    before = await state(client)

    body = (await chat(client, message)).json()

    expected = after or before + ([("Eggs", "pending")] if steps[0][0] == "add_task" else [])
    assert await state(client) == sorted(expected), body["assistant_message"]
    assert body["confirmation"] is None, body["confirmation"]
    assert all("repaired" not in (c["result"].get("data") or {}) for c in body["tool_calls"])


@pytest.mark.parametrize(
    ("message", "junk", "said"),
    [
        ("add call the plumber", "Awesome", "call the plumber"),
        ("add milk to my list", "Add task to the list", "milk"),  # a title from the tool's own description
    ],
)
async def test_a_junk_title_is_replaced_by_the_title_the_user_asked_for(
    make_client: MakeClient, message: str, junk: str, said: str
) -> None:
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": junk})), completion("Added.")))

    body = (await chat(client, message)).json()

    assert await state(client) == [(said, "pending")]
    assert body["tool_calls"][0]["result"]["data"]["repaired"] == [
        f"title '{junk}' is not in the user's words: added '{said}', as they said"
    ]


async def test_junk_adds_take_the_titles_asked_for_only_when_they_pair_one_to_one(make_client: MakeClient) -> None:
    junk = calls(("add_task", {"title": "milk"}), ("add_task", {"title": "Task"}), ("add_task", {"title": "x"}))
    client = await make_client(ScriptedLLM(junk, completion("Added."), junk, completion("Added.")))

    paired = (await chat(client, "add milk, eggs and bread")).json()
    assert await state(client) == [("bread", "pending"), ("eggs", "pending"), ("milk", "pending")]
    assert [r["result"]["data"].get("repaired") is not None for r in paired["tool_calls"]] == [False, True, True]

    # Two adds naming nothing, one title left to add: which of them meant it is not known.
    unpaired = (await chat(client, "add milk, eggs", user="bob")).json()
    results = [c["result"] for c in unpaired["tool_calls"]]
    assert [r["success"] for r in results] == [True, False, False]
    assert {r["code"] for r in results[1:]} == {"NOT_GROUNDED"}


async def test_a_reference_that_resolves_is_never_replaced(make_client: MakeClient) -> None:
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
async def test_a_repair_never_invents_a_target(make_client: MakeClient, message: str, why: str) -> None:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "21648537900"})), default=completion("Done."))
    client = await make_client(llm)
    await seed_tasks(client, "Q3 report", "Q4 report", "Gym")
    before = await state(client)

    body = (await chat(client, message)).json()

    assert await state(client) == before, why
    assert all(not c["result"]["success"] for c in body["tool_calls"] if c["name"] == "delete_task"), why


async def test_the_title_the_user_quoted_and_the_priority_and_date_they_gave_win(make_client: MakeClient) -> None:
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


async def test_the_raw_auto_policy_repairs_nothing(make_client: MakeClient) -> None:
    """`auto` is the model on its own (the eval's baseline): its noise stays noise."""
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "21648537900"})), completion("Done."))
    client = await make_client(llm, tool_policy="auto")
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "delete the taxes task")).json()

    assert await state(client) == [("Gym", "pending"), ("Taxes", "pending")]
    assert body["tool_calls"][0]["result"]["code"] == "NOT_FOUND"


async def test_the_message_is_read_as_calls_only_when_a_tool_needs_it(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The calls the message asks for (its titles, dates, priorities and references, `asked_in`) are
    read when a tool first needs them to check or repair a call, once however often it asks: an add
    always asks (the user's priority and due date hold), a complete by the user's own title never does."""
    read: list[str] = []
    original = commands.asked_in  # what the pipeline imported: it reads the message through this name

    def counted(message: str, **kwargs: Any) -> Any:
        read.append(message)
        return original(message, **kwargs)

    monkeypatch.setattr(chat_service, "asked_in", counted)
    junk = {"title": "Pay rent", "priority": "low"}
    llm = ScriptedLLM(
        calls(("complete_task", {"task_id": "gym"})),
        completion("Done."),
        calls(("add_task", junk)),
        completion("Added."),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    done = (await chat(client, "mark gym as done")).json()
    assert done["tool_calls"][0]["result"]["success"] is True, done
    assert read == []

    added = (await chat(client, "add Pay rent with high priority")).json()
    assert added["tool_calls"][0]["result"]["data"]["repaired"] == [
        "priority 'low' is not what the user said: used 'high'"
    ]
    assert read == ["add Pay rent with high priority"]
    assert await state(client) == [("Gym", "completed"), ("Pay rent", "pending")]


@pytest.mark.parametrize(
    ("message", "reference", "tool", "title"),
    [
        ("Hak die Aufgabe bread ab", "die aufgabe", "complete_task", "Bread"),
        ("mark the task gym as done", "the task", "complete_task", "Gym"),
        ("marca la tarea Taxes como hecha", "la tarea", "complete_task", "Taxes"),
        ("supprime la tâche Bread", "la tâche", "delete_task", "Bread"),
    ],
)
async def test_a_pointer_to_nothing_is_repaired_from_the_users_words(
    make_client: MakeClient, message: str, reference: str, tool: str, title: str
) -> None:
    """A model that passes the user's "the task" as its reference, in a conversation that showed no
    task: it names no task, so the words for that action name it (row T1), and the title said exactly
    lets the change run (T8); the result says what was repaired."""
    llm = ScriptedLLM(calls((tool, {"task_id": reference})), completion("Done."))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes", "Gym", "Bread")

    body = (await chat(client, message)).json()

    result = body["tool_calls"][0]["result"]
    assert result["success"] is True and result["data"]["title"] == title, result
    assert result["data"]["repaired"] == [
        f"'{reference}' names no task: used '{title}', which the user's message names"
    ]
    assert title not in {t["title"] for t in await tasks_of(client, status="pending")}


async def test_a_pointer_to_nothing_with_no_task_named_changes_nothing(make_client: MakeClient) -> None:
    """The same pointer with words that name no task: nothing is repaired or changed."""
    llm = ScriptedLLM(calls(("complete_task", {"task_id": "the task"})), completion("Done."))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes", "Gym")

    body = (await chat(client, "mark the task as done")).json()

    assert body["tool_calls"][0]["result"]["success"] is False
    assert len(await tasks_of(client, status="pending")) == 2
