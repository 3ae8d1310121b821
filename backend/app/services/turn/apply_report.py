"""Best-effort accounting over every call of a turn: which applied, which were rejected and why, the
warnings of each, and whether the turn's changes were applied, partly applied or rejected
(`execution_metadata`'s apply fields)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from backend.app.calls.payloads import task_id_of
from backend.app.calls.types import ExecutedCall
from backend.app.schemas.metadata import AppliedCall, CallWarning, RejectedCall


@dataclass(frozen=True, slots=True)
class ApplyReport:
    """Best-effort accounting over every call of a turn (`execution_metadata`'s apply fields)."""

    status: Literal["applied", "partial", "rejected"] | None
    applied: list[AppliedCall]
    rejected: list[RejectedCall]
    warnings: list[CallWarning]


def apply_report(executed: Sequence[ExecutedCall]) -> ApplyReport:
    """Best-effort accounting over every call of the turn: applied, partial or rejected."""
    applied: list[AppliedCall] = []
    rejected: list[RejectedCall] = []
    warnings: list[CallWarning] = []
    for index, e in enumerate(executed):
        if e.result.success:
            applied.append(AppliedCall(index=index, tool=e.call.name, task_id=task_id_of(e.result.data)))
        else:
            code = str(e.result.code) if e.result.code else None
            rejected.append(RejectedCall(index=index, tool=e.call.name, code=code, error=e.result.error))
        warnings.extend(CallWarning(index=index, tool=e.call.name, warning=w) for w in e.result.warnings)
    status: Literal["applied", "partial", "rejected"] | None
    if not executed:
        status = None
    elif not rejected:
        status = "applied"
    elif applied:
        status = "partial"
    else:
        status = "rejected"
    return ApplyReport(status, applied, rejected, warnings)
