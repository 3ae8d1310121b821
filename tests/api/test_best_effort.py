"""Several tool calls in one response: validated independently, applied best-effort or all-or-nothing."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls


async def test_all_valid_is_applied(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "milk"}), ("add_task", {"title": "eggs"}), ("add_task", {"title": "bread"}))
    )
    client = await make_client(llm)

    body = (await chat(client, "add milk, eggs and bread")).json()

    meta = body["execution_metadata"]
    assert meta["apply_status"] == "applied"
    assert [a["tool"] for a in meta["applied"]] == ["add_task"] * 3
    assert meta["rejected"] == []
    assert sorted(t["title"] for t in await tasks_of(client)) == ["bread", "eggs", "milk"]
    assert body["assistant_message"].count("Added") == 3
    assert body["action_metadata"]["success"] is True
    assert len(body["action_metadata"]["actions"]) == 3


async def test_mixed_batch_is_partial_and_only_valid_calls_run(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "milk"}), ("add_task", {"title": 42}), ("add_task", {"title": "bread"})),
        calls(("add_task", {"title": 42})),  # the model keeps the bad call: stopped as a repeat
    )
    client = await make_client(llm)

    body = (await chat(client, "add milk, 42 and bread")).json()

    meta = body["execution_metadata"]
    assert meta["apply_status"] == "partial"
    assert [a["index"] for a in meta["applied"]] == [0, 2]
    assert meta["rejected"][0]["index"] == 1
    assert meta["rejected"][0]["tool"] == "add_task"
    assert "title" in meta["rejected"][0]["error"]
    assert sorted(t["title"] for t in await tasks_of(client)) == ["bread", "milk"]
    # The field error went back to the model on the next step.
    tool_messages = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert any("Input should be a valid string" in m["content"] for m in tool_messages)
    assert "milk" in body["assistant_message"] and "bread" in body["assistant_message"]


async def test_all_invalid_is_rejected_and_nothing_changes(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": ["a"]}), ("add_task", {})), calls(("add_task", {"title": ["a"]})))
    client = await make_client(llm)

    body = (await chat(client, "add a list")).json()

    meta = body["execution_metadata"]
    assert meta["apply_status"] == "rejected"
    assert meta["applied"] == []
    assert await tasks_of(client) == []


async def test_coercions_apply_with_warnings_visible_to_the_model(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(
            (
                "add_task",
                {
                    "title": "Report",
                    "priority": "HIGH",
                    "tags": "work",
                    "due_date": "2026-12-01T09:00:00Z",
                    "user_id": "mallory",
                },
            )
        )
    )
    client = await make_client(llm, response_mode="model")
    llm.push(lambda body: {"choices": [{"message": {"role": "assistant", "content": "Added."}}]})

    body = (await chat(client, "add Report high priority #work due december 1st")).json()

    [task] = await tasks_of(client)
    assert (task["priority"], task["tags"], task["due_date"]) == ("high", ["work"], "2026-12-01")
    kinds = " ".join(w["warning"] for w in body["execution_metadata"]["warnings"])
    for kind in ("enum_case", "string_to_list", "datetime_to_date", "dropped_owner"):
        assert kind in kinds
    seen_by_model = next(m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool")
    assert "enum_case" in seen_by_model and '"priority":"high"' in seen_by_model


async def test_completed_true_becomes_status(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Laundry"})), calls(("update_task", {"task_id": "laundry", "completed": True}))
    )
    client = await make_client(llm)
    await chat(client, "add Laundry")

    body = (await chat(client, "update laundry as completed")).json()

    assert (await tasks_of(client))[0]["status"] == "completed"
    assert "completed_to_status" in body["execution_metadata"]["warnings"][0]["warning"]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"title": "x", "priority": 3}, "priority"),  # number -> string refused
        ({"title": 123}, "title"),  # number -> string refused
        ({"title": ["a", "b"]}, "title"),  # array -> single value refused
        ({"title": "x", "due_date": "tomorrow"}, "due_date"),
    ],
)
async def test_refused_coercions_are_rejected_clearly(
    make_client: MakeClient, arguments: dict[str, Any], field: str
) -> None:
    llm = ScriptedLLM(calls(("add_task", arguments)), default=calls(("add_task", arguments)))
    client = await make_client(llm)

    body = (await chat(client, "add x")).json()

    first = body["tool_calls"][0]["result"]
    assert first["success"] is False
    assert first["code"] == "INVALID_ARGUMENTS"
    assert field in first["error"]
    assert await tasks_of(client) == []


async def test_strict_mode_is_all_or_nothing(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "milk"}), ("add_task", {"title": 7}), ("add_task", {"title": "bread"})),
        default=calls(("list_tasks", {})),
    )
    client = await make_client(llm, apply_mode="strict")

    body = (await chat(client, "add milk, 7 and bread")).json()

    assert await tasks_of(client) == []
    results = [c["result"] for c in body["tool_calls"][:3]]
    assert [r["code"] for r in results] == ["NOT_APPLIED", "INVALID_ARGUMENTS", "NOT_APPLIED"]
    assert body["execution_metadata"]["apply_mode"] == "strict"


async def test_strict_mode_rolls_back_when_one_call_fails_at_runtime(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "milk"}), ("delete_task", {"task_id": "no such task"})))
    client = await make_client(llm, apply_mode="strict")

    body = (await chat(client, "add milk and delete no such task")).json()

    assert await tasks_of(client) == []  # the add was rolled back with the failed delete
    assert body["tool_calls"][1]["result"]["code"] == "NOT_FOUND"
    assert body["tool_calls"][0]["result"]["code"] == "NOT_APPLIED"
