"""POST /api/{user_id}/undo: revert the user's most recent change set, whatever made it."""

from __future__ import annotations

from fastapi import APIRouter

from backend.app.api.deps import CurrentUser, ToolsForDep
from backend.app.schemas.common import error_responses
from backend.app.schemas.tasks import UndoOut
from backend.app.services.undo import undo_last_change

router = APIRouter(tags=["tasks"])


@router.post(
    "/api/{user_id}/undo",
    response_model=UndoOut,
    summary="Undo the most recent change",
    description="Reverts the user's most recent change set, whether a chat turn, an MCP call or a REST request "
    "made it: deleted tasks come back with their ids, added ones go, updated and completed ones get their fields "
    "back. 409 `NOTHING_TO_UNDO` when there is none; 409 `UNDO_CONFLICT`, with nothing changed, when a later "
    "change touched one of its tasks. Another user's changes are never touched.",
    responses=error_responses(
        401,
        403,
        409,
        422,
        500,
        own={
            409: (
                "Nothing to undo, or a later change touched its task",
                "NOTHING_TO_UNDO",
                "There is no change to undo.",
            )
        },
    ),
)
async def undo(user_id: CurrentUser, tools_for: ToolsForDep) -> UndoOut:
    return UndoOut.model_validate(await undo_last_change(tools_for(user_id, source="rest")))
