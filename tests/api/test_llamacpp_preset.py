"""LLM_PROVIDER=llamacpp end to end: what llama.cpp's server receives, and limits still enforced."""

from __future__ import annotations

from support.api import MakeClient, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def test_llamacpp_requests_fit_the_server_and_validation_keeps_the_real_limit(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm, llm_provider="llamacpp", response_mode="model")
    llm.push(
        calls(("add_task", {"title": "Write report", "description": "x" * 4001})),
        calls(("add_task", {"title": "Write report", "description": "x" * 300})),
        completion("Added Write report."),
    )

    response = await chat(client, "add Write report with a long description")

    assert response.status_code == 200, response.text
    add = next(t for t in llm.requests[0]["tools"] if t["function"]["name"] == "add_task")
    assert add["function"]["parameters"]["properties"]["description"]["maxLength"] == 200
    # The 4001-character description was still refused by the real limit (4000), the 300 one accepted:
    results = [(c["name"], c["result"]["success"]) for c in response.json()["tool_calls"]]
    assert results == [("add_task", False), ("add_task", True)]
    assert [(t["title"], len(t["description"])) for t in await tasks_of(client)] == [("Write report", 300)]
    # Assistant tool-call turns carry content "" (llama.cpp's server answers 500 to null).
    assistant_turns = [m for m in llm.requests[-1]["messages"] if m["role"] == "assistant" and m.get("tool_calls")]
    assert len(assistant_turns) == 2
    assert all(m["content"] == "" for m in assistant_turns)
