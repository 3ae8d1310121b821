"""The step decision: what the model's answer means for the loop, as the typed `NextStep` the runner acts on.

Run these calls (some refused by the guard or over the per-step limit, maybe a retry after them), ask
again (the guard's retry, the empty-final fix, the policy's phase switch), check the words first,
finish or stop. Apart from the runner because a decision is a value, not an action: nothing here sends
a request, runs a tool or touches the run's messages; the runner does, from the value returned.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.app.agent.guard import ACCEPT_CALLS, Accept, CheckWords, ForceRetry, GiveUp, StepGuard
from backend.app.agent.policy import RESPOND_TOOL, PolicyDriver
from backend.app.agent.presets import Preset
from backend.app.agent.run_io import RunOptions
from backend.app.agent.types import (
    LLMResponse,
    LoopRetry,
    NextStep,
    NextStepCheck,
    NextStepFinalOutput,
    NextStepRetry,
    NextStepRunTools,
    NextStepStop,
    StopReason,
)
from backend.app.calls.codes import ResultCode
from backend.app.calls.types import ExecutedCall, ToolResult

# The loop's log lines keep the runner's logger name, whichever of its modules writes them: logs are read by it.
log = logging.getLogger("backend.app.agent.runner")


@dataclass(frozen=True, slots=True)
class StepDecider:
    """Decides the steps of one run: its options and preset, its policy driver and its guard (if any)."""

    options: RunOptions
    preset: Preset
    driver: PolicyDriver
    guard: StepGuard | None

    def decide(
        self,
        response: LLMResponse,
        executed: Sequence[ExecutedCall],
        *,
        forced: bool,
        empty_final_retried: bool,
        step: int,
    ) -> NextStep:
        """The answer to a step's request; `forced` when that request forced a tool on the model."""
        calls = response.tool_calls
        if calls:
            work = [c for c in calls if c.name != RESPOND_TOOL.name]
            verdict = self.guard.review_calls(work, executed, step=step, forced=forced) if self.guard else ACCEPT_CALLS
            if verdict.grounding:
                work = [
                    dataclasses.replace(c, grounding=verdict.grounding[i]) if i in verdict.grounding else c
                    for i, c in enumerate(work)
                ]
            refused = dict(verdict.refused)
            limit = self._calls_per_step()
            if limit is not None:
                allowed = [i for i in range(len(work)) if i not in refused][:limit]
                for i in range(len(work)):
                    if i not in refused and i not in allowed:
                        refused[i] = ToolResult(
                            success=False,
                            code=ResultCode.IGNORED,
                            error=f"Ignored: at most {limit} tool calls run per step.",
                        )
            respond = [c for c in calls if c.name == RESPOND_TOOL.name]
            retry = self._retry(verdict.retry, step=step) if verdict.retry else None
            return NextStepRunTools(calls=work + respond, refused=refused, then=retry)
        text = response.content.strip()
        if not text and executed and self.options.fix_empty_final and not empty_final_retried:
            return NextStepRetry(
                reason=LoopRetry.EMPTY_FINAL,
                instruction="Reply to the user now, in one or two sentences.",
                tool_choice=None,
                send_tools=False,  # a reply, not more calls
            )
        if self.driver.observe_final(step=step):
            return NextStepRetry(reason=LoopRetry.PHASE_SWITCH, instruction=None, tool_choice=None)
        return self.final(text, executed, step=step)

    def final(self, text: str, executed: Sequence[ExecutedCall], *, step: int) -> NextStep:
        """The model's words as its answer (a reply without calls, or `respond`): the guard's word on them."""
        if self.guard is not None:
            match self.guard.review_final(text, executed, step=step):
                case ForceRetry() as force:
                    return self._retry(force, step=step)
                case GiveUp():
                    return NextStepStop(StopReason.TOOL_NOT_TRIGGERED)
                case CheckWords(tool=tool, messages=messages):
                    return NextStepCheck(text=text, tool=tool, messages=messages)
                case Accept():
                    pass
        if self.options.tool_use_mode == "enforced" and not any(e.ran for e in executed):
            return NextStepStop(StopReason.NO_TOOL_CALLS)  # calls refused by the checks changed nothing
        return NextStepFinalOutput(text=text)

    def checked(
        self, check: NextStepCheck, arguments: dict[str, Any] | None, executed: Sequence[ExecutedCall], *, step: int
    ) -> NextStep:
        """The guard's word on checked words, from the check's answer (None: no answer it could read)."""
        assert self.guard is not None  # only a guard asks for a check
        match self.guard.review_checked(check.text, arguments, executed, step=step):
            case ForceRetry() as force:
                return self._retry(force, step=step)
            case Accept():
                return NextStepFinalOutput(text=check.text)

    def after_results(self, executed: Sequence[ExecutedCall], *, step: int) -> NextStepRetry | None:
        """Once a step's calls ran: the guard's one more request to make first, if any."""
        if self.guard is not None and (after := self.guard.review_results(executed, step=step)) is not None:
            return self._retry(after, step=step)
        return None

    def _retry(self, force: ForceRetry, *, step: int) -> NextStepRetry:
        log.warning("execution_guard_retry", extra={"step": step, "tool": force.tool, "reason": force.reason})
        if force.answer_only:
            return NextStepRetry(reason=force.reason, instruction=force.instruction, tool_choice=None, send_tools=False)
        choice = self.driver.forced_choice(force.tool) if force.tool else self.preset.required_choice
        return NextStepRetry(
            reason=force.reason,
            instruction=force.instruction,
            tool_choice=choice,
            offer_respond=force.offer_respond,
        )

    def _calls_per_step(self) -> int | None:
        limit = self.options.max_tool_calls_per_step or self.preset.max_tool_calls_per_step
        overrides = {**self.preset.request_overrides, **self.options.request_overrides}
        if limit is None and overrides.get("parallel_tool_calls") is False:
            return 1  # stability-first: no parallel calls asked for means one call per step
        return limit


__all__ = ["StepDecider"]
