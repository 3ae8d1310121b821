"""`TaskTools`: the task tools bound to one owner, the one executor serving the chat loop, MCP and REST.

`TaskTools` is the loop's ToolExecutor. Each call is coerced, then validated on its own
(best-effort: one bad call never discards the others), then all valid calls of a step run in one
short transaction. In strict mode the step is all-or-nothing. With a `ToolAudit` (every chat turn,
every MCP call) the step's `tool_executions` rows are written in that same transaction: a change is
never committed without the record of the call that made it, even if the turn dies right after. (A
lone add is one statement, its task and its row: `_record`; so is a lone complete, update or delete
of a task its lookup read whole, by its exact title, whose write the repository held: a task changed
since the lookup gets neither, and the call reports the conflict.) Which tools exist is tools/registry.py;
what each one does, tools/handlers.py, whose handlers it holds (and they the `TaskFinder` of
tools/references.py). A call's result and the arguments recorded as executed are built from what its
handler returned (`Done`): the model's arguments with the values the handler repaired and applied in
their place, so the record of a change says what was applied. (A write the database refuses is a
bare STORAGE_ERROR: its handler returned nothing, so how its reference was read is not reported.)
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.calls.codes import ResultCode
from backend.app.calls.facts import LoopFacts
from backend.app.calls.payloads import FieldError, InvalidFields, Payload, task_of
from backend.app.calls.said import Said
from backend.app.calls.tools import Tool, having, traits
from backend.app.calls.types import BatchResult, StepInfo, ToolCall, ToolResult, ToolSpec
from backend.app.calls.verdicts import decide
from backend.app.core.clock import Clock
from backend.app.core.text import has_nul
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.tasks import HeldWrite, TaskRepository, TaskRow
from backend.app.db.session import only_statement_next, unit_of_work
from backend.app.tools.coercion import coerce_arguments
from backend.app.tools.handlers import Change, Done, StepScope, ToolHandlers, conflicted
from backend.app.tools.references import TaskFinder
from backend.app.tools.referents import Referents
from backend.app.tools.registry import TOOL_SPECS, TOOLS, find_tool
from backend.app.tools.repeats import past_due
from backend.app.tools.resolver import ReferenceResolver, Resolution, clean_reference
from backend.app.tools.schemas import ListTasksArgs
from backend.app.tools.titles import exactly_named, named_in

# Up to this many tasks the resolver sees every title (scored in process). Above it, on Postgres, the
# database shortlists PREFILTER_LIMIT titles close to the reference (title words, then trigrams): at
# 1,000 tasks that already takes a third of the time of scoring every title (specs/bench/results.md),
# with the same answers.
PREFILTER_ABOVE = 300
PREFILTER_LIMIT = 50
ApplyMode = Literal["best_effort", "strict"]


@dataclass(slots=True)
class _Prepared:
    call: ToolCall
    arguments: dict[str, Any]
    args: BaseModel | None
    warnings: tuple[str, ...]
    rejected: ToolResult | None

    @classmethod
    def refused(
        cls, call: ToolCall, arguments: dict[str, Any], warnings: tuple[str, ...], result: ToolResult
    ) -> _Prepared:
        """A call that will not run: `result` says why."""
        return cls(call, arguments, None, warnings, result)


def _fixable(code: ResultCode, error: str, warnings: tuple[str, ...], data: Payload | None = None) -> ToolResult:
    """A refusal the model can fix, keeping the warnings of the coercions already applied."""
    return ToolResult(success=False, code=code, error=error, data=data, warnings=warnings, model_fixable=True)


class _StrictAbort(Exception):
    pass


@dataclass(frozen=True, slots=True)
class ToolAudit:
    """Where `TaskTools` records its calls (`tool_executions`), beside their effects: a chat turn, or
    (no conversation) one MCP call or REST request; `source` says which."""

    conversation_id: uuid.UUID | None
    turn_id: uuid.UUID
    source: str = "chat"


class TaskTools:
    """Task tools bound to one owner; the owner never comes from the model's arguments. What each tool
    does is its `handlers` (tools/handlers.py); how a call's reference becomes one of the owner's
    tasks, their `TaskFinder` (tools/references.py). One `TaskTools` serves one turn (or one MCP call,
    or one REST request): the tasks its calls touched and the titles they added are the turn's."""

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
        context: Referents | None = None,
        offered: frozenset[str] | None = None,
        said: Said | None = None,
    ) -> None:
        self.sessionmaker = sessionmaker
        # The tools this deployment offers (TOOLS_ALLOW / TOOLS_DENY); None: all of them.
        self._offered = offered
        self._specs = TOOL_SPECS if offered is None else tuple(s for s in TOOL_SPECS if s.name in offered)
        self.audit = audit
        self.user_id = user_id
        self.clock = clock
        self.apply_mode = apply_mode
        # `context`: "it", "the second one", references into the conversation; `said`: what the
        # user's message names, to repair the model's arguments that name nothing.
        finder = TaskFinder(
            resolver=resolver,
            prefilter_above=prefilter_above,
            prefilter_limit=prefilter_limit,
            said=said,
            context=context,
        )
        self.handlers = ToolHandlers(finder=finder, clock=clock, list_limit=list_limit)

    def specs(self) -> Sequence[ToolSpec]:
        return self._specs

    # The resolver's shortlist and its answer for a title (`TaskFinder`), for the bench and its tests.
    @property
    def prefilter_limit(self) -> int:
        return self.handlers.finder.prefilter_limit

    async def resolve_title(self, repo: TaskRepository, reference: str) -> tuple[Resolution, dict[uuid.UUID, TaskRow]]:
        return await self.handlers.finder.resolve_title(repo, reference)

    async def titles_named_in(self, text: str) -> list[str]:
        """The titles of the owner's tasks that `text` names whole (a reply's claim: "Deleted Yoga" names
        *Yoga*), read from the database's shortlist for the text."""
        async with unit_of_work(self.sessionmaker) as session:
            only_statement_next(session)
            shortlist = await TaskRepository(session, self.user_id).candidates(
                clean_reference(text), limit=self.prefilter_limit, all_up_to=self.handlers.finder.prefilter_above
            )
        return [row.title for row in shortlist.rows if named_in(text, row.title)]

    async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchResult:
        prepared = [self._prepare(call) for call in calls]
        references = tuple(
            clean_reference(str(p.arguments.get("task_id") or "")) for p in prepared if p.args is not None
        )
        invalid = [i for i, p in enumerate(prepared) if p.rejected is not None]
        durations = [0.0] * len(prepared)
        if self.apply_mode == "strict" and invalid:
            refused = self._strict_rejection(
                prepared, f"call #{invalid[0]} ({prepared[invalid[0]].call.name}) was invalid"
            )
            return await self._record_alone(prepared, refused, durations, step)
        results: list[ToolResult | None] = [p.rejected for p in prepared]
        changes: list[Change | None] = [None] * len(prepared)
        arguments = [p.arguments for p in prepared]  # a call that made its change: the arguments it applied
        done: Done | None = None  # the last call's (a held write's is the step's one call)
        try:
            async with unit_of_work(self.sessionmaker) as session:
                nested = len(calls) - len(invalid) > 1
                # The write of a step of one call (a new task; a change or delete of a task its lookup
                # read whole) is held and sent with its tool execution row (`_record`); beside a refused
                # call, which has a row of its own, it goes in the step's transaction.
                repo = TaskRepository(session, self.user_id, hold_writes=len(prepared) == 1 and self.audit is not None)
                if not nested and all(p.args is None or _only_reads(p.args) for p in prepared):
                    # A lone listing writes nothing but its record: each statement alone, no transaction.
                    only_statement_next(session)
                titles = tuple(str(p.arguments.get("title") or "") for p in prepared if p.call.name == Tool.ADD)
                scope = StepScope(repo, references, titles, sweeps=await _sweeps(repo, prepared))
                for i, p in enumerate(prepared):
                    if p.args is None:
                        continue
                    started = time.perf_counter()
                    done = await self._run_one(session, scope, p, nested=nested)
                    results[i], changes[i], arguments[i] = _ran(done, p)
                    durations[i] = (time.perf_counter() - started) * 1000
                    if self.apply_mode == "strict" and not results[i].success:  # type: ignore[union-attr]
                        raise _StrictAbort(f"call #{i} ({p.call.name}) failed: {results[i].error}")  # type: ignore[union-attr]
                final = [r if r is not None else ToolResult(success=False, error="not run") for r in results]
                outcome = BatchResult(results=final, executed_arguments=arguments)
                held = repo.take_held_write()
                if not await self._record(session, prepared, outcome, durations, step, changes, repo.take_held(), held):
                    # The task changed after its lookup: neither the write nor its record was stored;
                    # the call reports the conflict a write sent at once would have met, recorded alone.
                    assert done is not None and len(prepared) == 1
                    final[0], changes[0], arguments[0] = _ran(conflicted(done), prepared[0])  # `outcome`'s lists
                    await self._record(session, prepared, outcome, durations, step, changes)
        except _StrictAbort as abort:
            refused = self._strict_rejection(prepared, str(abort), keep=results)
            return await self._record_alone(prepared, refused, durations, step)
        return outcome

    # -- the audit trail -------------------------------------------------------------------------
    async def _record(
        self,
        session: AsyncSession,
        prepared: list[_Prepared],
        outcome: BatchResult,
        durations: list[float],
        step: StepInfo | None,
        changes: list[Change | None] | None = None,
        tasks: list[dict[str, Any]] | None = None,
        write: HeldWrite | None = None,
    ) -> bool:
        """One `tool_executions` row per call of the batch (refused ones too), in the caller's
        transaction, with what each change did to its task (for undo), and the new `tasks` or the
        `write` its calls held. A lone call whose handler sent nothing (an add, a held change or
        delete, a refusal) is one statement, its write and its row together: it runs alone, without
        a transaction, where it can (`only_statement_next`, `db/driver.py`). False when the held
        `write` found its task changed since the lookup: nothing was stored."""
        if self.audit is None:
            return True
        step = step or StepInfo()
        done = changes or [None] * len(prepared)
        rows = [
            {
                "conversation_id": self.audit.conversation_id,
                "turn_id": self.audit.turn_id,
                "tool_call_id": p.call.id[:128],
                "tool_name": p.call.name[:64],
                "arguments": arguments,
                "result": result.to_payload(),
                "success": result.success,
                "retried": step.retried,
                "retry_reason": step.retry_reason,
                "duration_ms": round(duration, 3),
                "task_id": change.task_id if change else None,
                "before": change.before if change else None,
                "after": change.after if change else None,
                "source": self.audit.source,
            }
            for p, arguments, result, duration, change in zip(
                prepared, outcome.executed_arguments, outcome.results, durations, done, strict=True
            )
        ]
        if len(rows) == 1:
            only_statement_next(session)
        return await ConversationRepository(session, self.user_id).add_tool_executions(
            rows, tasks=tasks or (), write=write
        )

    async def _record_alone(
        self, prepared: list[_Prepared], outcome: BatchResult, durations: list[float], step: StepInfo | None
    ) -> BatchResult:
        """A batch that changed nothing (strict mode refused it) is recorded in a transaction of its own."""
        if self.audit is not None:
            async with unit_of_work(self.sessionmaker) as session:
                await self._record(session, prepared, outcome, durations, step)
        return outcome

    # -- preparation ---------------------------------------------------------------------------
    def _prepare(self, call: ToolCall) -> _Prepared:
        raw = call.arguments or {}
        definition = find_tool(call.name, self._offered)
        if definition is None:  # the runner masks unknown names; this guards direct use (MCP, REST)
            unknown = decide(LoopFacts(traits(call.name), offered=False))  # the table's row L2
            return _Prepared.refused(call, raw, (), unknown.refusal(f"Unknown tool '{call.name}'."))
        arguments, coercions = coerce_arguments(call.name, raw)
        warnings = tuple(c.message for c in coercions)
        try:
            encoded = orjson.dumps(arguments)
            if has_nul(arguments):
                # Postgres text cannot hold NUL: refuse the call instead of failing the step's transaction.
                raise ValueError("a text value contains a NUL character")
        except (TypeError, ValueError) as exc:  # orjson.JSONEncodeError is a TypeError: huge ints, surrogates
            return _Prepared.refused(
                call,
                {},
                warnings,
                ToolResult.fixable(
                    ResultCode.INVALID_ARGUMENTS, f"Invalid arguments for {call.name}: {exc}. Call it again."
                ),
            )
        try:
            # JSON-strict validation: no silent string<->number or number->date conversions.
            args = definition.args.model_validate_json(encoded, strict=True)
        except ValidationError as exc:
            fields = [
                FieldError(field=".".join(str(p) for p in e["loc"]) or "(arguments)", message=e["msg"])
                for e in exc.errors()
            ]
            text = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
            error = f"Invalid arguments for {call.name}: {text}"
            refusal = _fixable(ResultCode.INVALID_ARGUMENTS, error, warnings, InvalidFields(fields=fields))
            return _Prepared.refused(call, arguments, warnings, refusal)
        if (past := past_due(args, self.clock)) is not None:
            return _Prepared.refused(call, arguments, warnings, _fixable(ResultCode.DUE_DATE_IN_PAST, past, warnings))
        return _Prepared(call, arguments, args, warnings, None)

    def _strict_rejection(
        self, prepared: list[_Prepared], why: str, keep: list[ToolResult | None] | None = None
    ) -> BatchResult:
        """Every call refused (strict mode), each with the model's arguments: none was applied."""
        results = []
        for i, p in enumerate(prepared):
            own = p.rejected or (keep[i] if keep and keep[i] is not None and not keep[i].success else None)  # type: ignore[union-attr]
            results.append(
                own
                or ToolResult(
                    success=False,
                    code=ResultCode.NOT_APPLIED,
                    error=f"Not applied: strict mode and {why}.",
                    warnings=p.warnings,
                )
            )
        return BatchResult(results=results, executed_arguments=[p.arguments for p in prepared])

    # -- execution -----------------------------------------------------------------------------
    async def _run_one(self, session: AsyncSession, scope: StepScope, p: _Prepared, *, nested: bool) -> Done:
        """What one call's handler did (`_ran`: the call's result, change and executed arguments)."""
        definition = TOOLS[p.call.name]  # prepared: a tool this deployment offers
        try:
            if nested:
                async with session.begin_nested():
                    done = await definition.handler(self.handlers, scope, p.args, p.call)
            else:
                done = await definition.handler(self.handlers, scope, p.args, p.call)
        except SQLAlchemyError:
            if not nested:
                raise
            done = Done(
                ToolResult(success=False, code=ResultCode.STORAGE_ERROR, error="The database refused this change.")
            )
        return done


def _ran(done: Done, p: _Prepared) -> tuple[ToolResult, Change | None, dict[str, Any]]:
    """A call's result, its change, and its executed arguments: the model's, with the values its
    handler repaired and applied in their place (`Done.applied`: none when it changed nothing)."""
    return _reported(done, p.warnings), done.change, {**p.arguments, **done.applied}


def _only_reads(args: BaseModel) -> bool:
    """A call whose statements only read and need nothing of a transaction: a listing without a text
    query (a text search sets its plan for the transaction's queries: task_filter.py)."""
    return isinstance(args, ListTasksArgs) and not (args.query and args.query.strip())


def _reported(done: Done, warnings: tuple[str, ...]) -> ToolResult:
    """The handler's result with what the call reports besides: the warnings of its coercions, how
    its reference was read and what was repaired (and, on a success, `resolved` and `repaired`)."""
    result, notes, repairs = done.result, done.notes, done.repairs
    dropped = tuple({"argument": d.argument, "value": d.value} for d in done.dropped)
    if not (warnings or notes or repairs or dropped):
        return result
    data = result.data
    if result.success and (task := task_of(data)) is not None:
        data = task = task.copy()  # with how its reference was read and what was repaired
        if notes:
            task["resolved"] = notes[0]
        if repairs:
            task["repaired"] = list(repairs)
    return ToolResult(
        success=result.success,
        data=data,
        error=result.error,
        code=result.code,
        warnings=warnings + notes + repairs + tuple(d.note() for d in done.dropped) + result.warnings,
        model_fixable=result.model_fixable,
        dropped=dropped,
    )


_SWEEPING = having("destructive")  # the changes that may be asked about for the whole list


async def _sweeps(repo: TaskRepository, prepared: Sequence[_Prepared]) -> frozenset[str]:
    """The tools whose calls in this step name as many tasks as the list holds (pending ones for a
    completion; "Gym" and "gym" are one), counted before any runs: a change over the whole list. Not
    after a yes to a question naming one of them ("Should I delete Gym?"): it asked about those."""
    named: dict[str, set[str]] = {}
    for p in prepared:
        if p.args is not None and p.call.name in _SWEEPING:
            named.setdefault(p.call.name, set()).add(clean_reference(str(p.arguments.get("task_id") or "")).casefold())
    asked = {p.call.name: g.names for p in prepared if (g := p.call.grounding) is not None and g.confirmed}
    swept = set()
    for tool, references in named.items():
        references.discard("")
        named_one = (question := asked.get(tool)) and any(exactly_named(question, r) for r in references)
        status = "pending" if tool == Tool.COMPLETE else "all"
        if not named_one and len(references) >= 2 and len(references) >= await repo.count(status=status):
            swept.add(tool)
    return frozenset(swept)
