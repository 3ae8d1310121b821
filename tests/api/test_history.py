"""Stateless turns: history comes from the database; every turn and its metadata is persisted."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
import sqlalchemy as sa
from support.api import MakeClient, auth, chat
from support.fake_llm import ScriptedLLM, calls, completion


async def test_turns_are_persisted_and_replayed_as_history(make_client: MakeClient) -> None:
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


@pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)
async def test_unknown_or_foreign_conversation_is_404(make_client: MakeClient) -> None:
    """Nothing of the refused turn is stored: the history is read and the message stored in one
    statement on Postgres (ConversationRepository.continue_with), which must not add it to Bob's."""
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
    his = await client.get(f"/api/bob/conversations/{bobs}/messages", headers=auth("bob"))
    assert [(m["role"], m["content"]) for m in his.json()] == [("user", "hello"), ("assistant", "Hi Bob!")]
    assert (await client.get("/api/alice/conversations", headers=auth())).json() == []


async def test_history_is_bounded_by_tokens(make_client: MakeClient) -> None:
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


async def test_stored_records_are_served_typed_and_exactly_as_stored(make_client: MakeClient) -> None:
    """A turn's records read back as the response had them; a row an earlier version wrote (keys since
    dropped, keys not yet added) and a failed turn's error record are served as stored, not reshaped."""
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Buy milk"})), completion("Done."), calls(("add_task", {"title": "Eggs"}))
    )
    client = await make_client(llm)
    fresh = (await chat(client, "add Buy milk")).json()
    conversation_id = fresh["conversation_id"]
    older = {
        "tool_calls": [{"name": "add_task", "arguments": {"title": "Eggs"}, "result": {"success": True}, "gone": 1}],
        "action_metadata": {"action": "add_task", "success": True, "old_field": "x"},
        "execution_metadata": {
            "tool_calls_executed": 1,
            "tool_calls_retried": 0,
            "llm_calls": 1,
            "total_latency_ms": 4,
        },
    }
    second = (await chat(client, "add eggs", conversation_id=conversation_id)).json()
    assert second["tool_calls"]
    async with client.app.state.engine.begin() as conn:  # the second turn's row, as an earlier version wrote it
        update = sa.text(
            "UPDATE messages SET tool_call_metadata = CAST(:t AS JSON), action_metadata = CAST(:a AS JSON), "
            "execution_metadata = CAST(:e AS JSON) "
            "WHERE conversation_id = :c AND role = 'assistant' AND content = :said"
        )
        values = {"t": json.dumps(older["tool_calls"]), "a": json.dumps(older["action_metadata"])}
        said = {"e": json.dumps(older["execution_metadata"]), "c": conversation_id, "said": second["assistant_message"]}
        assert (await conn.execute(update, {**values, **said})).rowcount == 1

    messages = (await client.get(f"/api/alice/conversations/{conversation_id}/messages", headers=auth())).json()

    replies = [m for m in messages if m["role"] == "assistant"]
    for key in ("tool_calls", "action_metadata", "execution_metadata"):
        assert replies[0][key] == fresh[key], key
        assert replies[1][key] == older[key], key


async def test_a_failed_turn_is_served_with_its_error_record(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(httpx.Response(503)), llm_max_retries=0)
    failed = await chat(client, "add buy milk")
    assert failed.status_code == 503
    conversations = (await client.get("/api/alice/conversations", headers=auth())).json()

    messages = (await client.get(f"/api/alice/conversations/{conversations[0]['id']}/messages", headers=auth())).json()

    error = messages[-1]
    assert error["is_error"] and error["execution_metadata"] == {
        "error": "LLM_UNAVAILABLE",
        "detail": error["content"].removeprefix("Error: "),
        "status": 503,
    }
    assert error["tool_calls"] is None and error["action_metadata"] is None


@pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)
async def test_history_is_the_newest_messages_up_to_history_max_messages(make_client: MakeClient) -> None:
    """HISTORY_MAX_MESSAGES: the model is sent the newest messages before this one, oldest first (on
    Postgres read in the same statement that stores the message: it is not among them)."""
    llm = ScriptedLLM(default=completion("Noted."))
    client = await make_client(llm, history_max_messages=3)
    conversation_id = None
    for i in range(4):
        body = (await chat(client, f"note {i}", conversation_id=conversation_id)).json()
        conversation_id = body["conversation_id"]

    sent = [(m["role"], m["content"]) for m in llm.requests[-1]["messages"] if m["role"] != "system"]
    # The newest three before "note 3" are Noted., note 2, Noted.; a history starts at a user message.
    assert sent == [("user", "note 2"), ("assistant", "Noted."), ("user", "note 3")]
