"""POST /api/{user_id}/chat: one guarded chat turn."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Depends, Request
from fastapi.exceptions import RequestValidationError
from pydantic import Discriminator, StringConstraints, Tag, TypeAdapter, ValidationError
from starlette.responses import Response

from backend.app.api.deps import BEARER, MAX_ID_CHARS, USER_ID_SAYS, owner, zone_names
from backend.app.api.responses import FastJSONResponse
from backend.app.api.streaming import replayed, stream_chat, wants_stream
from backend.app.api.ui_stream import stream_ui_chat
from backend.app.core.clock import TIME_ZONE_HEADER
from backend.app.core.exceptions import PayloadTooLarge
from backend.app.schemas.chat import ChatRequest, ChatResponse
from backend.app.schemas.common import BODY_FORM, error_responses
from backend.app.schemas.ui_chat import EXAMPLE as UI_EXAMPLE
from backend.app.schemas.ui_chat import UIChatRequest
from backend.app.services.turn.pipeline import ChatService, Replayed

router = APIRouter(tags=["chat"])
# The route's path as BodyLimit matches it: its cap is MAX_CHAT_BODY_BYTES, for the AI SDK's request
# (never below `Settings.chat_body_bytes`, which a plain request has).
CHAT_PATH = r"/api/[^/]+/chat"


def _form(body: Any) -> str:
    """Which request this is: the AI SDK's (it sends `messages`) or the plain one."""
    return BODY_FORM + ("ui" if isinstance(body, dict) and "messages" in body else "chat")


# What the route reads of its request besides the body (the path's user, checked against the token;
# two headers) is read from the request by `_checked`, not declared as the endpoint's parameters and
# dependencies: FastAPI's work for a declared header cost about 0.1 M instructions a request (1% of a
# turn), the security dependency with its path parameter 0.12 M. The operation documents them
# (`openapi_extra`) as FastAPI documents the routes that declare them (tests/api/test_openapi.py).
IDEMPOTENCY_KEY = "Idempotency-Key"
_BOUNDED = TypeAdapter(Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS)])
_KEY_SAYS = "A retry with the same key and body returns the stored response and changes nothing."
_ACCEPT_SAYS = "`text/event-stream` streams the turn (see above)."
_ZONE_SAYS = (
    "The user's IANA time zone, when the body's `time_zone` names none (else the token's `zoneinfo` claim, "
    "the stored zone, DEFAULT_TIME_ZONE)."
)
_PARAMETERS = [
    {
        "name": "user_id",
        "in": "path",
        "required": True,
        "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_ID_CHARS,
            "description": USER_ID_SAYS,
            "title": "User Id",
        },
        "description": USER_ID_SAYS,
    },
    {
        "name": IDEMPOTENCY_KEY,
        "in": "header",
        "required": False,
        "schema": {
            "anyOf": [{"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS}, {"type": "null"}],
            "description": _KEY_SAYS,
            "title": IDEMPOTENCY_KEY,
        },
        "description": _KEY_SAYS,
    },
    {
        "name": TIME_ZONE_HEADER,
        "in": "header",
        "required": False,
        "schema": {"anyOf": [{"type": "string", "maxLength": 64}, {"type": "null"}], "title": TIME_ZONE_HEADER},
        "description": _ZONE_SAYS,
    },
    {
        "name": "accept",
        "in": "header",
        "required": False,
        "schema": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": _ACCEPT_SAYS, "title": "Accept"},
        "description": _ACCEPT_SAYS,
    },
]
_SECURITY: list[dict[str, list[str]]] = [{BEARER: []}]


async def _checked(raw: Request) -> None:
    """What is checked before the body is validated, in the order FastAPI checked it when it was
    declared: the size of a plain chat request (the route's dependency), the path's user (a 422 naming
    it) and the token, which must be that user's (401, 403: `deps.owner`; the security dependency),
    then the `Idempotency-Key` (a 422 naming the header; a header was checked with the body)."""
    await _plain_cap(raw)
    user_id = raw.path_params["user_id"]
    _bounded(user_id, ("path", "user_id"))
    await owner(raw, user_id)
    if (key := raw.headers.get(IDEMPOTENCY_KEY)) is not None:
        _bounded(key, ("header", IDEMPOTENCY_KEY))


def _bounded(value: str, where: tuple[str, str]) -> None:
    try:
        _BOUNDED.validate_python(value)
    except ValidationError as invalid:
        raise RequestValidationError([{**e, "loc": (*where, *e["loc"])} for e in invalid.errors()]) from None


async def _plain_cap(raw: Request) -> None:
    """A plain chat request has `Settings.chat_body_bytes` (room for a full message however it is
    escaped): the route's wider cap (MAX_CHAT_BODY_BYTES) is for the AI SDK's, which carries the whole
    chat. (The settings are read from the app, not through a dependency: one fewer for every turn.)"""
    body, cap = await raw.body(), raw.app.state.settings.chat_body_bytes
    if len(body) <= cap:
        return
    try:
        shaped = orjson.loads(body)
    except orjson.JSONDecodeError:
        shaped = None
    if _form(shaped) != BODY_FORM + "ui":
        raise PayloadTooLarge(f"Request body over {cap} bytes")


# One route, two request shapes, told apart by the body; a body's errors are its own shape's.
AnyChatRequest = Annotated[
    Annotated[ChatRequest, Tag(BODY_FORM + "chat")] | Annotated[UIChatRequest, Tag(BODY_FORM + "ui")],
    Discriminator(_form),
]


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
    "disconnects leaves the turn to finish and be recorded.\n\n"
    "A body in the Vercel AI SDK's chat shape (`UIChatRequest`: `id`, `messages`, `trigger`, as `useChat` "
    "sends it) is answered in the SDK's UI message stream protocol (`x-vercel-ai-ui-message-stream: v1`): "
    "`start` (`messageMetadata.conversationId`), a tool part per call (`tool-input-available`, then "
    "`tool-output-available` or `tool-output-error`), the reply as `text-start`/`text-delta`/`text-end`, "
    "`data-confirmation` when the turn asks, `finish`, and `error` (`errorText`: the error JSON). Only the last "
    "user message is read; the chat's `id` is its conversation; without `Idempotency-Key` the key is made of "
    "the chat's id, the user message's id and the request, so a retry or regenerate replays instead of acting "
    "twice.",
    dependencies=[Depends(_checked)],
    openapi_extra={"parameters": _PARAMETERS, "security": _SECURITY},
    responses={
        200: {
            "content": {
                "text/event-stream": {
                    # One server-sent event: its name (the plain stream's; the AI SDK's has none) and data.
                    "schema": {
                        "type": "object",
                        "properties": {
                            "event": {"type": "string"},
                            "data": {"type": "string", "description": "JSON; `[DONE]` ends the AI SDK's stream"},
                        },
                        "required": ["data"],
                    },
                    "example": 'event: tool\ndata: {"name": "add_task", "arguments": {"title": "Buy milk"}, '
                    '"result": {"success": true, ...}}\n\nevent: delta\ndata: {"text": "Added: “Buy milk”."}\n\n'
                    'event: done\ndata: {"conversation_id": "...", "assistant_message": "Added: “Buy milk”.", ...}\n\n',
                    "description": "`Accept: text/event-stream`: the events above. An AI SDK request: the UI "
                    'message stream, e.g. `data: {"type": "start", ...}`, ..., `data: [DONE]`.',
                }
            }
        },
        **error_responses(401, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504),
    },
)
async def chat(
    request: Annotated[
        AnyChatRequest,
        Body(
            openapi_examples={
                "plain": {"summary": "A message", "value": {"message": "delete Read book", "conversation_id": None}},
                "ai-sdk": {
                    "summary": "As the AI SDK's useChat sends it (answered with its UI message stream)",
                    "value": UI_EXAMPLE,
                },
            }
        ),
    ],
    raw: Request,
) -> Response:
    service: ChatService = raw.app.state.chat_service
    user_id, idempotency_key = raw.path_params["user_id"], raw.headers.get(IDEMPOTENCY_KEY)  # `_checked`
    zones = zone_names(raw)  # the header's and the token's; the body's comes first (ChatService.chat)
    if isinstance(request, UIChatRequest):
        return await stream_ui_chat(
            service, user_id=user_id, request=request, idempotency_key=idempotency_key, zones=zones
        )
    if wants_stream(raw.headers.get("accept")):
        return await stream_chat(
            service, user_id=user_id, request=request, idempotency_key=idempotency_key, zones=zones
        )
    outcome = await service.chat(user_id=user_id, request=request, idempotency_key=idempotency_key, zones=zones)
    if isinstance(outcome, Replayed):  # served as it was stored
        return FastJSONResponse(outcome.body, status_code=outcome.status, headers=replayed(outcome))
    return FastJSONResponse(outcome.model_dump(mode="json"))
