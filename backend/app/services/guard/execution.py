"""The execution guard: no success without a tool result behind it, no action nobody asked for.

It gathers the facts the loop's verdicts need (what the message asks as read, what the model's words
say, what ran) and takes each verdict from the decision table (calls/verdicts.py, docs/guard.md): a
step's changes (`review_calls`, through call_review.py), the model's words without the call the
message asks for (`review_final`, `review_checked`: accept, check, force once, give up), a step whose
changes were all refused on a message asking for none (`review_results`: ask again for words). It
keeps nothing of a run: each review returns its verdict with the events it decided, and is handed the
events decided so far (`decided`), which say what was already forced, retried or asked again.

The words (`Words`: what the reply may show of the model's own text) are reviewed by its base,
`WordsReview` (guard/words.py); whether the calls did what the message asks, by guard/coverage.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from backend.app.agent.guard_protocol import (
    Accept,
    CallsVerdict,
    CheckWords,
    FinalVerdict,
    ForceRetry,
    GiveUp,
    Words,
    WordsVerdict,
)
from backend.app.calls.decisions import Do, GuardDecision, GuardEvent, Verdict
from backend.app.calls.facts import AnswerFacts, Reading, ResultsFacts, Say
from backend.app.calls.tools import Tool, traits
from backend.app.calls.types import ExecutedCall, ToolCall
from backend.app.calls.verdicts import decide
from backend.app.core.jsontypes import JsonObject
from backend.app.language.reading.asks import Intent
from backend.app.services.guard.call_review import Answered, reading_of, review_changes
from backend.app.services.guard.claims import readable
from backend.app.services.guard.coverage import ASKED, missing
from backend.app.services.guard.events import forced_tools
from backend.app.services.guard.reply_check import TOOL_OF, Declaration, read_declaration
from backend.app.services.guard.words import WordsReview

# The claims' actions that a missing tool's change is (a completion and an edit stand in for each other).
_CLAIMED_AS: dict[str, set[str]] = {
    Tool.ADD: {"add"},
    Tool.DELETE: {"delete"},
    Tool.COMPLETE: {"complete", "update"},
    Tool.UPDATE: {"update"},
    Tool.UNDO: {"undo"},
}
REASK = (
    "Nothing was changed: the user's message does not ask for a change, so your tool call was not run. "
    "Answer the user's message now, in the language they wrote in, without saying that a task was changed."
)


_Verdict = TypeVar("_Verdict", bound=Accept | ForceRetry | GiveUp | CheckWords | CallsVerdict)


@dataclass(frozen=True, slots=True)
class ExecutionGuard(WordsReview):
    intent: Intent
    message: str  # the user's words
    mutating_tools: frozenset[str]
    instruction: Callable[[str], str]
    ghost_instruction: str
    enabled: bool = True
    context: str = ""  # the user's earlier messages (what an asked add may also take its title from)
    words_beside_results: bool = False  # model mode: the words are shown beside the results
    check: Callable[[str], CheckWords] | None = None  # asks what words claim; None: word lists only
    answered: Answered | None = None  # the assistant's question the user's message answers (a yes, a choice)

    # -- the verdicts the loop acts on --------------------------------------------------------------
    def review_calls(
        self,
        calls: Sequence[ToolCall],
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        forced: bool,
        decided: Sequence[GuardEvent],
    ) -> CallsVerdict:
        return review_changes(
            self.intent,
            calls,
            message=self.message,
            context=self.context,
            step=step,
            forced=forced,
            guarded=self.enabled,
            answered=self.answered,
        )

    def review_results(
        self, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> ForceRetry | None:
        """On a message that asks for no change, once the model's changes were all refused or found no
        task the user named (and nothing is asked about): it is asked again, with no tools, for an
        answer in words, which is checked like any other (once a turn)."""
        changes = [e for e in executed if e.step == step and e.call.name in self.mutating_tools]
        facts = ResultsFacts(
            guarded=self.enabled,
            reading=reading_of(self.intent),
            changes=bool(changes),
            all_refused=not any(e.result.success or e.result.code in ASKED for e in changes),
            asked_again=any(e.decision is GuardDecision.ASKED_AGAIN for e in decided),
        )
        verdict = decide(facts)
        if verdict.do is not Do.ANSWER_AGAIN:
            return None
        return ForceRetry(verdict, tool=None, instruction=REASK, answer_only=True, events=_events(verdict, step))

    def review_final(
        self, text: str, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> FinalVerdict:
        notes: list[GuardEvent] = []
        return _noted(self._final(notes, text.strip(), executed, step=step, decided=decided), notes)

    def review_checked(
        self,
        text: str,
        arguments: JsonObject | None,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        claimed: tuple[str, ...],
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry:
        """`claimed`: the claims the word lists read without their kind, which the check was to tell."""
        notes: list[GuardEvent] = []
        verdict = self._checked(notes, readable(text), arguments, executed, step=step, claimed=claimed, decided=decided)
        return _noted(verdict, notes)

    def _final(
        self,
        notes: list[GuardEvent],
        text: str,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        decided: Sequence[GuardEvent],
    ) -> FinalVerdict:
        missing = self._missing(executed) if self.intent.needs_tool else None
        if missing is not None:
            verdict = self._answer(missing, self._say(text, missing, executed), executed, decided)
            match verdict.do:
                case Do.TRUST:
                    self._note(notes, step, verdict, missing)
                case Do.GIVE_UP:
                    self._note(notes, step, verdict, missing)
                    return GiveUp(verdict, words=Words(text, WordsVerdict.NOT_SHOWN))
                case Do.FORCE:
                    return self._force(notes, step, missing, verdict)
                case Do.CHECK:  # whether the words claim it, before anything else is made of them
                    self._note(notes, step, verdict)
                    assert self.check is not None
                    return self.check(text)
        return self._read_words(notes, text, executed, step=step, decided=decided)

    def _answer(
        self, missing: str, say: Say, executed: Sequence[ExecutedCall], decided: Sequence[GuardEvent]
    ) -> Verdict:
        """The table's word on words without the call of `missing`, which the message asks for."""
        return decide(
            AnswerFacts(
                guarded=self.enabled,
                reading=Reading.ASKED,
                say=say,
                missing=True,
                forced_before=missing in forced_tools(decided),
                ran=any(e.ran for e in executed),
                acted=any(e.call.name in self.mutating_tools for e in executed),
                read_instead=traits(missing).destructive and any(traits(e.call.name).reads for e in executed),
                checkable=self.check is not None,
            )
        )

    def _say(self, text: str, tool: str, executed: Sequence[ExecutedCall]) -> Say:
        """What the words say of the change of `tool`, as the word lists read them (what they do not
        read, a check of the words may). A bare "Done!" claims it only when no change ran: after
        changes, it is about them."""
        if not text:
            return Say.EMPTY
        kinds = _CLAIMED_AS.get(tool, set())
        bare = not self._changed(executed)
        # A claim's own kind is its verb's first tool ("erledigt" reads as a completion, which an edit
        # may also make: it claims no edit).
        if any(
            (bare and not c.tools) or (c.tools and c.tools[0] in {TOOL_OF.get(k) for k in kinds})
            for c in self.claims_in(text)
        ):
            return Say.CLAIMS
        return Say.NOTHING if self.check is None else Say.UNKNOWN

    def _checked(
        self,
        notes: list[GuardEvent],
        text: str,  # what was checked: the words as far as the lists read them
        arguments: JsonObject | None,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        claimed: tuple[str, ...],
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry:
        declared = read_declaration(arguments)
        missing = self._missing(executed) if self.enabled and self.intent.needs_tool else None
        if missing is None:
            return self._verified(notes, text, declared, executed, step=step, claimed=claimed, decided=decided)
        if declared is not None and _declares(declared, missing):
            # The words claim the change the message asks for, which no call made: its tool, forced once.
            verdict = self._answer(missing, Say.CLAIMS, executed, decided)
            if verdict.do is Do.FORCE:
                return self._force(notes, step, missing, verdict)
        # They do not (or the check cannot tell): the words go through their review, with this answer.
        reviewed = self._read_words(notes, text, executed, step=step, decided=decided, answer=(declared, claimed))
        assert not isinstance(reviewed, CheckWords)
        return reviewed

    # -- facts the reply needs -----------------------------------------------------------------------
    def _missing(self, executed: Sequence[ExecutedCall]) -> str | None:
        return missing(self.intent, executed)

    def outcome(self, events: Sequence[GuardEvent]) -> str:
        """One word for dashboards, from the run's events: disabled, not_needed, passed, retried or
        tool_not_triggered."""
        if not self.enabled:
            return "disabled"
        if any(e.decision is GuardDecision.GAVE_UP for e in events):
            return "tool_not_triggered"
        if any(e.decision is GuardDecision.FORCED for e in events):
            return "retried"
        return "passed" if self.intent.needs_tool else "not_needed"


def _declares(declared: Declaration, tool: str) -> bool:
    """Whether a check's declaration says the change of `tool` was made."""
    kinds = _CLAIMED_AS.get(tool, set())
    return any(c.action in kinds for c in declared.done)


def _events(verdict: Verdict, step: int) -> tuple[GuardEvent, ...]:
    event = verdict.event(step)
    return (event,) if event is not None else ()


def _noted(verdict: _Verdict, notes: list[GuardEvent]) -> _Verdict:
    """The verdict with the events its review decided, in order (after any it carries already)."""
    return replace(verdict, events=verdict.events + tuple(notes)) if notes else verdict
