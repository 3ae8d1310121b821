"""A run's inputs and outputs: what the loop is given (`RunOptions`), what it returns (`RunResult`), what
the reply reads of any turn's work (`RunRecord`) and the observers that hear of it as it goes
(`CallsObserver`, `ReplyObserver`). Kept out of runner.py so that the services that build and read them,
and the loop's own modules, need not import the loop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from backend.app.agent.guard_protocol import Words
from backend.app.agent.limits import BudgetUse
from backend.app.agent.loop_types import (
    ANSWERED,
    Finding,
    PolicyChange,
    StopReason,
    TextSink,
    Trace,
)
from backend.app.calls.decisions import GuardEvent
from backend.app.calls.types import ExecutedCall
from backend.app.core.exceptions import LLMError


@dataclass(frozen=True, slots=True)
class RunOptions:
    max_steps: int = 6
    tool_use_mode: Literal["enforced", "relaxed", "disabled"] = "relaxed"
    tool_failure_policy: Literal["fatal", "tolerated"] = "tolerated"
    max_tool_calls_per_step: int | None = None
    max_tool_args_bytes: int = 200_000
    max_tool_output_bytes: int = 200_000
    max_model_fix_retries: int = 2
    max_destructive_calls: int = 5
    fix_empty_final: bool = True
    max_tokens: int | None = 1024
    request_overrides: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class RunResult:
    """What a run did. `text` is the model's own final words ("" when it gave none or the run
    stopped); everything the user reads is composed from these facts by the service. The guard's
    decisions are `guard_events`, in order, and its verdict on the final words `words` (None: no
    guard read any)."""

    text: str
    executed: list[ExecutedCall]
    stop_reason: StopReason
    ok: bool
    use: BudgetUse
    trace: list[Trace]
    findings: list[Finding]
    policy_events: list[PolicyChange]
    stop_detail: str | None = None
    error: LLMError | None = None
    guard_events: list[GuardEvent] = field(default_factory=list)
    words: Words | None = None

    @property
    def error_code(self) -> str | None:
        """The LLM error's code, or the stop reason in capitals for a run that did not answer."""
        if self.error is not None:
            return self.error.code
        return None if self.stop_reason in ANSWERED else self.stop_reason.value.upper()


class RunRecord(Protocol):
    """What the reply, the question it may ask and the turn's metrics read of a turn's work, whichever
    kind it was: a run of the loop (`RunResult`) or one that asked no model (services/
    confirmation_answers.py `AnswerRun`: the calls a yes to the pending question stands for)."""

    @property
    def executed(self) -> Sequence[ExecutedCall]: ...

    @property
    def stop_reason(self) -> StopReason: ...

    @property
    def stop_detail(self) -> str | None: ...

    @property
    def guard_events(self) -> Sequence[GuardEvent]: ...

    @property
    def words(self) -> Words | None: ...

    @property
    def findings(self) -> Sequence[Finding]: ...


CallsObserver = Callable[[Sequence[ExecutedCall]], Awaitable[None]]


class ReplyObserver(Protocol):
    """Hears the model's words as they are produced (a streamed turn). Before each request the loop
    asks `step` for a sink for that answer's text (None: not to be heard); when the answer turns out
    not to be the final one (it calls tools, or the guard asks again), `void` says so."""

    def step(self, executed: Sequence[ExecutedCall]) -> TextSink | None: ...

    def void(self) -> None: ...
