"""A user's data, to take away or to erase (services/user_data/export.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from backend.app.api.deps import CurrentUser
from backend.app.api.responses import FastJSONResponse
from backend.app.db.session import unit_of_work
from backend.app.schemas.common import error_responses
from backend.app.services.user_data import export as user_data

router = APIRouter(tags=["your data"])
_OUTAGE = {503: ("The database cannot be reached; see Retry-After", "DATABASE_UNAVAILABLE", "Try again shortly")}


@router.get(
    "/api/{user_id}/export",
    summary="Everything of yours, as JSON",
    description="Tasks, deleted tasks still restorable, conversations and their messages, every tool execution "
    "(the change log, with each change's before and after) and pending confirmations: every row that is yours, "
    "as a JSON attachment.",
    responses={
        200: {
            "content": {
                "application/json": {
                    "example": {
                        "user_id": "alice",
                        "tasks": [{"id": "5f0c8a52-1c1e-4a0e-9a5e-3d1f6e2b7c90", "title": "Gym", "status": "pending"}],
                        "deleted_tasks": [],
                        "conversations": [],
                        "messages": [],
                        "tool_executions": [],
                        "pending_confirmations": [],
                    }
                }
            }
        },
        **error_responses(401, 403, 422, 500, own=_OUTAGE),
    },
)
async def export(user_id: CurrentUser, request: Request) -> FastJSONResponse:
    async with unit_of_work(request.app.state.sessionmaker) as session:
        data = await user_data.export(session, user_id)
    headers = {"Content-Disposition": 'attachment; filename="taskchat-export.json"'}
    return FastJSONResponse(data, headers=headers)


@router.delete(
    "/api/{user_id}/data",
    summary="Erase everything of yours",
    description="Deletes every row that carries your user id, in every table, in one transaction (all or "
    "nothing), and answers how many rows of each table went. Not undoable. Logged by count, never by content.",
    responses={
        200: {
            "content": {"application/json": {"example": {"erased": {"tasks": 12, "messages": 40, "conversations": 3}}}}
        },
        **error_responses(401, 403, 422, 500, own=_OUTAGE),
    },
)
async def erase(user_id: CurrentUser, request: Request) -> FastJSONResponse:
    async with unit_of_work(request.app.state.sessionmaker) as session:
        erased = await user_data.erase(session, user_id)
    return FastJSONResponse({"erased": erased})
