"""The loop's requests to the model: what a step sends, and what it keeps of the answer.

A step's request carries the tools and tool_choice the policy plans, reshaped (for that one request)
by the retry the last step decided, plus the preset's and the options' overrides. Its answer is heard
by the reply observer as it comes, normalized, counted against the budget and described in one trace
event. The reply check's request is made here too: one tool forced, a short answer. Apart from the
runner so that the loop reads as its steps; what an answer means is decided in `decide.py`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.app.agent.limits import BudgetExceeded, BudgetUse
from backend.app.agent.loop_types import (
    Attempt,
    ChatCompletionsClient,
    CheckTrace,
    Heard,
    LLMResponse,
    NextStepCheck,
    NextStepRetry,
    StepRequest,
    StepTrace,
    Usage,
)
from backend.app.agent.normalize import normalize_response
from backend.app.agent.policy import RESPOND_TOOL, PolicyDriver
from backend.app.agent.presets import Preset, merge_request_overrides
from backend.app.agent.run_io import ReplyObserver, RunOptions
from backend.app.calls.types import ExecutedCall
from backend.app.core.exceptions import LLMError, ToolBindingError

# The loop's log lines keep the runner's logger name, whichever of its modules writes them: logs are read by it.
log = logging.getLogger("backend.app.agent.runner")


@dataclass(frozen=True, slots=True)
class Asked:
    """A step's answer, and what the loop keeps of the request that got it."""

    response: LLMResponse
    event: StepTrace  # the step's trace event
    offered: frozenset[str]  # the tools the request offered
    forced: bool  # the request forced a tool on the model
    hearing: bool  # the answer's text went to the reply observer


@dataclass(frozen=True, slots=True)
class Requester:
    """Makes the requests of one run, through its client, under its budget."""

    client: ChatCompletionsClient
    model: str
    preset: Preset
    options: RunOptions
    driver: PolicyDriver
    use: BudgetUse

    async def ask(
        self,
        messages: list[dict[str, Any]],
        *,
        retry: NextStepRetry | None,
        on_reply: ReplyObserver | None,
        executed: Sequence[ExecutedCall],
        step: int,
    ) -> Asked:
        """One step's request; `retry` is what the last step decided this request must do differently."""
        plan = self.driver.plan(step=step, forcing=retry is not None and retry.tool_choice is not None)
        send_tools = retry is None or retry.send_tools
        tools = list(plan.tools) if send_tools else []
        if retry is not None and retry.offer_respond and tools and RESPOND_TOOL not in tools:
            tools.append(RESPOND_TOOL)
        choice = retry.tool_choice if retry is not None and retry.tool_choice is not None else plan.tool_choice
        offered = frozenset(t.name for t in tools)
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if send_tools and self.driver.sends_tools:
            if not tools:
                raise ToolBindingError("Refusing to call the model: the policy needs tools but none are bound")
            body["tools"] = [t.to_openai(self.preset.tool_schema(t.parameters)) for t in tools]
            body["tool_choice"] = choice
        forced = isinstance(body.get("tool_choice"), dict) or body.get("tool_choice") in ("required", "any")
        if self.options.max_tokens:
            body["max_tokens"] = self.options.max_tokens
        ignored_keys = merge_request_overrides(
            body, {**self.preset.request_overrides, **self.options.request_overrides}
        )
        _log_request(body, step=step, client=self.client.label)
        started = time.perf_counter()
        sink = on_reply.step(executed) if on_reply is not None else None
        heard = Heard(sink)
        attempts: list[Attempt] = []
        raw = await self.client.create(
            body, deadline=self.use.deadline, on_text=heard if sink is not None else None, attempts=attempts
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
        self.use.record_request(response.usage)
        sent = StepRequest(
            tools=tuple(t.name for t in tools),
            tool_choice=_choice_label(body.get("tool_choice")),
            messages=len(messages),
            phase=plan.phase or None,
        )
        event = _traced(sent, response, step=step, latency=latency, ignored=ignored_keys, attempts=attempts)
        return Asked(response=response, event=event, offered=offered, forced=forced, hearing=heard.pieces > 0)

    async def check(self, check: NextStepCheck, *, step: int) -> tuple[dict[str, Any] | None, CheckTrace]:
        """One request that asks what the words claim (its tool forced): the checking call's arguments
        and the trace event. A check that cannot be made or read answers None: it verifies nothing."""
        arguments: dict[str, Any] | None = None
        latency: float | None = None
        usage: Usage | None = None
        error: str | None = None
        try:
            self.use.check_before_request()
            body: dict[str, Any] = {
                "model": self.model,
                "messages": check.messages,
                "tools": [check.tool.to_openai(self.preset.tool_schema(check.tool.parameters))],
                "tool_choice": self.preset.forced_choice(check.tool.name),
            }
            merge_request_overrides(body, {**self.preset.request_overrides, **self.options.request_overrides})
            body["max_tokens"] = min(self.options.max_tokens or 300, 300)
            started = time.perf_counter()
            raw = await self.client.create(body, deadline=self.use.deadline)
            response = normalize_response(raw, step=step, max_args_bytes=self.options.max_tool_args_bytes)
            self.use.record_request(response.usage)
            latency, usage = round((time.perf_counter() - started) * 1000, 2), response.usage
            call = next((c for c in response.tool_calls if c.name == check.tool.name and c.error is None), None)
            arguments = call.arguments if call is not None else None
        except BudgetExceeded as exc:
            error = f"budget {exc.kind}"
        except LLMError as exc:
            error = exc.code
        event = CheckTrace(
            step=step,
            check=check.tool.name,
            answered=arguments is not None,
            latency_ms=latency,
            usage=usage,
            error=error,
        )
        return arguments, event


def _choice_label(choice: Any) -> str | None:
    if isinstance(choice, dict):
        return f"function:{choice.get('function', {}).get('name')}"
    return choice if isinstance(choice, str) else None


__all__ = ["Asked", "Requester"]


def _log_request(body: dict[str, Any], *, step: int, client: str) -> None:
    extra = {"step": step, "tools": len(body.get("tools", [])), "tool_choice": _choice_label(body.get("tool_choice"))}
    log.info("llm_request", extra={**extra, "client": client})


def _traced(
    sent: StepRequest,
    response: LLMResponse,
    *,
    step: int,
    latency: float,
    ignored: Sequence[str],
    attempts: Sequence[Attempt],
) -> StepTrace:
    """The step's trace: what was sent, what came back, and (several models) which one answered and
    what failed before it."""
    return StepTrace(
        step=step,
        request=sent,
        latency_ms=latency,
        usage=response.usage,
        finish_reason=response.finish_reason,
        calls=tuple(c.name for c in response.tool_calls),
        ignored_override_keys=tuple(ignored),
        normalizations=tuple(response.normalizations),
        model=attempts[-1].model if attempts else None,
        fallbacks=tuple(attempts[:-1]),
    )
