"""Synthetic executed calls and the guard of a message, for tests of what is made of a run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from backend.app.agent.guard_protocol import Accept, CallsVerdict, FinalVerdict, ForceRetry, GiveUp, Words
from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import GuardEvent
from backend.app.calls.payloads import DeletedTask, TaskNamed
from backend.app.calls.types import ExecutedCall, ToolCall, ToolResult
from backend.app.language.reading.intent import classify
from backend.app.services.guard.execution import ExecutionGuard

_Final = TypeVar("_Final", bound=FinalVerdict)
MUTATING = frozenset({"add_task", "complete_task", "delete_task", "update_task"})


def guard(message: str, *, model_mode: bool = False) -> ExecutionGuard:
    return ExecutionGuard(
        intent=classify(message),
        message=message,
        mutating_tools=MUTATING,
        instruction=lambda tool: tool,
        ghost_instruction="",
        words_beside_results=model_mode,
    )


@dataclass
class Reviews:
    """A guard's reviews in one run, as the loop makes them: each is handed the events decided before
    it, and what it returns (its events, its verdict on the words) is kept here, not in the guard."""

    guard: ExecutionGuard
    events: list[GuardEvent] = field(default_factory=list)
    words: Words | None = None

    @property
    def intent(self) -> Any:
        return self.guard.intent

    @property
    def outcome(self) -> str:
        return self.guard.outcome(self.events)

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        return self.guard.covered(executed)

    def review_calls(
        self, calls: Sequence[ToolCall], executed: Sequence[ExecutedCall], *, step: int, forced: bool
    ) -> CallsVerdict:
        verdict = self.guard.review_calls(calls, executed, step=step, forced=forced, decided=list(self.events))
        self.events += verdict.events
        return verdict

    def review_results(self, executed: Sequence[ExecutedCall], *, step: int) -> ForceRetry | None:
        verdict = self.guard.review_results(executed, step=step, decided=list(self.events))
        self.events += verdict.events if verdict is not None else ()
        return verdict

    def review_final(self, text: str, executed: Sequence[ExecutedCall], *, step: int) -> FinalVerdict:
        return self._kept(self.guard.review_final(text, executed, step=step, decided=list(self.events)))

    def review_checked(
        self, text: str, arguments: dict[str, Any] | None, executed: Sequence[ExecutedCall], *, step: int
    ) -> Accept | ForceRetry:
        verdict = self.guard.review_checked(text, arguments, executed, step=step, claimed=(), decided=list(self.events))
        return self._kept(verdict)

    def _kept(self, verdict: _Final) -> _Final:
        self.events += verdict.events
        if isinstance(verdict, Accept | GiveUp) and verdict.words is not None:
            self.words = verdict.words
        return verdict


def done(name: str, title: str, *, step: int = 0, **arguments: Any) -> ExecutedCall:
    data: TaskNamed | DeletedTask = {"id": f"id-{title}", "title": title}
    if name == "delete_task":
        data = {"id": f"id-{title}", "title": title, "status": "deleted"}
    args = arguments or ({"title": title} if name == "add_task" else {"task_id": title})
    return ExecutedCall(ToolCall(f"c{step}{title}", name, args), args, ToolResult(True, data=data), step, 0)


def failed(
    name: str, target: str, code: str, *, step: int = 0, ran: bool = True, fixable: bool = False
) -> ExecutedCall:
    args = {"title": target} if name == "add_task" else {"task_id": target}
    result = ToolResult(False, error=f"{code} error", code=ResultCode(code), model_fixable=fixable)
    return ExecutedCall(ToolCall(f"f{step}{target}", name, args), args, result, step, 0, ran=ran)
