"""AgentRunner: the tool loop. It knows nothing of tasks or the database.

Each step: check the budget, send one request (`request.py`: tools and tool_choice from the policy,
or from the retry the last step decided), decide the typed NextStep from the normalized answer
(`decide.py`: the guard's verdicts included) and act on it here: run tools, check words, ask again,
finish, stop. What the tools did, or what a check said, is a fact for the decider too: the runner
only acts, and records what each decision hands it (the guard's events and words, findings).
The loop always ends: a final answer, every asked-for action attempted (`composed`), or a recorded
stop reason. It never writes what the user reads: the service composes the reply from the run's results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, assert_never

from backend.app.agent.decide import Answered, Decision, SoFar, StepDecider, StepFacts, ToolsRan, WordsChecked
from backend.app.agent.dispatch import DispatchedStep, Dispatcher
from backend.app.agent.guard_protocol import StepGuard, Words
from backend.app.agent.limits import BudgetExceeded, BudgetUse
from backend.app.agent.loop_types import (
    ChatCompletionsClient,
    Finding,
    LLMResponse,
    LoopRetry,
    NextStep,
    NextStepAsk,
    NextStepCheck,
    NextStepFinalOutput,
    NextStepRetry,
    NextStepRunTools,
    NextStepStop,
    StepTrace,
    StopReason,
    Trace,
)
from backend.app.agent.messages import assistant_tool_message, tool_message
from backend.app.agent.policy import RESPOND_TOOL, PolicyDriver, ToolPolicy
from backend.app.agent.presets import Preset
from backend.app.agent.request import Requester
from backend.app.agent.run_io import CallsObserver, ReplyObserver, RunOptions, RunResult
from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import GuardEvent
from backend.app.calls.types import ExecutedCall, ToolCall, ToolExecutor
from backend.app.core.exceptions import LLMError


@dataclass(slots=True)
class _Turn:
    """State of one run; lives only for the duration of `AgentRunner.run`."""

    messages: list[dict[str, Any]]
    executed: list[ExecutedCall] = field(default_factory=list)
    trace: list[Trace] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    events: list[GuardEvent] = field(default_factory=list)  # the guard's decisions, as it handed them over
    words: Words | None = None  # the guard's verdict on the final words, once it gave one
    retry: NextStepRetry | None = None  # what the next request must do differently (one request only)
    retry_reason: str | None = None  # the guard's latest reason: calls after it are marked retried
    forced: bool = False  # the last request forced a tool on the model
    fixable_errors: int = 0
    empty_final_retried: bool = False
    offered: frozenset[str] = frozenset()
    on_calls: CallsObserver | None = None  # told of each step's calls as soon as they ran (streaming)
    on_reply: ReplyObserver | None = None  # hears the model's words as they come (streaming)
    hearing: bool = False  # the last answer's text went to `on_reply`

    @property
    def any_ran(self) -> bool:
        """True once a call reached the tools; calls refused by the checks changed nothing."""
        return any(e.ran for e in self.executed)


class AgentRunner:
    def __init__(self, *, client: ChatCompletionsClient, model: str, preset: Preset, options: RunOptions) -> None:
        self.client = client
        self.model = model
        self.preset = preset
        self.options = options

    async def run(
        self,
        *,
        messages: list[dict[str, Any]],
        executor: ToolExecutor,
        policy: ToolPolicy,
        expected_tools: Sequence[str] = (),
        use: BudgetUse,
        guard: StepGuard | None = None,
        stop_when_covered: bool = False,
        on_calls: CallsObserver | None = None,
        on_reply: ReplyObserver | None = None,
    ) -> RunResult:
        """Run the loop. With `stop_when_covered` (direct mode) it ends as soon as every action the
        guard expects has been attempted, without asking the model to write a reply. `on_calls`
        hears of each step's calls (run or refused) as soon as the step is done; `on_reply` the
        model's words as they are produced, and when they turn out not to be its final answer."""
        driver, dispatcher, requester = self._parts(executor, policy, expected_tools, use)
        decider = StepDecider(
            options=self.options, preset=self.preset, driver=driver, guard=guard, stop_when_covered=stop_when_covered
        )
        turn = _Turn(messages=list(messages), on_calls=on_calls, on_reply=on_reply)
        for step in range(self.options.max_steps):
            if (spent := self._spent(turn, decider, driver, use)) is not None:
                return spent
            try:
                response = await self._request(turn, requester, step=step)
            except LLMError as exc:
                if not turn.any_ran:
                    raise
                # A tool already changed something: its effect stands and is reported from results.
                return self._result(turn, driver, use, stop=NextStepStop(StopReason.LLM_ERROR), error=exc)
            next_step = self._decide(turn, decider, Answered(response), step=step)
            if turn.hearing and not isinstance(next_step, NextStepFinalOutput) and turn.on_reply is not None:
                turn.on_reply.void()  # the words heard were not the answer: tools follow, or a retry
            while True:  # act on the step's decisions until it asks the model again or the run ends
                match next_step:
                    case NextStepRunTools():
                        outcome = await self._run_tools(next_step, response, turn, driver, dispatcher, step=step)
                        next_step = self._decide(turn, decider, ToolsRan(next_step, outcome), step=step)
                    case NextStepCheck():
                        arguments, event = await requester.check(next_step, step=step)
                        turn.trace.append(event)
                        next_step = self._decide(turn, decider, WordsChecked(next_step, arguments), step=step)
                    case NextStepRetry():
                        if next_step.reason is LoopRetry.PHASE_SWITCH:
                            driver.switch_phase(step=step)
                        self._prepare_retry(next_step, response, turn)
                        break
                    case NextStepAsk():
                        break
                    case NextStepFinalOutput(text=text):
                        return self._result(turn, driver, use, stop=NextStepStop(StopReason.FINAL), text=text)
                    case NextStepStop():
                        return self._result(turn, driver, use, stop=next_step)
                    case _:
                        assert_never(next_step)
        return self._result(
            turn, driver, use, stop=NextStepStop(StopReason.MAX_STEPS, detail=str(self.options.max_steps))
        )

    def _spent(self, turn: _Turn, decider: StepDecider, driver: PolicyDriver, use: BudgetUse) -> RunResult | None:
        """The run's end when a budget ran out before the next request; None while there is budget."""
        try:
            use.check_before_request()
        except BudgetExceeded as exc:
            out = self._record(turn, decider.out_of_budget(exc))
            assert isinstance(out, NextStepStop)  # a budget that ran out stops the run
            return self._result(turn, driver, use, stop=out)
        return None

    def _parts(
        self, executor: ToolExecutor, policy: ToolPolicy, expected_tools: Sequence[str], use: BudgetUse
    ) -> tuple[PolicyDriver, Dispatcher, Requester]:
        """The run's policy driver (which tools each step offers), dispatcher (the loop's own limits
        before the executor) and requester (what a step sends the model)."""
        specs = list(executor.specs())
        if self.options.tool_use_mode == "disabled":
            policy, expected_tools = ToolPolicy.NONE, ()
        driver = PolicyDriver(policy=policy, specs=specs, expected_tools=expected_tools, preset=self.preset)
        dispatcher = Dispatcher(
            executor=executor,
            executable={s.name: s for s in specs},
            use=use,
            max_output_bytes=self.options.max_tool_output_bytes,
            max_destructive_calls=self.options.max_destructive_calls,
            calls_per_step=self._calls_per_step(),
        )
        requester = Requester(
            client=self.client, model=self.model, preset=self.preset, options=self.options, driver=driver, use=use
        )
        return driver, dispatcher, requester

    def _decide(self, turn: _Turn, decider: StepDecider, facts: StepFacts, *, step: int) -> NextStep:
        """One decision on the step's facts, whose events, words and findings go into the run's record."""
        so_far = SoFar(
            executed=turn.executed,
            events=turn.events,
            step=step,
            forced=turn.forced,
            empty_final_retried=turn.empty_final_retried,
            fixable_errors=turn.fixable_errors,
        )
        return self._record(turn, decider.decide(facts, so_far))

    def _record(self, turn: _Turn, decision: Decision) -> NextStep:
        turn.events.extend(decision.events)
        turn.findings.extend(decision.findings)
        if decision.words is not None:
            turn.words = decision.words
        if decision.respond:
            _amend(turn, respond=True)
        return decision.next

    # -- asking --------------------------------------------------------------------------------
    async def _request(self, turn: _Turn, requester: Requester, *, step: int) -> LLMResponse:
        retry, turn.retry = turn.retry, None  # a retry shapes exactly one request: never forced twice
        asked = await requester.ask(
            turn.messages, retry=retry, on_reply=turn.on_reply, executed=turn.executed, step=step
        )
        turn.offered, turn.forced, turn.hearing = asked.offered, asked.forced, asked.hearing
        turn.trace.append(asked.event)
        return asked.response

    def _prepare_retry(self, retry: NextStepRetry, response: LLMResponse, turn: _Turn) -> None:
        """Act on a retry: the messages that explain it, and the one request it shapes."""
        if retry.from_guard:
            turn.retry_reason = retry.reason
        if retry.reason is LoopRetry.EMPTY_FINAL:
            turn.empty_final_retried = True
        asked = _amend(turn, retry=retry.reason)
        if not asked.calls:  # after tool calls, their messages are already appended
            turn.messages.append({"role": "assistant", "content": response.content or ""})
        if retry.instruction:
            turn.messages.append({"role": "system", "content": retry.instruction})
        turn.retry = retry

    # -- running tools -----------------------------------------------------------------------
    async def _run_tools(
        self,
        step_calls: NextStepRunTools,
        response: LLMResponse,
        turn: _Turn,
        driver: PolicyDriver,
        dispatcher: Dispatcher,
        *,
        step: int,
    ) -> DispatchedStep:
        """Run the step's calls (the refused ones recorded, never run) and record what they did."""
        work = [c for c in step_calls.calls if c.name != RESPOND_TOOL.name]
        respond = [c for c in step_calls.calls if c.name == RESPOND_TOOL.name]
        retried = turn.retry_reason is not None
        outcome = await dispatcher.run_step(
            work,
            step=step,
            retried=retried,
            retry_reason=turn.retry_reason,
            offered=turn.offered,
            refused=step_calls.refused,
        )
        turn.executed.extend(outcome.executed)
        ignored = sum(1 for e in outcome.executed if e.result.code == ResultCode.IGNORED)
        if ignored:
            _amend(turn, ignored_tool_calls=ignored)
        if turn.on_calls is not None:
            await turn.on_calls(outcome.executed)
        driver.observe_tools(step=step, executed=outcome.executed)
        self._append_tool_messages(turn, response, outcome.executed, respond)
        errors = tuple(e.result.code for e in outcome.executed if not e.result.success)
        if errors:
            _amend(turn, errors=errors)
        turn.fixable_errors += sum(1 for e in outcome.executed if e.result.model_fixable)
        return outcome

    def _append_tool_messages(
        self, turn: _Turn, response: LLMResponse, executed: list[ExecutedCall], respond: list[ToolCall]
    ) -> None:
        turn.messages.append(
            assistant_tool_message(response.content, [e.call for e in executed] + respond, self.preset)
        )
        for e in executed:
            turn.messages.append(tool_message(e.call, e.result.to_payload(), self.preset))
        for call in respond:
            turn.messages.append(tool_message(call, {"success": True, "data": None, "error": None}, self.preset))

    def _calls_per_step(self) -> int | None:
        limit = self.options.max_tool_calls_per_step or self.preset.max_tool_calls_per_step
        overrides = {**self.preset.request_overrides, **self.options.request_overrides}
        if limit is None and overrides.get("parallel_tool_calls") is False:
            return 1  # stability-first: no parallel calls asked for means one call per step
        return limit

    # -- finishing ---------------------------------------------------------------------------
    def _result(
        self,
        turn: _Turn,
        driver: PolicyDriver,
        use: BudgetUse,
        *,
        stop: NextStepStop,
        text: str = "",
        error: LLMError | None = None,
    ) -> RunResult:
        ok = stop.reason in (StopReason.FINAL, StopReason.COMPOSED)
        if self.options.tool_use_mode == "enforced":
            ok = ok and turn.any_ran
            if self.options.tool_failure_policy == "tolerated":
                ok = ok and any(e.result.success for e in turn.executed)
        return RunResult(
            text=text,
            executed=turn.executed,
            stop_reason=stop.reason,
            ok=ok,
            use=use,
            trace=turn.trace,
            findings=turn.findings,
            policy_events=list(driver.events),
            stop_detail=stop.detail,
            error=error,
            guard_events=turn.events,
            words=turn.words,
        )


def _amend(turn: _Turn, **changes: Any) -> StepTrace:
    """What a step's decisions add to its trace event (the model's answer, not a check): the event
    is replaced, never changed in place."""
    at = max(i for i, e in enumerate(turn.trace) if isinstance(e, StepTrace))
    event = turn.trace[at]
    assert isinstance(event, StepTrace)
    turn.trace[at] = amended = replace(event, **changes)
    return amended


__all__ = ["AgentRunner"]
