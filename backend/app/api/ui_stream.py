"""A chat turn in the Vercel AI SDK's UI message stream protocol (v1), for `useChat` clients.

The request is the SDK's (schemas/ui_chat.py); the answer is server-sent events whose data are the
protocol's chunks, with its `x-vercel-ai-ui-message-stream: v1` header, ending with `[DONE]`:

- `start`, its `messageMetadata` `{"conversationId"}`: the stored conversation this chat is;
- the calls, in one step (`start-step` ... `finish-step`): per call, as soon as its step ran,
  `tool-input-available` (`toolName`, `input`: the arguments), then `tool-output-available`
  (`output`: the tool's result) or, when the tool failed, `tool-output-error` (`errorText`);
- the reply in a step of its own: `text-start`, `text-delta`s, `text-end` (the body's
  `assistant_message`);
- `data-confirmation` when the turn asks before acting (data: the body's `confirmation`, whose
  `answers` are the buttons to offer: send an answer's `message`, with `confirm` in the body);
- `finish` (`messageMetadata`: the conversation id and the actions' outcomes, `action_metadata`);
- `error` (`errorText`: the contract's error JSON) when the turn fails once the stream began.

The reply's text is sent once it is the reply. The protocol cannot withdraw text, so the model's
words are not streamed before they are known to be the reply (the plain SSE format streams them and
withdraws with `reset`). Errors before the first chunk keep their status and JSON body: the SDK's
transport throws an Error whose message is that JSON, as `errorText` is in the stream.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator

import orjson
from fastapi.responses import StreamingResponse
from starlette.responses import Response

from backend.app.api.streaming import Finale, Item, replayed, start_turn
from backend.app.core.clock import ZoneNames
from backend.app.core.exceptions import AppError
from backend.app.core.jsontypes import JsonObject
from backend.app.schemas.chat import ChatResponse, ToolCallRecord
from backend.app.schemas.ui_chat import UIChatRequest
from backend.app.services.turn.pipeline import ChatService, Replayed

HEADERS = {
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
    "x-vercel-ai-ui-message-stream": "v1",
}


async def stream_ui_chat(
    service: ChatService, *, user_id: str, request: UIChatRequest, idempotency_key: str | None, zones: ZoneNames
) -> Response:
    turn = request.chat_request(user_id)
    started = await start_turn(
        service,
        user_id=user_id,
        request=turn,
        idempotency_key=idempotency_key or request.idempotency_key(turn),
        live_words=False,
        zones=zones,
        start_if_new=request.conversation_id is None,
    )
    if isinstance(started, Response):
        return started
    first, queue = started
    assert turn.conversation_id is not None  # the chat's own or the one the body names
    chunks = _chunks(first, queue, conversation_id=turn.conversation_id)
    return StreamingResponse(chunks, media_type="text/event-stream", headers=HEADERS | replayed(first))


def chunk(data: JsonObject) -> bytes:
    return b"data: " + orjson.dumps(data, default=str) + b"\n\n"


async def _chunks(first: Item, queue: asyncio.Queue[Item], *, conversation_id: uuid.UUID) -> AsyncIterator[bytes]:
    parts = _Parts()
    yield chunk({"type": "start", "messageMetadata": {"conversationId": str(conversation_id)}})
    item = first
    while True:
        if isinstance(item, ToolCallRecord):
            for part in parts.tool(item.model_dump(mode="json")):
                yield part
        elif isinstance(item, AppError):
            yield chunk({"type": "error", "errorText": orjson.dumps(item.body).decode()})
            break
        elif isinstance(item, ChatResponse | Replayed):
            for part in _finale(Finale.of(item), parts):
                yield part
            break
        item = await queue.get()  # (no `Delta` or `Reset` comes: the turn runs without live words)
    yield b"data: [DONE]\n\n"


class _Parts:
    """The tool parts of one answer: their call ids, unique across the chat (the SDK keys a message's
    tool parts by them), and the step they are in. The calls are one step and the reply another, as
    the SDK's own server sends them: a client that sends again when the last step is complete tool
    calls (`lastAssistantMessageIsCompleteWithToolCalls`) sees a finished answer, not calls to go on
    from."""

    def __init__(self) -> None:
        self.prefix, self.count = uuid.uuid4().hex[:12], 0

    def tool(self, call: JsonObject) -> Iterator[bytes]:
        """One call's parts from its JSON (as the plain stream's `tool` event and the body have it)."""
        if self.count == 0:
            yield chunk({"type": "start-step"})
        self.count += 1
        call_id, result = f"call-{self.prefix}-{self.count}", call.get("result")
        result = result if isinstance(result, dict) else {}
        yield chunk(
            {
                "type": "tool-input-available",
                "toolCallId": call_id,
                "toolName": call.get("name"),
                "input": call.get("arguments"),
            }
        )
        if result.get("success"):
            yield chunk({"type": "tool-output-available", "toolCallId": call_id, "output": result})
        else:
            error = result.get("error") or result.get("code") or "The tool failed."
            yield chunk({"type": "tool-output-error", "toolCallId": call_id, "errorText": str(error)})


def _finale(finale: Finale, parts: _Parts) -> Iterator[bytes]:
    """What follows the streamed tool calls: a replay's calls (a replay streamed none), then the
    reply, the question and finish, in a step of their own."""
    if parts.count == 0:
        for call in finale.tool_calls:
            yield from parts.tool(call)
    if parts.count:
        yield chunk({"type": "finish-step"})
    yield chunk({"type": "start-step"})
    if text := finale.text:
        yield chunk({"type": "text-start", "id": "reply"})
        for piece in text.splitlines(keepends=True):
            yield chunk({"type": "text-delta", "id": "reply", "delta": piece})
        yield chunk({"type": "text-end", "id": "reply"})
    if (confirmation := finale.confirmation) is not None:
        yield chunk({"type": "data-confirmation", "id": confirmation.get("id"), "data": confirmation})
    yield chunk({"type": "finish-step"})
    body = finale.body
    metadata = {"conversationId": str(body["conversation_id"]), "action_metadata": body.get("action_metadata")}
    yield chunk({"type": "finish", "finishReason": "stop", "messageMetadata": metadata})
