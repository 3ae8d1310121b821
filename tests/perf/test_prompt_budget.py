"""Bounded prompts: the history sent stays within HISTORY_TOKEN_BUDGET however long the chat gets,
and the five tool schemas stay small while keeping every field and the descriptions the model needs."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel
from support.api import MakeClient, chat
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.services.turn.history import estimate_tokens
from backend.app.tools.registry import TOOLS

BUDGET = 600
# chars / 4 of all six schemas as sent: about 780 with list_tasks's filters, 910 with add's and update's
# due time and repeat (issue 50: 2026-12-05).
TOOL_SCHEMA_TOKENS = 920


def scripted(body: dict[str, Any]) -> dict[str, Any]:
    """Adds what an "add ..." message names; answers anything else with text."""
    text = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    if text.startswith("add "):
        return calls(("add_task", {"title": text[4:]}))
    return completion("Noted. " + "Anything else on your list? " * 3)


def history_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages between the system prompt and this turn's user message."""
    messages = request["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [m for m in messages[1:last_user] if m["role"] != "system"]


async def test_prompt_tokens_stay_under_the_history_budget_at_50_turns(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=scripted)
    client = await make_client(llm, history_token_budget=BUDGET, history_max_messages=200)
    conversation_id = None
    for i in range(50):
        message = f"add errand number {i} " + "with some detail " * 3 if i % 2 else f"note {i}: " + "lorem ipsum " * 8
        response = await chat(client, message, conversation_id=conversation_id)
        assert response.status_code == 200, response.text
        conversation_id = response.json()["conversation_id"]

    first_turn_tokens = len(orjson.dumps(llm.requests[0])) // 4
    sizes = []
    for request in llm.requests:
        history = sum(estimate_tokens(m["content"] or "") for m in history_of(request))
        assert history <= BUDGET
        sizes.append(len(orjson.dumps(request)) // 4)
    # Turn 50 costs at most the first turn plus the budget (and a message's worth of slack).
    assert max(sizes) <= first_turn_tokens + BUDGET + 100, sizes
    assert len(history_of(llm.requests[-1])) < 100  # the history was cut, not sent whole


def test_tool_schemas_are_small_and_complete() -> None:
    total = 0
    for name, definition in TOOLS.items():
        sent = definition.spec.to_openai()["function"]
        total += len(orjson.dumps(definition.spec.to_openai()))
        assert sent["description"], name
        model: type[BaseModel] = definition.args
        assert set(sent["parameters"]["properties"]) == set(model.model_fields), name
        for field_name, field in model.model_fields.items():
            if field.description:  # a description written for the model reaches it
                assert sent["parameters"]["properties"][field_name]["description"] == field.description
        assert "title" not in sent["parameters"], "pydantic's decorations are dropped"
    assert -(-total // 4) <= TOOL_SCHEMA_TOKENS
