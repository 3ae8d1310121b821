"""What the loop asks of an execution guard. The guard itself belongs to the service layer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from backend.app.agent.types import ExecutedCall, ToolCall


@dataclass(frozen=True, slots=True)
class Accept:
    pass


@dataclass(frozen=True, slots=True)
class ForceRetry:
    """Ask once more with `instruction` appended and `tool` forced (None: any tool, 'required')."""

    tool: str | None
    instruction: str
    reason: str


@dataclass(frozen=True, slots=True)
class GiveUp:
    message: str
    reason: str


GuardVerdict = Accept | ForceRetry | GiveUp


class StepGuard(Protocol):
    def review_calls(self, calls: Sequence[ToolCall], executed: Sequence[ExecutedCall]) -> GuardVerdict:
        """Before any call of a step runs (e.g. the wrong mutating tool for the intent)."""
        ...

    def review_final(self, text: str, executed: Sequence[ExecutedCall]) -> GuardVerdict:
        """When the model answers without tool calls."""
        ...

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        """True when the tools the request needs have run (results fully describe the outcome)."""
        ...


class ReplyComposer(Protocol):
    def compose(self, executed: Sequence[ExecutedCall]) -> str:
        """A reply built from tool results only (direct mode, empty finals, honest failures)."""
        ...
