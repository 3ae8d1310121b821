"""Prometheus metrics, one `CollectorRegistry` per app.

A per-app registry (held in `app.state.metrics`) rather than prometheus-client's global one: the
test suite builds many apps in one process, and the global registry refuses a second metric of the
same name. Callers pass plain values (names, codes, booleans), so this module depends on nothing
above `core`.

Every label value is bounded (known tool names, codes, route templates), because an unbounded
label (a model-invented tool name, a raw URL path) would grow the registry without limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from backend.app.core.exceptions import AppError

CONTENT_TYPE = CONTENT_TYPE_LATEST
OTHER = "other"
_MAX_LABEL = 64
# LLM calls take from milliseconds (offline model) to tens of seconds (a slow provider).
_LLM_BUCKETS = (0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0)
# Stop reasons of a turn that ended with an answer (the model's or one composed from tool results).
_ANSWERED = frozenset({"final", "composed"})
_HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def _label(value: str | None, allowed: frozenset[str] | None = None) -> str:
    if not value:
        return "none"
    if allowed is not None and value not in allowed:
        return OTHER
    return value[:_MAX_LABEL]


class Metrics:
    """The service's metrics; `render()` is what `/metrics` serves."""

    def __init__(self, *, tool_names: Iterable[str] = ()) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.tool_names = frozenset(tool_names) or None
        r = self.registry
        self._count_turns(r)
        self._count_models(r)
        self._count_guard(r)

    def _count_turns(self, r: CollectorRegistry) -> None:
        """Turns, their tool results, findings and budgets; HTTP requests."""
        self.chat_turns = Counter(
            "taskchat_chat_turns",
            "Chat turns by outcome (ok, tool_failed, tool_not_triggered, stopped, error) and stop reason.",
            ["outcome", "stop_reason"],
            registry=r,
        )
        self.findings = Counter("taskchat_findings", "Findings recorded on turns, by kind.", ["kind"], registry=r)
        self.budget_exceeded = Counter(
            "taskchat_budget_exceeded", "Turns stopped by a per-turn budget, by budget.", ["budget"], registry=r
        )
        self.actions_not_done = Counter(
            "taskchat_actions_not_done",
            "Actions the user asked for (or the model called) that were not done, by reason.",
            ["reason"],
            registry=r,
        )
        self.tool_results = Counter(
            "taskchat_tool_results",
            "Tool results by tool, status and caller.",
            ["tool", "status", "source"],
            registry=r,
        )
        self.http_latency = Histogram(
            "taskchat_http_request_duration_seconds",
            "HTTP request latency by method, route template and status.",
            ["method", "route", "status"],
            buckets=_HTTP_BUCKETS,
            registry=r,
        )

    def _count_models(self, r: CollectorRegistry) -> None:
        """Requests to the model server, per model and per routing arm."""
        self.llm_calls = Counter(
            "taskchat_llm_calls", "Requests to the model server.", ["client", "outcome"], registry=r
        )
        self.routing_choices = Counter(
            "taskchat_routing_choices",
            "Turns per arm (model, tool policy) asked first (ROUTING_STRATEGY), by how: fixed, exploit, explore, floor",
            ["model", "policy", "how"],
            registry=r,
        )
        self.llm_model_answers = Counter(
            "taskchat_llm_model_answers",
            "Requests per model of LLM_MODEL and LLM_FALLBACKS, by outcome (ok or the error code).",
            ["model", "outcome"],
            registry=r,
        )
        self.llm_latency = Histogram(
            "taskchat_llm_call_duration_seconds",
            "Latency of one model request (client retries included).",
            ["client"],
            buckets=_LLM_BUCKETS,
            registry=r,
        )

    def _count_guard(self, r: CollectorRegistry) -> None:
        """What the execution guard decided, and the words it kept from the user."""
        self.guard_retries = Counter(
            "taskchat_guard_retries", "Forced retries asked by the execution guard.", ["reason"], registry=r
        )
        self.guard_outcomes = Counter(
            "taskchat_guard_outcomes", "Execution guard outcome per turn.", ["outcome"], registry=r
        )
        self.ghost_prevented = Counter(
            "taskchat_ghost_success_prevented",
            "Turns where the model answered without the tool the message needed, or claimed a change none "
            "made, and the guard stepped in (resolution: retried = a forced retry, gave_up = 'Tool not "
            "triggered', replaced = the claim was not shown).",
            ["reason", "resolution"],
            registry=r,
        )
        self.guard_decisions = Counter(
            "taskchat_guard_decisions",
            "Execution guard decisions (forced, trusted, refused, grounded, gave_up, claim_caught) by reason.",
            ["decision", "reason"],
            registry=r,
        )
        self.replies_replaced = Counter(
            "taskchat_replies_replaced",
            "Model replies not shown because the results contradict them, by reason.",
            ["reason"],
            registry=r,
        )

    def render(self) -> bytes:
        return bytes(generate_latest(self.registry))

    # -- turns ---------------------------------------------------------------------------------
    def observe_turn(
        self,
        *,
        stop_reason: str,
        guard_outcome: str,
        guard_events: Sequence[tuple[str, str]],
        tool_results: Iterable[tuple[str, bool]],
        findings: Iterable[tuple[str, str | None]],
        replaced: Sequence[str] = (),
        not_done: Sequence[str] = (),
    ) -> None:
        """One finished turn. `guard_events` are (decision, reason); `findings` are (kind, budget name
        or None); `replaced` and `not_done` the reasons of model replies not shown and actions not done."""
        results = list(tool_results)
        for tool, success in results:
            self.observe_tool_result(tool, success=success, source="chat")
        if stop_reason == "tool_not_triggered":
            outcome = "tool_not_triggered"
        elif stop_reason not in _ANSWERED:
            outcome = "stopped"  # a budget, the step limit or an LLM failure after tools ran
        elif any(not ok for _tool, ok in results) or not_done:
            outcome = "tool_failed"
        else:
            outcome = "ok"
        self.chat_turns.labels(outcome, _label(stop_reason)).inc()
        self.guard_outcomes.labels(_label(guard_outcome)).inc()
        for decision, reason in guard_events:
            self.guard_decisions.labels(_label(decision), _label(reason)).inc()
            if decision == "forced":
                self.guard_retries.labels(_label(reason)).inc()
        forced = [reason for decision, reason in guard_events if decision == "forced"]
        if forced:
            resolution = "gave_up" if guard_outcome == "tool_not_triggered" else "retried"
            self.ghost_prevented.labels(_label(forced[0]), resolution).inc()
        elif "ghost_claim" in replaced:
            self.ghost_prevented.labels("ghost_claim", "replaced").inc()
        for reason in replaced:
            self.replies_replaced.labels(_label(reason)).inc()
        for reason in not_done:
            self.actions_not_done.labels(_label(reason)).inc()
        for kind, budget in findings:
            self.findings.labels(_label(kind)).inc()
            if kind == "BudgetExceeded":
                self.budget_exceeded.labels(_label(budget)).inc()

    def observe_failed_turn(self, code: str) -> None:
        """A turn that ended in an error response (the LLM server failed, a rate limit, ...)."""
        self.chat_turns.labels("error", _label(code)).inc()

    def observe_tool_result(self, tool: str, *, success: bool, source: str) -> None:
        self.tool_results.labels(_label(tool, self.tool_names), "success" if success else "error", source).inc()

    # -- LLM and HTTP --------------------------------------------------------------------------
    def observe_llm_call(self, *, client: str, outcome: str, seconds: float) -> None:
        self.llm_calls.labels(_label(client), _label(outcome)).inc()
        self.llm_latency.labels(_label(client)).observe(seconds)

    def observe_routing(self, *, model: str, policy: str, how: str) -> None:
        self.routing_choices.labels(_label(model), _label(policy), _label(how)).inc()

    def observe_model(self, *, model: str, outcome: str) -> None:
        self.llm_model_answers.labels(_label(model), _label(outcome)).inc()

    def observe_http(self, *, method: str, route: str, status: int, seconds: float) -> None:
        self.http_latency.labels(_label(method), route, str(status)).observe(seconds)


class _CompletionsClient(Protocol):
    label: str

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: Callable[[str], None] | None = None,
        attempts: list[Any] | None = None,
    ) -> dict[str, Any]: ...


class MeteredClient:
    """A chat-completions client that counts and times every call, whatever its outcome.

    Wrapping the client (instead of instrumenting the tool loop) keeps the loop free of metrics and
    measures every call the loop makes, retries and guard retries included.
    """

    def __init__(self, inner: _CompletionsClient, metrics: Metrics) -> None:
        self.inner = inner
        self.label = inner.label
        self.metrics = metrics

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: Callable[[str], None] | None = None,
        attempts: list[Any] | None = None,
    ) -> dict[str, Any]:
        started = time.perf_counter()
        outcome = "ok"
        try:
            return await self.inner.create(body, deadline=deadline, on_text=on_text, attempts=attempts)
        except AppError as exc:
            outcome = exc.code
            raise
        except BaseException as exc:  # cancellation included: the call still happened
            outcome = type(exc).__name__
            raise
        finally:
            self.metrics.observe_llm_call(client=self.label, outcome=outcome, seconds=time.perf_counter() - started)
