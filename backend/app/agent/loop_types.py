"""Typed values the tool loop works with. Provider JSON never gets past `normalize.py`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypedDict, final

from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import GuardReason
from backend.app.calls.types import ToolCall, ToolResult, ToolSpec

ToolChoice = str | dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(slots=True)
class LLMResponse:
    content: str
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: Usage
    normalizations: list[str] = field(default_factory=list)
    model: str | None = None


TextSink = Callable[[str], None]  # hears a reply's text as it arrives, piece by piece


class Heard:
    """A text sink that passes each non-empty piece on (when there is a listener) and counts them."""

    __slots__ = ("listener", "pieces")

    def __init__(self, listener: TextSink | None) -> None:
        self.listener = listener
        self.pieces = 0

    def __call__(self, piece: str) -> None:
        if piece and self.listener is not None:
            self.pieces += 1
            self.listener(piece)


@dataclass(frozen=True, slots=True)
class Attempt:
    """One model asked for one request: `code` None when it answered, else why it failed."""

    model: str
    code: str | None
    detail: str | None


class ChatCompletionsClient(Protocol):
    """An OpenAI-compatible `/chat/completions` endpoint (real server or the offline model).
    `on_text`, when given, hears the answer's text as it arrives (a streamed answer); a client that
    does not stream simply never calls it. `attempts`, when given, is told of each model asked (a
    client of several models, agent/fallback.py; one model says nothing)."""

    label: str

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: TextSink | None = None,
        attempts: list[Attempt] | None = None,
    ) -> dict[str, Any]: ...


class StopReason(StrEnum):
    """Why a run ended. `final` and `composed` are answers; the rest stop a turn early."""

    FINAL = "final"  # the model answered
    COMPOSED = "composed"  # every action asked for was attempted: the reply is built from results
    TOOL_NOT_TRIGGERED = "tool_not_triggered"  # the guard's forced retry still ran no tool
    NO_TOOL_CALLS = "no_tool_calls"  # an `enforced` preset and no call at all
    MAX_STEPS = "max_steps"
    BUDGET_EXCEEDED = "budget_exceeded"
    REPEATED_CALL = "repeated_call"
    MODEL_FIX_RETRIES_EXHAUSTED = "model_fix_retries_exhausted"
    TOOL_ERROR = "tool_error"  # tool_failure_policy "fatal"
    LLM_ERROR = "llm_error"  # the model server failed after a tool had already changed something


ANSWERED = frozenset({StopReason.FINAL, StopReason.COMPOSED})


class FindingKind(StrEnum):
    PLAN_DEVIATION = "PlanDeviation"  # the tools that ran differ from the ones the message asked for
    REPEATED_CALL = "RepeatedCall"  # the same call twice: no progress, the turn stopped
    BUDGET_EXCEEDED = "BudgetExceeded"
    UNBACKED_CLAIM = "UnbackedClaim"  # the model's reply claimed what no successful call did
    DENIED_SUCCESS = "DeniedSuccess"  # the model's reply said a call failed that succeeded
    GHOST_CLAIM = "GhostClaim"  # the model claimed a change and no tool ran at all
    ACTION_NOT_DONE = "ActionNotDone"  # something the user asked for was not attempted


@final
class PlanDeviated(TypedDict):
    """PlanDeviation: the mutating tools expected and those that ran."""

    expected: list[str]
    executed: list[str]
    unexpected: list[str]
    missing: list[str]


@final
class CallRepeated(TypedDict):
    """RepeatedCall: the call made twice, and in which step."""

    tool: str
    arguments: dict[str, Any] | None
    step: int


@final
class BudgetSpent(TypedDict):
    """BudgetExceeded: which budget, how much was used, and its limit."""

    budget: str
    used: float
    limit: float


@final
class WordsNotShown(TypedDict):
    """UnbackedClaim, DeniedSuccess, GhostClaim: what the model's words claimed, and the words."""

    claims: list[str]
    model_reply: str


@final
class ActionSkipped(TypedDict):
    """ActionNotDone: the action asked for, why it was not done, and what the user was told."""

    action: str
    reason: str
    message: str


@dataclass(slots=True)
class Finding:
    """Something worth counting about a turn; `detail` is what a dashboard or a reader needs (one
    shape per kind; in the stored metadata its keys sit beside `kind`)."""

    kind: FindingKind
    detail: PlanDeviated | CallRepeated | BudgetSpent | WordsNotShown | ActionSkipped

    @property
    def budget(self) -> str | None:
        """The budget a BudgetExceeded finding is about (the metrics' label)."""
        if "budget" not in self.detail:
            return None
        return self.detail["budget"]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, **self.detail}


class LoopRetry(StrEnum):
    """Why the loop itself asks the model again (the guard's reasons are `GuardReason`s)."""

    EMPTY_FINAL = "empty_final"  # tools ran and the model's answer was empty: one more request
    PHASE_SWITCH = "phase_switch"  # two_phase: the read phase is over, the write phase begins


@dataclass(frozen=True, slots=True)
class StepRequest:
    """What a step's request offered: the tools, the tool_choice (a label), how many messages, the phase."""

    tools: tuple[str, ...]
    tool_choice: str | None
    messages: int
    phase: str | None = None


@dataclass(frozen=True, slots=True)
class StepTrace:
    """One request to the model and what came of it. Empty or unset fields did not happen (no
    retry, no errors); `model` and `fallbacks` only with several models: the one that answered, and
    those that failed before it. Built whole when the answer comes; what the step's decisions add
    later (its retry, refused or failed calls, `respond`) comes in with `dataclasses.replace`."""

    step: int
    request: StepRequest
    latency_ms: float
    usage: Usage
    finish_reason: str | None
    calls: tuple[str, ...]
    ignored_override_keys: tuple[str, ...] = ()
    normalizations: tuple[str, ...] = ()
    retry: GuardReason | LoopRetry | None = None
    ignored_tool_calls: int = 0
    errors: tuple[ResultCode | None, ...] = ()
    respond: bool = False
    model: str | None = None
    fallbacks: tuple[Attempt, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckTrace:
    """The reply check's request (`check`: the tool it forced); `error` when it could not be made or
    read, `latency_ms` and `usage` once the model answered it."""

    step: int
    check: str
    answered: bool
    latency_ms: float | None = None
    usage: Usage | None = None
    error: str | None = None


Trace = StepTrace | CheckTrace  # the run's trace: one per request, in order


@dataclass(frozen=True, slots=True)
class PolicyChange:
    """A change the tool policy made to its plan during the run (`event`: required_satisfied,
    phase_switch), with the tool_choice it moved to, the phase (`to`) and why."""

    step: int
    event: str
    tool_choice: str | None = None
    to: str | None = None
    why: str | None = None


@dataclass(frozen=True, slots=True)
class NextStepRunTools:
    """Run these calls; `refused` (by index) are recorded with the result given instead of running them."""

    calls: list[ToolCall]
    refused: dict[int, ToolResult] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NextStepFinalOutput:
    text: str


@dataclass(frozen=True, slots=True)
class NextStepRetry:
    """Ask the model again (guard retry, empty-final fix, phase switch): with `instruction` appended,
    `tool_choice` for that one request (None: the policy's), `respond` offered beside the tools when
    the forced retry needs a way out, and no tools at all when `send_tools` is False. The runner
    acts on it; deciding it changes nothing."""

    reason: GuardReason | LoopRetry
    instruction: str | None
    tool_choice: ToolChoice
    send_tools: bool = True
    offer_respond: bool = False

    @property
    def from_guard(self) -> bool:
        """The guard's retry: the calls from here on are marked retried, with its reason."""
        return isinstance(self.reason, GuardReason)


@dataclass(frozen=True, slots=True)
class NextStepCheck:
    """Before `text` can be the final answer: one request with `tool` forced and `messages`, whose
    answer the guard reads (what the words claim); then the guard's verdict decides what follows."""

    text: str
    tool: ToolSpec
    messages: list[dict[str, Any]]
    claimed: tuple[str, ...] = ()  # claims the word lists read without their kind, for the guard's verdict


@dataclass(frozen=True, slots=True)
class NextStepAsk:
    """Ask the model again as the policy says: the step's calls ran and nothing else follows from them."""


@dataclass(frozen=True, slots=True)
class NextStepStop:
    """End the loop without a model answer; `detail` names what ran out (a budget's kind)."""

    reason: StopReason
    detail: str | None = None


NextStep = NextStepRunTools | NextStepFinalOutput | NextStepRetry | NextStepCheck | NextStepAsk | NextStepStop
