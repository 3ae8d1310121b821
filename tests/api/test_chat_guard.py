"""The guarded chat turn end to end: HTTP, a real database, a scripted model (seed 003's AC-001..005)."""

from __future__ import annotations

import httpx
import pytest
from support.api import MakeClient, chat, tasks_of
from support.fake_llm import NONSENSE_CHECK, ScriptedLLM, calls, completion

from backend.app.calls.tools import BULK
from backend.app.services.reply.compose import TOOL_NOT_TRIGGERED

BOTH = pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)


async def seed(client: httpx.AsyncClient, llm: ScriptedLLM, *titles: str) -> None:
    llm.push(calls(*[("add_task", {"title": t}) for t in titles]))
    if len(titles) > BULK:  # a model adding a long list is asked whether it has more: it answers in words
        llm.push(completion("Added."))
    response = await chat(client, "add " + ", ".join(titles))
    assert response.status_code == 200, response.text
    assert [c["result"]["success"] for c in response.json()["tool_calls"]] == [True] * len(titles)


@BOTH
async def test_ac001_delete_by_title_runs_delete_task(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed(client, llm, "Read book", "Call mom")
    llm.push(calls(("delete_task", {"task_id": "read book"})))

    response = await chat(client, "delete Read book")

    assert response.status_code == 200
    body = response.json()
    assert [c["name"] for c in body["tool_calls"]] == ["delete_task"]
    assert body["tool_calls"][0]["result"]["success"] is True
    assert body["tool_calls"][0]["result"]["data"]["status"] == "deleted"
    assert body["action_metadata"]["action"] == "delete_task"
    assert body["action_metadata"]["success"] is True
    assert body["action_metadata"]["task_title"] == "Read book"
    assert body["action_metadata"]["message"] == "Deleted: Read book"
    meta = body["execution_metadata"]
    assert (meta["tool_calls_executed"], meta["tool_calls_retried"], meta["llm_calls"]) == (1, 0, 1)
    assert isinstance(meta["total_latency_ms"], int)
    assert [t["title"] for t in await tasks_of(client)] == ["Call mom"]
    # The model was sent every tool with tool_choice auto.
    assert llm.tool_names(-1) == [
        "add_task",
        "list_tasks",
        "complete_task",
        "delete_task",
        "update_task",
        "undo_last_change",
    ]
    assert llm.tool_choice(-1) == "auto"


@BOTH
async def test_ac002_ac003_list_shows_all_seven_tasks(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    titles = [f"Task number {i}" for i in range(1, 8)]
    await seed(client, llm, *titles)
    llm.push(calls(("list_tasks", {"status": "all"})))

    body = (await chat(client, "list my tasks")).json()

    assert body["tool_calls"][0]["name"] == "list_tasks"
    assert body["tool_calls"][0]["result"]["data"]["count"] == 7
    for title in titles:
        assert title in body["assistant_message"]
    assert body["action_metadata"]["action"] == "list_tasks"
    assert body["execution_metadata"]["llm_calls"] == 1


@BOTH
async def test_ac004_ac005_no_ghost_success(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed(client, llm, "Read book")
    llm.push(completion("I've deleted Read book for you!"), completion("Done, it's gone."))

    body = (await chat(client, "delete Read book")).json()

    assert body["assistant_message"] == TOOL_NOT_TRIGGERED
    assert body["action_metadata"]["action"] == "delete_task"
    assert body["action_metadata"]["success"] is False
    assert body["tool_calls"] == []
    assert body["execution_metadata"]["guard"]["outcome"] == "tool_not_triggered"
    assert body["execution_metadata"]["llm_calls"] == 2
    # The retry forced the function and carried the forced instruction.
    assert llm.tool_choice(-1) == {"type": "function", "function": {"name": "delete_task"}}
    assert any(
        "MUST call the delete_task tool" in m.get("content", "")
        for m in llm.requests[-1]["messages"]
        if m["role"] == "system"
    )
    assert [t["title"] for t in await tasks_of(client)] == ["Read book"]  # nothing changed


async def test_guard_retry_succeeds_and_is_recorded(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed(client, llm, "Read book")
    llm.push(completion("Sure, consider it done."), calls(("delete_task", {"task_id": "Read book"})))

    body = (await chat(client, "please remove Read book")).json()

    assert body["tool_calls"][0]["retried"] is True
    assert body["tool_calls"][0]["retry_reason"] == "missing_tool"
    assert body["execution_metadata"]["tool_calls_retried"] == 1
    assert body["execution_metadata"]["guard"]["outcome"] == "retried"
    assert body["action_metadata"]["success"] is True
    assert await tasks_of(client) == []


async def test_another_destructive_tool_is_not_run_nor_replaced_and_the_model_makes_the_asked_one(
    make_client: MakeClient,
) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed(client, llm, "Read book")
    llm.push(calls(("complete_task", {"task_id": "Read book"})), calls(("delete_task", {"task_id": "Read book"})))

    body = (await chat(client, "delete Read book")).json()

    # The model's complete_task is recorded as refused (never run, never asked about); the model, told
    # the message asks for another change, made the delete itself: nothing was forced on it.
    assert [(c["name"], c["result"].get("code")) for c in body["tool_calls"]] == [
        ("complete_task", "NOT_REQUESTED"),
        ("delete_task", None),
    ]
    assert body["tool_calls"][1]["retried"] is False
    assert body["action_metadata"]["action"] == "delete_task", body["action_metadata"]
    assert all(not isinstance(llm.tool_choice(i), dict) for i in range(len(llm.requests)))
    assert body["confirmation"] is None
    assert await tasks_of(client) == []  # deleted, never completed


async def test_question_is_not_forced(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion("Say 'delete' and the task's title, for example: delete Read book."))
    client = await make_client(llm)

    body = (await chat(client, "how do I delete a task?")).json()

    assert len(llm.requests) == 1
    assert llm.tool_choice(0) == "auto"
    assert body["assistant_message"].startswith("Say 'delete'")
    assert body["action_metadata"] is None
    assert body["execution_metadata"]["guard"]["outcome"] == "not_needed"
    assert body["execution_metadata"]["intent"]["kind"] == "question"


async def test_negation_is_not_forced(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion("OK, I won't."))
    client = await make_client(llm)

    body = (await chat(client, "don't delete it")).json()

    assert len(llm.requests) == 1
    assert body["assistant_message"] == "OK, I won't."


async def test_failed_tool_is_reported_even_when_the_model_says_done(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm, response_mode="model")
    llm.push(calls(("delete_task", {"task_id": "Gym"})), completion("Done! I deleted Gym."))

    body = (await chat(client, "delete Gym")).json()

    assert "Couldn't delete “Gym”: there is no task by that name on your list." in body["assistant_message"]
    assert "Done" not in body["assistant_message"]
    assert body["action_metadata"]["success"] is False
    assert body["tool_calls"][0]["result"]["error"] == "No task matching 'Gym' found"


async def test_a_reply_claiming_more_than_the_tools_did_is_replaced_by_the_results(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm, response_mode="model")
    llm.push(calls(("add_task", {"title": "Gym"})), completion("I've added Gym."))
    assert (await chat(client, "add Gym")).status_code == 200
    llm.push(calls(("add_task", {"title": "Buy milk"})), completion("I've added Buy milk and deleted Gym for you."))

    body = (await chat(client, "add Buy milk")).json()

    assert body["assistant_message"] == "Added: “Buy milk”."
    [finding] = [f for f in body["execution_metadata"]["findings"] if f["kind"] == "UnbackedClaim"]
    assert finding["claims"] == ["deleted"]
    assert sorted(t["title"] for t in await tasks_of(client)) == ["Buy milk", "Gym"]


async def test_a_reply_the_tools_back_is_the_models_own(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Buy milk"})), completion("I've added Buy milk to your list."))
    client = await make_client(llm, response_mode="model")

    body = (await chat(client, "add Buy milk")).json()

    assert body["assistant_message"] == "I've added Buy milk to your list."
    assert not [f for f in body["execution_metadata"]["findings"] if f["kind"] == "UnbackedClaim"]


async def test_ambiguous_title_asks_instead_of_guessing(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed(client, llm, "Read book", "Return book to library", "Book list")
    llm.push(calls(("delete_task", {"task_id": "book"})))

    body = (await chat(client, "delete book")).json()

    error = body["tool_calls"][0]["result"]["error"]
    assert error.startswith("Multiple tasks match 'book'. Please be more specific:")
    assert "Read book" in body["assistant_message"]
    assert len(await tasks_of(client)) == 3


async def test_small_talk_is_answered_without_tools(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion("Hello! What can I do for you?"))
    client = await make_client(llm)

    body = (await chat(client, "hi there")).json()

    assert body["assistant_message"] == "Hello! What can I do for you?"
    assert body["tool_calls"] == []
    # The answer, then one short call in which the model says what its words claim (nothing): shown.
    assert body["execution_metadata"]["llm_calls"] == 2 and len(llm.checks) == 1
    assert body["execution_metadata"]["reply"]["words"] == "verified"


async def test_small_talk_whose_check_cannot_be_read_is_not_shown(make_client: MakeClient) -> None:
    """A model that answers the check with anything but a readable `check_reply` verifies nothing."""
    llm = ScriptedLLM(completion("Hello! What can I do for you?"), checker=NONSENSE_CHECK)
    client = await make_client(llm)

    body = (await chat(client, "hi there")).json()

    # Not the model's words, and never a bare "Nothing was changed.": the catalog's answer to small talk.
    assert body["assistant_message"].startswith("Glad to help.")
    assert body["execution_metadata"]["reply"]["replaced"][0]["reason"] == "unverified"


async def test_with_reply_check_lists_small_talk_costs_one_call(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion("Hello! What can I do for you?"))
    client = await make_client(llm, reply_check="lists")

    body = (await chat(client, "hi there")).json()

    assert body["assistant_message"] == "Hello! What can I do for you?"
    assert body["execution_metadata"]["llm_calls"] == 1 and llm.checks == []
    assert body["execution_metadata"]["reply"]["words"] == "shown"


async def test_every_request_is_logged_with_its_tools_and_tool_choice(
    make_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    llm = ScriptedLLM(completion("Added!"), calls(("add_task", {"title": "milk"})))
    client = await make_client(llm)

    with caplog.at_level("INFO", logger="backend.app.agent.runner"):
        await chat(client, "add milk")

    extra = [vars(r) for r in caplog.records if r.getMessage() == "llm_request"]  # a record's `extra` fields
    logged = [(e["tools"], e["tool_choice"]) for e in extra]
    assert logged == [(6, "auto"), (6, "function:add_task")]
