"""POST /api/{user_id}/chat: one guarded chat turn."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header
from starlette.responses import Response

from backend.app.api.deps import ChatServiceDep, CurrentUser
from backend.app.api.responses import FastJSONResponse
from backend.app.api.streaming import stream_chat, wants_stream
from backend.app.schemas.chat import ChatRequest, ChatResponse
from backend.app.schemas.common import error_responses

router = APIRouter(tags=["chat"])


@router.post(
    "/api/{user_id}/chat",
    response_model=ChatResponse,
    summary="Send a message; tools run and the reply says only what really happened",
    description="One chat turn: the model (or the built-in offline model when no LLM key is set) calls the task "
    "tools as the token's user. `tool_calls` and `action_metadata` come from real tool results only: when the "
    "message needs a tool and none ran even after one forced retry, the reply is "
    "`Technical error: Tool not triggered.` and nothing changed. An LLM failure before any tool ran is a "
    "502/503/504 with nothing half-done. Send `Idempotency-Key` to make a retry safe.\n\n"
    "With `Accept: text/event-stream` the turn streams as server-sent events: `tool` (each call with its "
    'result, as soon as it ran), `delta` (`{"text": ...}`, the reply in pieces: in `RESPONSE_MODE=model` the '
    "model's own sentences as it writes them, each once checked against the tool results; otherwise the "
    "composed reply), `reset` (`{}`: drop the delta text shown so far, it is not the reply; the reply follows), "
    "`confirmation` (when the turn asks one), then `done` whose data is exactly the JSON body above (its "
    "`assistant_message` is the delta text since the last `reset`); `error` (the error JSON) if the turn fails "
    "once the stream began. Errors before the first event keep their status and JSON body. A client that "
    "disconnects leaves the turn to finish and be recorded.",
    responses={
        200: {
            "content": {
                "text/event-stream": {
                    "schema": {"type": "string"},
                    "example": 'event: tool\ndata: {"name": "add_task", "arguments": {"title": "Buy milk"}, '
                    '"result": {"success": true, ...}}\n\nevent: delta\ndata: {"text": "Added: “Buy milk”."}\n\n'
                    'event: done\ndata: {"conversation_id": "...", "assistant_message": "Added: “Buy milk”.", ...}\n\n',
                }
            }
        },
        **error_responses(401, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504),
    },
)
async def chat(
    user_id: CurrentUser,
    request: ChatRequest,
    service: ChatServiceDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            min_length=1,
            max_length=255,
            description="A retry with the same key and body returns the stored response and changes nothing.",
        ),
    ] = None,
    accept: Annotated[str | None, Header(description="`text/event-stream` streams the turn (see above).")] = None,
) -> Response:
    if wants_stream(accept):
        return await stream_chat(service, user_id=user_id, request=request, idempotency_key=idempotency_key)
    outcome = await service.chat(user_id=user_id, request=request, idempotency_key=idempotency_key)
    headers = {"Idempotency-Replayed": "true"} if outcome.replayed else None
    return FastJSONResponse(outcome.body, status_code=outcome.status, headers=headers)
