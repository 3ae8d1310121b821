"""Every tool call of a chat turn is recorded in `tool_executions` in the same transaction as its
effect: a task is never changed without the record of the call that changed it, even when the turn
dies before its reply is stored, and a batch that changed nothing is recorded as refused."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from support.api import AppClient, MakeClient, auth, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.db.repositories.conversations import ConversationRepository


async def executions(client: AppClient) -> list[dict[str, Any]]:
    async with client.app.state.engine.connect() as conn:
        rows = await conn.execute(sa.text("SELECT * FROM tool_executions ORDER BY created_at, tool_call_id"))
        return [dict(r._mapping) for r in rows]


async def test_each_call_is_recorded_with_its_turn_step_and_result(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Read book"})))
    client = await make_client(llm)
    await chat(client, "add Read book")
    # The guard's forced retry: the model first claims success without the tool.
    llm.push(completion("Sure, consider it done."), calls(("delete_task", {"task_id": "read book"})))

    body = (await chat(client, "delete Read book")).json()

    added, deleted = await executions(client)
    assert (added["tool_name"], added["success"], added["retried"]) == ("add_task", True, False)
    assert (deleted["tool_name"], deleted["success"], deleted["retried"]) == ("delete_task", True, True)
    assert deleted["retry_reason"] == "missing_tool"
    assert str(deleted["conversation_id"]) == body["conversation_id"]
    assert deleted["arguments"] == {"task_id": "read book"}
    shown = body["tool_calls"][0]["result"]  # what the user was shown is what was recorded
    assert (deleted["result"]["success"], deleted["result"]["data"]) == (shown["success"], shown["data"])
    assert deleted["user_id"] == "alice"
    messages = (
        await client.get(f"/api/alice/conversations/{body['conversation_id']}/messages", headers=auth("alice"))
    ).json()
    assert str(deleted["turn_id"]) == messages[-1]["id"]  # the turn's assistant message


async def test_a_turn_that_dies_after_its_tool_step_keeps_the_call_beside_its_effect(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def crash(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the process died before the turn was recorded")

    monkeypatch.setattr(ConversationRepository, "record_turn", crash)
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": "Buy milk"}))))

    with pytest.raises(RuntimeError):
        await chat(client, "add Buy milk")

    [task] = await tasks_of(client)
    [execution] = await executions(client)
    assert execution["tool_name"] == "add_task" and execution["success"] is True
    assert execution["result"]["data"]["id"] == task["id"]


async def test_a_refused_strict_batch_is_recorded_and_changes_nothing(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "milk"}), ("delete_task", {"task_id": "no such task"})))
    client = await make_client(llm, apply_mode="strict")

    await chat(client, "add milk and delete no such task")

    assert await tasks_of(client) == []
    recorded = await executions(client)
    assert [(e["tool_name"], e["success"], e["result"]["code"]) for e in recorded] == [
        ("add_task", False, "NOT_APPLIED"),
        ("delete_task", False, "NOT_FOUND"),
    ]
