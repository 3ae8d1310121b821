"""RESPONSE_MODE=direct: a simple action costs exactly one LLM call (the reply is composed from the
tool result; the issue's target is at most 1.1 on average)."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat
from support.fake_llm import ScriptedLLM, calls

SIMPLE_ACTIONS = [
    ("add Buy milk", ("add_task", {"title": "Buy milk"})),
    ("list my tasks", ("list_tasks", {"status": "all"})),
    ("delete read books", ("delete_task", {"task_id": "read books"})),
    ("complete Read book", ("complete_task", {"task_id": "Read book"})),
    ("update Read book priority high", ("update_task", {"task_id": "read book", "priority": "high"})),
]


@pytest.mark.parametrize(("message", "call"), SIMPLE_ACTIONS, ids=[c[0] for _, c in SIMPLE_ACTIONS])
async def test_a_simple_action_makes_one_llm_call_in_direct_mode(
    make_client: MakeClient, message: str, call: tuple[str, dict[str, Any]]
) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Read book"})))
    client = await make_client(llm, response_mode="direct")
    assert (await chat(client, "add Read book")).status_code == 200
    seeded = len(llm.requests)

    llm.push(calls(call))  # one scripted answer: a second request would fail the turn
    response = await chat(client, message)

    assert response.status_code == 200, response.text
    body = response.json()
    assert [c["name"] for c in body["tool_calls"]] == [call[0]]
    assert body["tool_calls"][0]["result"]["success"] is True, body["tool_calls"]
    assert len(llm.requests) - seeded == 1
    assert body["execution_metadata"]["llm_calls"] == 1
    assert body["execution_metadata"]["stop_reason"] == "composed"
