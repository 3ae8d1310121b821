"""A chat turn as server-sent events (`Accept: text/event-stream` on `POST /api/{user_id}/chat`).

Events, in order: `tool` for each call as soon as its step ran (the same record the final body's
`tool_calls` holds), then `confirmation` when the turn asks one, `delta` with the reply's text (its
pieces joined are `assistant_message`), and `done`, whose data is exactly the plain route's JSON
body. `error` carries the contract's error JSON when the turn fails after the stream began.

The reply is streamed only once it is checked: a model's words may be replaced by the guard (a
claim no tool result backs), so its raw tokens never reach the user; what arrives early is what
really happened, the tool events.

The turn runs in a task of its own, not in the response: a client that disconnects stops reading,
but the turn finishes and is recorded exactly as a plain one (user message, calls, reply, and the
idempotency key's stored response). An error before any event (a rate limit, a reused key, a model
that failed before any tool ran) is an ordinary JSON error response with its status.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson
from fastapi.responses import StreamingResponse
from starlette.responses import Response

from backend.app.agent.types import ExecutedCall
from backend.app.api.responses import FastJSONResponse
from backend.app.core.exceptions import AppError
from backend.app.schemas.chat import ChatRequest, ToolCallRecord
from backend.app.services.chat import ChatService, TurnOutcome
from backend.app.services.records import tool_call_records

log = logging.getLogger(__name__)
EVENT_STREAM = "text/event-stream"
# Turns whose client went away still run to the end; the set keeps their tasks from being collected.
_RUNNING: set[asyncio.Task[None]] = set()

Item = tuple[str, Any]  # ("tool", record) | ("outcome", TurnOutcome) | ("error", AppError)


def wants_stream(accept: str | None) -> bool:
    return accept is not None and EVENT_STREAM in accept.lower()


def event(name: str, data: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data, default=str) + b"\n\n"


async def stream_chat(
    service: ChatService, *, user_id: str, request: ChatRequest, idempotency_key: str | None
) -> Response:
    queue: asyncio.Queue[Item] = asyncio.Queue()

    async def on_calls(executed: Sequence[ExecutedCall]) -> None:
        for record in tool_call_records(executed):  # shaped as the final body's `tool_calls`
            queue.put_nowait(("tool", ToolCallRecord.model_validate(record).model_dump(mode="json")))

    async def run() -> None:
        try:
            outcome = await service.chat(
                user_id=user_id, request=request, idempotency_key=idempotency_key, on_calls=on_calls
            )
            queue.put_nowait(("outcome", outcome))
        except AppError as error:
            queue.put_nowait(("error", error))
        except Exception:  # recorded by the service; the client gets the contract's 500 shape
            log.exception("streamed_turn_failed")
            queue.put_nowait(("error", AppError("An unexpected error occurred")))

    task = asyncio.create_task(run())
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)

    first = await queue.get()
    if first[0] == "error":
        return _error_response(first[1])
    if first[0] == "outcome" and first[1].status != 200:  # a replayed failure keeps its status
        outcome: TurnOutcome = first[1]
        return FastJSONResponse(outcome.body, status_code=outcome.status, headers=_replayed(outcome))
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if first[0] == "outcome":
        headers |= _replayed(first[1])
    return StreamingResponse(_events(first, queue), media_type=EVENT_STREAM, headers=headers)


async def _events(first: Item, queue: asyncio.Queue[Item]) -> AsyncIterator[bytes]:
    item, streamed_tools = first, 0
    while True:
        kind, value = item
        if kind == "tool":
            streamed_tools += 1
            yield event("tool", value)
        elif kind == "error":
            yield event("error", value.body)
            return
        else:
            for chunk in _finale(value.body, replay_tools=streamed_tools == 0):
                yield chunk
            return
        item = await queue.get()


def _finale(body: dict[str, Any], *, replay_tools: bool) -> list[bytes]:
    """What follows the tool events: (a replay's tool events,) the question, the reply, the body."""
    chunks = [event("tool", record) for record in body.get("tool_calls") or []] if replay_tools else []
    if body.get("confirmation"):
        chunks.append(event("confirmation", body["confirmation"]))
    text = str(body.get("assistant_message") or "")
    chunks += [event("delta", {"text": piece}) for piece in text.splitlines(keepends=True)]
    chunks.append(event("done", body))
    return chunks


def _error_response(error: AppError) -> Response:
    return FastJSONResponse(error.body, status_code=error.status_code, headers=error.headers)


def _replayed(outcome: TurnOutcome) -> dict[str, str]:
    return {"Idempotency-Replayed": "true"} if outcome.replayed else {}
