"""What the loop asks of an execution guard. The guard itself belongs to the service layer.

The guard's decisions are values: the loop acts on them and nothing else. Before a step's calls run
the guard may refuse some (they are recorded with the result it gives, never run), ask that others
act only on what the user's words name (`grounding`), or ask for one more request instead. When the
model answers without calls it may accept, force one more request, give up, or ask that the words be
checked first: the loop then asks the model once what they claim (`CheckWords`) and hands the
answer back (`review_checked`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from backend.app.agent.types import GuardReason
from backend.app.calls.types import ExecutedCall, Grounding, ToolCall, ToolResult, ToolSpec


@dataclass(frozen=True, slots=True)
class Accept:
    pass


@dataclass(frozen=True, slots=True)
class ForceRetry:
    """Ask once more with `instruction` appended and `tool` forced (None: any tool, 'required').

    With `offer_respond` the request also offers a `respond` tool, so a model that was wrong to claim
    an action has a way to say so instead of inventing one. With `answer_only` no tools are sent at
    all: the model can only answer in words."""

    tool: str | None
    instruction: str
    reason: GuardReason
    offer_respond: bool = False
    answer_only: bool = False


@dataclass(frozen=True, slots=True)
class GiveUp:
    reason: GuardReason


@dataclass(frozen=True, slots=True)
class CheckWords:
    """Before the words can be the answer: one request with `tool` forced and these `messages`,
    whose call's arguments go back to the guard (`StepGuard.review_checked`)."""

    tool: ToolSpec
    messages: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class CallsVerdict:
    """The guard's word on one step's calls, by their index in the step: the ones refused (never
    run), what the others may act on, and the request to make after the step."""

    refused: dict[int, ToolResult] = field(default_factory=dict)
    grounding: dict[int, Grounding] = field(default_factory=dict)
    retry: ForceRetry | None = None


ACCEPT_CALLS = CallsVerdict()
FinalVerdict = Accept | ForceRetry | GiveUp | CheckWords


class StepGuard(Protocol):
    def review_calls(
        self, calls: Sequence[ToolCall], executed: Sequence[ExecutedCall], *, step: int, forced: bool
    ) -> CallsVerdict:
        """Before any call of a step runs; `forced` when the request forced a tool on the model."""
        ...

    def review_final(self, text: str, executed: Sequence[ExecutedCall], *, step: int) -> FinalVerdict:
        """When the model answers without tool calls (or through `respond`)."""
        ...

    def review_checked(
        self, text: str, arguments: dict[str, Any] | None, executed: Sequence[ExecutedCall], *, step: int
    ) -> Accept | ForceRetry:
        """The answer to a `CheckWords` request: the checking call's arguments, None if there was none."""
        ...

    def review_results(self, executed: Sequence[ExecutedCall], *, step: int) -> ForceRetry | None:
        """Once a step's calls ran: one more request to make first, if any."""
        ...

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        """True when every action the request asks for has been attempted (results tell the outcome)."""
        ...
