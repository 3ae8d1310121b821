"""The five task tools: one implementation serving the chat loop and MCP.

`TaskTools` is the loop's ToolExecutor. Each call is coerced, then validated on its own
(best-effort: one bad call never discards the others), then all valid calls of a step run in
one short transaction. In strict mode the step is all-or-nothing. With a `ToolAudit` (every chat
turn, every MCP call) the step's `tool_executions` rows are written in that same transaction: a
change is never committed without the record of the call that made it, even if the turn dies
right after.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.agent.normalize import has_nul
from backend.app.agent.types import BatchOutcome, StepInfo, ToolCall, ToolResult, ToolSpec
from backend.app.core.clock import Clock
from backend.app.db.models import Task
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.tasks import Candidates, TaskRepository, TaskRow
from backend.app.db.session import unit_of_work
from backend.app.tools.coercion import coerce_arguments
from backend.app.tools.resolver import (
    Ambiguous,
    Candidate,
    NotFound,
    ReferenceResolver,
    Resolution,
    Resolved,
    clean_reference,
    parse_uuid,
)
from backend.app.tools.schemas import AddTaskArgs, ListTasksArgs, TaskRefArgs, UpdateTaskArgs, compact_schema

INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
# Up to this many tasks the resolver sees every title (scored in process). Above it, on Postgres, the
# database shortlists PREFILTER_LIMIT titles close to the reference (title words, then trigrams): at
# 1,000 tasks that already takes a third of the time of scoring every title (specs/bench/results.md),
# with the same answers.
PREFILTER_ABOVE = 300
PREFILTER_LIMIT = 50
ApplyMode = Literal["best_effort", "strict"]


@dataclass(frozen=True, slots=True)
class ToolDef:
    spec: ToolSpec
    args: type[BaseModel]


def _define(
    name: str, description: str, args: type[BaseModel], *, read_only: bool = False, destructive: bool = False
) -> ToolDef:
    return ToolDef(ToolSpec(name, description, compact_schema(args), read_only, destructive), args)


TOOLS: dict[str, ToolDef] = {
    d.spec.name: d
    for d in (
        _define("add_task", "Create a task for the user.", AddTaskArgs),
        _define("list_tasks", "List the user's tasks, newest first.", ListTasksArgs, read_only=True),
        _define("complete_task", "Mark a task as completed (never un-completes).", TaskRefArgs),
        _define("delete_task", "Delete a task permanently.", TaskRefArgs, destructive=True),
        _define("update_task", "Change a task's fields; give only the fields to change.", UpdateTaskArgs),
    )
}
TOOL_SPECS: tuple[ToolSpec, ...] = tuple(d.spec for d in TOOLS.values())


def task_to_dict(task: Task) -> dict[str, Any]:
    return {
        "id": str(task.id),
        "title": task.title,
        "description": task.description,
        "status": task.status,
        "priority": task.priority,
        "due_date": task.due_date.isoformat() if task.due_date else None,
        "tags": list(task.tags or []),
    }


@dataclass(slots=True)
class _Prepared:
    call: ToolCall
    arguments: dict[str, Any]
    args: BaseModel | None
    warnings: tuple[str, ...]
    rejected: ToolResult | None


class _StrictAbort(Exception):
    pass


@dataclass(frozen=True, slots=True)
class ToolAudit:
    """Where `TaskTools` records its calls (`tool_executions`), beside their effects: a chat turn, or
    (no conversation) one MCP call."""

    conversation_id: uuid.UUID | None
    turn_id: uuid.UUID


class TaskTools:
    """Task tools bound to one owner; the owner never comes from the model's arguments."""

    def __init__(
        self,
        *,
        sessionmaker: async_sessionmaker[AsyncSession],
        user_id: str,
        clock: Clock,
        resolver: ReferenceResolver,
        apply_mode: ApplyMode = "best_effort",
        list_limit: int = 50,
        prefilter_above: int = PREFILTER_ABOVE,
        prefilter_limit: int = PREFILTER_LIMIT,
        audit: ToolAudit | None = None,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.audit = audit
        self.user_id = user_id
        self.clock = clock
        self.resolver = resolver
        self.apply_mode = apply_mode
        self.list_limit = list_limit
        self.prefilter_above = prefilter_above
        self.prefilter_limit = prefilter_limit

    def specs(self) -> Sequence[ToolSpec]:
        return TOOL_SPECS

    async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchOutcome:
        prepared = [self._prepare(call) for call in calls]
        invalid = [i for i, p in enumerate(prepared) if p.rejected is not None]
        durations = [0.0] * len(prepared)
        if self.apply_mode == "strict" and invalid:
            refused = self._strict_rejection(
                prepared, f"call #{invalid[0]} ({prepared[invalid[0]].call.name}) was invalid"
            )
            return await self._record_alone(prepared, refused, durations, step)
        results: list[ToolResult | None] = [p.rejected for p in prepared]
        try:
            async with unit_of_work(self.sessionmaker) as session:
                repo = TaskRepository(session, self.user_id)
                nested = len(calls) - len(invalid) > 1
                for i, p in enumerate(prepared):
                    if p.args is None:
                        continue
                    started = time.perf_counter()
                    results[i] = await self._run_one(session, repo, p, nested=nested)
                    durations[i] = (time.perf_counter() - started) * 1000
                    if self.apply_mode == "strict" and not results[i].success:  # type: ignore[union-attr]
                        raise _StrictAbort(f"call #{i} ({p.call.name}) failed: {results[i].error}")  # type: ignore[union-attr]
                final = [r if r is not None else ToolResult(success=False, error="not run") for r in results]
                outcome = BatchOutcome(results=final, executed_arguments=[p.arguments for p in prepared])
                await self._record(session, prepared, outcome, durations, step)  # committed with the effects
        except _StrictAbort as abort:
            refused = self._strict_rejection(prepared, str(abort), keep=results)
            return await self._record_alone(prepared, refused, durations, step)
        return outcome

    # -- the audit trail -------------------------------------------------------------------------
    async def _record(
        self,
        session: AsyncSession,
        prepared: list[_Prepared],
        outcome: BatchOutcome,
        durations: list[float],
        step: StepInfo | None,
    ) -> None:
        """One `tool_executions` row per call of the batch (refused ones too), in the caller's transaction."""
        if self.audit is None:
            return
        step = step or StepInfo()
        rows = [
            {
                "conversation_id": self.audit.conversation_id,
                "turn_id": self.audit.turn_id,
                "tool_call_id": p.call.id[:128],
                "tool_name": p.call.name[:64],
                "arguments": p.arguments,
                "result": result.to_payload(),
                "success": result.success,
                "retried": step.retried,
                "retry_reason": step.retry_reason,
                "duration_ms": round(duration, 3),
            }
            for p, result, duration in zip(prepared, outcome.results, durations, strict=True)
        ]
        await ConversationRepository(session, self.user_id).add_tool_executions(rows)

    async def _record_alone(
        self, prepared: list[_Prepared], outcome: BatchOutcome, durations: list[float], step: StepInfo | None
    ) -> BatchOutcome:
        """A batch that changed nothing (strict mode refused it) is recorded in a transaction of its own."""
        if self.audit is not None:
            async with unit_of_work(self.sessionmaker) as session:
                await self._record(session, prepared, outcome, durations, step)
        return outcome

    # -- preparation ---------------------------------------------------------------------------
    def _prepare(self, call: ToolCall) -> _Prepared:
        raw = call.arguments or {}
        definition = TOOLS.get(call.name)
        if definition is None:  # the runner masks unknown names; this guards direct use (MCP)
            return _Prepared(call, raw, None, (), ToolResult.fixable("UNKNOWN_TOOL", f"Unknown tool '{call.name}'."))
        arguments, coercions = coerce_arguments(call.name, raw)
        warnings = tuple(c.message for c in coercions)
        try:
            encoded = orjson.dumps(arguments)
            if has_nul(arguments):
                # Postgres text cannot hold NUL: refuse the call instead of failing the step's transaction.
                raise ValueError("a text value contains a NUL character")
        except (TypeError, ValueError) as exc:  # orjson.JSONEncodeError is a TypeError: huge ints, surrogates
            return _Prepared(
                call,
                {},
                None,
                warnings,
                ToolResult.fixable(INVALID_ARGUMENTS, f"Invalid arguments for {call.name}: {exc}. Call it again."),
            )
        try:
            # JSON-strict validation: no silent string<->number or number->date conversions.
            args = definition.args.model_validate_json(encoded, strict=True)
        except ValidationError as exc:
            fields = [
                {"field": ".".join(str(p) for p in e["loc"]) or "(arguments)", "message": e["msg"]}
                for e in exc.errors()
            ]
            text = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
            return _Prepared(
                call,
                arguments,
                None,
                warnings,
                ToolResult(
                    success=False,
                    code=INVALID_ARGUMENTS,
                    error=f"Invalid arguments for {call.name}: {text}",
                    data={"fields": fields},
                    warnings=warnings,
                    model_fixable=True,
                ),
            )
        due = getattr(args, "due_date", None)
        if due is not None and due < self.clock.today():
            return _Prepared(
                call,
                arguments,
                None,
                warnings,
                ToolResult(
                    success=False,
                    code="DUE_DATE_IN_PAST",
                    model_fixable=True,
                    warnings=warnings,
                    error=f"due_date {due.isoformat()} is in the past (today is {self.clock.today().isoformat()}).",
                ),
            )
        return _Prepared(call, arguments, args, warnings, None)

    def _strict_rejection(
        self, prepared: list[_Prepared], why: str, keep: list[ToolResult | None] | None = None
    ) -> BatchOutcome:
        results = []
        for i, p in enumerate(prepared):
            own = p.rejected or (keep[i] if keep and keep[i] is not None and not keep[i].success else None)  # type: ignore[union-attr]
            results.append(
                own
                or ToolResult(
                    success=False, code="NOT_APPLIED", error=f"Not applied: strict mode and {why}.", warnings=p.warnings
                )
            )
        return BatchOutcome(results=results, executed_arguments=[p.arguments for p in prepared])

    # -- execution -----------------------------------------------------------------------------
    async def _run_one(self, session: AsyncSession, repo: TaskRepository, p: _Prepared, *, nested: bool) -> ToolResult:
        handler: Callable[[TaskRepository, Any], Awaitable[ToolResult]] = getattr(self, f"_{p.call.name}")
        try:
            if nested:
                async with session.begin_nested():
                    result = await handler(repo, p.args)
            else:
                result = await handler(repo, p.args)
        except SQLAlchemyError:
            if not nested:
                raise
            result = ToolResult(success=False, code="STORAGE_ERROR", error="The database refused this change.")
        if p.warnings:
            result = ToolResult(
                success=result.success,
                data=result.data,
                error=result.error,
                code=result.code,
                warnings=p.warnings + result.warnings,
                model_fixable=result.model_fixable,
            )
        return result

    async def _add_task(self, repo: TaskRepository, args: AddTaskArgs) -> ToolResult:
        task = await repo.add(
            title=args.title,
            description=args.description,
            priority=args.priority,
            due_date=args.due_date,
            tags=list(args.tags),
        )
        return ToolResult(success=True, data=task_to_dict(task))

    async def _list_tasks(self, repo: TaskRepository, args: ListTasksArgs) -> ToolResult:
        tasks = list(await repo.list_tasks(status=args.status, limit=self.list_limit + 1))
        truncated = len(tasks) > self.list_limit
        count = await repo.count(status=args.status) if truncated else len(tasks)
        shown = [task_to_dict(t) for t in tasks[: self.list_limit]]
        return ToolResult(
            success=True, data={"status": args.status, "count": count, "tasks": shown, "truncated": truncated}
        )

    async def _complete_task(self, repo: TaskRepository, args: TaskRefArgs) -> ToolResult:
        return await self._mutate(repo, args.task_id, {"status": "completed"})

    async def _update_task(self, repo: TaskRepository, args: UpdateTaskArgs) -> ToolResult:
        changes = args.changes()
        if not changes:
            return ToolResult.fixable("NO_CHANGES", "Give at least one field to change besides task_id.")
        return await self._mutate(repo, args.task_id, changes)

    async def _delete_task(self, repo: TaskRepository, args: TaskRefArgs) -> ToolResult:
        row = await self._resolve(repo, args.task_id)
        if isinstance(row, ToolResult):
            return row
        if not await repo.delete(row):
            return _conflict(row)
        return ToolResult(success=True, data={"id": str(row.id), "title": row.title, "status": "deleted"})

    async def _mutate(self, repo: TaskRepository, reference: str, values: dict[str, Any]) -> ToolResult:
        row = await self._resolve(repo, reference)
        if isinstance(row, ToolResult):
            return row
        task = await repo.update(row, values)
        return ToolResult(success=True, data=task_to_dict(task)) if task else _conflict(row)

    async def _resolve(self, repo: TaskRepository, reference: str) -> TaskRow | ToolResult:
        if (task_id := parse_uuid(reference)) is not None:
            owned = await repo.get_row(task_id)
            return owned or ToolResult(success=False, code="NOT_FOUND", error=NotFound(reference).message)
        resolution, by_id = await self.resolve_title(repo, reference)
        if isinstance(resolution, NotFound):
            return ToolResult(success=False, code="NOT_FOUND", error=resolution.message)
        if isinstance(resolution, Ambiguous):
            return ToolResult(
                success=False,
                code="AMBIGUOUS",
                error=resolution.message,
                data={"candidates": [c.title for c in resolution.candidates]},
            )
        return by_id[resolution.candidate.id]

    async def resolve_title(self, repo: TaskRepository, reference: str) -> tuple[Resolution, dict[uuid.UUID, TaskRow]]:
        """The resolver's answer for a title, and the rows it chose from (see `TaskRepository.candidates`).

        A shortlist that may have cut a match as good as its best never yields a fuzzy pick: its
        winner is offered first, as the resolver does with its own cut shortlist. Titles holding every
        word of the reference that the resolver all turns down make way for the trigram shortlist.
        """
        key = clean_reference(reference)  # as the resolver reads it: no quotes around

        async def look(**steps: bool) -> tuple[Candidates, Resolution]:
            found = await repo.candidates(key, limit=self.prefilter_limit, all_up_to=self.prefilter_above, **steps)
            return found, self.resolver.resolve(reference, [Candidate(r.id, r.title) for r in found.rows])

        found, resolution = await look()
        exact = isinstance(resolution, Resolved) and resolution.method == "exact"
        if found.source == "exact" and not (exact or isinstance(resolution, Ambiguous)):
            # Equal in SQL but not to the resolver's casefold (rare Unicode): look again without the shortcut.
            found, resolution = await look(exact_first=False)
        if found.source == "words" and isinstance(resolution, NotFound):
            # Titles holding every word, none close enough ("Reading books club" for "read books"): a
            # title with a typo may be ("Read boks"), which only the trigram step finds. (Titles holding
            # all words but one already take in a typo; looking again there costs tens of ms for nothing.)
            found, resolution = await look(exact_first=False, words_first=False)
        if found.cut and isinstance(resolution, Resolved) and resolution.method != "exact":
            best = resolution.candidate
            others = [Candidate(r.id, r.title) for r in found.rows if r.id != best.id][: self.resolver.limit - 1]
            resolution = Ambiguous(key, (best, *others))
        return resolution, {r.id: r for r in found.rows}


def _conflict(row: TaskRow) -> ToolResult:
    return ToolResult(
        success=False,
        code="CONFLICT",
        error=f"'{row.title}' was changed or deleted by another request at the same time; "
        "nothing was done. Please try again.",
    )
