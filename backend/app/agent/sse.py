"""A streamed chat completion (`stream: true`: server-sent `chat.completion.chunk` events) read back
into the one `chat.completion` the loop works with.

Content deltas are joined; tool-call deltas are merged by their `index` (the id and the function's
name arrive in the first delta of a call, its arguments in pieces); the last chunk's finish reason
and the usage chunk (`stream_options.include_usage`) are kept. `ChunkReader` reads the events line
by line as they arrive (HttpLLMClient hands each piece of text on as it comes, `text_delta`); the
loop then reads the assembled answer like any other. The text reaches a user early only through
the checks of services/reply/live.py (docs/api.md, "Streaming").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from backend.app.core.exceptions import LLMBadResponse


def is_event_stream(content_type: str | None) -> bool:
    return (content_type or "").split(";")[0].strip().lower() == "text/event-stream"


def events(lines: Iterable[str]) -> list[Any]:
    """The JSON of each `data:` event, up to `[DONE]`; comments and other fields are skipped."""
    reader = ChunkReader()
    found: list[Any] = []
    for line in lines:
        found += reader.line(line)
        if reader.done:
            return found
    return found + reader.finish()


class ChunkReader:
    """Reads a stream line by line as it arrives. An event's `data:` lines are joined (the SSE rule:
    an event ends at a blank line, and its data may span lines); a server that sends one JSON per
    `data:` line without blank lines between is read too (a line arriving after a complete JSON
    value starts a new event). `line` returns the events it completed; `done` turns true at
    `[DONE]`; `finish` returns what a stream that ended without a blank line left."""

    __slots__ = ("_data", "done")

    def __init__(self) -> None:
        self.done = False
        self._data: list[str] = []

    def line(self, line: str) -> list[Any]:
        if self.done:
            return []
        if not line.strip():
            return self.finish()
        if not line.startswith("data:"):
            return []  # a comment (": keep-alive") or another field (event:, id:, retry:)
        data = line[5:].strip()
        completed: list[Any] = []
        if data == "[DONE]":
            self.done = True
            return self.finish()
        if self._data:
            try:  # the lines so far may be a whole event already (a server without blank lines)
                completed = [orjson.loads("\n".join(self._data))]
                self._data = []
            except orjson.JSONDecodeError:
                pass  # not yet: this line continues the event
        self._data.append(data)
        return completed

    def finish(self) -> list[Any]:
        data, self._data = "\n".join(self._data).strip(), []
        if not data:
            return []
        try:
            return [orjson.loads(data)]
        except orjson.JSONDecodeError as exc:
            raise LLMBadResponse("LLM server streamed an event that is not JSON") from exc


def text_delta(chunk: Any) -> str:
    """The reply text a chunk adds (its first choice's `delta.content`), "" when none."""
    if not isinstance(chunk, dict):
        return ""
    for choice in chunk.get("choices") or []:
        if isinstance(choice, dict) and choice.get("index", 0) == 0:
            delta = choice.get("delta")
            content = delta.get("content") if isinstance(delta, dict) else None
            return content if isinstance(content, str) else ""
    return ""


def assemble(chunks: list[Any]) -> dict[str, Any]:
    """One chat.completion from its chunks (an error event is returned as it came, for the loop's
    normalizer to report)."""
    if not chunks:
        raise LLMBadResponse("LLM server streamed no completion")
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish_reason = None
    role = "assistant"
    usage = None
    first = chunks[0] if isinstance(chunks[0], dict) else {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            raise LLMBadResponse("LLM server streamed an event that is not an object")
        if "error" in chunk:
            return chunk
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # one choice is asked for; others are ignored
            finish_reason = choice.get("finish_reason") or finish_reason
            delta = choice.get("delta") or {}
            role = delta.get("role") or role
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for piece in delta.get("tool_calls") or []:
                _merge_call(calls, piece)
    message: dict[str, Any] = {"role": role, "content": "".join(content) if content or not calls else None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    completion: dict[str, Any] = {
        "id": first.get("id"),
        "object": "chat.completion",
        "model": first.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        completion["usage"] = usage
    return completion


def _merge_call(calls: dict[int, dict[str, Any]], piece: Any) -> None:
    if not isinstance(piece, dict):
        return
    index = piece.get("index", len(calls))
    if not isinstance(index, int):
        return
    call = calls.setdefault(index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
    if piece.get("id"):
        call["id"] = piece["id"]
    function = piece.get("function") or {}
    if isinstance(function.get("name"), str) and not call["function"]["name"]:
        call["function"]["name"] = function["name"]  # sent once (some servers repeat it: kept once)
    if isinstance(function.get("arguments"), str):
        call["function"]["arguments"] += function["arguments"]
