"""Every documented setting does what it says (issue 15): MAX_MESSAGE_CHARS, TOOL_FAILURE_POLICY,
PARALLEL_TOOL_CALLS, TOOLS_ALLOW / TOOLS_DENY."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from support.api import USER, MakeClient, chat, make_settings, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, call_delta, calls, chunk, completion, stream

from backend.app.calls.types import ToolCall


async def test_max_message_chars_is_the_limit(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("ok"))
    short = await make_client(llm, max_message_chars=10)
    long = await make_client(llm, max_message_chars=8_000)

    refused = await chat(short, "x" * 11)
    accepted = await chat(short, "x" * 10)
    big = await chat(long, "hello " * 1_000)  # 6,000 characters: over the old fixed 4,000

    assert refused.status_code == 422
    assert refused.json() == {
        "error": "VALIDATION_ERROR",
        "detail": "message: at most 10 characters (MAX_MESSAGE_CHARS)",
    }
    assert accepted.status_code == 200 and big.status_code == 200


async def test_tool_failure_policy_fatal_stops_at_a_failed_tool(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "Nope"})), completion("Deleted!"))
    client = await make_client(llm, tool_failure_policy="fatal", response_mode="model")

    body = (await chat(client, "delete nope")).json()

    assert len(llm.requests) == 1  # the model never got to claim anything
    assert body["execution_metadata"]["stop_reason"] == "tool_error"
    assert body["assistant_message"].startswith("Couldn't delete “Nope”: there is no task by that name")


async def test_parallel_tool_calls_off_asks_for_and_runs_one_call_per_step(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Milk"}), ("add_task", {"title": "Eggs"})),
        calls(("add_task", {"title": "Eggs"})),
    )
    client = await make_client(llm, parallel_tool_calls=False)

    body = (await chat(client, "add milk and eggs")).json()

    assert llm.requests[0]["parallel_tool_calls"] is False
    assert [c["result"].get("code") for c in body["tool_calls"]] == [None, "IGNORED", None]
    assert sorted(t["title"] for t in await tasks_of(client)) == ["Eggs", "Milk"]


async def test_tools_deny_and_allow_mask_what_the_model_and_mcp_see_and_what_runs(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "Gym"})), completion("I can't delete here."))
    client = await make_client(llm, tools_deny=["delete_task", "undo_last_change"])
    await seed_tasks(client, "Gym")

    body = (await chat(client, "list my tasks", tool_policy="auto")).json()  # no guard: the mask itself refuses

    sent = [t["function"]["name"] for t in llm.requests[0]["tools"]]
    assert sent == ["add_task", "list_tasks", "complete_task", "update_task"]
    assert body["tool_calls"][0]["result"]["code"] == "UNKNOWN_TOOL"
    assert [t["title"] for t in await tasks_of(client)] == ["Gym"]
    tools_for = client.app.state.tools_for
    direct = await tools_for(USER).execute_batch([ToolCall("m", "delete_task", {"task_id": "Gym"})])
    assert direct.results[0].code == "UNKNOWN_TOOL"  # MCP and REST go through the same mask

    read_only = await make_client(ScriptedLLM(calls(("list_tasks", {}))), tools_allow=["list_tasks"])
    assert [s.name for s in read_only.app.state.tools_for(USER).specs()] == ["list_tasks"]


def test_an_unknown_tool_name_is_a_configuration_error() -> None:
    with pytest.raises(ValidationError, match="unknown tool 'remove_task'"):
        make_settings("sqlite+aiosqlite:///:memory:", tools_deny="remove_task")


async def test_llm_stream_asks_for_a_stream_and_the_turn_runs_from_its_chunks(make_client: MakeClient) -> None:
    """LLM_STREAM=true: the request says `stream: true`; the streamed tool call (arguments in
    pieces) runs, the guard and the reply work as on a plain answer."""
    llm = ScriptedLLM(
        stream(
            chunk(call_delta(0, id="call_1", name="add_task", args='{"title": ')),
            chunk(call_delta(0, args='"Buy milk"}'), finish="tool_calls"),
        )
    )
    client = await make_client(llm, llm_stream=True)

    body = (await chat(client, "add buy milk")).json()

    assert llm.requests[0]["stream"] is True
    assert [t["title"] for t in await tasks_of(client)] == ["Buy milk"]
    assert body["assistant_message"] == "Added: “Buy milk”."
    assert body["tool_calls"][0]["arguments"] == {"title": "Buy milk"}
