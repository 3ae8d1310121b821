"""A chat turn as server-sent events (`Accept: text/event-stream` on `POST /api/{user_id}/chat`).

Events: `tool` for each call as soon as its step ran (the same record the final body's `tool_calls`
holds), `delta` with the reply's text in pieces, `confirmation` when the turn asks one, and `done`,
whose data is exactly the plain route's JSON body. `error` carries the contract's error JSON when
the turn fails after the stream began. The `delta` pieces since the last `reset` joined are the
body's `assistant_message`.

In direct mode the reply is composed from the results and streamed once it is written. In model
mode the model's own words are streamed as it produces them, but only once checked
(services/reply/live.py): a sentence goes out when it is complete and contradicts no tool result,
and only from an answer that can be the reply. Words that turn out not to be the reply (the model
went on calling tools, the guard asked again, the reply replaced them) are withdrawn with a `reset`
event (data `{}`): the client drops the text it showed, and the reply follows.

The turn runs in a task of its own, not in the response: a client that disconnects stops reading,
but the turn finishes and is recorded exactly as a plain one (user message, calls, reply, and the
idempotency key's stored response). An error before any event (a rate limit, a reused key, a model
that failed before any tool ran) is an ordinary JSON error response with its status.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

import orjson
from fastapi.responses import StreamingResponse
from starlette.responses import Response

from backend.app.api.responses import FastJSONResponse
from backend.app.calls.types import ExecutedCall
from backend.app.core.clock import ZoneNames
from backend.app.core.exceptions import AppError, DatabaseUnavailable
from backend.app.core.jsontypes import JsonObject
from backend.app.db.outage import unreachable
from backend.app.schemas.chat import ChatRequest, ChatResponse, ToolCallRecord
from backend.app.services.turn.pipeline import ChatService, Replayed, TurnAnswer
from backend.app.services.turn.record import tool_call_records

log = logging.getLogger(__name__)
EVENT_STREAM = "text/event-stream"
# Turns whose client went away still run to the end; the set keeps their tasks from being collected.
_RUNNING: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class Delta:
    """A piece of the model's checked words (model mode)."""

    text: str


@dataclass(frozen=True, slots=True)
class Reset:
    """The words streamed so far are not the reply: withdraw them."""


@dataclass(frozen=True, slots=True)
class Finale:
    """What a stream says after the calls it streamed, read from the turn's answer as the plain route
    sends it (a replay's as it was stored): its calls, its question, its words, and the whole `body`."""

    body: JsonObject
    tool_calls: list[JsonObject]
    confirmation: JsonObject | None
    text: str

    @classmethod
    def of(cls, answer: TurnAnswer) -> Finale:
        body = answer.body if isinstance(answer, Replayed) else answer.model_dump(mode="json")
        calls, confirmation = body.get("tool_calls"), body.get("confirmation")
        return cls(
            body,
            [call for call in calls if isinstance(call, dict)] if isinstance(calls, list) else [],
            confirmation if isinstance(confirmation, dict) else None,
            str(body.get("assistant_message") or ""),
        )


# What the turn's task queues for a stream: a call as soon as its step ran, the model's checked words
# (`Delta`, `Reset`), then the turn's answer or its error, which ends it.
Item = ToolCallRecord | Delta | Reset | ChatResponse | Replayed | AppError


def wants_stream(accept: str | None) -> bool:
    return accept is not None and EVENT_STREAM in accept.lower()


def event(name: str, data: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data, default=str) + b"\n\n"


async def stream_chat(
    service: ChatService, *, user_id: str, request: ChatRequest, idempotency_key: str | None, zones: ZoneNames
) -> Response:
    started = await start_turn(
        service, user_id=user_id, request=request, idempotency_key=idempotency_key, live_words=True, zones=zones
    )
    if isinstance(started, Response):
        return started
    first, queue = started
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"} | replayed(first)
    return StreamingResponse(_events(first, queue), media_type=EVENT_STREAM, headers=headers)


async def start_turn(
    service: ChatService,
    *,
    user_id: str,
    request: ChatRequest,
    idempotency_key: str | None,
    live_words: bool,
    zones: ZoneNames,
    start_if_new: bool = False,
) -> Response | tuple[Item, asyncio.Queue[Item]]:
    """Run the turn in a task of its own and wait for its first item: an error response when the turn
    failed before anything was streamed, else that item and the queue the rest arrives on.
    `live_words`: in model mode, the model's checked words are queued as they come."""
    queue: asyncio.Queue[Item] = asyncio.Queue()

    async def on_calls(executed: Sequence[ExecutedCall]) -> None:
        for record in tool_call_records(executed):  # as the final response's `tool_calls`
            queue.put_nowait(record)

    async def run() -> None:
        try:
            outcome = await service.chat(
                user_id=user_id,
                request=request,
                idempotency_key=idempotency_key,
                on_calls=on_calls,
                listener=_Listener(queue) if live_words else None,
                start_if_new=start_if_new,
                zones=zones,
            )
            queue.put_nowait(outcome)
        except AppError as error:
            queue.put_nowait(error)
        except Exception as exc:  # recorded by the service if it could be; the contract's 503 or 500 shape
            if unreachable(exc):
                log.warning("database_unreachable", extra={"error": type(exc).__name__})
                queue.put_nowait(DatabaseUnavailable())
            else:
                log.exception("streamed_turn_failed")
                queue.put_nowait(AppError("An unexpected error occurred"))

    task = asyncio.create_task(run())
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)

    first = await queue.get()
    if isinstance(first, AppError):
        return _error_response(first)
    if isinstance(first, Replayed) and first.status != 200:  # a replayed failure keeps its status
        return FastJSONResponse(first.body, status_code=first.status, headers=replayed(first))
    return first, queue


class _Listener:
    """The model's checked words (services/reply/live.py), onto the stream's queue."""

    def __init__(self, queue: asyncio.Queue[Item]) -> None:
        self.queue = queue

    def text(self, piece: str) -> None:
        self.queue.put_nowait(Delta(piece))

    def reset(self) -> None:
        self.queue.put_nowait(Reset())


async def _events(first: Item, queue: asyncio.Queue[Item]) -> AsyncIterator[bytes]:
    item, streamed_tools, shown = first, 0, ""  # shown: the delta text since the last reset
    while True:
        match item:
            case ToolCallRecord():
                streamed_tools += 1
                yield event("tool", item.model_dump(mode="json"))
            case Delta(text):
                shown += text
                yield event("delta", {"text": text})
            case Reset():
                if shown:
                    shown = ""
                    yield event("reset", {})
            case AppError():
                yield event("error", item.body)
                return
            case ChatResponse() | Replayed():
                for chunk in _finale(Finale.of(item), replay_tools=streamed_tools == 0, shown=shown):
                    yield chunk
                return
            case _:
                assert_never(item)
        item = await queue.get()


def _finale(finale: Finale, *, replay_tools: bool, shown: str = "") -> list[bytes]:
    """What follows the tool events: (a replay's tool events,) the question, the rest of the reply
    (all of it, after a `reset`, when what was shown is not how it begins), then `done` with the body."""
    chunks = [event("tool", record) for record in finale.tool_calls] if replay_tools else []
    if finale.confirmation is not None:
        chunks.append(event("confirmation", finale.confirmation))
    text = finale.text
    if text.startswith(shown):
        text = text[len(shown) :]
    else:
        chunks.append(event("reset", {}))
    chunks += [event("delta", {"text": piece}) for piece in text.splitlines(keepends=True)]
    chunks.append(event("done", finale.body))
    return chunks


def _error_response(error: AppError) -> Response:
    return FastJSONResponse(error.body, status_code=error.status_code, headers=error.headers)


def replayed(first: Item) -> dict[str, str]:
    """The header of a response whose turn is a replay (the stored response of an Idempotency-Key)."""
    return {"Idempotency-Replayed": "true"} if isinstance(first, Replayed) else {}
