"""The benchmark's scripted model answers like a well-behaved model, deterministically."""

from __future__ import annotations

from typing import Any

import orjson

from backend.app.tools.task_tools import TOOL_SPECS
from backend.devtools.bench.fake_server import respond

TOOLS = [s.to_openai() for s in TOOL_SPECS]


def ask(text: str, *, tool_choice: Any = "auto", after_tool: bool = False) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "x"}, {"role": "user", "content": text}]
    if after_tool:
        messages.append({"role": "tool", "tool_call_id": "c", "content": "{}"})
    body = {"model": "m", "messages": messages, "tools": TOOLS, "tool_choice": tool_choice}
    return respond(body, request_size=len(orjson.dumps(body)))


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
    first = ask("ghost delete Pay rent")
    assert called(first) == [] and "deleted" in first["choices"][0]["message"]["content"]
    forced = {"type": "function", "function": {"name": "delete_task"}}
    assert called(ask("ghost delete Pay rent", tool_choice=forced)) == [("delete_task", {"task_id": "Pay rent"})]


def test_usage_estimates_characters_over_four_and_a_final_answer_follows_tools() -> None:
    answer = ask("list my tasks", after_tool=True)
    assert answer["choices"][0]["message"]["content"] == "Done."
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    usage = respond(body, request_size=400)["usage"]
    assert usage["prompt_tokens"] == 100 and usage["completion_tokens"] > 0
