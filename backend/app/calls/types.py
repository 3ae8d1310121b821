"""A tool call, its result and the executor that runs a step's calls: the types the loop and the
tools both speak. Provider JSON becomes a `ToolCall` in `agent/normalize.py`; a tool answers with a
`ToolResult` whose `code` is a `ResultCode`."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import Payload

if TYPE_CHECKING:
    from backend.app.calls.facts import Grounding


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
    """One call the model asked for. `error` is set when normalization already knows it cannot run.

    `grounding` is set by the guard: what the decision table lets the call act on (`Grounding`).
    `expected_version` is set by a REST request's `If-Match`, never by a model: the call changes the
    task only at that version. `expected_change` and `repeat_window_s`, likewise from REST
    only: an undo reverts the newest change set only if it is this one (the change the client saw);
    within that many seconds of the last undo it answers that undo again (a double-click)."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    error: ToolError | None = None
    source: Literal["tool_calls", "function_call", "content_tag"] = "tool_calls"
    grounding: Grounding | None = None
    expected_version: int | None = None
    expected_change: uuid.UUID | None = None
    repeat_window_s: float = 0.0


@dataclass(frozen=True, slots=True)
class ToolError:
    code: ResultCode
    message: str


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The envelope every tool returns; `model_fixable` errors go back to the model."""

    success: bool
    data: Payload | None = None
    error: str | None = None
    code: ResultCode | None = None
    warnings: tuple[str, ...] = ()
    model_fixable: bool = False
    # Values the call was not let store, or filters not applied, because the user's words do not give
    # them (the decision table's row V6): {"argument", "value"} each.
    dropped: tuple[dict[str, Any], ...] = ()

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"success": self.success, "data": self.data, "error": self.error}
        if self.code:
            payload["code"] = str(self.code)
        if self.warnings:
            payload["warnings"] = list(self.warnings)
        if self.dropped:
            payload["dropped"] = list(self.dropped)
        return payload

    @classmethod
    def fixable(cls, code: ResultCode, message: str, data: Payload | None = None) -> ToolResult:
        return cls(success=False, error=message, code=code, model_fixable=True, data=data)


@dataclass(frozen=True, slots=True)
class BatchResult:
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

    async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchResult: ...


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
