"""Undo from outside a chat turn (`POST /api/{user_id}/undo`): the same tool a chat turn calls."""

from __future__ import annotations

from typing import Any

from backend.app.agent.types import ToolCall
from backend.app.core.exceptions import NothingToUndo, UndoConflict
from backend.app.tools.task_tools import TaskTools
from backend.app.tools.undo import NOTHING_TO_UNDO


async def undo_last_change(tools: TaskTools) -> dict[str, Any]:
    """What the undo reverted; NothingToUndo or UndoConflict (both 409) when it reverted nothing."""
    outcome = await tools.execute_batch([ToolCall(id="rest-undo", name="undo_last_change", arguments={})])
    result = outcome.results[0]
    if result.success:
        data: dict[str, Any] = result.data
        return data
    if result.code == NOTHING_TO_UNDO:
        raise NothingToUndo(result.error or "There is no change to undo.")
    raise UndoConflict(result.error or "The last change can no longer be undone.")
