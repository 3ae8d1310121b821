"""What the loop asks of an execution guard. The guard itself belongs to the service layer.

The guard's decisions are values: the loop acts on them and nothing else. Before a step's calls run
the guard may refuse some (they are recorded with the result it gives, never run), ask that others
act only on what the user's words name (`grounding`), or ask for one more request instead. When the
model answers without calls it may accept, force one more request, give up, or ask that the words be
checked first: the loop then asks the model once what they claim (`CheckWords`) and hands the
answer back (`review_checked`).

A review changes nothing: each verdict carries the events it decided (`GuardEvent`s) and, once the
words are final, the verdict on them (`Words`); the loop keeps both in the run's record (`RunResult`)
and hands the events so far back to the next review (`decided`), which is all the guard remembers
of a run (what it already forced, asked again, retried).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from backend.app.calls.decisions import GuardEvent, GuardReason, Verdict
from backend.app.calls.facts import Grounding
from backend.app.calls.types import ExecutedCall, ToolCall, ToolResult, ToolSpec

Events = tuple[GuardEvent, ...]


class WordsVerdict(StrEnum):
    SHOWN = "shown"  # read by the word lists only (no check asked: the guard is off or checks are)
    VERIFIED = "verified"  # the model's check matched what ran
    WITHHELD = "withheld"  # not shown: see `WordsReason`
    NOT_SHOWN = "not_shown"  # the reply is composed from the results (direct mode, tools ran)


class WordsReason(StrEnum):
    """Why the model's words were withheld (`execution_metadata.reply.replaced`)."""

    GHOST_CLAIM = "ghost_claim"  # claimed a change, none succeeded
    UNBACKED_CLAIM = "unbacked_claim"  # claimed a change (a task, an action) no successful call made
    DENIED_SUCCESS = "denied_success"  # said a change failed that succeeded
    HIDES_FAILURE = "hides_failure"  # something failed, was refused or is asked about
    UNVERIFIED = "unverified"  # the check that would verify them could not be read
    ALTERED = (
        "altered"  # written for arguments the backend did not use (dropped, repaired, a search that found nothing)
    )


@dataclass(frozen=True, slots=True)
class Words:
    """The model's final words and whether the user may read them, and why not (`WordsReason`)."""

    text: str
    verdict: WordsVerdict
    reason: WordsReason | None = None
    claims: tuple[str, ...] = ()

    @property
    def shown(self) -> bool:
        return self.verdict in (WordsVerdict.SHOWN, WordsVerdict.VERIFIED)


@dataclass(frozen=True, slots=True)
class Accept:
    """The words may end the run; `words`: the verdict on them (None: the guard read none)."""

    words: Words | None = None
    events: Events = ()


@dataclass(frozen=True, slots=True)
class ForceRetry:
    """Ask once more with `instruction` appended and `tool` forced (None: any tool, 'required'), as the
    decision table's `verdict` says (FORCE, REQUIRE or ANSWER_AGAIN).

    With `offer_respond` the request also offers a `respond` tool, so a model that was wrong to claim
    an action has a way to say so instead of inventing one. With `answer_only` no tools are sent at
    all: the model can only answer in words."""

    verdict: Verdict
    tool: str | None
    instruction: str
    offer_respond: bool = False
    answer_only: bool = False
    events: Events = ()

    @property
    def reason(self) -> GuardReason:
        assert self.verdict.reason is not None, self.verdict.rule
        return self.verdict.reason


@dataclass(frozen=True, slots=True)
class GiveUp:
    """The forced retry ran no tool either (the table's GIVE_UP)."""

    verdict: Verdict
    words: Words | None = None
    events: Events = ()

    @property
    def reason(self) -> GuardReason:
        assert self.verdict.reason is not None, self.verdict.rule
        return self.verdict.reason


@dataclass(frozen=True, slots=True)
class CheckWords:
    """Before the words can be the answer: one request with `tool` forced and these `messages`,
    whose call's arguments go back to the guard (`StepGuard.review_checked`) with `claimed`, the
    claims the word lists read without their kind (the check says which)."""

    tool: ToolSpec
    messages: list[dict[str, Any]]
    claimed: tuple[str, ...] = ()
    events: Events = ()


@dataclass(frozen=True, slots=True)
class CallsVerdict:
    """The guard's word on one step's calls, by their index in the step: the ones refused (never
    run), what the others may act on, and the events decided."""

    refused: dict[int, ToolResult] = field(default_factory=dict)
    grounding: dict[int, Grounding] = field(default_factory=dict)
    events: Events = ()


ACCEPT_CALLS = CallsVerdict()
FinalVerdict = Accept | ForceRetry | GiveUp | CheckWords


class StepGuard(Protocol):
    """Every review is handed `decided`, the events of the run so far, and returns its own."""

    def review_calls(
        self,
        calls: Sequence[ToolCall],
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        forced: bool,
        decided: Sequence[GuardEvent],
    ) -> CallsVerdict:
        """Before any call of a step runs; `forced` when the request forced a tool on the model."""
        ...

    def review_final(
        self, text: str, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> FinalVerdict:
        """When the model answers without tool calls (or through `respond`)."""
        ...

    def review_checked(
        self,
        text: str,
        arguments: dict[str, Any] | None,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        claimed: tuple[str, ...],
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry:
        """The answer to a `CheckWords` request: the checking call's arguments, None if there was none."""
        ...

    def review_results(
        self, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> ForceRetry | None:
        """Once a step's calls ran: one more request to make first, if any."""
        ...

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        """True when every action the request asks for has been attempted (results tell the outcome)."""
        ...
