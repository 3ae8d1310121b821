"""The OpenAI-format messages the loop appends after a tool step (with preset quirks applied)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from backend.app.agent.presets import Preset
from backend.app.calls.types import ToolCall


def assistant_tool_message(content: str, calls: Sequence[ToolCall], preset: Preset) -> dict[str, Any]:
    empty: str | None = "" if preset.assistant_tool_call_content == "empty_string" else None
    return {
        "role": "assistant",
        "content": content or empty,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    # Echo what we understood; unparseable arguments are echoed as sent.
                    "arguments": orjson.dumps(c.arguments).decode() if c.arguments is not None else c.raw_arguments,
                },
            }
            for c in calls
        ],
    }


def tool_message(call: ToolCall, payload: dict[str, Any], preset: Preset) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": call.id,
        "content": orjson.dumps(payload, default=str).decode(),
    }
    if preset.tool_message_name:
        message["name"] = call.name
    return message
