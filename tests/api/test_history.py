"""Stateless turns: history comes from the database; every turn and its metadata is persisted."""

from __future__ import annotations

import uuid

from support.api import auth, chat
from support.fake_llm import ScriptedLLM, calls, completion


async def test_turns_are_persisted_and_replayed_as_history(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(calls(("add_task", {"title": "Buy milk"})), completion("You're welcome!"))
    client = await make_client(llm)

    first = (await chat(client, "add Buy milk")).json()
    conversation_id = first["conversation_id"]
    second = (await chat(client, "thanks", conversation_id=conversation_id)).json()
    assert second["conversation_id"] == conversation_id

    # The second request carried the first turn, loaded from the database, with one line of its tool
    # results (what it did to which task, by id) for a model to resolve "it" with.
    task_id = first["tool_calls"][0]["result"]["data"]["id"]
    line = f"[tool results: added “Buy milk” (id {task_id})]"
    sent = [(m["role"], m["content"]) for m in llm.requests[1]["messages"] if m["role"] != "system"]
    assert sent == [
        ("user", "add Buy milk"),
        ("assistant", f"{first['assistant_message']}\n{line}"),
        ("user", "thanks"),
    ]

    conversations = (await client.get("/api/alice/conversations", headers=auth())).json()
    assert [c["id"] for c in conversations] == [conversation_id]
    messages = (await client.get(f"/api/alice/conversations/{conversation_id}/messages", headers=auth())).json()
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assistant = messages[1]
    assert assistant["content"] == first["assistant_message"]
    assert assistant["tool_calls"][0]["name"] == "add_task"
    assert assistant["tool_calls"][0]["result"]["success"] is True
    assert assistant["action_metadata"]["action"] == "add_task"
    assert assistant["execution_metadata"]["tool_calls_executed"] == 1
    assert assistant["execution_metadata"]["plan"]["expected_tools"] == ["add_task"]


async def test_unknown_or_foreign_conversation_is_404(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(completion("Hi Bob!"))
    client = await make_client(llm)
    bobs = (await chat(client, "hello", user="bob")).json()["conversation_id"]

    for conversation_id in (bobs, str(uuid.uuid4())):
        response = await chat(client, "hello", conversation_id=conversation_id)
        assert response.status_code == 404
        assert response.json()["error"] == "NOT_FOUND"
        listed = await client.get(f"/api/alice/conversations/{conversation_id}/messages", headers=auth())
        assert listed.status_code == 404
    assert len(llm.requests) == 1


async def test_history_is_bounded_by_tokens(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(default=completion("ok " * 50))
    client = await make_client(llm, history_token_budget=300)
    conversation_id = None
    for i in range(12):
        body = (await chat(client, f"note number {i} " + "lorem ipsum " * 20, conversation_id=conversation_id)).json()
        conversation_id = body["conversation_id"]
    sizes = [sum(len(m["content"] or "") for m in r["messages"]) for r in llm.requests]
    # Grows at first, then stays flat under the budget (about 4 characters per token).
    assert max(sizes[6:]) - min(sizes[6:]) < 400
    assert all(len(r["messages"]) < 8 for r in llm.requests)
