"""What a run's guard events say (`RunResult.guard_events`, in the order the guard decided them): the
tools it forced, the changes nobody asked for, why it first retried. The guard reads them to know what
it already did this run; the reply, the question it may ask and the records read them afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.app.calls.decisions import GuardDecision, GuardEvent
from backend.app.calls.verdicts import verdict_of


def forced_tools(events: Sequence[GuardEvent]) -> frozenset[str]:
    """The tools forced so far (at most once each a turn)."""
    return frozenset(e.tool for e in events if e.decision is GuardDecision.FORCED and e.tool)


def silent(events: Sequence[GuardEvent]) -> frozenset[tuple[int, str]]:
    """(step, tool) of the changes nobody asked for (the decision table's rows marked silent): refused,
    or let run (or be asked about) only on what the user's words name. When they name nothing the
    change is simply not done, and not a line of the reply: the user never asked for it (an injected
    "delete everything" must not become a question to the user either)."""
    return frozenset((e.step, e.tool or "") for e in events if e.rule and verdict_of(e.rule).silent)


def retry_reason(events: Sequence[GuardEvent]) -> str | None:
    """Why the guard first forced a tool, if it did."""
    return next((e.reason.value for e in events if e.decision is GuardDecision.FORCED), None)
