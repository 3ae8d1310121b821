"""Turning a finished run into the response's records and the execution metadata: a chat turn's
reply step (`finish`, services/turn/pipeline.py), which puts the reply, the question to ask, the findings and
the metadata into the response body, and keeps beside it what the turn's last transaction writes."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, assert_never

from backend.app.agent.guard_protocol import WordsReason
from backend.app.agent.limits import Budget, BudgetUse
from backend.app.agent.loop_types import (
    ActionSkipped,
    CheckTrace,
    Finding,
    FindingKind,
    PolicyChange,
    Trace,
    Usage,
    WordsNotShown,
)
from backend.app.agent.run_io import RunResult
from backend.app.calls.codes import ResultCode
from backend.app.calls.tools import READING
from backend.app.calls.types import ExecutedCall
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.language.detect import Language
from backend.app.language.reading.asks import Intent
from backend.app.schemas.chat import (
    ActionMetadata,
    ChatResponse,
    Confirmation,
    DroppedValue,
    ToolCallRecord,
    ToolResultOut,
)
from backend.app.schemas.metadata import (
    BudgetInfo,
    ExecutionMetadata,
    FallbackRecord,
    FindingRecord,
    GuardEvent,
    GuardInfo,
    IntentAction,
    IntentInfo,
    LanguageInfo,
    ModelInfo,
    NotDone,
    PlanInfo,
    PolicyEvent,
    PolicyInfo,
    ProviderError,
    ReplacedReply,
    ReplyInfo,
    RoutingInfo,
    TraceCheck,
    TraceRequest,
    TraceStep,
    TraceUsage,
)
from backend.app.schemas.metadata import ConfirmationAnswer as AnswerInfo
from backend.app.services.confirmations.questions import Proposal, propose
from backend.app.services.guard.events import retry_reason
from backend.app.services.guard.final_calls import final_calls
from backend.app.services.reply.compose import Reply, compose
from backend.app.services.turn.answers import AnswerRun
from backend.app.services.turn.apply_report import ApplyReport, apply_report
from backend.app.services.turn.context import Step, TurnContext
from backend.app.services.turn.plan import declared_plan, plan_deviation

_REPLACED_FINDING = {
    WordsReason.GHOST_CLAIM: FindingKind.GHOST_CLAIM,
    WordsReason.UNBACKED_CLAIM: FindingKind.UNBACKED_CLAIM,
    WordsReason.DENIED_SUCCESS: FindingKind.DENIED_SUCCESS,
}


@dataclass(frozen=True, slots=True)
class Finished:
    """A turn's reply step: what the user reads (`response`) and what is kept with it."""

    response: ChatResponse
    reply: Reply
    findings: list[Finding]
    calls: list[ExecutedCall]
    proposal: Proposal | None
    now: datetime
    language: str

    @property
    def confirmation(self) -> Confirmation | None:
        return self.response.confirmation


def finish(
    turn: TurnContext,
    run: RunResult | AnswerRun,
    step: Step,
    *,
    settings: Settings,
    clock: Clock,
    model: ModelInfo,
    asked: Proposal | None = None,
) -> Finished:
    """What the user reads and what explains it: the reply (composed in services/reply/compose.py), the
    question to ask if any (the results', else `asked`: the model's, restated), the findings, the
    execution metadata and the response. `model`: the model the turn ran on, as its execution
    metadata shows it."""
    calls = final_calls(run.executed)
    t = step.texts
    proposal = (propose(calls, t=t) if step.asks else None) or asked
    reply = compose(
        run=run,
        intent=step.intent,
        message=turn.request.message,
        response_mode=settings.response_mode,
        t=t,
        question=proposal,
    )
    if turn.answer is not None and turn.answer.verdict == "cancel":
        reply = Reply(t("Okay, I won't: nothing was changed."), [], "results")
    deviation = plan_deviation(step.intent, run.executed, read_only=READING)
    findings = [*run.findings, *([deviation] if deviation else []), *reply_findings(reply)]
    metadata = _turn_metadata(turn, run, step, reply, findings, settings=settings, model=model)
    now = clock.now()
    confirmation = None
    if proposal is not None:
        expires_at = now + timedelta(minutes=settings.confirmation_ttl_minutes)
        confirmation = proposal.shown(expires_at=expires_at)
    response = ChatResponse(
        conversation_id=turn.conversation_id,
        assistant_message=reply.text,
        tool_calls=tool_call_records(run.executed),
        action_metadata=action_metadata(reply, step.intent),
        confirmation=confirmation,
        execution_metadata=metadata,
    )
    return Finished(
        response=response,
        reply=reply,
        findings=findings,
        calls=calls,
        proposal=proposal,
        now=now,
        language=step.language.code,
    )


def _turn_metadata(
    turn: TurnContext,
    run: RunResult | AnswerRun,
    step: Step,
    reply: Reply,
    findings: list[Finding],
    *,
    settings: Settings,
    model: ModelInfo,
) -> ExecutionMetadata:
    """`execution_metadata` of a finished turn, from its context and its step (and the zone its dates
    were read in)."""
    metadata = execution_metadata(
        run=run,
        intent=step.intent,
        guard_outcome=step.guard_outcome(run.guard_events),
        reply=reply,
        plan=declared_plan(step.intent, policy=step.policy.value),
        findings=findings,
        policy=step.policy_info,
        model=model,
        apply=apply_report(run.executed),
        apply_mode=settings.apply_mode,
        response_mode=settings.response_mode,
        total_latency_ms=round((time.monotonic() - turn.started) * 1000),
        language=step.language,
        confirmation_answer=(
            AnswerInfo(verdict=turn.answer.verdict, how=turn.answer.how)
            if turn.answer is not None and turn.answer.verdict != "new"
            else None
        ),
        routing=turn.routing.info() if turn.routing is not None else None,
    )
    metadata.time_zone = turn.clock.zone_name
    return metadata


def tool_call_records(executed: Sequence[ExecutedCall]) -> list[ToolCallRecord]:
    """The calls as the response (and a stream's `tool` events) show them."""
    return [
        ToolCallRecord(
            name=e.call.name,
            arguments=e.arguments,
            result=ToolResultOut(
                success=e.result.success,
                data=e.result.data,
                error=e.result.error,
                code=str(e.result.code) if e.result.code else None,
                warnings=list(e.result.warnings) or None,
                dropped=[DroppedValue(**d) for d in e.result.dropped] or None,
            ),
            retried=e.retried,
            retry_reason=e.retry_reason,
        )
        for e in executed
    ]


def reply_findings(reply: Reply) -> list[Finding]:
    """A finding for each model reply that was not shown (by why) and each action not done."""
    findings = [
        Finding(_REPLACED_FINDING[r.reason], WordsNotShown(claims=list(r.claims), model_reply=r.model_reply))
        for r in reply.replaced
        if r.reason in _REPLACED_FINDING
    ]
    findings += [
        Finding(FindingKind.ACTION_NOT_DONE, ActionSkipped(action=o.action, reason=o.reason.value, message=o.message))
        for o in reply.not_done
        if o.reason is not None
    ]
    return findings


def execution_metadata(
    *,
    run: RunResult | AnswerRun,
    intent: Intent,
    guard_outcome: str,
    reply: Reply,
    plan: PlanInfo,
    findings: list[Finding],
    policy: PolicyInfo,
    model: ModelInfo,
    apply: ApplyReport,
    apply_mode: str,
    response_mode: Literal["direct", "model"],
    total_latency_ms: int,
    language: Language,
    confirmation_answer: AnswerInfo | None = None,
    routing: RoutingInfo | None = None,
) -> ExecutionMetadata:
    match run:
        case RunResult(use=use, trace=trace, policy_events=changes, error=error):
            pass
        case AnswerRun():  # no model asked: nothing traced or changed, an unused default budget shown
            use, trace, changes, error = BudgetUse(Budget()), [], [], None
        case _:
            assert_never(run)
    executed = run.executed
    return ExecutionMetadata(
        tool_calls_executed=sum(1 for e in executed if e.ran),
        tool_calls_retried=sum(1 for e in executed if e.retried),
        llm_calls=use.llm_calls,
        total_latency_ms=total_latency_ms,
        tool_calls_succeeded=sum(1 for e in executed if e.result.success),
        tool_calls_ignored=sum(1 for e in executed if e.result.code == ResultCode.IGNORED),
        prompt_tokens=use.prompt_tokens,
        completion_tokens=use.completion_tokens,
        estimated_cost_usd=round(use.cost_usd, 6),
        guard=_guard_info(run, guard_outcome),
        intent=_intent_info(intent),
        reply=_reply_info(run, reply),
        policy=policy,
        response_mode=response_mode,
        stop_reason=run.stop_reason.value,
        plan=plan,
        findings=[FindingRecord(kind=f.kind.value, **f.detail) for f in findings],
        budget=BudgetInfo.model_validate(use.summary()),
        apply_status=apply.status,
        applied=apply.applied,
        rejected=apply.rejected,
        warnings=apply.warnings,
        apply_mode=apply_mode,
        model=model,
        policy_events=[_policy_event(e) for e in changes],
        trace=[_trace(e) for e in trace],
        routing=routing,
        language=LanguageInfo(code=language.code, detected=language.detected, how=language.how),
        provider_error=ProviderError(code=error.code, detail=error.detail) if error is not None else None,
        confirmation_answer=confirmation_answer,
    )


def _guard_info(run: RunResult | AnswerRun, outcome: str) -> GuardInfo:
    return GuardInfo(
        outcome=outcome,
        retry_reason=retry_reason(run.guard_events),
        decisions=[
            GuardEvent(step=e.step, decision=e.decision.value, reason=e.reason.value, tool=e.tool, rule=e.rule or None)
            for e in run.guard_events
        ],
    )


def _intent_info(intent: Intent) -> IntentInfo:
    return IntentInfo(
        kind=intent.kind,
        tools=list(intent.tools),
        actions=[IntentAction(tools=list(a.tools), text=a.text, explicit=a.explicit) for a in intent.actions],
        reason=intent.reason,
        languages=list(intent.languages),
    )


def _reply_info(run: RunResult | AnswerRun, reply: Reply) -> ReplyInfo:
    return ReplyInfo(
        source=reply.source,
        words=run.words.verdict.value if run.words is not None else None,
        replaced=[
            ReplacedReply(reason=r.why, claims=list(r.claims), model_reply=r.model_reply) for r in reply.replaced
        ],
        not_done=[
            NotDone(action=o.action, reason=o.reason.value if o.reason else None, message=o.message)
            for o in reply.not_done
        ],
    )


def _trace(event: Trace) -> TraceStep | TraceCheck:
    """A trace event of the loop (agent/loop_types.py) as the metadata shows it: what did not happen
    (no retry, no errors, one model) has no key."""
    if isinstance(event, CheckTrace):
        return TraceCheck(
            step=event.step,
            check=event.check,
            answered=event.answered,
            latency_ms=event.latency_ms,
            usage=_usage(event.usage) if event.usage is not None else None,
            error=event.error,
        )
    request = event.request
    return TraceStep(
        step=event.step,
        request=TraceRequest(
            tools=list(request.tools), tool_choice=request.tool_choice, messages=request.messages, phase=request.phase
        ),
        latency_ms=event.latency_ms,
        usage=_usage(event.usage),
        finish_reason=event.finish_reason,
        calls=list(event.calls),
        ignored_override_keys=list(event.ignored_override_keys) or None,
        normalizations=list(event.normalizations) or None,
        retry=event.retry.value if event.retry is not None else None,
        ignored_tool_calls=event.ignored_tool_calls or None,
        errors=[str(c) if c is not None else None for c in event.errors] or None,
        respond=event.respond or None,
        model=event.model,
        fallbacks=[FallbackRecord(model=a.model, code=a.code, detail=a.detail) for a in event.fallbacks] or None,
    )


def _usage(usage: Usage) -> TraceUsage:
    return TraceUsage(prompt=usage.prompt_tokens, completion=usage.completion_tokens)


def _policy_event(change: PolicyChange) -> PolicyEvent:
    return PolicyEvent(
        step=change.step, event=change.event, tool_choice=change.tool_choice, to=change.to, why=change.why
    )


def action_metadata(reply: Reply, intent: Intent) -> ActionMetadata | None:
    """The contract's single-action fields for the turn's first action, and `actions` for all of
    them when there are several (`status`: done, failed, not_done, asked)."""
    outcomes = [o for o in reply.reports if not o.silent]  # a change nobody asked for, not run, is no action
    if not outcomes:
        if reply.source == "contract":
            return ActionMetadata(action=intent.primary or "unknown", success=False, message="Tool not triggered")
        return None
    actions = [o.metadata() for o in outcomes]
    first = actions[0]
    return ActionMetadata(
        action=first.action,
        success=first.success,
        task_id=first.task_id,
        task_title=first.task_title,
        message="Tool not triggered" if reply.source == "contract" else first.message,
        actions=actions if len(actions) > 1 else None,
    )
