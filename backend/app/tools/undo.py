"""Undo: revert the user's most recent change set, from the change log (`tool_executions` before/after).

Each change is reverted only if no later change (of another change set, not undone itself) touched
its task: an added task is removed, a deleted one restored with its id, an updated or completed
one gets its fields back. Undoing again goes one change set further back. One refusal refuses the
whole set: nothing half-undone survives. It never touches another user's tasks: every read and write
is owner-scoped.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import UndoData, Undone
from backend.app.calls.tools import Tool
from backend.app.calls.types import ToolResult
from backend.app.db.repositories.changes import ChangeRepository, RecordedChange
from backend.app.db.repositories.tasks import TaskRepository, TaskRow

_FIELDS = ("title", "description", "status", "priority", "due_date", "due_at", "time_zone", "recurrence", "tags")


class _Conflict(Exception):
    pass


async def undo_last_change(
    repo: TaskRepository,
    *,
    now: datetime,
    expected: uuid.UUID | None = None,
    repeat_window: timedelta = timedelta(0),
) -> ToolResult:
    """Revert the newest change set; with `expected`, only if it is that one (else nothing changes);
    within `repeat_window` of the last undo, answer that undo again (`replayed`). The user's undos run
    one at a time (a lock held to the end of the transaction), so a second click waits for the first
    and then sees it."""
    log = ChangeRepository(repo.session, repo.user_id)
    await log.lock_undo()
    if repeat_window and (recent := await log.last_undone(since=now - repeat_window)):
        again = described(recent)
        again["replayed"] = True
        return ToolResult(success=True, data=again)
    change_set = await log.last_change_set()
    if not change_set:
        return ToolResult(success=False, code=ResultCode.NOTHING_TO_UNDO, error="There is no change to undo.")
    if expected is not None and change_set[0].turn_id != expected:
        error = f"Can't undo: the most recent change is not {expected} (already undone?). Nothing was changed."
        return ToolResult(success=False, code=ResultCode.UNDO_CONFLICT, error=error)
    try:
        async with repo.session.begin_nested():
            undone = [await _revert(repo, log, change) for change in change_set]
            if await log.mark_undone([c.id for c in change_set], when=now) != len(change_set):
                raise _Conflict("another request undid it at the same time")
    except _Conflict as exc:
        return ToolResult(
            success=False, code=ResultCode.UNDO_CONFLICT, error=f"Can't undo: {exc}. Nothing was changed."
        )
    data = UndoData(undone=undone, source=change_set[0].source, turn_id=str(change_set[0].turn_id))
    return ToolResult(success=True, data=data)


def described(change_set: list[RecordedChange]) -> UndoData:
    """What undoing `change_set` did, as `undo_last_change` reported it (for a repeated request)."""
    undone: list[Undone] = []
    for change in change_set:
        before, after = change.before or {}, change.after or {}
        title = str(after.get("title") or before.get("title") or "the task")
        task_id = str(change.task_id)
        if change.tool_name == Tool.DELETE:
            undone.append(Undone(action="restored", task_id=task_id, title=title))
        elif change.tool_name == Tool.ADD:
            undone.append(Undone(action="removed", task_id=task_id, title=title))
        else:
            fields = sorted(k for k in _FIELDS if before.get(k) != after.get(k))
            title = str(before.get("title", title))
            undone.append(Undone(action="reverted", task_id=task_id, title=title, fields=fields))
    return UndoData(undone=undone, source=change_set[0].source, turn_id=str(change_set[0].turn_id))


async def _revert(repo: TaskRepository, log: ChangeRepository, change: RecordedChange) -> Undone:
    before, after = change.before or {}, change.after or {}
    title = str(after.get("title") or before.get("title") or "the task")
    if await log.touched_later(change):
        raise _Conflict(f"“{title}” was changed again after that; undo that change first")
    if change.tool_name == Tool.DELETE:
        if await repo.restore(change.task_id) is None:
            raise _Conflict(f"“{title}” can no longer be restored")
        return Undone(action="restored", task_id=str(change.task_id), title=title)
    current = await repo.get(change.task_id)
    if current is None:
        raise _Conflict(f"“{title}” is gone")
    if change.tool_name == Tool.ADD:
        if not await repo.remove(change.task_id, version=current.version):
            raise _Conflict(f"“{title}” was changed at the same time")
        return Undone(action="removed", task_id=str(change.task_id), title=title)
    values = {k: _value(k, before.get(k)) for k in _FIELDS if before.get(k) != after.get(k)}
    if await repo.update(TaskRow(current.id, current.title, current.version), values) is None:
        raise _Conflict(f"“{title}” was changed at the same time")
    title = str(before.get("title", title))
    return Undone(action="reverted", task_id=str(change.task_id), title=title, fields=sorted(values))


def _value(field: str, value: Any) -> Any:
    if field == "due_date" and isinstance(value, str):
        return date.fromisoformat(value)
    if field == "due_at" and isinstance(value, str):  # shown in its zone; stored in UTC (SQLite keeps no offset)
        return datetime.fromisoformat(value).astimezone(UTC)
    return value
