"""The execution guard: no success without a tool result behind it.

When the message needs a tool (by its intent) and the model answered without it, or reached for
a different mutating tool, the guard asks exactly once more with the tool forced. If that fails
too, the turn ends with "Technical error: Tool not triggered." and nothing changed.
A first-person success claim with no tool behind it ("I've deleted it") on a message the
classifier did not understand gets the same single retry with any tool required. After tools ran,
a final text that claims an action no successful call backs (`unbacked_claims`) is not shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from backend.app.agent.guard import Accept, ForceRetry, GiveUp, GuardVerdict
from backend.app.agent.runner import TOOL_NOT_TRIGGERED
from backend.app.agent.types import ExecutedCall, ToolCall
from backend.app.services.intent import Intent

_CLAIM = re.compile(
    r"\b(i|i've|i have|i just|i've just|we've)\s+(?:\w+\s+)?"
    r"(added|created|deleted|removed|marked|completed|updated|changed|renamed)\b"
    r"|^\s*(done|task (added|created|deleted|removed|updated|completed))\b",
    re.IGNORECASE,
)


_VERB = re.compile(r"\b(added|created|deleted|removed|marked|completed|updated|changed|renamed)\b", re.IGNORECASE)
# The tools that back a claimed verb ("I've marked it high priority" may be an update).
_BACKING: dict[str, frozenset[str]] = {
    "added": frozenset({"add_task"}),
    "created": frozenset({"add_task"}),
    "deleted": frozenset({"delete_task"}),
    "removed": frozenset({"delete_task"}),
    "marked": frozenset({"complete_task", "update_task"}),
    "completed": frozenset({"complete_task", "update_task"}),
    "updated": frozenset({"update_task"}),
    "changed": frozenset({"update_task"}),
    "renamed": frozenset({"update_task"}),
}


def claims_action(text: str) -> bool:
    return bool(_CLAIM.search(text))


def unbacked_claims(text: str, executed: Sequence[ExecutedCall], *, mutating: frozenset[str]) -> list[str]:
    """The success verbs of a text that claims success ("I've added milk and deleted gym", "Task
    added", "Done") that no successful call of the turn backs: "deleted" needs a delete_task that
    succeeded, "done" any successful change. Over-reading ("completed" in a title) only costs the
    model's wording: the caller then tells the results instead."""
    if not claims_action(text):
        return []
    succeeded = {e.call.name for e in executed if e.ran and e.result.success}
    verbs = [m.group(1).lower() for m in _VERB.finditer(text)]
    if not verbs:
        verbs = ["done"]
    unbacked: list[str] = []
    for verb in verbs:
        if not _BACKING.get(verb, mutating) & succeeded and verb not in unbacked:
            unbacked.append(verb)
    return unbacked


@dataclass(slots=True)
class ExecutionGuard:
    intent: Intent
    mutating_tools: frozenset[str]
    instruction: Callable[[str | None], str]
    enabled: bool = True
    retried: bool = False
    retry_reason: str | None = None
    events: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        if not self.enabled:
            return "disabled"
        if not self.intent.needs_tool and not self.retried:
            return "not_needed"
        return "retried" if self.retried else "passed"

    def review_calls(self, calls: Sequence[ToolCall], executed: Sequence[ExecutedCall]) -> GuardVerdict:
        if not self.enabled or not self.intent.needs_tool:
            return Accept()
        expected = set(self.intent.tools)
        names = {c.name for c in calls}
        wrong = sorted(n for n in names if n in self.mutating_tools and n not in expected)
        if not wrong or names & expected:
            return Accept()
        # A different mutating tool (e.g. complete when the user said delete) is never run.
        return self._retry(self._missing(executed), reason="wrong_tool")

    def review_final(self, text: str, executed: Sequence[ExecutedCall]) -> GuardVerdict:
        if not self.enabled:
            return Accept()
        if self.intent.needs_tool and self._missing(executed) is not None and not self._any_expected_ran(executed):
            return self._retry(self._missing(executed), reason="missing_tool")
        if self.intent.kind == "chat" and not executed and claims_action(text):
            return self._retry(None, reason="ghost_claim")
        return Accept()

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        # Any expected tool having run is enough: a classifier that over-detects ("add Book list")
        # must not cost a second LLM call, and the reply only ever describes what really ran.
        ran = {e.call.name for e in executed if e.ran and not e.result.model_fixable}
        if self.enabled and self.intent.needs_tool:
            return bool(ran & set(self.intent.tools))
        return bool(ran)

    def _retry(self, tool: str | None, *, reason: str) -> GuardVerdict:
        if self.retried:
            self.events.append(f"gave_up:{reason}")
            return GiveUp(message=TOOL_NOT_TRIGGERED, reason=reason)
        self.retried = True
        self.retry_reason = reason
        self.events.append(f"retry:{reason}")
        return ForceRetry(tool=tool, instruction=self.instruction(tool), reason=reason)

    def _missing(self, executed: Sequence[ExecutedCall]) -> str | None:
        ran = {e.call.name for e in executed if e.ran}
        return next((t for t in self.intent.tools if t not in ran), self.intent.primary)

    def _any_expected_ran(self, executed: Sequence[ExecutedCall]) -> bool:
        return any(e.ran and e.call.name in self.intent.tools for e in executed)
