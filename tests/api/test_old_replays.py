"""A replay serves the response stored under its Idempotency-Key as it was stored, in each of the
chat route's three forms (plain JSON, the SSE stream, the AI SDK's stream), including a response an
earlier version wrote: one whose shape today's `ChatResponse` no longer validates. The streams read
the events they repeat from that stored JSON, so a replayed `tool` event is the stored call itself,
not a re-serialised one with keys added or dropped."""

from __future__ import annotations

import json
from typing import Any

import httpx
import sqlalchemy as sa
from support.api import AppClient, MakeClient, auth
from support.fake_llm import ScriptedLLM, calls
from support.sse import STREAM, parse

from backend.app.schemas.chat import ChatResponse

# As an earlier version stored it: tool results without `code`/`warnings`, a key today's model does
# not know, no `confirmation`, an execution_metadata with only four keys.
SUCCEEDED = {
    "name": "add_task",
    "arguments": {"title": "Milk"},
    "result": {"success": True, "data": {"id": "t1", "title": "Milk"}, "error": None},
    "retried": False,
    "retry_reason": None,
    "from_before": 1,
}
FAILED = {
    "name": "delete_task",
    "arguments": {"task_id": "Bread"},
    "result": {"success": False, "data": None, "error": "No task matches “Bread”."},
    "retried": False,
    "retry_reason": None,
}


def old_body(conversation_id: str) -> dict[str, Any]:
    return {
        "conversation_id": conversation_id,
        "assistant_message": "Added: “Milk”.\nI could not delete “Bread”.",
        "tool_calls": [SUCCEEDED, FAILED],
        "action_metadata": {"action": "add_task", "success": True, "task_id": "t1", "task_title": "Milk"},
        "execution_metadata": {"tool_calls_executed": 2, "tool_calls_retried": 0, "llm_calls": 1, "gone": True},
    }


async def _store_as_before(client: AppClient, key: str, body: dict[str, Any]) -> None:
    """What an earlier version wrote under `key` (the row's other columns stay this turn's)."""
    async with client.app.state.engine.begin() as conn:
        update = sa.text("UPDATE idempotency_keys SET response_body = CAST(:body AS JSON) WHERE key = :key")
        result = await conn.execute(update, {"body": json.dumps(body), "key": key})
        assert result.rowcount == 1


def _ui_chunks(response: httpx.Response) -> list[dict[str, Any]]:
    blocks = response.text.split("\n\n")
    assert blocks[-2] == "data: [DONE]"
    return [json.loads(block.removeprefix("data: ")) for block in blocks[:-2]]


async def test_a_stored_body_an_earlier_version_wrote_replays_as_stored_in_all_three_forms(
    make_client: MakeClient,
) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Milk"})), calls(("add_task", {"title": "Milk"})))
    client = await make_client(llm)
    plain_key, ui_key = {"Idempotency-Key": "plain-1"}, {"Idempotency-Key": "ui-1"}
    first = await client.post("/api/alice/chat", json={"message": "add milk"}, headers={**auth(), **plain_key})
    said = {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "add milk"}]}
    ui = {"id": "chat-1", "messages": [said], "trigger": "submit-message"}
    assert (await client.post("/api/alice/chat", json=ui, headers={**auth(), **ui_key})).status_code == 200
    body = old_body(first.json()["conversation_id"])
    await _store_as_before(client, "plain-1", body)
    await _store_as_before(client, "ui-1", body)
    assert not _validates(body)

    again = {"message": "add milk"}
    plain = await client.post("/api/alice/chat", json=again, headers={**auth(), **plain_key})
    streamed = await client.post("/api/alice/chat", json=again, headers={**auth(), **plain_key, **STREAM})
    sdk = await client.post("/api/alice/chat", json=ui, headers={**auth(), **ui_key})

    assert all(r.status_code == 200 and r.headers["Idempotency-Replayed"] == "true" for r in (plain, streamed, sdk))
    assert plain.json() == body
    deltas = [("delta", {"text": "Added: “Milk”.\n"}), ("delta", {"text": "I could not delete “Bread”."})]
    assert parse(streamed.text) == [("tool", SUCCEEDED), ("tool", FAILED), *deltas, ("done", body)]
    parts = _ui_chunks(sdk)
    inputs = [(c["toolName"], c["input"]) for c in parts if c["type"] == "tool-input-available"]
    assert inputs == [("add_task", {"title": "Milk"}), ("delete_task", {"task_id": "Bread"})]
    assert [c["output"] for c in parts if c["type"] == "tool-output-available"] == [SUCCEEDED["result"]]
    assert [c["errorText"] for c in parts if c["type"] == "tool-output-error"] == ["No task matches “Bread”."]
    assert "".join(c["delta"] for c in parts if c["type"] == "text-delta") == body["assistant_message"]
    finish = parts[-1]
    assert finish["type"] == "finish" and finish["messageMetadata"]["action_metadata"] == body["action_metadata"]
    assert len(llm.requests) == 2  # the two first turns; no replay asked the model


def _validates(body: dict[str, Any]) -> bool:
    try:
        ChatResponse.model_validate(body)
    except ValueError:
        return False
    return True
