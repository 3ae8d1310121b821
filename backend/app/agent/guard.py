"""What the loop asks of an execution guard. The guard itself belongs to the service layer.

The guard's decisions are values: the loop acts on them and nothing else. Before a step's calls run
the guard may refuse some (they are recorded with the result it gives, never run), ask that others
act only on what the user's words name (`grounded`), or ask for one more request instead. When the
model answers without calls it may accept, force one more request, or give up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from backend.app.agent.types import ExecutedCall, GuardReason, ToolCall, ToolResult


@dataclass(frozen=True, slots=True)
class Accept:
    pass


@dataclass(frozen=True, slots=True)
class ForceRetry:
    """Ask once more with `instruction` appended and `tool` forced (None: any tool, 'required').

    With `offer_respond` the request also offers a `respond` tool, so a model that was wrong to claim
    an action has a way to say so instead of inventing one."""

    tool: str | None
    instruction: str
    reason: GuardReason
    offer_respond: bool = False


@dataclass(frozen=True, slots=True)
class GiveUp:
    reason: GuardReason


@dataclass(frozen=True, slots=True)
class CallsVerdict:
    """The guard's word on one step's calls, by their index in the step."""

    refused: dict[int, ToolResult] = field(default_factory=dict)
    grounded: frozenset[int] = frozenset()
    grounding: str | None = None
    # A wider text for some grounded calls (the asked add: the message and the conversation before it).
    grounding_by_call: dict[int, str] = field(default_factory=dict)
    retry: ForceRetry | None = None


ACCEPT_CALLS = CallsVerdict()
FinalVerdict = Accept | ForceRetry | GiveUp


class StepGuard(Protocol):
    def review_calls(
        self, calls: Sequence[ToolCall], executed: Sequence[ExecutedCall], *, step: int, forced: bool
    ) -> CallsVerdict:
        """Before any call of a step runs; `forced` when the request forced a tool on the model."""
        ...

    def review_final(self, text: str, executed: Sequence[ExecutedCall], *, step: int) -> FinalVerdict:
        """When the model answers without tool calls."""
        ...

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        """True when every action the request asks for has been attempted (results tell the outcome)."""
        ...
