"""The turn's declared plan and the findings that compare it with what ran."""

from __future__ import annotations

from collections.abc import Sequence

from backend.app.agent.loop_types import Finding, FindingKind, PlanDeviated
from backend.app.calls.types import ExecutedCall
from backend.app.language.reading.asks import Intent
from backend.app.schemas.metadata import PlanInfo


def declared_plan(intent: Intent, *, policy: str) -> PlanInfo:
    if intent.needs_tool:
        why = f"intent '{intent.kind}': {intent.reason}"
    else:
        why = f"no tool expected ({intent.kind}): {intent.reason}"
    return PlanInfo(intent=intent.kind, expected_tools=list(intent.tools), why=why, policy=policy)


def plan_deviation(intent: Intent, executed: Sequence[ExecutedCall], *, read_only: frozenset[str]) -> Finding | None:
    """Executed mutating tools differ from the plan (e.g. intent delete, the model completed)."""
    if not intent.needs_tool:
        return None
    expected = set(intent.tools)
    ran = {e.call.name for e in executed if e.ran}
    unexpected = sorted(n for n in ran - expected if n not in read_only)
    missing: list[str] = sorted(expected - ran)
    if not unexpected and not missing:
        return None
    return Finding(
        FindingKind.PLAN_DEVIATION,
        PlanDeviated(expected=sorted(expected), executed=sorted(ran), unexpected=unexpected, missing=missing),
    )
