"""Turning a finished run into the response's records and the execution metadata."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.app.agent.run import RunResult
from backend.app.agent.types import Finding, FindingKind
from backend.app.calls.codes import ResultCode
from backend.app.calls.types import ExecutedCall
from backend.app.language.detect import Language
from backend.app.schemas.chat import ActionMetadata
from backend.app.schemas.metadata import ExecutionMetadata
from backend.app.services.guard import ExecutionGuard, WordsReason
from backend.app.services.intent import Intent
from backend.app.services.reply import Reply

_REPLACED_FINDING = {
    WordsReason.GHOST_CLAIM.value: FindingKind.GHOST_CLAIM,
    WordsReason.UNBACKED_CLAIM.value: FindingKind.UNBACKED_CLAIM,
    WordsReason.DENIED_SUCCESS.value: FindingKind.DENIED_SUCCESS,
}


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


def reply_findings(reply: Reply) -> list[Finding]:
    """A finding for each model reply that was not shown (by why) and each action not done."""
    findings = [
        Finding(_REPLACED_FINDING[r["reason"]], {"claims": r["claims"], "model_reply": r["model_reply"]})
        for r in reply.replaced
        if r["reason"] in _REPLACED_FINDING
    ]
    findings += [
        Finding(FindingKind.ACTION_NOT_DONE, {"action": o.action, "reason": o.reason.value, "message": o.message})
        for o in reply.not_done
        if o.reason is not None
    ]
    return findings


def execution_metadata(
    *,
    run: RunResult,
    intent: Intent,
    guard: ExecutionGuard,
    reply: Reply,
    plan: dict[str, Any],
    findings: list[Finding],
    policy: dict[str, Any],
    model: dict[str, Any],
    apply: dict[str, Any],
    response_mode: str,
    total_latency_ms: int,
    language: Language,
    confirmation_answer: dict[str, Any] | None = None,
    routing: dict[str, Any] | None = None,
) -> ExecutionMetadata:
    use = run.use
    metadata: dict[str, Any] = {
        "tool_calls_executed": sum(1 for e in run.executed if e.ran),
        "tool_calls_retried": sum(1 for e in run.executed if e.retried),
        "llm_calls": use.llm_calls,
        "total_latency_ms": total_latency_ms,
        "tool_calls_succeeded": sum(1 for e in run.executed if e.result.success),
        "tool_calls_ignored": sum(1 for e in run.executed if e.result.code == ResultCode.IGNORED),
        "prompt_tokens": use.prompt_tokens,
        "completion_tokens": use.completion_tokens,
        "estimated_cost_usd": round(use.cost_usd, 6),
        "guard": {
            "outcome": guard.outcome,
            "retry_reason": guard.retry_reason,
            "decisions": [e.to_dict() for e in guard.events],
        },
        "intent": {
            "kind": intent.kind,
            "tools": list(intent.tools),
            "actions": [{"tools": list(a.tools), "text": a.text, "explicit": a.explicit} for a in intent.actions],
            "reason": intent.reason,
            "languages": list(intent.languages),
        },
        "reply": {
            "source": reply.source,
            "words": guard.words.verdict.value if guard.words is not None else None,
            "replaced": reply.replaced,
            "not_done": [
                {"action": o.action, "reason": o.reason.value if o.reason else None, "message": o.message}
                for o in reply.not_done
            ],
        },
        "policy": policy,
        "response_mode": response_mode,
        "stop_reason": run.stop_reason.value,
        "plan": plan,
        "findings": [f.to_dict() for f in findings],
        "budget": use.summary(),
        **apply,
        "model": model,
        "policy_events": run.policy_events,
        "trace": run.trace,
        "language": {"code": language.code, "detected": language.detected, "how": language.how},
    }
    if run.error is not None:
        metadata["provider_error"] = {"code": run.error.code, "detail": run.error.detail}
    metadata["confirmation_answer"] = confirmation_answer
    metadata["routing"] = routing
    return ExecutionMetadata.model_validate(metadata)


def action_metadata(reply: Reply, intent: Intent) -> ActionMetadata | None:
    """The contract's single-action fields for the turn's first action, and `actions` for all of
    them when there are several (`status`: done, failed, not_done, asked)."""
    outcomes = [o for o in reply.outcomes if not o.silent]  # a change nobody asked for, not run, is no action
    if not outcomes:
        if reply.source == "contract":
            return ActionMetadata(action=intent.primary or "unknown", success=False, message="Tool not triggered")
        return None
    actions = [o.metadata() for o in outcomes]
    first = dict(actions[0])
    first.pop("status")
    if reply.source == "contract":
        first["message"] = "Tool not triggered"
    if len(actions) > 1:
        first["actions"] = actions
    return ActionMetadata.model_validate(first)


def apply_report(executed: Sequence[ExecutedCall]) -> dict[str, Any]:
    """Best-effort accounting over every call of the turn: applied, partial or rejected."""
    applied: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    warnings: list[dict[str, Any]] = []
    for index, e in enumerate(executed):
        if e.result.success:
            data = e.result.data if isinstance(e.result.data, dict) else {}
            applied.append({"index": index, "tool": e.call.name, "task_id": data.get("id")})
        else:
            rejected.append({"index": index, "tool": e.call.name, "code": e.result.code, "error": e.result.error})
        warnings.extend({"index": index, "tool": e.call.name, "warning": w} for w in e.result.warnings)
    if not executed:
        status = None
    elif not rejected:
        status = "applied"
    elif applied:
        status = "partial"
    else:
        status = "rejected"
    return {"apply_status": status, "applied": applied, "rejected": rejected, "warnings": warnings}
