"""One step's tool calls: the loop's own limits, then the executor.

A call the guard refused is recorded with the result it gave, never run. For each other call the
dispatcher gathers the facts of the loop's limits (a normalisation error, an unknown or masked tool,
a repeated call, over the step's calls limit, out of budget, over the turn's cap on deletions) and
acts on the decision table's verdict (calls/verdicts.py, rows L1-L7, docs/guard.md): model-fixable
failures become tool results that tell the model what to do; the rest of the calls in the step still
run (they are independent).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import orjson

from backend.app.agent.limits import BudgetExceeded, BudgetUse
from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Do, Verdict
from backend.app.calls.facts import NO_GROUNDING, LoopFacts
from backend.app.calls.payloads import OutputSize, ValidTools
from backend.app.calls.tools import traits
from backend.app.calls.types import ExecutedCall, StepInfo, ToolCall, ToolExecutor, ToolResult, ToolSpec
from backend.app.calls.verdicts import decide, verdict_of

_OVER_CAP = (
    "Refused: more than {cap} destructive actions in one message. "
    "Ask the user to confirm the remaining ones in a new message."
)


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
    calls_per_step: int | None = None
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
        slots, runnable, capped = self._sorted(calls, outcome, offered, refused)
        started = time.perf_counter()
        info = StepInfo(retried=retried, retry_reason=retry_reason)
        batch = await self.executor.execute_batch(runnable, step=info) if runnable else None
        per_call_ms = (time.perf_counter() - started) * 1000 / max(1, len(runnable))
        # (result, whether the call ran): a deletion over the cap was only looked up.
        results = [
            (_over_cap(capped[i], r), False) if i in capped else (r, True)
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

    def _sorted(
        self,
        calls: Sequence[ToolCall],
        outcome: DispatchedStep,
        offered: frozenset[str] | None,
        refused: Mapping[int, ToolResult] | None,
    ) -> tuple[list[ToolResult | None], list[ToolCall], dict[int, ToolResult]]:
        """Each call's early result (None: it goes to the executor), the calls that go to the executor,
        and the positions among them of deletions over the cap (looked up, not run)."""
        slots: list[ToolResult | None] = []
        runnable: list[ToolCall] = []
        capped: dict[int, ToolResult] = {}
        allowed = 0  # calls the guard did not refuse, in order: past `calls_per_step` they are ignored
        for index, call in enumerate(calls):
            early = refused.get(index) if refused else None
            if early is None:
                allowed += 1
                over = self.calls_per_step is not None and allowed > self.calls_per_step
                early = self._precheck(call, outcome, offered, over_limit=over)
            if early is not None and early.code == ResultCode.DESTRUCTIVE_LIMIT:
                # Looked up, so that the user is asked about the very task ("delete “Eggs”?"), never run.
                capped[len(runnable)] = early
                held = call.grounding or NO_GROUNDING
                asked = verdict_of("L6").grounding(names=held.names, not_names=held.not_names, forced=held.forced)
                asked = dataclasses.replace(asked, whole_list=held.whole_list)  # all of them asked about at once
                runnable.append(dataclasses.replace(call, grounding=asked))
                slots.append(None)
                continue
            slots.append(early)
            if early is None:
                runnable.append(call)
        return slots, runnable, capped

    def _precheck(
        self, call: ToolCall, outcome: DispatchedStep, offered: frozenset[str] | None, *, over_limit: bool
    ) -> ToolResult | None:
        """The result of a call the loop's limits do not let run (None: it runs), as the table decides."""
        spec = self.executable.get(call.name)
        key = (call.name, orjson.dumps(call.arguments or {}, option=orjson.OPT_SORT_KEYS))
        spent: BudgetExceeded | None = outcome.budget
        if spent is None:
            try:
                self.use.check_before_tool_call()
            except BudgetExceeded as exc:
                spent = exc
        facts = LoopFacts(
            traits=traits(call.name),
            malformed=call.error.code if call.error is not None else None,
            offered=spec is not None and (offered is None or call.name in offered),
            repeated=key in self.seen,
            over_step_limit=over_limit,
            budget_out=spent is not None,
            # A yes to the assistant's question about these very changes was the user's one decision.
            over_cap=spec is not None
            and traits(call.name).capped
            and self.destructive_calls >= self.max_destructive_calls
            and not (call.grounding is not None and call.grounding.confirmed),
        )
        verdict = decide(facts)
        if verdict.do is Do.RUN:
            self.seen.add(key)
            self.use.tool_calls += 1
            if spec is not None and traits(call.name).capped:
                self.destructive_calls += 1
            return None
        if verdict.code == ResultCode.REPEATED_CALL:
            outcome.repeated.append(call)
        if verdict.code == ResultCode.BUDGET_EXCEEDED:
            outcome.budget = spent
        malformed = call.error.code if call.error is not None else None
        return verdict.refusal(self._why(verdict, call, spent, offered), self._data(verdict, offered), code=malformed)

    def _why(
        self, verdict: Verdict, call: ToolCall, spent: BudgetExceeded | None, offered: frozenset[str] | None
    ) -> str:
        """What a refused call's result tells the model."""
        match verdict.code:
            case ResultCode.UNKNOWN_TOOL:
                valid = ", ".join(self._valid(offered)) or "none"
                return f"Tool '{call.name}' is not available now. Valid tools: {valid}."
            case ResultCode.REPEATED_CALL:
                return f"'{call.name}' was already called with these arguments in this turn; not run again."
            case ResultCode.IGNORED:
                return f"Ignored: at most {self.calls_per_step} tool calls run per step."
            case ResultCode.BUDGET_EXCEEDED:
                return str(spent)
            case ResultCode.DESTRUCTIVE_LIMIT:
                return _OVER_CAP.format(cap=self.max_destructive_calls)
        return call.error.message if call.error is not None else verdict.rule

    def _data(self, verdict: Verdict, offered: frozenset[str] | None) -> ValidTools | None:
        # A tool that exists but was not offered this step (e.g. a mutation in two_phase's read phase)
        # is refused exactly like an unknown one: what is sent is what may execute.
        return ValidTools(valid_tools=self._valid(offered)) if verdict.code == ResultCode.UNKNOWN_TOOL else None

    def _valid(self, offered: frozenset[str] | None) -> list[str]:
        return sorted(self.executable if offered is None else offered & self.executable.keys())

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


def _over_cap(refusal: ToolResult, looked_up: ToolResult) -> ToolResult:
    """A deletion over the cap, looked up: refused with the task it names (a failure to look it up stands)."""
    if looked_up.code != ResultCode.NEEDS_CONFIRMATION:
        return looked_up
    return dataclasses.replace(refusal, data=looked_up.data)
