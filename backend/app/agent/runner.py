"""AgentRunner: the tool loop. It knows nothing of tasks or the database.

Each step: check the budget, plan tools and tool_choice from the policy (or from the retry the
last step decided), send one request, normalize the answer, decide the typed NextStep (the guard's
verdicts included) and act on it: run tools, ask again, finish, stop. The loop always ends: a final
answer, every asked-for action attempted (`composed`), or a recorded stop reason. It never writes
what the user reads: the service composes the reply from the run's results.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from backend.app.agent.dispatch import Dispatcher
from backend.app.agent.guard import ACCEPT_CALLS, Accept, CheckWords, ForceRetry, GiveUp, StepGuard
from backend.app.agent.limits import BudgetExceeded, BudgetUse
from backend.app.agent.messages import assistant_tool_message, tool_message
from backend.app.agent.normalize import normalize_response
from backend.app.agent.policy import RESPOND_TOOL, PolicyDriver, ToolPolicy
from backend.app.agent.presets import Preset, merge_request_overrides
from backend.app.agent.run import CallsObserver, ReplyObserver, RunOptions, RunResult
from backend.app.agent.types import (
    Attempt,
    ChatCompletionsClient,
    Finding,
    FindingKind,
    Heard,
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
from backend.app.calls.types import ExecutedCall, ToolCall, ToolExecutor, ToolResult
from backend.app.core.exceptions import LLMError, ToolBindingError

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Turn:
    """State of one run; lives only for the duration of `AgentRunner.run`."""

    messages: list[dict[str, Any]]
    executed: list[ExecutedCall] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
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
        )
        turn = _Turn(messages=list(messages), on_calls=on_calls, on_reply=on_reply)
        stop = NextStepStop(StopReason.MAX_STEPS, detail=str(self.options.max_steps))
        for step in range(self.options.max_steps):
            try:
                use.check_before_request()
            except BudgetExceeded as exc:
                stop = self._budget_stop(turn, exc)
                break
            try:
                response = await self._request(turn, driver, step=step, use=use)
            except LLMError as exc:
                if not turn.any_ran:
                    raise
                # A tool already changed something: its effect stands and is reported from results.
                return self._result(turn, driver, use, stop=NextStepStop(StopReason.LLM_ERROR), error=exc)
            next_step = self._decide(response, turn, driver, guard, step=step)
            if turn.hearing and not isinstance(next_step, NextStepFinalOutput) and turn.on_reply is not None:
                turn.on_reply.void()  # the words heard were not the answer: tools follow, or a retry
            if isinstance(next_step, NextStepRunTools):
                after = await self._run_tools(next_step, response, turn, driver, dispatcher, guard, step=step)
                if after is None:
                    if stop_when_covered and self._covered(guard, turn, step):
                        return self._result(turn, driver, use, stop=NextStepStop(StopReason.COMPOSED))
                    continue
                next_step = after
            if isinstance(next_step, NextStepCheck):
                assert guard is not None  # only a guard asks for a check
                next_step = await self._check(next_step, turn, driver, guard, use, step=step)
            match next_step:
                case NextStepRetry():
                    self._prepare_retry(next_step, response, turn)
                case NextStepFinalOutput(text=text):
                    return self._result(turn, driver, use, stop=NextStepStop(StopReason.FINAL), text=text)
                case NextStepStop():
                    stop = next_step
                    break
                case NextStepRunTools() | NextStepCheck():
                    raise AssertionError("tools are run and words checked above")  # pragma: no cover
                case _:
                    assert_never(next_step)
        return self._result(turn, driver, use, stop=stop)

    # -- one request -------------------------------------------------------------------------
    async def _request(self, turn: _Turn, driver: PolicyDriver, *, step: int, use: BudgetUse) -> LLMResponse:
        retry, turn.retry = turn.retry, None  # a retry shapes exactly one request: never forced twice
        plan = driver.plan(step=step, forcing=retry is not None and retry.tool_choice is not None)
        send_tools = retry is None or retry.send_tools
        tools = list(plan.tools) if send_tools else []
        if retry is not None and retry.offer_respond and tools and RESPOND_TOOL not in tools:
            tools.append(RESPOND_TOOL)
        choice = retry.tool_choice if retry is not None and retry.tool_choice is not None else plan.tool_choice
        turn.offered = frozenset(t.name for t in tools)
        body: dict[str, Any] = {"model": self.model, "messages": turn.messages}
        if send_tools and driver.sends_tools:
            if not tools:
                raise ToolBindingError("Refusing to call the model: the policy needs tools but none are bound")
            body["tools"] = [t.to_openai(self.preset.tool_schema(t.parameters)) for t in tools]
            body["tool_choice"] = choice
        turn.forced = isinstance(body.get("tool_choice"), dict) or body.get("tool_choice") in ("required", "any")
        if self.options.max_tokens:
            body["max_tokens"] = self.options.max_tokens
        ignored_keys = merge_request_overrides(
            body, {**self.preset.request_overrides, **self.options.request_overrides}
        )
        log.info(
            "llm_request",
            extra={
                "step": step,
                "tools": len(body.get("tools", [])),
                "tool_choice": _choice_label(body.get("tool_choice")),
                "client": self.client.label,
            },
        )
        started = time.perf_counter()
        sink = turn.on_reply.step(turn.executed) if turn.on_reply is not None else None
        heard = Heard(sink)
        attempts: list[Attempt] = []
        raw = await self.client.create(
            body, deadline=use.deadline, on_text=heard if sink is not None else None, attempts=attempts
        )
        latency = round((time.perf_counter() - started) * 1000, 2)
        response = normalize_response(
            raw,
            step=step,
            max_args_bytes=self.options.max_tool_args_bytes,
            content_tag_fallback=self.preset.content_tag_fallback,
        )
        if sink is not None and not heard.pieces and not response.tool_calls:
            heard(response.content)  # an answer that came whole is heard whole
        turn.hearing = heard.pieces > 0
        use.record_request(response.usage)
        event: dict[str, Any] = {
            "step": step,
            "request": {
                "tools": [t.name for t in tools],
                "tool_choice": _choice_label(body.get("tool_choice")),
                "messages": len(turn.messages),
            },
            "latency_ms": latency,
            "usage": {"prompt": response.usage.prompt_tokens, "completion": response.usage.completion_tokens},
            "finish_reason": response.finish_reason,
            "calls": [c.name for c in response.tool_calls],
        }
        if plan.phase:
            event["request"]["phase"] = plan.phase
        if attempts:  # several models: which one answered, and what failed before it
            event["model"] = attempts[-1].model
            if failed := [{"model": a.model, "code": a.code, "detail": a.detail} for a in attempts[:-1]]:
                event["fallbacks"] = failed
        if ignored_keys:
            event["ignored_override_keys"] = ignored_keys
        if response.normalizations:
            event["normalizations"] = response.normalizations
        turn.trace.append(event)
        return response

    # -- deciding ----------------------------------------------------------------------------
    def _decide(
        self, response: LLMResponse, turn: _Turn, driver: PolicyDriver, guard: StepGuard | None, *, step: int
    ) -> NextStep:
        calls = response.tool_calls
        if calls:
            work = [c for c in calls if c.name != RESPOND_TOOL.name]
            verdict = guard.review_calls(work, turn.executed, step=step, forced=turn.forced) if guard else ACCEPT_CALLS
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
            retry = self._retry(verdict.retry, driver, step=step) if verdict.retry else None
            return NextStepRunTools(calls=work + respond, refused=refused, then=retry)
        text = response.content.strip()
        if not text and turn.executed and self.options.fix_empty_final and not turn.empty_final_retried:
            return NextStepRetry(
                reason=LoopRetry.EMPTY_FINAL,
                instruction="Reply to the user now, in one or two sentences.",
                tool_choice=None,
                send_tools=False,  # a reply, not more calls
            )
        if driver.observe_final(step=step):
            return NextStepRetry(reason=LoopRetry.PHASE_SWITCH, instruction=None, tool_choice=None)
        return self._final(text, turn, driver, guard, step=step)

    def _final(self, text: str, turn: _Turn, driver: PolicyDriver, guard: StepGuard | None, *, step: int) -> NextStep:
        """The model's words as its answer (a reply without calls, or `respond`): the guard's word on them."""
        if guard is not None:
            match guard.review_final(text, turn.executed, step=step):
                case ForceRetry() as force:
                    return self._retry(force, driver, step=step)
                case GiveUp():
                    return NextStepStop(StopReason.TOOL_NOT_TRIGGERED)
                case CheckWords(tool=tool, messages=messages):
                    return NextStepCheck(text=text, tool=tool, messages=messages)
                case Accept():
                    pass
        if self.options.tool_use_mode == "enforced" and not turn.any_ran:
            return NextStepStop(StopReason.NO_TOOL_CALLS)
        return NextStepFinalOutput(text=text)

    async def _check(
        self, check: NextStepCheck, turn: _Turn, driver: PolicyDriver, guard: StepGuard, use: BudgetUse, *, step: int
    ) -> NextStep:
        """One request that asks what the words claim (its tool forced); the guard reads the answer.
        A check that cannot be made or read hands the guard nothing: it verifies nothing."""
        arguments: dict[str, Any] | None = None
        event: dict[str, Any] = {"step": step, "check": check.tool.name}
        try:
            use.check_before_request()
            body: dict[str, Any] = {
                "model": self.model,
                "messages": check.messages,
                "tools": [check.tool.to_openai(self.preset.tool_schema(check.tool.parameters))],
                "tool_choice": self.preset.forced_choice(check.tool.name),
            }
            merge_request_overrides(body, {**self.preset.request_overrides, **self.options.request_overrides})
            body["max_tokens"] = min(self.options.max_tokens or 300, 300)
            started = time.perf_counter()
            raw = await self.client.create(body, deadline=use.deadline)
            response = normalize_response(raw, step=step, max_args_bytes=self.options.max_tool_args_bytes)
            use.record_request(response.usage)
            event["latency_ms"] = round((time.perf_counter() - started) * 1000, 2)
            event["usage"] = {"prompt": response.usage.prompt_tokens, "completion": response.usage.completion_tokens}
            call = next((c for c in response.tool_calls if c.name == check.tool.name and c.error is None), None)
            arguments = call.arguments if call is not None else None
        except BudgetExceeded as exc:
            event["error"] = f"budget {exc.kind}"
        except LLMError as exc:
            event["error"] = exc.code
        event["answered"] = arguments is not None
        turn.trace.append(event)
        match guard.review_checked(check.text, arguments, turn.executed, step=step):
            case ForceRetry() as force:
                return self._retry(force, driver, step=step)
            case Accept():
                return NextStepFinalOutput(text=check.text)

    def _retry(self, force: ForceRetry, driver: PolicyDriver, *, step: int) -> NextStepRetry:
        log.warning("execution_guard_retry", extra={"step": step, "tool": force.tool, "reason": force.reason})
        if force.answer_only:
            return NextStepRetry(reason=force.reason, instruction=force.instruction, tool_choice=None, send_tools=False)
        choice = driver.forced_choice(force.tool) if force.tool else self.preset.required_choice
        return NextStepRetry(
            reason=force.reason,
            instruction=force.instruction,
            tool_choice=choice,
            offer_respond=force.offer_respond,
        )

    def _prepare_retry(self, retry: NextStepRetry, response: LLMResponse, turn: _Turn) -> None:
        """Act on a retry: the messages that explain it, and the one request it shapes."""
        if retry.from_guard:
            turn.retry_reason = retry.reason
        if retry.reason is LoopRetry.EMPTY_FINAL:
            turn.empty_final_retried = True
        asked = next(e for e in reversed(turn.trace) if "check" not in e)  # the model's answer, not a check
        if not asked.get("calls"):  # after tool calls, their messages are already appended
            turn.messages.append({"role": "assistant", "content": response.content or ""})
        if retry.instruction:
            turn.messages.append({"role": "system", "content": retry.instruction})
        asked["retry"] = retry.reason
        turn.retry = retry

    # -- running tools -----------------------------------------------------------------------
    async def _run_tools(
        self,
        step_calls: NextStepRunTools,
        response: LLMResponse,
        turn: _Turn,
        driver: PolicyDriver,
        dispatcher: Dispatcher,
        guard: StepGuard | None,
        *,
        step: int,
    ) -> NextStep | None:
        work = [c for c in step_calls.calls if c.name != RESPOND_TOOL.name]
        respond = [c for c in step_calls.calls if c.name == RESPOND_TOOL.name]
        if step_calls.then is not None and step_calls.then.from_guard:
            turn.retry_reason = step_calls.then.reason  # the guard refused this step's wrong calls: retried
        ignored = sum(1 for r in step_calls.refused.values() if r.code == ResultCode.IGNORED)
        if ignored:
            turn.trace[-1]["ignored_tool_calls"] = ignored
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
        if turn.on_calls is not None:
            await turn.on_calls(outcome.executed)
        driver.observe_tools(step=step, executed=outcome.executed)
        self._append_tool_messages(turn, response, outcome.executed, respond)
        errors = [e.result.code for e in outcome.executed if not e.result.success]
        if errors:
            turn.trace[-1]["errors"] = errors
        turn.fixable_errors += sum(1 for e in outcome.executed if e.result.model_fixable)
        if outcome.repeated:
            repeated = outcome.repeated[0]
            turn.findings.append(
                Finding(
                    FindingKind.REPEATED_CALL, {"tool": repeated.name, "arguments": repeated.arguments, "step": step}
                )
            )
            return NextStepStop(StopReason.REPEATED_CALL)
        if outcome.budget is not None:
            return self._budget_stop(turn, outcome.budget)
        if turn.fixable_errors > self.options.max_model_fix_retries:
            return NextStepStop(StopReason.MODEL_FIX_RETRIES_EXHAUSTED)
        if self.options.tool_failure_policy == "fatal" and any(
            e.ran and not e.result.success and not e.result.model_fixable for e in outcome.executed
        ):
            return NextStepStop(StopReason.TOOL_ERROR)
        if step_calls.then is not None:
            return step_calls.then
        if guard is not None and (after := guard.review_results(turn.executed, step=step)) is not None:
            return self._retry(after, driver, step=step)
        if respond:
            args = respond[0].arguments or {}
            turn.trace[-1]["respond"] = True
            return self._final(
                args["message"] if isinstance(args.get("message"), str) else "", turn, driver, guard, step=step
            )
        return None

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
    def _covered(self, guard: StepGuard | None, turn: _Turn, step: int) -> bool:
        if any(e.result.model_fixable for e in turn.executed if e.step == step):
            return False  # the model gets its chance to fix the call first
        return guard.covered(turn.executed) if guard is not None else turn.any_ran

    def _budget_stop(self, turn: _Turn, exc: BudgetExceeded) -> NextStepStop:
        turn.findings.append(
            Finding(FindingKind.BUDGET_EXCEEDED, {"budget": exc.kind, "used": exc.used, "limit": exc.limit})
        )
        return NextStepStop(StopReason.BUDGET_EXCEEDED, detail=exc.kind)

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
            policy_events=driver.events,
            stop_detail=stop.detail,
            error=error,
        )


def _choice_label(choice: Any) -> str | None:
    if isinstance(choice, dict):
        return f"function:{choice.get('function', {}).get('name')}"
    return choice if isinstance(choice, str) else None


__all__ = ["AgentRunner"]
