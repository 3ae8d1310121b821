"""A turn's answer (services/chat.py `TurnResponse`): a fresh turn's typed response, or a replay's stored JSON."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import ValidationError

from backend.app.db.repositories.idempotency import StoredResponse
from backend.app.schemas.chat import ChatReply, ChatResponse
from backend.app.services.chat import TurnResponse

# A stored response as an earlier version may have written it: its execution_metadata has only the
# contract's four keys and one the model does not know, so it would not validate as ExecutionMetadata.
OLD_BODY: dict[str, Any] = {
    "conversation_id": str(uuid.UUID(int=7)),
    "assistant_message": "Added: “Milk”.",
    "tool_calls": [
        {
            "name": "add_task",
            "arguments": {"title": "Milk"},
            "result": {"success": True, "data": {"id": "t1", "title": "Milk"}, "error": None},
            "retried": False,
            "retry_reason": None,
        }
    ],
    "action_metadata": {"action": "add_task", "success": True, "task_id": "t1", "task_title": "Milk", "message": "x"},
    "execution_metadata": {
        "tool_calls_executed": 1,
        "tool_calls_retried": 0,
        "llm_calls": 1,
        "total_latency_ms": 3,
        "gone": True,
    },
}


def test_a_replay_is_served_exactly_as_stored_and_its_reply_is_read_typed() -> None:
    with pytest.raises(ValidationError):
        ChatResponse.model_validate(OLD_BODY)

    outcome = TurnResponse(StoredResponse(status=200, body=OLD_BODY))

    assert outcome.replayed and outcome.status == 200
    assert outcome.json() is OLD_BODY
    reply = outcome.reply()
    assert isinstance(reply, ChatReply) and not isinstance(reply, ChatResponse)
    assert reply.assistant_message == "Added: “Milk”." and reply.confirmation is None
    assert reply.tool_calls[0].result.success and reply.tool_calls[0].arguments == {"title": "Milk"}


def test_a_replayed_error_keeps_its_status_and_body() -> None:
    body = {"error": "APP_ERROR", "detail": "it changed tasks and did not finish"}

    outcome = TurnResponse(StoredResponse(status=500, body=body))

    assert outcome.replayed and outcome.status == 500 and outcome.json() == body
