"""One step's tool calls: the checks that run before anything executes, then the executor.

Order of checks per call: refused by the guard or over the per-step limit (decided by the runner),
normalization errors (too large, bad JSON), unknown or masked tool, repeated call, destructive cap,
budget. Model-fixable failures become tool results that tell the
model what to do; the rest of the calls in the step still run (they are independent).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import orjson

from backend.app.agent.limits import BudgetExceeded, BudgetUse
from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import OutputSize, ValidTools
from backend.app.calls.types import ExecutedCall, Grounding, StepInfo, ToolCall, ToolExecutor, ToolResult, ToolSpec


@dataclass(slots=True)
class DispatchedStep:
    executed: list[ExecutedCall]
    repeated: list[ToolCall] = field(default_factory=list)
    budget: BudgetExceeded | None = None


@dataclass(slots=True)
class Dispatcher:
    executor: ToolExecutor
    executable: dict[str, ToolSpec]
    use: BudgetUse
    max_output_bytes: int
    max_destructive_calls: int
    seen: set[tuple[str, bytes]] = field(default_factory=set)
    destructive_calls: int = 0

    async def run_step(
        self,
        calls: Sequence[ToolCall],
        *,
        step: int,
        retried: bool,
        retry_reason: str | None,
        offered: frozenset[str] | None = None,
        refused: Mapping[int, ToolResult] | None = None,
    ) -> DispatchedStep:
        """Run one step's calls; `offered` masks execution to the tools this step sent (None: all);
        `refused` calls (by index) are recorded with the result given, never run."""
        outcome = DispatchedStep(executed=[])
        slots: list[ToolResult | None] = []
        runnable: list[ToolCall] = []
        capped: set[int] = set()  # positions in `runnable` of deletions over the cap: looked up, not run
        for index, call in enumerate(calls):
            early = refused.get(index) if refused else None
            if early is None:
                early = self._precheck(call, outcome, offered)
            if early is not None and early.code == ResultCode.DESTRUCTIVE_LIMIT:
                # Looked up, so that the user is asked about the very task ("delete “Eggs”?"), never run.
                capped.add(len(runnable))
                grounding = call.grounding or Grounding()
                runnable.append(dataclasses.replace(call, grounding=dataclasses.replace(grounding, ask=True)))
                slots.append(None)
                continue
            slots.append(early)
            if early is None:
                runnable.append(call)
        started = time.perf_counter()
        info = StepInfo(retried=retried, retry_reason=retry_reason)
        batch = await self.executor.execute_batch(runnable, step=info) if runnable else None
        per_call_ms = (time.perf_counter() - started) * 1000 / max(1, len(runnable))
        # (result, whether the call ran): a deletion over the cap was only looked up.
        results = [
            (self._over_cap(r), False) if i in capped else (r, True)
            for i, r in enumerate(batch.results if batch else [])
        ]
        ran = iter(zip(results, batch.executed_arguments, strict=True)) if batch else iter(())
        for call, early in zip(calls, slots, strict=True):
            if early is not None:
                result, arguments, duration, did_run = early, call.arguments or {}, 0.0, False
            else:
                (result, did_run), arguments = next(ran)
                duration = per_call_ms
            outcome.executed.append(
                ExecutedCall(
                    call=call,
                    arguments=arguments,
                    result=self._bounded(result),
                    step=step,
                    duration_ms=round(duration, 3),
                    retried=retried,
                    retry_reason=retry_reason,
                    ran=did_run,
                )
            )
        return outcome

    def _precheck(self, call: ToolCall, outcome: DispatchedStep, offered: frozenset[str] | None) -> ToolResult | None:
        if call.error is not None:
            return ToolResult.fixable(call.error.code, call.error.message)
        spec = self.executable.get(call.name)
        if spec is None or (offered is not None and call.name not in offered):
            # A tool that exists but was not offered this step (e.g. a mutation in two_phase's read
            # phase) is refused exactly like an unknown one: what is sent is what may execute.
            valid = sorted(self.executable if offered is None else offered & self.executable.keys())
            return ToolResult.fixable(
                ResultCode.UNKNOWN_TOOL,
                f"Tool '{call.name}' is not available now. Valid tools: {', '.join(valid) or 'none'}.",
                ValidTools(valid_tools=valid),
            )
        key = (call.name, orjson.dumps(call.arguments or {}, option=orjson.OPT_SORT_KEYS))
        if key in self.seen:
            outcome.repeated.append(call)
            return ToolResult(
                success=False,
                code=ResultCode.REPEATED_CALL,
                error=f"'{call.name}' was already called with these arguments in this turn; not run again.",
            )
        if outcome.budget is not None:
            return ToolResult(success=False, code=ResultCode.BUDGET_EXCEEDED, error=str(outcome.budget))
        if spec.destructive and self.destructive_calls >= self.max_destructive_calls:
            return ToolResult(
                success=False,
                code=ResultCode.DESTRUCTIVE_LIMIT,
                error=(
                    f"Refused: more than {self.max_destructive_calls} destructive actions in one message. "
                    "Ask the user to confirm the remaining ones in a new message."
                ),
            )
        try:
            self.use.check_before_tool_call()
        except BudgetExceeded as exc:
            outcome.budget = exc
            return ToolResult(success=False, code=ResultCode.BUDGET_EXCEEDED, error=str(exc))
        self.seen.add(key)
        self.use.tool_calls += 1
        if spec.destructive:
            self.destructive_calls += 1
        return None

    def _over_cap(self, looked_up: ToolResult) -> ToolResult:
        """A deletion over the cap, looked up: refused with the task it names (a failure to look it up stands)."""
        if looked_up.code != ResultCode.NEEDS_CONFIRMATION:
            return looked_up
        return ToolResult(
            success=False,
            code=ResultCode.DESTRUCTIVE_LIMIT,
            error=(
                f"Refused: more than {self.max_destructive_calls} destructive actions in one message. "
                "Ask the user to confirm the remaining ones in a new message."
            ),
            data=looked_up.data,
        )

    def _bounded(self, result: ToolResult) -> ToolResult:
        # Measured as messages.tool_message serializes it (default=str), so any payload it can send is sized.
        size = len(orjson.dumps(result.to_payload(), default=str))
        if size <= self.max_output_bytes:
            return result
        return ToolResult(
            success=result.success,
            code=ResultCode.TOOL_OUTPUT_TOO_LARGE,
            error=f"Tool output was {size} bytes, over the limit of {self.max_output_bytes}; it was dropped.",
            data=OutputSize(bytes=size, limit=self.max_output_bytes),
        )
