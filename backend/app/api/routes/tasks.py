"""Tasks (read and write), conversations and their messages.

Writes go through the same tools as a chat turn (services/user_data/writes.py): same validation, owner
scoping, audit record (source `rest`), undo and metrics.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Header, Query, Request, Response
from fastapi.openapi.models import Example

from backend.app.api.deps import (
    MAX_ID_CHARS,
    CurrentUser,
    SessionDep,
    TaskWritesDep,
    UserClock,
    ZoneHeader,
    get_user_clock,
)
from backend.app.api.responses import FastJSONResponse
from backend.app.core.exceptions import NotFound
from backend.app.core.jsontypes import JsonObject
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.paging import DEFAULT_LIMIT, MAX_LIMIT
from backend.app.db.repositories.task_filter import TaskFilter
from backend.app.db.repositories.task_statements import TaskSort
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.schemas.common import error_responses
from backend.app.schemas.tasks import ConversationOut, MessageOut, TaskOut
from backend.app.services.user_data.writes import etag, parse_if_match, task_body
from backend.app.tools.schemas import AddTaskArgs, TaskFields

router = APIRouter(tags=["tasks"])


_NEXT = {
    "X-Next-Cursor": {"description": "The next page's cursor; absent on the last page.", "schema": {"type": "string"}}
}
_ETAG = {
    "ETag": {"description": 'The task\'s version in quotes (`"3"`): send it as If-Match.', "schema": {"type": "string"}}
}
PAGED: dict[int | str, dict[str, object]] = {200: {"headers": _NEXT}}
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Page size.")]
Cursor = Annotated[str | None, Query(max_length=500, description="`X-Next-Cursor` of the previous page.")]


@router.get(
    "/api/{user_id}/tasks",
    response_model=list[TaskOut],
    summary="The user's tasks: filtered, searched, sorted, paged",
    description="Every task of the token's user (the same rows the tools change), narrowed by the filters given. "
    "`q` searches the title and description in any case and without accents, and lets a typo through in a longer "
    'word ("groceris" finds "Buy groceries"). Pages of `limit` (at most 200); when there are more, the '
    "`X-Next-Cursor` header holds the cursor of the next page (absent on the last page). Cursors are stable "
    "under inserts and deletes.",
    responses={**PAGED, **error_responses(401, 403, 422, 500)},
)
async def list_tasks(
    user_id: CurrentUser,
    session: SessionDep,
    response: Response,
    request: Request,
    status: Literal["all", "pending", "completed"] = "all",
    q: Annotated[str | None, Query(max_length=200, description="Words in the title or description.")] = None,
    priority: Literal["low", "medium", "high"] | None = None,
    tag: Annotated[str | None, Query(max_length=50)] = None,
    due_before: Annotated[date | None, Query(description="Due on or before this day.")] = None,
    due_after: Annotated[date | None, Query(description="Due on or after this day.")] = None,
    sort: Annotated[
        TaskSort, Query(description="created: newest first; due: soonest first (undated last); priority: high first.")
    ] = "created",
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    overdue: Annotated[bool, Query(description="Only pending tasks due before the user's today.")] = False,
    time_zone: ZoneHeader = None,
) -> list[TaskOut]:
    # The user's clock is read only for `overdue` (it may read their stored zone).
    today = (await get_user_clock(request, user_id, time_zone)).today() if overdue else None
    where = TaskFilter(status, q, priority, tag, due_before, due_after, today)
    page = await TaskRepository(session, user_id).search(where, sort=sort, limit=limit, cursor=cursor)
    if page.cursor is not None:
        response.headers["X-Next-Cursor"] = page.cursor
    return [TaskOut.model_validate(t, from_attributes=True) for t in page.tasks]


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="A retry with the same key and body returns the stored response and creates nothing.",
    ),
]
IfMatch = Annotated[
    str | None,
    Header(
        alias="If-Match",
        description='The task\'s `ETag` (`"3"`) as last read: the change happens only at that version (412 '
        "otherwise). Without it, the change applies to whatever the task is now.",
    ),
]
_WRITE_ERRORS: dict[int, tuple[str, str, str]] = {
    404: ("No such task (or not yours)", "NOT_FOUND", "Task not found"),
    409: ("Another change to the task won a race (send If-Match to be told as 412)", "CONFLICT", "It changed"),
    412: ("If-Match names another version of the task", "PRECONDITION_FAILED", "'Buy milk' is at version 4, not 3"),
}


CREATE_EXAMPLES: dict[str, Example] = {
    "task": {"value": {"title": "Buy milk", "due_date": "2026-11-30", "priority": "high", "tags": ["shopping"]}}
}
PATCH_EXAMPLES: dict[str, Example] = {
    "complete": {"value": {"status": "completed"}},
    "reopen": {"value": {"status": "pending"}},
    "clear": {"summary": "null clears a date or description, [] the tags", "value": {"due_date": None, "tags": []}},
}
WRITE_RESPONSES = error_responses(401, 403, 404, 409, 412, 413, 422, 500, own=_WRITE_ERRORS)


@router.post(
    "/api/{user_id}/tasks",
    status_code=201,
    response_model=TaskOut,
    summary="Create a task",
    description="The body is `add_task`'s arguments (title required; due date today or later). 201 with the task "
    "and its `ETag`. Recorded in `tool_executions` (source `rest`) and undoable like a chat turn's change. "
    "Send `Idempotency-Key` to make a retry safe.",
    responses={
        201: {
            "headers": {
                **_ETAG,
                "Location": {"description": "The task's URL.", "schema": {"type": "string"}},
                "Idempotency-Replayed": {"description": "`true` on a replay.", "schema": {"type": "string"}},
            }
        },
        **error_responses(401, 403, 409, 413, 422, 500),
    },
)
async def create_task(
    user_id: CurrentUser,
    body: Annotated[AddTaskArgs, Body(openapi_examples=CREATE_EXAMPLES)],
    writes: TaskWritesDep,
    request: Request,
    clock: UserClock,
    idempotency_key: IdempotencyKey = None,
) -> FastJSONResponse:
    fields = body.model_dump(mode="json", exclude_unset=True)
    written = await writes.create(user_id, fields, idempotency_key=idempotency_key, clock=clock)
    headers = {"Idempotency-Replayed": "true"} if written.replayed else {}
    if written.version is not None:
        headers["ETag"] = etag(written.version)
        headers["Location"] = str(request.url_for("get_task", user_id=user_id, task_id=written.body["id"]).path)
    return FastJSONResponse(written.body, status_code=written.status, headers=headers)


@router.get(
    "/api/{user_id}/tasks/{task_id}",
    response_model=TaskOut,
    summary="One task, with its ETag",
    description="The task and, in the `ETag` header, its version: send it back as `If-Match` to change it safely.",
    responses={200: {"headers": _ETAG}, **error_responses(401, 403, 404, 422, 500)},
)
async def get_task(user_id: CurrentUser, task_id: uuid.UUID, writes: TaskWritesDep) -> FastJSONResponse:
    task = await writes.get(user_id, task_id)
    return FastJSONResponse(task_body(task), headers={"ETag": etag(task.version)})


@router.patch(
    "/api/{user_id}/tasks/{task_id}",
    response_model=TaskOut,
    summary="Change any field of a task",
    description="Only the fields sent change: `null` clears `due_date`, `due_at`, `recurrence` and `description`, "
    "`[]` clears `tags`, `status` completes (`completed`) or reopens (`pending`); completing a repeating task moves "
    "it to its next occurrence. 200 with the task and its new `ETag`; with `If-Match`, 412 when the task changed "
    "since; `Idempotency-Key` makes a retry safe (it answers the first request's response). Undoable.",
    responses={200: {"headers": _ETAG}, **WRITE_RESPONSES},
)
async def update_task(
    user_id: CurrentUser,
    task_id: uuid.UUID,
    body: Annotated[TaskFields, Body(openapi_examples=PATCH_EXAMPLES)],
    writes: TaskWritesDep,
    clock: UserClock,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> FastJSONResponse:
    fields: JsonObject = body.model_dump(mode="json", exclude_unset=True)
    version = parse_if_match(if_match)
    written = await writes.update(
        user_id, task_id, fields, version=version, clock=clock, idempotency_key=idempotency_key
    )
    headers = {"Idempotency-Replayed": "true"} if written.replayed else {}
    if written.version is not None:
        headers["ETag"] = etag(written.version)
    return FastJSONResponse(written.body, status_code=written.status, headers=headers)


@router.delete(
    "/api/{user_id}/tasks/{task_id}",
    status_code=204,
    summary="Delete a task (undoable)",
    description='A soft delete: the task is kept for `UNDO_RETENTION_DAYS`, and `POST /undo` (or "undo" in chat) '
    "brings it back with its id. With `If-Match`, 412 when the task changed since.",
    responses=WRITE_RESPONSES,
)
async def delete_task(
    user_id: CurrentUser, task_id: uuid.UUID, writes: TaskWritesDep, if_match: IfMatch = None
) -> Response:
    await writes.delete(user_id, task_id, version=parse_if_match(if_match))
    return Response(status_code=204)


@router.get(
    "/api/{user_id}/conversations",
    response_model=list[ConversationOut],
    summary="The user's conversations, most recent first",
    description="Conversation ids and titles (the first message), most recently active first, in pages of `limit` "
    "(the next page's cursor in `X-Next-Cursor`, absent on the last page).",
    responses={**PAGED, **error_responses(401, 403, 422, 500)},
)
async def list_conversations(
    user_id: CurrentUser, session: SessionDep, response: Response, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
) -> list[ConversationOut]:
    conversations, after = await ConversationRepository(session, user_id).list_conversations(limit=limit, cursor=cursor)
    if after is not None:
        response.headers["X-Next-Cursor"] = after
    return [ConversationOut.model_validate(c, from_attributes=True) for c in conversations]


@router.get(
    "/api/{user_id}/conversations/{conversation_id}/messages",
    response_model=list[MessageOut],
    response_model_exclude_unset=True,  # a stored record is served with the keys it has, no more
    summary="A conversation's stored history, with tool calls and metadata",
    description="Messages oldest first; assistant messages carry the persisted `tool_calls`, `action_metadata` "
    "and `execution_metadata` of their turn. Another user's conversation is a 404. Pages of `limit` (default and "
    "most 200), the next page's cursor in `X-Next-Cursor`.",
    responses={**PAGED, **error_responses(401, 403, 404, 422, 500)},
)
async def list_messages(
    user_id: CurrentUser,
    conversation_id: uuid.UUID,
    session: SessionDep,
    response: Response,
    limit: Limit = MAX_LIMIT,
    cursor: Cursor = None,
) -> list[MessageOut]:
    repo = ConversationRepository(session, user_id)
    if not await repo.exists(conversation_id):
        raise NotFound("Conversation not found")
    messages, after = await repo.messages(conversation_id, limit=limit, cursor=cursor)
    if after is not None:
        response.headers["X-Next-Cursor"] = after
    return [
        MessageOut(
            id=m.id,
            role=m.role,
            content=m.content,
            created_at=m.created_at,
            tool_calls=m.tool_call_metadata,
            action_metadata=m.action_metadata,
            execution_metadata=m.execution_metadata,
            is_error=m.is_error,
        )
        for m in messages
    ]
