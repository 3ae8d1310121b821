"""POST /api/{user_id}/undo: revert the user's most recent change set, whatever made it."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from backend.app.api.deps import CurrentUser, TaskWritesDep
from backend.app.api.responses import FastJSONResponse
from backend.app.api.routes.tasks import IdempotencyKey
from backend.app.schemas.common import error_responses
from backend.app.schemas.tasks import UndoOut

router = APIRouter(tags=["tasks"])


class UndoIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn_id: uuid.UUID | None = Field(
        default=None,
        description="The change set the client saw (an undo's or a change's `turn_id`): only that one is "
        "reverted; 409 `UNDO_CONFLICT`, with nothing changed, when the newest change set is another.",
    )


_EXAMPLES = {
    "the newest change": {"summary": "No body: the newest change set", "value": None},
    "the change seen": {
        "summary": "Only the change set the client saw",
        "value": {"turn_id": "0b7f3c1e-2f1a-4a57-9a53-6f1f2d0c9a11"},
    },
}


@router.post(
    "/api/{user_id}/undo",
    response_model=UndoOut,
    summary="Undo the most recent change",
    description="Reverts the user's most recent change set, whether a chat turn, an MCP call or a REST request "
    "made it: deleted tasks come back with their ids, added ones go, updated and completed ones get their fields "
    "back. 409 `NOTHING_TO_UNDO` when there is none; 409 `UNDO_CONFLICT`, with nothing changed, when a later "
    "change touched one of its tasks. Another user's changes are never touched. Once per click: "
    "`Idempotency-Key` replays the stored answer; a body `turn_id` reverts only that change set; with neither, "
    "a request within `UNDO_REPEAT_WINDOW_S` (2 s) of the last undo answers that undo again "
    "(`Idempotency-Replayed: true`) instead of reverting one more.",
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
async def undo(
    user_id: CurrentUser,
    writes: TaskWritesDep,
    body: Annotated[UndoIn | None, Body(openapi_examples=_EXAMPLES)] = None,
    idempotency_key: IdempotencyKey = None,
) -> FastJSONResponse:
    expected = body.turn_id if body is not None else None
    written = await writes.undo(user_id, idempotency_key=idempotency_key, expected=expected)
    headers = {"Idempotency-Replayed": "true"} if written.replayed else {}
    # The body is UndoOut's already (writes.undo_body), a replay's as it was stored.
    return FastJSONResponse(written.body, status_code=written.status, headers=headers)
