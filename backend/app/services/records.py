"""Turning a finished run into the response's records and the execution metadata: a chat turn's
reply step (`finish`, services/chat.py), which puts the reply, the question to ask, the findings and
the metadata into the response body, and keeps beside it what the turn's last transaction writes."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from backend.app.agent.run_io import RunResult
from backend.app.agent.types import Finding, FindingKind
from backend.app.calls.codes import ResultCode
from backend.app.calls.types import ExecutedCall
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.language.detect import Language
from backend.app.schemas.chat import (
    ActionMetadata,
    ChatResponse,
    Confirmation,
    ConfirmationAction,
    ConfirmationAnswer,
)
from backend.app.schemas.metadata import ExecutionMetadata
from backend.app.services.calls import final_calls
from backend.app.services.confirmations import Proposal, propose
from backend.app.services.guard import ExecutionGuard
from backend.app.services.intent import Intent
from backend.app.services.plan import declared_plan, plan_deviation
from backend.app.services.reply import Reply, compose
from backend.app.services.turn import READ_ONLY, Step, TurnContext
from backend.app.services.words import WordsReason

_REPLACED_FINDING = {
    WordsReason.GHOST_CLAIM.value: FindingKind.GHOST_CLAIM,
    WordsReason.UNBACKED_CLAIM.value: FindingKind.UNBACKED_CLAIM,
    WordsReason.DENIED_SUCCESS.value: FindingKind.DENIED_SUCCESS,
}


@dataclass(frozen=True, slots=True)
class Finished:
    """A turn's reply step: what the user reads (`body`, the response JSON) and what is kept with it."""

    body: dict[str, Any]
    reply: Reply
    findings: list[Finding]
    calls: list[ExecutedCall]
    proposal: Proposal | None
    confirmation: Confirmation | None
    now: datetime
    language: str


def finish(
    turn: TurnContext, run: RunResult, step: Step, *, settings: Settings, clock: Clock, model: dict[str, Any]
) -> Finished:
    """What the user reads and what explains it: the reply (composed in services/reply.py), the
    question to ask if any, the findings, the execution metadata and the response body. `model`:
    the model the turn ran on, as its execution metadata shows it."""
    calls = final_calls(run.executed)
    t = step.texts
    proposal = propose(calls, t=t, silent=step.guard.silent) if step.asks else None
    reply = compose(
        run=run,
        intent=step.intent,
        guard=step.guard,
        response_mode=settings.response_mode,
        t=t,
        question=proposal,
    )
    if turn.answer is not None and turn.answer.verdict == "cancel":
        reply = Reply(t("Okay, I won't: nothing was changed."), [], "results")
    deviation = plan_deviation(step.intent, run.executed, read_only=READ_ONLY)
    findings = [*run.findings, *([deviation] if deviation else []), *reply_findings(reply)]
    metadata = execution_metadata(
        run=run,
        intent=step.intent,
        guard=step.guard,
        reply=reply,
        plan=declared_plan(step.intent, policy=step.policy.value),
        findings=findings,
        policy=step.policy_info,
        model=model,
        apply={**apply_report(run.executed), "apply_mode": settings.apply_mode},
        response_mode=settings.response_mode,
        total_latency_ms=round((time.monotonic() - turn.started) * 1000),
        language=step.language,
        confirmation_answer=(
            {"verdict": turn.answer.verdict, "how": turn.answer.how}
            if turn.answer is not None and turn.answer.verdict != "new"
            else None
        ),
        routing=turn.routing.describe() if turn.routing is not None else None,
    )
    now = clock.now()
    confirmation = None
    if proposal is not None:
        expires_at = now + timedelta(minutes=settings.confirmation_ttl_minutes)
        confirmation = _confirmation(proposal, expires_at=expires_at)
    response = ChatResponse(
        conversation_id=turn.conversation_id,
        assistant_message=reply.text,
        tool_calls=tool_call_records(run.executed),
        action_metadata=action_metadata(reply, step.intent),
        confirmation=confirmation,
        execution_metadata=metadata,
    )
    return Finished(
        body=response.model_dump(mode="json"),
        reply=reply,
        findings=findings,
        calls=calls,
        proposal=proposal,
        confirmation=confirmation,
        now=now,
        language=step.language.code,
    )


def _confirmation(proposal: Proposal, *, expires_at: datetime) -> Confirmation:
    """The question as the response shows it, under a new id: a confirm's first answer carries the
    id, so a client's button answers this very question."""
    confirmation_id = str(uuid.uuid4())
    return Confirmation(
        id=confirmation_id,
        question=proposal.question,
        actions=[ConfirmationAction(name=a["name"], arguments=a["arguments"]) for a in proposal.actions],
        expires_at=expires_at,
        kind=proposal.kind,
        answers=[
            ConfirmationAnswer(
                label=label,
                message=message,
                confirm=confirmation_id if proposal.kind == "confirm" and i == 0 else None,
            )
            for i, (label, message) in enumerate(proposal.answers)
        ],
    )


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
    outcomes = [o for o in reply.reports if not o.silent]  # a change nobody asked for, not run, is no action
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
