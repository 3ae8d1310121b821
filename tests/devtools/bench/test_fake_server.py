"""The benchmark's scripted model answers like a well-behaved model, deterministically."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from backend.app.agent.sse import assemble, events
from backend.app.tools.registry import TOOL_SPECS
from backend.devtools.bench.fake_server import WRITER, FakeModelApp, respond

TOOLS = [s.to_openai() for s in TOOL_SPECS]


def ask(text: str, *, tool_choice: Any = "auto", after_tool: bool = False) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "x"}, {"role": "user", "content": text}]
    if after_tool:
        messages.append({"role": "tool", "tool_call_id": "c", "content": "{}"})
    body = {"model": "m", "messages": messages, "tools": TOOLS, "tool_choice": tool_choice}
    return {**respond(body, request_size=len(orjson.dumps(body))), "request": body}


def called(answer: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    calls = answer["choices"][0]["message"].get("tool_calls") or []
    return [(c["function"]["name"], orjson.loads(c["function"]["arguments"])) for c in calls]


def test_commands_become_tool_calls() -> None:
    assert called(ask("add Buy milk")) == [("add_task", {"title": "Buy milk"})]
    assert called(ask("list my tasks")) == [("list_tasks", {"status": "all"})]
    assert called(ask("delete read books")) == [("delete_task", {"task_id": "read books"})]
    assert called(ask("update Pay rent priority high")) == [
        ("update_task", {"task_id": "Pay rent", "priority": "high"})
    ]
    assert called(ask("add Call mom and add Buy bread")) == [
        ("add_task", {"title": "Call mom"}),
        ("add_task", {"title": "Buy bread"}),
    ]


def test_ghost_claims_first_and_obeys_a_forced_tool() -> None:
    first = ask("delete Pay rent!")
    assert called(first) == [] and "deleted" in first["choices"][0]["message"]["content"]
    forced = {"type": "function", "function": {"name": "delete_task"}}
    assert called(ask("delete Pay rent!", tool_choice=forced)) == [("delete_task", {"task_id": "Pay rent"})]


def test_usage_estimates_characters_over_four_and_a_final_answer_follows_tools() -> None:
    answer = ask("list my tasks", after_tool=True)
    assert answer["choices"][0]["message"]["content"] == "Done."
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    usage = respond(body, request_size=400)["usage"]
    assert usage["prompt_tokens"] == 100 and usage["completion_tokens"] > 0


async def test_a_streamed_answer_is_the_same_answer_in_chunks() -> None:
    app = FakeModelApp(word_s=0.001)
    # FakeModelApp types an ASGI scope as a dict, httpx as a MutableMapping (backend/devtools/bench).
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://fake") as http:
        for text, after_tool in (("add Buy milk and add Call mom", False), ("add Buy milk", True)):
            body = ask(text, after_tool=after_tool)["request"]
            whole = (await http.post("/v1/chat/completions", json=body)).json()
            streamed = await http.post("/v1/chat/completions", json={**body, "stream": True})
            assert streamed.headers["content-type"] == "text/event-stream"
            chunks = events(streamed.text.splitlines())
            assembled = assemble(chunks)
            assert assembled["choices"] == whole["choices"]
            assert assembled["usage"]["completion_tokens"] == whole["usage"]["completion_tokens"]
    assert whole["choices"][0]["message"]["content"] == WRITER  # a writing model's longer reply
    assert sum(1 for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content")) == len(WRITER.split())
