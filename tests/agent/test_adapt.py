"""A request built for one provider, shaped for a fallback model of another (presets.adapt)."""

from __future__ import annotations

from typing import Any

from backend.app.agent.presets import adapt, select_preset

OPENROUTER = select_preset(provider="openrouter", model="openai/gpt-4o-mini")


def body(choice: Any) -> dict[str, Any]:
    return {
        "model": "openai/gpt-4o-mini",
        "messages": [
            {"role": "user", "content": "add milk"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "add_task"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "add_task",
                    "parameters": {
                        "properties": {
                            "title": {"type": "string", "maxLength": 500},
                            "description": {"type": "string", "maxLength": 4000},
                        }
                    },
                },
            }
        ],
        "tool_choice": choice,
    }


def test_the_same_provider_gets_the_request_as_built() -> None:
    sent = body("required")
    assert adapt(sent, sent=OPENROUTER, to=select_preset(provider="openrouter", model="openai/gpt-4o-mini")) is sent


def test_llamacpp_gets_its_own_required_empty_content_and_capped_schemas() -> None:
    llamacpp = select_preset(provider="llamacpp", model="qwen2.5")
    sent = body("required")
    shaped = adapt(sent, sent=OPENROUTER, to=llamacpp)
    assert shaped["tool_choice"] == "auto"  # llama.cpp's grammar cannot do `required`
    assert shaped["messages"][1]["content"] == ""  # it refuses `content: null` on a tool-call turn
    props = shaped["tools"][0]["function"]["parameters"]["properties"]
    assert props["description"]["maxLength"] == 200 and props["title"]["maxLength"] == 200
    assert sent["messages"][1]["content"] is None and sent["tool_choice"] == "required"  # not changed
    forced = {"type": "function", "function": {"name": "add_task"}}
    assert adapt(body(forced), sent=OPENROUTER, to=llamacpp)["tool_choice"] == forced  # named functions work


def test_a_provider_that_cannot_force_gets_its_required_choice() -> None:
    ollama = select_preset(provider="ollama", model="llama3")
    forced = {"type": "function", "function": {"name": "add_task"}}
    assert adapt(body(forced), sent=OPENROUTER, to=ollama)["tool_choice"] == "auto"


def test_a_route_that_wants_the_tool_name_on_results_gets_it() -> None:
    gemini = select_preset(provider="openrouter", model="google/gemini-2.5-flash")
    shaped = adapt(body("auto"), sent=OPENROUTER, to=gemini)
    assert shaped["messages"][2]["name"] == "add_task"
    back = adapt(shaped, sent=gemini, to=OPENROUTER)
    assert "name" not in back["messages"][2]
