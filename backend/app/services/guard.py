"""The execution guard: no success without a tool result behind it, no action nobody asked for.

It makes the decisions the loop acts on (`agent/guard.py`) and keeps nothing of a run: each review
returns its verdict with the events it decided, and is handed the events decided so far (`decided`),
which say what was already forced, retried or asked again. Which of a step's changes run, are
refused, act only on what the user's words name or are asked about is decided in `call_review.py`;
the guard passes those decisions on and forces the tool asked for, once. What a turn's records make
of the events (guard_events.py: `silent`, `retry_reason`; the guard's `outcome` word) is read from
the events the run's record keeps (`RunResult.guard_events`).

The retries (README, "The guard and the reply"):

- A clear command answered without its tool: one forced retry of that tool, per action kind; a
  forced change acts only on a task the words asking for that action name. Still no tool:
  "Technical error: Tool not triggered." when nothing at all was done; else the reply names the
  action not done. A read or an edit the model chose instead of a delete or complete stands.
- A message that asks for no change, whose every change was refused: the model is asked again, with
  no tools, for an answer in words.

The words (`Words`, agent/guard.py: what the reply may show of the model's own text):

- Never shown beside a change that did not happen: when a call of the turn failed, was refused or is
  asked about, the words are not shown, unless the message asked for no change and the words came
  after the model was told its changes were not run.
- In `direct` mode they are shown only when no call ran; in `model` mode beside the results.
- When shown, every claim the word lists read must match a successful call with that action on that
  task; then the model is asked what its words claim (`reply_check.py`): every claimed change must
  match a successful call, no change that succeeded may be denied, and an unreadable check verifies
  nothing. A claimed change on a message read as nothing at all gets one retry with the tools
  required and a `respond` tool as the way out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from backend.app.agent.guard import (
    ACCEPT_CALLS,
    Accept,
    CallsVerdict,
    CheckWords,
    FinalVerdict,
    ForceRetry,
    GiveUp,
    Words,
    WordsReason,
    WordsVerdict,
)
from backend.app.agent.types import GuardDecision, GuardEvent, GuardReason
from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import title_of
from backend.app.calls.types import ExecutedCall, ToolCall
from backend.app.services.call_review import EDIT_TOOL, READ_TOOLS, review_changes
from backend.app.services.calls import final_calls
from backend.app.services.claims import Claim, claims, denial, readable
from backend.app.services.clauses import names_something
from backend.app.services.guard_events import forced_tools, silent
from backend.app.services.intent import Action, Intent
from backend.app.services.reply_check import TOOL_OF, made_by, read_declaration, titles_of
from backend.app.tools.resolver import named_in

DESTRUCTIVE = frozenset({"delete_task", "complete_task", "undo_last_change"})
CHANGING = frozenset({"add_task", "delete_task", "complete_task"})
CLAIMABLE = frozenset({"add_task", "delete_task", "complete_task", "update_task"})  # a claim may be asked about
REASK = (
    "Nothing was changed: the user's message does not ask for a change, so your tool call was not run. "
    "Answer the user's message now, in the language they wrote in, without saying that a task was changed."
)


def satisfies(call: ExecutedCall, action: Action) -> bool:
    """Whether a call attempted the action: one of its tools, or an edit standing in for a change on
    the task the action's words name (an edit of another task leaves "delete the fridge" undone)."""
    if call.result.code == ResultCode.WRONG_TOOL:
        return False
    if call.call.name in action.tools:
        return True
    if call.call.name != EDIT_TOOL or action.tool not in CHANGING:
        return False
    if not names_something(action.about):
        return True
    targets = [str(t) for t in (title_of(call.result.data), (call.arguments or {}).get("task_id")) if t]
    return any(named_in(action.about, t) or named_in(t, action.about) for t in targets)


_Verdict = TypeVar("_Verdict", bound=Accept | ForceRetry | GiveUp | CheckWords | CallsVerdict)


@dataclass(frozen=True, slots=True)
class ExecutionGuard:
    intent: Intent
    message: str  # the user's words
    mutating_tools: frozenset[str]
    instruction: Callable[[str], str]
    ghost_instruction: str
    enabled: bool = True
    context: str = ""  # the user's earlier messages (what an asked add may also take its title from)
    words_beside_results: bool = False  # model mode: the words are shown beside the results
    check: Callable[[str], CheckWords] | None = None  # asks what words claim; None: word lists only

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
        if not self.enabled:
            return ACCEPT_CALLS
        changes = [i for i, c in enumerate(calls) if c.name in self.mutating_tools]
        if not changes:
            return ACCEPT_CALLS
        review = review_changes(
            self.intent,
            calls,
            changes,
            message=self.message,
            context=self.context,
            missing=self._missing(executed) if self.intent.needs_tool else None,
            step=step,
            forced=forced,
        )
        if review.force is None or review.force in forced_tools(decided):
            return review.verdict
        notes: list[GuardEvent] = []
        retry = self._force(notes, step, review.force, GuardReason.WRONG_TOOL)
        return _noted(replace(review.verdict, retry=retry), notes)

    def review_results(
        self, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> ForceRetry | None:
        """On a message that asks for no change, once the model's changes were all refused or found no
        task the user named (and nothing is asked about): it is asked again, with no tools, for an
        answer in words, which is checked like any other (once a turn)."""
        if not self.enabled or self.intent.needs_tool or self.intent.kind == "too_long":
            return None
        if any(e.decision is GuardDecision.ASKED_AGAIN for e in decided):
            return None
        changes = [e for e in executed if e.step == step and e.call.name in self.mutating_tools]
        if not changes or any(e.result.success or e.result.code == ResultCode.NEEDS_CONFIRMATION for e in changes):
            return None
        asked = GuardEvent(step, GuardDecision.ASKED_AGAIN, GuardReason.NOT_ASKED)
        return ForceRetry(tool=None, instruction=REASK, reason=GuardReason.NOT_ASKED, answer_only=True, events=(asked,))

    def review_final(
        self, text: str, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> FinalVerdict:
        notes: list[GuardEvent] = []
        return _noted(self._final(notes, text.strip(), executed, step=step, decided=decided), notes)

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
        if self.enabled and self.intent.needs_tool:
            missing = self._missing(executed)
            if missing is not None:
                if missing in DESTRUCTIVE and (chosen := self._model_chose_other(executed)) is not None:
                    self._note(notes, step, GuardDecision.TRUSTED, chosen, missing)
                elif missing not in forced_tools(decided):
                    return self._force(notes, step, missing, GuardReason.MISSING_TOOL)
                elif not any(e.ran for e in executed):
                    self._note(notes, step, GuardDecision.GAVE_UP, GuardReason.MISSING_TOOL, missing)
                    return GiveUp(reason=GuardReason.MISSING_TOOL, words=Words(text, WordsVerdict.NOT_SHOWN))
        return self._read_words(notes, text, executed, step=step, decided=decided)

    def _checked(
        self,
        notes: list[GuardEvent],
        text: str,  # what was checked: the words as far as the lists read them
        arguments: dict[str, Any] | None,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        claimed: tuple[str, ...],
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry:
        declared = read_declaration(arguments)
        if declared is None:
            if claimed:  # the lists read a claim; the check says nothing more
                return self._caught(notes, text, list(claimed), set(), executed, step=step, decided=decided)
            self._note(notes, step, GuardDecision.UNVERIFIED, GuardReason.REPLY_CHECK)
            return Accept(words=Words(text, WordsVerdict.WITHHELD, WordsReason.UNVERIFIED))
        successes = [e for e in final_calls(executed) if e.result.success]
        unbacked = [c for c in declared.done if not made_by(c, successes)]
        if unbacked:
            words = [f"{c.action} {c.task}".strip() for c in unbacked]
            tools = {TOOL_OF[c.action] for c in unbacked}
            return self._caught(notes, text, words, tools, executed, step=step, decided=decided)
        if claimed:
            return self._caught(notes, text, list(claimed), set(), executed, step=step, decided=decided)
        changed = [e for e in successes if e.call.name in self.mutating_tools]
        denied = [f"{c.action} {c.task}" for c in declared.not_done if c.task and made_by(c, changed)]
        if denied:
            self._note(notes, step, GuardDecision.CLAIM_CAUGHT, GuardReason.DENIED_SUCCESS)
            return Accept(words=Words(text, WordsVerdict.WITHHELD, WordsReason.DENIED_SUCCESS, tuple(denied)))
        return Accept(words=Words(text, WordsVerdict.VERIFIED))

    # -- the words --------------------------------------------------------------------------------
    def _read_words(
        self,
        notes: list[GuardEvent],
        text: str,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry | CheckWords:
        finals = final_calls(executed)
        if not text:
            return Accept(words=Words(text, WordsVerdict.NOT_SHOWN))
        if (shown := readable(text)) != text:  # what the lists cannot read in bounded time is never shown
            self._note(notes, step, GuardDecision.SHORTENED, GuardReason.TOO_LONG)
            text = shown
        if not self._eligible(finals, step=step, decided=decided):
            verdict = WordsVerdict.WITHHELD if self.words_beside_results else WordsVerdict.NOT_SHOWN
            return Accept(words=Words(text, verdict, WordsReason.HIDES_FAILURE if self.words_beside_results else None))
        successes = [e for e in finals if e.result.success]
        if successes and not self.words_beside_results and not text.endswith("?"):
            # Direct mode: the results are the reply; only a question the model asks back goes beside them.
            return Accept(words=Words(text, WordsVerdict.NOT_SHOWN))
        unbacked = [c for c in self.claims_in(text) if not self._backed(c, successes, finals)]
        if unbacked:
            tools: set[str] = {c.tools[0] for c in unbacked if c.tools}
            if len(tools) != 1 and self._may_retry(executed, decided) and self.check is not None:
                # A claim the lists cannot give one kind ("Done, Laundry is off your list!"): the check
                # says which change the words claim, so that only that tool is forced, and asked about.
                self._note(notes, step, GuardDecision.CHECKED, GuardReason.REPLY_CHECK)
                return replace(self.check(text), claimed=tuple(c.words for c in unbacked))
            return self._caught(notes, text, [c.words for c in unbacked], tools, executed, step=step, decided=decided)
        changed = [e for e in successes if e.call.name in self.mutating_tools]
        if changed and (denied := denial(text)) is not None:
            self._note(notes, step, GuardDecision.CLAIM_CAUGHT, GuardReason.DENIED_SUCCESS)
            return Accept(words=Words(text, WordsVerdict.WITHHELD, WordsReason.DENIED_SUCCESS, (denied,)))
        if self.enabled and self.check is not None:
            self._note(notes, step, GuardDecision.CHECKED, GuardReason.REPLY_CHECK)
            return self.check(text)
        return Accept(words=Words(text, WordsVerdict.SHOWN))

    def _eligible(self, finals: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]) -> bool:
        """Words may be shown only beside no failure, refusal or question: unless the message asked
        for no change and these words came after the model heard its changes were not run."""
        bad = [e for e in finals if not e.result.success]
        if not bad:
            return True
        quiet = silent(decided)
        return not self.intent.needs_tool and all((e.step, e.call.name) in quiet and e.step < step for e in bad)

    def _backed(self, claim: Claim, successes: Sequence[ExecutedCall], finals: Sequence[ExecutedCall]) -> bool:
        """A claim the word lists read is backed by a successful call with its action, on the task its
        sentence names (a sentence naming no task of the turn: any such call); a bare "Done!" by a change."""
        if not claim.tools:
            return any(e.call.name in self.mutating_tools for e in successes)
        made = [e for e in successes if e.call.name in claim.tools]
        named = [t for e in finals for t in titles_of(e) if named_in(claim.sentence, t)]
        if not made or not named:
            return bool(made)
        return any(named_in(claim.sentence, t) for e in made for t in titles_of(e))

    def _caught(
        self,
        notes: list[GuardEvent],
        text: str,
        said: list[str],
        tools: set[str],
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry:
        """Words claiming a change that did not happen. On a message read as nothing (other wording,
        another language) it may have been asked for. When the words claim one kind of change, that
        tool is forced and what it names is only looked up: the user is asked ("Klaar, verwijderd!"
        -> "Do you want me to delete “Netflix”?"), since the message may be a question the reader did
        not read ("muss ich heute noch einkaufen gehen?") and a model that complies would make it a
        change. Otherwise the tools are required with `respond` as a way out, and whatever the model
        then changes is only looked up and asked about."""
        if self._may_retry(executed, decided):
            if len(tools) == 1 and (tool := next(iter(tools))) in CLAIMABLE:
                # One kind of change claimed: that tool, forced, names its task; the user is asked.
                self._note(notes, step, GuardDecision.FORCED, GuardReason.GHOST_CLAIM, tool)
                return ForceRetry(tool=tool, instruction=self.instruction(tool), reason=GuardReason.GHOST_CLAIM)
            self._note(notes, step, GuardDecision.FORCED, GuardReason.GHOST_CLAIM)
            return ForceRetry(
                tool=None, instruction=self.ghost_instruction, reason=GuardReason.GHOST_CLAIM, offer_respond=True
            )
        changed = any(e.result.success and e.call.name in self.mutating_tools for e in executed)
        reason = WordsReason.UNBACKED_CLAIM if changed else WordsReason.GHOST_CLAIM
        self._note(notes, step, GuardDecision.CLAIM_CAUGHT, GuardReason(reason.value))
        return Accept(words=Words(text, WordsVerdict.WITHHELD, reason, tuple(said)))

    def _may_retry(self, executed: Sequence[ExecutedCall], decided: Sequence[GuardEvent]) -> bool:
        """Whether a claimed change on a message read as nothing still gets its one retry."""
        changed = any(e.result.success and e.call.name in self.mutating_tools for e in executed)
        retried = any(e.decision is GuardDecision.FORCED and e.reason is GuardReason.GHOST_CLAIM for e in decided)
        return not changed and self.enabled and self.intent.kind == "chat" and not retried

    def claims_in(self, text: str) -> list[Claim]:
        """The changes `text` claims, as this message makes them count: on a message that asks for
        none (a question, a report), only the assistant's own claims ("Taxes is completed" there is
        an answer, "I've completed Taxes" is not)."""
        found = claims(text)
        if self.intent.kind not in ("command", "chat"):
            found = [c for c in found if c.first_person]
        return found

    # -- coverage and facts the reply needs --------------------------------------------------------
    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        """Every action asked for was attempted, and as many calls as the message has items were made
        (a model making one call per step is asked again until then, within the budgets)."""
        # A call ignored over the per-step limit was not attempted: the model gets to send it again.
        attempted = [
            e
            for e in executed
            if e.result.code not in (ResultCode.WRONG_TOOL, ResultCode.IGNORED) and not e.result.model_fixable
        ]
        if not self.enabled or not self.intent.needs_tool:  # a call that found no task the user named answers nothing
            return any(e.ran and e.result.code != ResultCode.NOT_GROUNDED for e in attempted)
        if self._missing(executed) is not None:
            return False
        for tool in {a.tool for a in self.intent.actions}:
            wanted = [a for a in self.intent.actions if a.tool == tool]
            if sum(1 for e in attempted if satisfies(e, wanted[0])) < len(wanted):
                return False
        return True

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

    # -- helpers -----------------------------------------------------------------------------------
    def _missing(self, executed: Sequence[ExecutedCall]) -> str | None:
        """The tool of the first explicit action no call has attempted yet."""
        for action in self.intent.actions:
            if action.explicit and not any(satisfies(e, action) for e in executed):
                return action.tool
        return None

    def _model_chose_other(self, executed: Sequence[ExecutedCall]) -> GuardReason | None:
        """A read, or an edit of the very task a delete or complete is about, the model chose instead."""
        names = {e.call.name for e in executed if e.result.code != ResultCode.WRONG_TOOL}
        if names & READ_TOOLS:
            return GuardReason.MODEL_CHOSE_READ
        wanted = [a for a in self.intent.actions if a.tool in DESTRUCTIVE]
        if any(e.call.name == EDIT_TOOL and any(satisfies(e, a) for a in wanted) for e in executed):
            return GuardReason.MODEL_CHOSE_EDIT
        return None

    def _force(self, notes: list[GuardEvent], step: int, tool: str, reason: GuardReason) -> ForceRetry:
        self._note(notes, step, GuardDecision.FORCED, reason, tool)
        return ForceRetry(tool=tool, instruction=self.instruction(tool), reason=reason)

    def _note(
        self, notes: list[GuardEvent], step: int, decision: GuardDecision, reason: GuardReason, tool: str | None = None
    ) -> None:
        if self.enabled:  # a disabled guard still keeps a claim from the user, but decides nothing
            notes.append(GuardEvent(step, decision, reason, tool))


def _noted(verdict: _Verdict, notes: list[GuardEvent]) -> _Verdict:
    """The verdict with the events its review decided, in order (after any it carries already)."""
    return replace(verdict, events=verdict.events + tuple(notes)) if notes else verdict
