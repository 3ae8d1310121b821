"""Read endpoints: tasks, conversations and their messages."""

from __future__ import annotations

import uuid
from typing import Literal

from fastapi import APIRouter

from backend.app.api.deps import CurrentUser, SessionDep
from backend.app.core.exceptions import NotFound
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.schemas.common import error_responses
from backend.app.schemas.tasks import ConversationOut, MessageOut, TaskOut

router = APIRouter(tags=["tasks"])


@router.get(
    "/api/{user_id}/tasks",
    response_model=list[TaskOut],
    summary="The user's tasks, newest first",
    description="Every task of the token's user, optionally filtered by `status`. The same rows the tools change.",
    responses=error_responses(401, 403, 422, 500),
)
async def list_tasks(
    user_id: CurrentUser, session: SessionDep, status: Literal["all", "pending", "completed"] = "all"
) -> list[TaskOut]:
    tasks = await TaskRepository(session, user_id).list_tasks(status=status)
    return [TaskOut.model_validate(t, from_attributes=True) for t in tasks]


@router.get(
    "/api/{user_id}/conversations",
    response_model=list[ConversationOut],
    summary="The user's conversations, most recent first",
    description="Conversation ids and titles (the first message), most recently active first.",
    responses=error_responses(401, 403, 422, 500),
)
async def list_conversations(user_id: CurrentUser, session: SessionDep) -> list[ConversationOut]:
    conversations = await ConversationRepository(session, user_id).list_conversations()
    return [ConversationOut.model_validate(c, from_attributes=True) for c in conversations]


@router.get(
    "/api/{user_id}/conversations/{conversation_id}/messages",
    response_model=list[MessageOut],
    summary="A conversation's stored history, with tool calls and metadata",
    description="Messages oldest first; assistant messages carry the persisted `tool_calls`, `action_metadata` "
    "and `execution_metadata` of their turn. Another user's conversation is a 404.",
    responses=error_responses(401, 403, 404, 422, 500),
)
async def list_messages(user_id: CurrentUser, conversation_id: uuid.UUID, session: SessionDep) -> list[MessageOut]:
    repo = ConversationRepository(session, user_id)
    if not await repo.exists(conversation_id):
        raise NotFound("Conversation not found")
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
        for m in await repo.messages(conversation_id)
    ]
