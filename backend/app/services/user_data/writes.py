"""REST writes (`POST`, `PATCH`, `DELETE` on `/api/{user_id}/tasks`): the tools a chat turn calls, so
the same validation, owner scoping, audit record (`tool_executions`, source `rest`), undo and
metrics, with HTTP's own additions: `Idempotency-Key` on create, `If-Match` on change and delete.

Each request is one change set (its own turn id), which `POST /undo` or "undo" in chat reverts.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import UndoData, task_id_of, undo_of
from backend.app.calls.tools import Tool
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.core.exceptions import (
    AppError,
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    NothingToUndo,
    PreconditionFailed,
    UndoConflict,
)
from backend.app.core.jsontypes import JsonObject
from backend.app.core.metrics import Metrics
from backend.app.db.models import Task
from backend.app.db.repositories.idempotency import IdempotencyRepository, StoredResponse
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.db.session import unit_of_work
from backend.app.schemas.tasks import TaskOut, UndoOut
from backend.app.services.turn import idempotency
from backend.app.tools.factory import ToolsFor

_INVALID = frozenset(
    {
        ResultCode.INVALID_ARGUMENTS,
        ResultCode.DUE_DATE_IN_PAST,
        ResultCode.NO_CHANGES,
        ResultCode.ARGUMENTS_TOO_LARGE,
        ResultCode.ARGUMENTS_JSON_PARSE_ERROR,
    }
)


@dataclass(frozen=True, slots=True)
class Written:
    """A create's answer: the status and body to send (a replay's are the stored ones)."""

    status: int
    body: JsonObject
    version: int | None
    replayed: bool = False


def etag(version: int) -> str:
    return f'"{version}"'


def parse_if_match(header: str | None) -> int | None:
    """The version an `If-Match` names; None when absent or `*` (any version). Weak tags never match a
    strong comparison (RFC 9110), and anything else names no version of the task: both are 412."""
    if header is None or header.strip() == "*":
        return None
    tag = header.strip()
    if tag.startswith('"') and tag.endswith('"') and tag[1:-1].isdigit() and len(tag) < 24:
        return int(tag[1:-1])
    raise PreconditionFailed(f"If-Match {header[:40]!r} names no version of this task (send its ETag)")


class TaskWrites:
    def __init__(
        self,
        *,
        tools_for: ToolsFor,
        sessionmaker: async_sessionmaker[AsyncSession],
        settings: Settings,
        clock: Clock,
        metrics: Metrics | None = None,
    ) -> None:
        self.tools_for = tools_for
        self.sessionmaker = sessionmaker
        self.settings = settings
        self.clock = clock
        self.metrics = metrics

    async def create(
        self, user_id: str, fields: JsonObject, *, idempotency_key: str | None, clock: Clock | None = None
    ) -> Written:
        payload: JsonObject = {"route": "POST /tasks", "body": fields}
        return await self._once(user_id, idempotency_key, payload, 201, Tool.ADD, fields, clock=clock)

    async def undo(self, user_id: str, *, idempotency_key: str | None, expected: uuid.UUID | None) -> Written:
        """Revert the newest change set, once per click: a retry with the same `Idempotency-Key` gets the
        stored answer; with `expected` (the change set the client saw) only that one is reverted; with
        neither, a request within `UNDO_REPEAT_WINDOW_S` of the last undo answers that undo again."""
        turn_id = uuid.uuid4()
        if idempotency_key is not None:
            payload: JsonObject = {"route": "POST /undo", "body": {"turn_id": str(expected) if expected else None}}
            stored = await self._claim(user_id, idempotency_key, payload, turn_id)
            if stored is not None:
                return Written(stored.status, stored.body, None, True)
        # Without a key or the change it saw, a click this soon after the last undo is that undo again.
        window = self.settings.undo_repeat_window_s if idempotency_key is None and expected is None else 0.0
        try:
            result = await self._run(user_id, turn_id, Tool.UNDO, {}, expected_change=expected, repeat_window_s=window)
        except AppError:
            if idempotency_key is not None:  # nothing changed: a retry may run
                await self._release(user_id, idempotency_key)
            raise
        undone = undo_of(result.data)
        assert undone is not None  # an undo that succeeds says what it undid
        body = undo_body(undone)
        if undone.get("replayed", False):
            return Written(200, body, None, True)
        if idempotency_key is not None:
            await self._complete(user_id, idempotency_key, 200, body)
        return Written(200, body, None)

    async def update(
        self,
        user_id: str,
        task_id: uuid.UUID,
        fields: JsonObject,
        *,
        version: int | None,
        clock: Clock | None = None,
        idempotency_key: str | None = None,
    ) -> Written:
        """Change the task: once per `Idempotency-Key` (a retried completion of a repeating task moves
        it once; the retry gets the stored answer)."""
        payload: JsonObject = {"route": f"PATCH /tasks/{task_id}", "body": fields, "if_match": version}
        arguments = {**fields, "task_id": str(task_id)}
        return await self._once(
            user_id, idempotency_key, payload, 200, Tool.UPDATE, arguments, version=version, clock=clock
        )

    async def _once(
        self,
        user_id: str,
        key: str | None,
        payload: JsonObject,
        status: int,
        tool: str,
        arguments: JsonObject,
        *,
        version: int | None = None,
        clock: Clock | None = None,
    ) -> Written:
        """A write of one task, once per `Idempotency-Key`: a retry gets the stored answer; a failure
        releases the key (nothing changed: a retry may run)."""
        turn_id = uuid.uuid4()
        if key is not None:
            stored = await self._claim(user_id, key, payload, turn_id)
            if stored is not None:
                kept = stored.body.get("version") if stored.status == status else None
                return Written(stored.status, stored.body, kept if isinstance(kept, int) else None, True)
        try:
            result = await self._run(user_id, turn_id, tool, arguments, version=version, clock=clock)
            task = await self._task(user_id, result)
        except AppError:
            if key is not None:
                await self._release(user_id, key)
            raise
        body = task_body(task)
        if key is not None:
            await self._complete(user_id, key, status, body)
        return Written(status, body, task.version)

    async def delete(self, user_id: str, task_id: uuid.UUID, *, version: int | None) -> None:
        await self._run(user_id, uuid.uuid4(), Tool.DELETE, {"task_id": str(task_id)}, version=version)

    async def get(self, user_id: str, task_id: uuid.UUID) -> Task:
        async with unit_of_work(self.sessionmaker, single_statement=True) as session:
            task = await TaskRepository(session, user_id).get(task_id)
        if task is None:
            raise NotFound("Task not found")
        return task

    # -- helpers -------------------------------------------------------------------------------
    async def _claim(self, user_id: str, key: str, payload: JsonObject, turn_id: uuid.UUID) -> StoredResponse | None:
        """Claim the request's `Idempotency-Key` (services/turn/idempotency.py): the stored answer of a replay."""
        async with unit_of_work(self.sessionmaker) as session:
            return await idempotency.claim(
                session,
                user_id=user_id,
                key=key,
                payload=payload,
                turn_id=turn_id,
                settings=self.settings,
                clock=self.clock,
            )

    async def _complete(self, user_id: str, key: str, status: int, body: JsonObject) -> None:
        async with unit_of_work(self.sessionmaker) as session:
            await IdempotencyRepository(session, user_id).complete(key, status=status, body=body)

    async def _run(
        self,
        user_id: str,
        turn_id: uuid.UUID,
        tool: str,
        arguments: JsonObject,
        *,
        version: int | None = None,
        expected_change: uuid.UUID | None = None,
        repeat_window_s: float = 0.0,
        clock: Clock | None = None,
    ) -> ToolResult:
        tools = self.tools_for(user_id, source="rest", turn_id=turn_id, clock=clock)
        call = ToolCall(
            id=f"rest-{turn_id.hex[:12]}",
            name=tool,
            arguments=arguments,
            expected_version=version,
            expected_change=expected_change,
            repeat_window_s=repeat_window_s,
        )
        result = (await tools.execute_batch([call])).results[0]
        if self.metrics is not None:
            self.metrics.observe_tool_result(tool, success=result.success, source="rest")
        if not result.success:
            raise _error(tool, result, if_match=version is not None)
        return result

    async def _task(self, user_id: str, result: ToolResult) -> Task:
        """The task a successful call returned, whole (timestamps and version)."""
        task_id = task_id_of(result.data)
        assert task_id is not None  # a call on one task that succeeds names it
        return await self.get(user_id, uuid.UUID(task_id))

    async def _release(self, user_id: str, key: str) -> None:
        async with unit_of_work(self.sessionmaker) as session:
            await IdempotencyRepository(session, user_id).release(key)


def task_body(task: Task) -> JsonObject:
    return TaskOut.model_validate(task, from_attributes=True).model_dump(mode="json")


def undo_body(undone: UndoData) -> JsonObject:
    """What an undo answers: what it reverted, and which change set (not whether it was a repeat)."""
    return UndoOut.model_validate(undone).model_dump(mode="json")


def _error(tool: str, result: ToolResult, *, if_match: bool) -> AppError:
    detail = result.error or "The change was refused."
    code = result.code or ""
    if code in _INVALID:
        return InvalidRequest(detail)
    if code == ResultCode.NOT_FOUND:
        return NotFound("Task not found")
    if code == ResultCode.PRECONDITION_FAILED:
        return PreconditionFailed(detail)
    if code == ResultCode.CONFLICT:
        # Changed between the read and the versioned write: with If-Match the client's version is
        # stale; without it, another writer won this race.
        return PreconditionFailed(detail) if if_match else Conflict(detail)
    if code == ResultCode.NOTHING_TO_UNDO:
        return NothingToUndo(detail)
    if code == ResultCode.UNDO_CONFLICT:
        return UndoConflict(detail)
    if code == ResultCode.UNKNOWN_TOOL:
        return Forbidden(f"This deployment does not offer {tool} (TOOLS_ALLOW / TOOLS_DENY)")
    return AppError(detail)
