"""AgentRunner: the tool loop. It knows nothing of tasks or the database.

Each step: check the budget, plan tools and tool_choice from the policy, send one request,
normalize the answer into a typed NextStep, and act on it (run tools, retry, finish, stop).
The loop always ends: final answer, composed reply, or a recorded stop reason.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

from backend.app.agent.dispatch import Dispatcher
from backend.app.agent.guard import Accept, ForceRetry, GiveUp, ReplyComposer, StepGuard
from backend.app.agent.limits import BudgetExceeded, BudgetUse
from backend.app.agent.messages import assistant_tool_message, tool_message
from backend.app.agent.normalize import normalize_response
from backend.app.agent.policy import RESPOND_TOOL, PolicyDriver, ToolPolicy
from backend.app.agent.presets import Preset, merge_request_overrides
from backend.app.agent.types import (
    ChatCompletionsClient,
    ExecutedCall,
    LLMResponse,
    NextStep,
    NextStepFinalOutput,
    NextStepRetry,
    NextStepRunTools,
    NextStepStop,
    ToolCall,
    ToolExecutor,
    ToolSpec,
)
from backend.app.core.exceptions import AppError, LLMError

log = logging.getLogger(__name__)

TOOL_NOT_TRIGGERED = "Technical error: Tool not triggered."


class ToolBindingError(AppError):
    code = "TOOL_BINDING_ERROR"


@dataclass(frozen=True, slots=True)
class RunOptions:
    max_steps: int = 6
    tool_use_mode: Literal["enforced", "relaxed", "disabled"] = "relaxed"
    tool_failure_policy: Literal["fatal", "tolerated"] = "tolerated"
    max_tool_calls_per_step: int | None = None
    max_tool_args_bytes: int = 200_000
    max_tool_output_bytes: int = 200_000
    max_model_fix_retries: int = 2
    max_destructive_calls: int = 5
    fix_empty_final: bool = True
    fix_empty_final_disable_tools: bool = True
    max_tokens: int | None = 1024
    request_overrides: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Finding:
    kind: Literal["PlanDeviation", "RepeatedCall", "BudgetExceeded", "UnbackedClaim"]
    detail: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.detail}


@dataclass(slots=True)
class RunResult:
    text: str
    executed: list[ExecutedCall]
    stop_reason: str
    ok: bool
    use: BudgetUse
    trace: list[dict[str, Any]]
    findings: list[Finding]
    policy_events: list[dict[str, object]]
    guard_outcome: str
    ignored_tool_calls: int
    error: LLMError | None = None
    error_code: str | None = None


@dataclass(slots=True)
class _Turn:
    """Mutable state of one run; lives only for the duration of `AgentRunner.run`."""

    messages: list[dict[str, Any]]
    executed: list[ExecutedCall] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    forced_tool: str | None = None
    forced_any: bool = False
    retry_reason: str | None = None
    guard_outcome: str = "not_needed"
    ignored: int = 0
    fixable_errors: int = 0
    empty_final_retried: bool = False
    send_tools: bool = True
    offered: frozenset[str] = frozenset()

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
        expected_tools: Sequence[str],
        use: BudgetUse,
        guard: StepGuard | None = None,
        composer: ReplyComposer | None = None,
        compose_when_covered: bool = False,
    ) -> RunResult:
        specs = list(executor.specs())
        driver = PolicyDriver(policy=policy, specs=specs, expected_tools=expected_tools, preset=self.preset)
        if self.options.tool_use_mode == "disabled":
            driver = PolicyDriver(policy=ToolPolicy.NONE, specs=specs, expected_tools=(), preset=self.preset)
        dispatcher = Dispatcher(
            executor=executor,
            executable={s.name: s for s in specs},
            use=use,
            max_output_bytes=self.options.max_tool_output_bytes,
            max_destructive_calls=self.options.max_destructive_calls,
        )
        turn = _Turn(messages=list(messages))
        stop: NextStepStop | None = None
        text = ""
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
                return self._result(
                    turn,
                    driver,
                    use,
                    text=self._compose(composer, turn),
                    stop_reason="llm_error",
                    ok=False,
                    error=exc,
                    error_code=exc.code,
                )
            next_step = self._decide(response, turn, driver, guard, step=step)
            match next_step:
                case NextStepRunTools(calls=calls):
                    after = await self._run_tools(calls, response, turn, driver, dispatcher, step=step)
                    if isinstance(after, NextStepFinalOutput):
                        return self._finish(turn, driver, use, composer, text=after.text)
                    if after is not None:
                        stop = after
                        break
                    if (
                        compose_when_covered
                        and composer is not None
                        and self._covered(guard, turn)
                        and not any(e.result.model_fixable for e in turn.executed if e.step == step)
                    ):
                        return self._result(
                            turn, driver, use, text=composer.compose(turn.executed), stop_reason="composed", ok=True
                        )
                case NextStepRetry(reason=reason, instruction=instruction, send_tools=send_tools):
                    turn.messages.append({"role": "assistant", "content": response.content or ""})
                    if instruction:
                        turn.messages.append({"role": "system", "content": instruction})
                    turn.trace[-1]["retry"] = reason
                    turn.send_tools = send_tools  # the empty-final retry goes without tools (no re-calls)
                case NextStepFinalOutput(text=final_text):
                    text = final_text
                    return self._finish(turn, driver, use, composer, text=text)
                case NextStepStop():
                    stop = next_step
                    break
                case _:
                    assert_never(next_step)
        else:
            stop = NextStepStop(
                reason="max_steps", message=f"Stopped after {self.options.max_steps} steps without a final answer."
            )
        assert stop is not None
        reply = stop.message
        if turn.executed and stop.reason != "tool_not_triggered":
            reply = f"{self._compose(composer, turn)}\n{stop.message}".strip()
        return self._result(
            turn, driver, use, text=reply, stop_reason=stop.reason, ok=False, error_code=stop.reason.upper()
        )

    # -- one request -------------------------------------------------------------------------
    async def _request(self, turn: _Turn, driver: PolicyDriver, *, step: int, use: BudgetUse) -> LLMResponse:
        plan = driver.plan(step=step, forced_tool=turn.forced_tool)
        if turn.forced_any and turn.forced_tool is None:
            plan = type(plan)(tools=plan.tools, tool_choice=self.preset.required_choice, phase=plan.phase)
        tools = plan.tools if turn.send_tools else []
        turn.offered = frozenset(t.name for t in tools)
        body: dict[str, Any] = {"model": self.model, "messages": turn.messages}
        if turn.send_tools and driver.sends_tools:
            if not tools:
                raise ToolBindingError("Refusing to call the model: the policy needs tools but none are bound")
            body["tools"] = [t.to_openai(self.preset.tool_schema(t.parameters)) for t in tools]
            body["tool_choice"] = plan.tool_choice
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
        raw = await self.client.create(body, deadline=use.deadline)
        latency = round((time.perf_counter() - started) * 1000, 2)
        response = normalize_response(
            raw,
            step=step,
            max_args_bytes=self.options.max_tool_args_bytes,
            content_tag_fallback=self.preset.content_tag_fallback,
        )
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
        if ignored_keys:
            event["ignored_override_keys"] = ignored_keys
        if response.normalizations:
            event["normalizations"] = response.normalizations
        turn.trace.append(event)
        # A forced choice is satisfied by one request; never force twice (no endless forcing).
        turn.forced_tool, turn.forced_any, turn.send_tools = None, False, True
        return response

    # -- deciding ----------------------------------------------------------------------------
    def _decide(
        self, response: LLMResponse, turn: _Turn, driver: PolicyDriver, guard: StepGuard | None, *, step: int
    ) -> NextStep:
        calls = response.tool_calls
        if calls:
            if guard is not None:
                verdict = guard.review_calls(calls, turn.executed)
                if not isinstance(verdict, Accept):
                    return self._apply_verdict(verdict, turn, step=step)
            return NextStepRunTools(calls=calls)
        text = response.content.strip()
        if not text and turn.executed and self.options.fix_empty_final and not turn.empty_final_retried:
            turn.empty_final_retried = True
            return NextStepRetry(
                reason="empty_final",
                instruction="Reply to the user now, in one or two sentences.",
                tool_choice=None,
                send_tools=not self.options.fix_empty_final_disable_tools,
            )
        if driver.observe_final(step=step):
            return NextStepRetry(reason="phase_switch", instruction=None, tool_choice="auto")
        if guard is not None:
            verdict = guard.review_final(text, turn.executed)
            if not isinstance(verdict, Accept):
                return self._apply_verdict(verdict, turn, step=step)
        if self.options.tool_use_mode == "enforced" and not turn.any_ran:
            return NextStepStop(reason="no_tool_calls", message=TOOL_NOT_TRIGGERED)
        return NextStepFinalOutput(text=text)

    def _apply_verdict(self, verdict: ForceRetry | GiveUp, turn: _Turn, *, step: int) -> NextStep:
        if isinstance(verdict, GiveUp):
            turn.guard_outcome = "tool_not_triggered"
            return NextStepStop(reason="tool_not_triggered", message=verdict.message)
        turn.guard_outcome = "retried"
        turn.retry_reason = verdict.reason
        turn.forced_tool = verdict.tool
        turn.forced_any = verdict.tool is None
        log.warning("execution_guard_retry", extra={"step": step, "tool": verdict.tool, "reason": verdict.reason})
        return NextStepRetry(
            reason=verdict.reason,
            instruction=verdict.instruction,
            tool_choice=self.preset.forced_choice(verdict.tool) if verdict.tool else "required",
        )

    # -- running tools -----------------------------------------------------------------------
    async def _run_tools(
        self,
        calls: list[ToolCall],
        response: LLMResponse,
        turn: _Turn,
        driver: PolicyDriver,
        dispatcher: Dispatcher,
        *,
        step: int,
    ) -> NextStepStop | NextStepFinalOutput | None:
        limit = self._calls_per_step()
        respond = [c for c in calls if c.name == RESPOND_TOOL.name]
        work = [c for c in calls if c.name != RESPOND_TOOL.name]
        kept, ignored = (work[:limit], work[limit:]) if limit is not None else (work, [])
        turn.ignored += len(ignored)
        if ignored:
            turn.trace[-1]["ignored_tool_calls"] = len(ignored)
        retried = turn.retry_reason is not None
        outcome = await dispatcher.run_step(
            kept, step=step, retried=retried, retry_reason=turn.retry_reason, offered=turn.offered
        )
        turn.executed.extend(outcome.executed)
        driver.observe_tools(step=step, executed=outcome.executed)
        self._append_tool_messages(turn, response, outcome.executed, ignored, respond)
        errors = [e.result.code for e in outcome.executed if not e.result.success]
        if errors:
            turn.trace[-1]["errors"] = errors
        turn.fixable_errors += sum(1 for e in outcome.executed if e.result.model_fixable)
        if outcome.repeated:
            turn.findings.append(
                Finding(
                    "RepeatedCall",
                    {"tool": outcome.repeated[0].name, "arguments": outcome.repeated[0].arguments, "step": step},
                )
            )
            return NextStepStop(
                reason="repeated_call",
                message="I stopped because the same action was requested twice without progress.",
            )
        if outcome.budget is not None:
            return self._budget_stop(turn, outcome.budget)
        if turn.fixable_errors > self.options.max_model_fix_retries:
            return NextStepStop(
                reason="model_fix_retries_exhausted", message="The model kept sending invalid tool calls, so I stopped."
            )
        if self.options.tool_failure_policy == "fatal" and any(
            not e.result.success and not e.result.model_fixable for e in outcome.executed
        ):
            return NextStepStop(reason="tool_error", message="")
        if respond:
            args = respond[0].arguments or {}
            message = args["message"] if isinstance(args.get("message"), str) else ""
            turn.trace[-1]["respond"] = True
            return NextStepFinalOutput(text=message)
        return None

    def _append_tool_messages(
        self,
        turn: _Turn,
        response: LLMResponse,
        executed: list[ExecutedCall],
        ignored: list[ToolCall],
        respond: list[ToolCall],
    ) -> None:
        echoed = [e.call for e in executed] + ignored + respond
        turn.messages.append(assistant_tool_message(response.content, echoed, self.preset))
        for e in executed:
            turn.messages.append(tool_message(e.call, e.result.to_payload(), self.preset))
        limit = self._calls_per_step()
        for call in ignored:
            turn.messages.append(
                tool_message(
                    call,
                    {
                        "success": False,
                        "data": None,
                        "code": "IGNORED",
                        "error": f"Ignored: at most {limit} tool calls run per step.",
                    },
                    self.preset,
                )
            )
        for call in respond:
            turn.messages.append(tool_message(call, {"success": True, "data": None, "error": None}, self.preset))

    def _calls_per_step(self) -> int | None:
        limit = self.options.max_tool_calls_per_step or self.preset.max_tool_calls_per_step
        overrides = {**self.preset.request_overrides, **self.options.request_overrides}
        if limit is None and overrides.get("parallel_tool_calls") is False:
            return 1  # stability-first: no parallel calls asked for means one call per step
        return limit

    # -- finishing ---------------------------------------------------------------------------
    def _finish(
        self, turn: _Turn, driver: PolicyDriver, use: BudgetUse, composer: ReplyComposer | None, *, text: str
    ) -> RunResult:
        if not text and turn.executed:
            text = self._compose(composer, turn)
        if not text:
            text = "(The model returned an empty reply.)"
        ok = not (self.options.tool_use_mode == "enforced" and not turn.any_ran)
        if self.options.tool_use_mode == "enforced" and self.options.tool_failure_policy == "tolerated":
            ok = ok and any(e.result.success for e in turn.executed)
        return self._result(turn, driver, use, text=text, stop_reason="final", ok=ok)

    def _compose(self, composer: ReplyComposer | None, turn: _Turn) -> str:
        if composer is None:
            return ""
        return composer.compose(turn.executed)

    def _covered(self, guard: StepGuard | None, turn: _Turn) -> bool:
        if guard is not None:
            return guard.covered(turn.executed)
        return bool(turn.executed)

    def _budget_stop(self, turn: _Turn, exc: BudgetExceeded) -> NextStepStop:
        turn.findings.append(Finding("BudgetExceeded", {"budget": exc.kind, "used": exc.used, "limit": exc.limit}))
        return NextStepStop(
            reason="budget_exceeded",
            message=f"I stopped because this message reached its {exc.kind.replace('_', ' ')} limit.",
        )

    def _result(
        self,
        turn: _Turn,
        driver: PolicyDriver,
        use: BudgetUse,
        *,
        text: str,
        stop_reason: str,
        ok: bool,
        error: LLMError | None = None,
        error_code: str | None = None,
    ) -> RunResult:
        return RunResult(
            text=text,
            executed=turn.executed,
            stop_reason=stop_reason,
            ok=ok,
            use=use,
            trace=turn.trace,
            findings=turn.findings,
            policy_events=driver.events,
            guard_outcome=turn.guard_outcome,
            ignored_tool_calls=turn.ignored,
            error=error,
            error_code=error_code,
        )


def _choice_label(choice: Any) -> str | None:
    if isinstance(choice, dict):
        return f"function:{choice.get('function', {}).get('name')}"
    return choice if isinstance(choice, str) else None


__all__ = ["TOOL_NOT_TRIGGERED", "AgentRunner", "Finding", "RunOptions", "RunResult", "ToolBindingError", "ToolSpec"]
