"""The step decision: what the step's facts mean for the loop, as the typed `NextStep` the runner acts on.

One decider, `StepDecider.decide`, over one of three facts: the model's answer (run these calls, some
refused by the guard or over the per-step limit, maybe a retry after them; ask again for the guard,
the empty-final fix or the policy's phase switch; check the words first; finish or stop), what the
step's calls did (stop on a repeat, a budget, too many fixable errors or a fatal failure; the retry
decided with the calls or the guard's after the results; the words of `respond`; done in direct mode;
else ask again), or what a check of the words said. Apart from the runner because a decision is a
value, not an action: nothing here sends a request, runs a tool or touches the run's messages, and
the guard's events and verdict on the words come back in the `Decision` for the runner to record.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from backend.app.agent.dispatch import DispatchedStep
from backend.app.agent.guard_protocol import ACCEPT_CALLS, Accept, CheckWords, ForceRetry, GiveUp, StepGuard, Words
from backend.app.agent.limits import BudgetExceeded
from backend.app.agent.loop_types import (
    BudgetSpent,
    CallRepeated,
    Finding,
    FindingKind,
    LLMResponse,
    LoopRetry,
    NextStep,
    NextStepAsk,
    NextStepCheck,
    NextStepFinalOutput,
    NextStepRetry,
    NextStepRunTools,
    NextStepStop,
    StopReason,
)
from backend.app.agent.policy import RESPOND_TOOL, PolicyDriver
from backend.app.agent.presets import Preset
from backend.app.agent.run_io import RunOptions
from backend.app.calls.decisions import GuardEvent
from backend.app.calls.types import ExecutedCall

# The loop's log lines keep the runner's logger name, whichever of its modules writes them: logs are read by it.
log = logging.getLogger("backend.app.agent.runner")


@dataclass(frozen=True, slots=True)
class Answered:
    """The model's answer to the step's request."""

    response: LLMResponse


@dataclass(frozen=True, slots=True)
class ToolsRan:
    """What the step's calls (`run`, as decided) did: `outcome` from the dispatcher."""

    run: NextStepRunTools
    outcome: DispatchedStep


@dataclass(frozen=True, slots=True)
class WordsChecked:
    """The answer to a check of the words: the checking call's arguments, None if there was none."""

    check: NextStepCheck
    arguments: dict[str, Any] | None


StepFacts = Answered | ToolsRan | WordsChecked


@dataclass(frozen=True, slots=True)
class SoFar:
    """The run before this decision, as the runner recorded it: the calls (this step's included), the
    guard's events, this step's number, whether its request forced a tool, whether the empty-final fix
    was used, and how many fixable errors the calls made."""

    executed: Sequence[ExecutedCall]
    events: Sequence[GuardEvent]
    step: int
    forced: bool = False
    empty_final_retried: bool = False
    fixable_errors: int = 0


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do next, and what deciding it found, for the run's record: the guard's events, its
    verdict on the final words, findings, and whether the words came through `respond`."""

    next: NextStep
    events: tuple[GuardEvent, ...] = ()
    words: Words | None = None
    findings: tuple[Finding, ...] = ()
    respond: bool = False


@dataclass(frozen=True, slots=True)
class StepDecider:
    """Decides the steps of one run: its options and preset, its policy driver and its guard (if any).
    With `stop_when_covered` (direct mode) a step whose calls attempted every action asked for ends it."""

    options: RunOptions
    preset: Preset
    driver: PolicyDriver
    guard: StepGuard | None
    stop_when_covered: bool = False

    def decide(self, facts: StepFacts, so_far: SoFar) -> Decision:
        match facts:
            case Answered(response=response):
                return self._answered(response, so_far)
            case ToolsRan():
                return self._ran(facts, so_far)
            case WordsChecked(check=check, arguments=arguments):
                return self._checked(check, arguments, so_far)
            case _:
                assert_never(facts)

    def out_of_budget(self, exc: BudgetExceeded) -> Decision:
        """A budget ran out (before a request, or in the step's calls): the run stops, with a finding."""
        finding = Finding(FindingKind.BUDGET_EXCEEDED, BudgetSpent(budget=exc.kind, used=exc.used, limit=exc.limit))
        return Decision(NextStepStop(StopReason.BUDGET_EXCEEDED, detail=exc.kind), findings=(finding,))

    # -- the model's answer ------------------------------------------------------------------------
    def _answered(self, response: LLMResponse, so_far: SoFar) -> Decision:
        calls, step, executed = response.tool_calls, so_far.step, so_far.executed
        if calls:
            work = [c for c in calls if c.name != RESPOND_TOOL.name]
            verdict = (
                self.guard.review_calls(work, executed, step=step, forced=so_far.forced, decided=so_far.events)
                if self.guard
                else ACCEPT_CALLS
            )
            if verdict.grounding:
                work = [
                    dataclasses.replace(c, grounding=verdict.grounding[i]) if i in verdict.grounding else c
                    for i, c in enumerate(work)
                ]
            respond = [c for c in calls if c.name == RESPOND_TOOL.name]
            return Decision(NextStepRunTools(calls=work + respond, refused=dict(verdict.refused)), verdict.events)
        text = response.content.strip()
        if not text and executed and self.options.fix_empty_final and not so_far.empty_final_retried:
            return Decision(
                NextStepRetry(
                    reason=LoopRetry.EMPTY_FINAL,
                    instruction="Reply to the user now, in one or two sentences.",
                    tool_choice=None,
                    send_tools=False,  # a reply, not more calls
                )
            )
        if self.driver.wants_phase_switch():  # the runner switches it, acting on the retry
            return Decision(NextStepRetry(reason=LoopRetry.PHASE_SWITCH, instruction=None, tool_choice=None))
        return self._final(text, so_far)

    def _final(self, text: str, so_far: SoFar) -> Decision:
        """The model's words as its answer (a reply without calls, or `respond`): the guard's word on them."""
        verdict = (
            self.guard.review_final(text, so_far.executed, step=so_far.step, decided=so_far.events)
            if self.guard is not None
            else Accept()
        )
        match verdict:
            case ForceRetry():
                return Decision(self._retry(verdict, step=so_far.step), verdict.events)
            case GiveUp():
                return Decision(NextStepStop(StopReason.TOOL_NOT_TRIGGERED), verdict.events, verdict.words)
            case CheckWords(tool=tool, messages=messages, claimed=claimed):
                check = NextStepCheck(text=text, tool=tool, messages=messages, claimed=claimed)
                return Decision(check, verdict.events)
            case Accept():
                pass
        if self.options.tool_use_mode == "enforced" and not any(e.ran for e in so_far.executed):
            # calls refused by the checks changed nothing
            return Decision(NextStepStop(StopReason.NO_TOOL_CALLS), verdict.events, verdict.words)
        return Decision(NextStepFinalOutput(text=text), verdict.events, verdict.words)

    def _checked(self, check: NextStepCheck, arguments: dict[str, Any] | None, so_far: SoFar) -> Decision:
        """The guard's word on checked words, from the check's answer (None: no answer it could read)."""
        assert self.guard is not None  # only a guard asks for a check
        verdict = self.guard.review_checked(
            check.text, arguments, so_far.executed, step=so_far.step, claimed=check.claimed, decided=so_far.events
        )
        match verdict:
            case ForceRetry():
                return Decision(self._retry(verdict, step=so_far.step), verdict.events)
            case Accept():
                return Decision(NextStepFinalOutput(text=check.text), verdict.events, verdict.words)

    # -- what the step's calls did -----------------------------------------------------------------
    def _ran(self, facts: ToolsRan, so_far: SoFar) -> Decision:
        outcome, step = facts.outcome, so_far.step
        if outcome.repeated:
            repeated = outcome.repeated[0]
            detail = CallRepeated(tool=repeated.name, arguments=repeated.arguments, step=step)
            return Decision(
                NextStepStop(StopReason.REPEATED_CALL), findings=(Finding(FindingKind.REPEATED_CALL, detail),)
            )
        if outcome.budget is not None:
            return self.out_of_budget(outcome.budget)
        if so_far.fixable_errors > self.options.max_model_fix_retries:
            return Decision(NextStepStop(StopReason.MODEL_FIX_RETRIES_EXHAUSTED))
        if self.options.tool_failure_policy == "fatal" and any(
            e.ran and not e.result.success and not e.result.model_fixable for e in outcome.executed
        ):
            return Decision(NextStepStop(StopReason.TOOL_ERROR))
        if self.guard is not None:
            after = self.guard.review_results(so_far.executed, step=step, decided=so_far.events)
            if after is not None:
                return Decision(self._retry(after, step=step), after.events)
        respond = [c for c in facts.run.calls if c.name == RESPOND_TOOL.name]
        if respond:
            args = respond[0].arguments or {}
            said = args["message"] if isinstance(args.get("message"), str) else ""
            return dataclasses.replace(self._final(said, so_far), respond=True)
        if self.stop_when_covered and self._covered(so_far.executed, step=step):
            return Decision(NextStepStop(StopReason.COMPOSED))
        return Decision(NextStepAsk())

    def _covered(self, executed: Sequence[ExecutedCall], *, step: int) -> bool:
        if any(e.result.model_fixable for e in executed if e.step == step):
            return False  # the model gets its chance to fix the call first
        return self.guard.covered(executed) if self.guard is not None else any(e.ran for e in executed)

    # -- helpers -----------------------------------------------------------------------------------
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


__all__ = ["Answered", "Decision", "SoFar", "StepDecider", "StepFacts", "ToolsRan", "WordsChecked"]
