"""Turning a finished run into the response, the persisted rows and the execution metadata."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.app.agent.runner import Finding, RunResult
from backend.app.agent.types import ExecutedCall
from backend.app.services.guard import ExecutionGuard
from backend.app.services.intent import Intent


def tool_call_records(executed: Sequence[ExecutedCall]) -> list[dict[str, Any]]:
    return [
        {
            "name": e.call.name,
            "arguments": e.arguments,
            "result": e.result.to_payload(),
            "retried": e.retried,
            "retry_reason": e.retry_reason,
        }
        for e in executed
    ]


def execution_metadata(
    *,
    run: RunResult,
    intent: Intent,
    guard: ExecutionGuard,
    plan: dict[str, Any],
    findings: list[Finding],
    policy: dict[str, Any],
    model: dict[str, Any],
    apply: dict[str, Any],
    response_mode: str,
    total_latency_ms: int,
) -> dict[str, Any]:
    use = run.use
    return {
        "tool_calls_executed": sum(1 for e in run.executed if e.ran),
        "tool_calls_retried": sum(1 for e in run.executed if e.retried),
        "llm_calls": use.llm_calls,
        "total_latency_ms": total_latency_ms,
        "tool_calls_succeeded": sum(1 for e in run.executed if e.result.success),
        "tool_calls_ignored": run.ignored_tool_calls,
        "prompt_tokens": use.prompt_tokens,
        "completion_tokens": use.completion_tokens,
        "estimated_cost_usd": round(use.cost_usd, 6),
        "guard": {
            "outcome": "tool_not_triggered" if run.stop_reason == "tool_not_triggered" else guard.outcome,
            "retry_reason": guard.retry_reason,
            "events": guard.events,
        },
        "intent": {"kind": intent.kind, "tools": list(intent.tools), "reason": intent.reason},
        "policy": policy,
        "response_mode": response_mode,
        "stop_reason": run.stop_reason,
        "plan": plan,
        "findings": [f.to_dict() for f in findings],
        "budget": use.summary(),
        **apply,
        "model": model,
        "policy_events": run.policy_events,
        "trace": run.trace,
    }
