"""Typed values the tool loop works with. Provider JSON never gets past `normalize.py`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

ToolChoice = str | dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it; `read_only`/`destructive` drive policies and caps."""

    name: str
    description: str
    parameters: dict[str, Any]
    read_only: bool = False
    destructive: bool = False

    def to_openai(self, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
        """The OpenAI `tools` entry; `parameters` replaces the schema (a preset's adapted copy)."""
        schema = self.parameters if parameters is None else parameters
        function = {"name": self.name, "description": self.description, "parameters": schema}
        return {"type": "function", "function": function}


@dataclass(slots=True)
class ToolCall:
    """One call the model asked for. `error` is set when normalization already knows it cannot run."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    error: ToolError | None = None
    source: Literal["tool_calls", "function_call", "content_tag"] = "tool_calls"


@dataclass(frozen=True, slots=True)
class ToolError:
    code: str
    message: str


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


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The envelope every tool returns; `model_fixable` errors go back to the model."""

    success: bool
    data: Any = None
    error: str | None = None
    code: str | None = None
    warnings: tuple[str, ...] = ()
    model_fixable: bool = False

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"success": self.success, "data": self.data, "error": self.error}
        if self.code:
            payload["code"] = self.code
        if self.warnings:
            payload["warnings"] = list(self.warnings)
        return payload

    @classmethod
    def fixable(cls, code: str, message: str, **data: Any) -> ToolResult:
        return cls(success=False, error=message, code=code, model_fixable=True, data=data or None)


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """What a ToolExecutor did with one step's calls (same order as the calls)."""

    results: list[ToolResult]
    executed_arguments: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class StepInfo:
    """Whether a batch's step is the guard's forced retry, and why: what an executor records with the
    calls, beside their effects."""

    retried: bool = False
    retry_reason: str | None = None


class ToolExecutor(Protocol):
    """What the loop needs from the application's tools; it knows nothing else about them."""

    def specs(self) -> Sequence[ToolSpec]: ...

    async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchOutcome: ...


class ChatCompletionsClient(Protocol):
    """An OpenAI-compatible `/chat/completions` endpoint (real server or the offline model)."""

    label: str

    async def create(self, body: dict[str, Any], *, deadline: float) -> dict[str, Any]: ...


@dataclass(slots=True)
class ExecutedCall:
    call: ToolCall
    arguments: dict[str, Any]
    result: ToolResult
    step: int
    duration_ms: float
    retried: bool = False
    retry_reason: str | None = None
    ran: bool = True  # False when a check refused the call before it reached the tools


@dataclass(frozen=True, slots=True)
class NextStepRunTools:
    calls: list[ToolCall]


@dataclass(frozen=True, slots=True)
class NextStepFinalOutput:
    text: str


@dataclass(frozen=True, slots=True)
class NextStepRetry:
    """Ask the model again (guard retry, empty-final fix); `tool_choice` may force a function."""

    reason: str
    instruction: str | None
    tool_choice: ToolChoice
    send_tools: bool = True


@dataclass(frozen=True, slots=True)
class NextStepStop:
    """End the loop without a model answer; `reason` is recorded and shown to the user."""

    reason: str
    message: str


NextStep = NextStepRunTools | NextStepFinalOutput | NextStepRetry | NextStepStop
