"""The execution guard: no success without a tool result behind it, no action nobody asked for.

It gathers the facts the loop's verdicts need (what the message asks as read, what the model's words
say, what ran) and takes each verdict from the decision table (calls/verdicts.py, docs/guard.md): a
step's changes (`review_calls`, through call_review.py), the model's words without the call the
message asks for (`review_final`, `review_checked`: accept, check, force once, give up), a step whose
changes were all refused on a message asking for none (`review_results`: ask again for words). It
keeps nothing of a run: each review returns its verdict with the events it decided, and is handed the
events decided so far (`decided`), which say what was already forced, retried or asked again.

The words (`Words`, agent/guard_protocol.py: what the reply may show of the model's own text) are reviewed
here too, and are no verdict on a call:

- Never shown beside a change that did not happen: when a call of the turn failed, was refused or is
  asked about, the words are not shown, unless the message asked for no change and the words came
  after the model was told its changes were not run.
- In `direct` mode they are shown only when no call ran; in `model` mode beside the results.
- When shown, every claim the word lists read must match a successful call with that action on that
  task; then the model is asked what its words claim (`guard/reply_check.py`): every claimed change must
  match a successful call, no change that succeeded may be denied, and an unreadable check verifies
  nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from backend.app.agent.guard_protocol import (
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
from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Do, GuardDecision, GuardEvent, GuardReason, Verdict
from backend.app.calls.facts import AnswerFacts, Reading, ResultsFacts, Say
from backend.app.calls.payloads import listing_of, task_of, title_of
from backend.app.calls.tools import BULK, Tool, having, traits
from backend.app.calls.types import ExecutedCall, ToolCall
from backend.app.calls.verdicts import decide
from backend.app.language.detect import covers
from backend.app.language.lexicon import fold, lexicons, whole_list_words
from backend.app.language.reading.clauses import names_something
from backend.app.language.reading.intent import Action, Intent, read_question
from backend.app.services.guard.call_review import Answered, reading_of, review_changes
from backend.app.services.guard.claims import Claim, claims, denial, readable
from backend.app.services.guard.events import forced_tools, silent
from backend.app.services.guard.final_calls import final_calls
from backend.app.services.guard.reply_check import TOOL_OF, Declaration, made_by, read_declaration, titles_of
from backend.app.tools.resolver import named_in

CLAIMABLE = having("claimable")  # a claimed change that may be forced
# The claims' actions that a missing tool's change is (a completion and an edit stand in for each other).
_CLAIMED_AS: dict[str, set[str]] = {
    Tool.ADD: {"add"},
    Tool.DELETE: {"delete"},
    Tool.COMPLETE: {"complete", "update"},
    Tool.UPDATE: {"update"},
    Tool.UNDO: {"undo"},
}
# Results that end the reply with a question to the user: nothing was done yet.
_ASKED = frozenset({ResultCode.NEEDS_CONFIRMATION, ResultCode.DESTRUCTIVE_LIMIT, ResultCode.AMBIGUOUS})
_LIST_TOOLS = having("destructive")
REASK = (
    "Nothing was changed: the user's message does not ask for a change, so your tool call was not run. "
    "Answer the user's message now, in the language they wrote in, without saying that a task was changed."
)


def satisfies(call: ExecutedCall, action: Action) -> bool:
    """Whether a call attempted the action: one of its tools; an edit that makes that very change (a
    status edit to done, for a completion) on the task the action's words name; or a call whose title
    holds the action's whole clause: the clause was content, not an action ("- delete old photos from
    phone", an item of a pasted list, added as a title). An edit of another kind does not stand in:
    "delete the fridge" answered with a priority change is still not done."""
    if call.call.name in action.tools:
        return True
    title = (call.arguments or {}).get("title")
    # An item of a list ("käse, kündigen handyvertrag, ...") is content once a task of that title was added.
    content = action.explicit or call.result.success
    if isinstance(title, str) and content and names_something(action.about) and named_in(title, action.clause):
        return True
    if not _completes(call) or action.tool != Tool.COMPLETE.value:
        return False
    if not names_something(action.about):
        return True
    targets = [str(t) for t in (title_of(call.result.data), (call.arguments or {}).get("task_id")) if t]
    return any(named_in(action.about, t) or named_in(t, action.about) for t in targets)


def asks_about_a_change(text: str) -> bool:
    """Words that ask about a change a covered language reads ("Do you want me to delete “Gym”?",
    "Entendido. ¿Quieres que elimine «Yoga»?"), whose other sentences a language file knows every
    word of ("Entendido.", "Nice one!"), and in which the word lists read no claim: words that can
    claim nothing the lists did not read."""
    question = read_question(text)
    return (
        bool(question.changes)
        and all(any(covers(lex.code, s) >= 1.0 for lex in lexicons()) for s in question.others)
        and not claims(text)
    )


def _going_through_a_list(executed: Sequence[ExecutedCall], *, read: bool) -> bool:
    """The last step made more than a few changes of one kind (a pasted list, a whole list), or, on a
    message the reader read no command in (`read` false), asked about several deletions or
    completions: a model that splits a long list over steps has more."""
    last = max((e.step for e in executed), default=0)
    step = [e for e in executed if e.step == last]
    kinds = Counter(e.call.name for e in step if e.call.name in _LIST_TOOLS or e.call.name == Tool.ADD)
    asked = [e for e in step if e.result.code in _ASKED and e.call.name in _LIST_TOOLS]
    return any(n > BULK for n in kinds.values()) or (not read and len(asked) >= 2)


def _completes(call: ExecutedCall | ToolCall) -> bool:
    """An edit that marks its task done."""
    inner = call.call if isinstance(call, ExecutedCall) else call
    return inner.name == Tool.UPDATE and (inner.arguments or {}).get("status") == "completed"


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
            all_refused=not any(e.result.success or e.result.code in _ASKED for e in changes),
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
        arguments: dict[str, Any] | None,
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

    def _verified(
        self,
        notes: list[GuardEvent],
        text: str,
        declared: Declaration | None,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        claimed: tuple[str, ...],
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry:
        """The words as the check's answer has them: every claimed change must match a successful
        call, no change that succeeded may be denied, and an answer that cannot be read verifies nothing."""
        if declared is None:
            if claimed:  # the lists read a claim; the check says nothing more
                return self._caught_checked(
                    notes, text, list(claimed), set(), executed, step=step, decided=decided, confirmed=False
                )
            if asks_about_a_change(text):
                # A question about a change claims none ("Soll ich „Auto waschen“ löschen?"): shown, so
                # that the user's yes can answer it (C3), even when the check cannot be read.
                return Accept(words=Words(text, WordsVerdict.SHOWN))
            notes.append(GuardEvent(step, GuardDecision.UNVERIFIED, GuardReason.REPLY_CHECK))
            return Accept(words=Words(text, WordsVerdict.WITHHELD, WordsReason.UNVERIFIED))
        successes = [e for e in final_calls(executed) if e.result.success]
        # A change naming no task ("all added!") is backed only when every action asked for was attempted.
        unbacked = [
            c for c in declared.done if not made_by(c, successes) or (not c.task and not self.covered(executed))
        ]
        if unbacked:
            words = [f"{c.action} {c.task}".strip() for c in unbacked]
            tools: set[str] = {TOOL_OF[c.action] for c in unbacked}
            return self._caught_checked(notes, text, words, tools, executed, step=step, decided=decided, confirmed=True)
        if claimed:
            return self._caught_checked(
                notes, text, list(claimed), set(), executed, step=step, decided=decided, confirmed=False
            )
        changed = [e for e in successes if e.call.name in self.mutating_tools]
        denied = [f"{c.action} {c.task}" for c in declared.not_done if c.task and made_by(c, changed)]
        if denied:
            notes.append(GuardEvent(step, GuardDecision.CLAIM_CAUGHT, GuardReason.DENIED_SUCCESS))
            return Accept(words=Words(text, WordsVerdict.WITHHELD, WordsReason.DENIED_SUCCESS, tuple(denied)))
        return Accept(words=Words(text, WordsVerdict.VERIFIED, claims=_done_of(declared)))

    # -- the words --------------------------------------------------------------------------------
    def _read_words(
        self,
        notes: list[GuardEvent],
        text: str,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        decided: Sequence[GuardEvent],
        answer: tuple[Declaration | None, tuple[str, ...]] | None = None,
    ) -> Accept | ForceRetry | CheckWords:
        """`answer`: the check's answer on these words already at hand (what it declared, and the claims
        the lists read without their kind), used where the review would ask for one."""
        finals = final_calls(executed)
        if not text:
            return Accept(words=Words(text, WordsVerdict.NOT_SHOWN))
        if (shown := readable(text)) != text:  # what the lists cannot read in bounded time is never shown
            notes.append(GuardEvent(step, GuardDecision.SHORTENED, GuardReason.TOO_LONG))
            text = shown
        if not self._eligible(finals, step=step, decided=decided):
            verdict = WordsVerdict.WITHHELD if self.words_beside_results else WordsVerdict.NOT_SHOWN
            return Accept(words=Words(text, verdict, WordsReason.HIDES_FAILURE if self.words_beside_results else None))
        successes = [e for e in finals if e.result.success]
        if any(_altered(e) for e in successes):
            # Written for arguments the backend did not use (a value dropped, a title repaired, a search
            # that found nothing): the results say what was done.
            verdict = WordsVerdict.WITHHELD if self.words_beside_results else WordsVerdict.NOT_SHOWN
            return Accept(words=Words(text, verdict, WordsReason.ALTERED if self.words_beside_results else None))
        if self.words_beside_results and successes and self.intent.needs_tool and not self.covered(executed):
            # Some of what was asked ran, some was never attempted: words may say all of it was done
            # ("All 5 are on your list now"), beside the reply's line that one was not.
            return Accept(words=Words(text, WordsVerdict.WITHHELD, WordsReason.HIDES_FAILURE))
        if successes and not self.words_beside_results and not text.endswith("?"):
            # Direct mode: the results are the reply; only a question the model asks back goes beside them.
            return Accept(words=Words(text, WordsVerdict.NOT_SHOWN))
        unbacked = [c for c in self.claims_in(text) if not self._backed(c, successes, finals, executed)]
        if unbacked:
            tools: set[str] = {c.tools[0] for c in unbacked if c.tools}
            return self._caught(notes, text, [c.words for c in unbacked], tools, executed, step=step, decided=decided)
        changed = [e for e in successes if e.call.name in self.mutating_tools]
        if changed and (denied := denial(text)) is not None:
            notes.append(GuardEvent(step, GuardDecision.CLAIM_CAUGHT, GuardReason.DENIED_SUCCESS))
            return Accept(words=Words(text, WordsVerdict.WITHHELD, WordsReason.DENIED_SUCCESS, (denied,)))
        if answer is not None:
            declared, claimed = answer
            return self._verified(notes, text, declared, executed, step=step, claimed=claimed, decided=decided)
        if self.enabled and self.check is not None:
            notes.append(GuardEvent(step, GuardDecision.CHECKED, GuardReason.REPLY_CHECK))
            return self.check(text)
        return Accept(words=Words(text, WordsVerdict.SHOWN))

    def _eligible(self, finals: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]) -> bool:
        """Words may be shown only beside no failure, refusal or question: unless the message asked
        for no change and these words came after the model heard its changes were not run."""
        bad = [e for e in finals if not e.result.success]
        if not bad:
            return True
        if any(e.result.code in _ASKED for e in bad):
            return False  # a change the user is asked about did not happen: words may say it did
        quiet = silent(decided)
        return not self.intent.needs_tool and all((e.step, e.call.name) in quiet and e.step < step for e in bad)

    def _backed(
        self,
        claim: Claim,
        successes: Sequence[ExecutedCall],
        finals: Sequence[ExecutedCall],
        executed: Sequence[ExecutedCall],
    ) -> bool:
        """A claim the word lists read is backed by a successful call with its action, on the task its
        sentence names (a sentence naming no task of the turn: any such call); a bare "Done!" by a change,
        once every action asked for was attempted."""
        if not claim.tools:
            return any(e.call.name in self.mutating_tools for e in successes) and self.covered(executed)
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
        checked: bool = False,
        confirmed: bool | None = None,
    ) -> Accept | ForceRetry | CheckWords:
        """Words claiming a change that did not happen. On a message read as nothing (other wording,
        another language) it may have been asked for: the table says whether the claimed tool is forced
        (what it names is then only asked about: "Klaar, verwijderd!" -> "Do you want me to delete
        “Netflix”?"), the words are checked first for which change they claim, or the tools are required
        with `respond` as a way out. Otherwise, and after that one retry, the words are withheld."""
        one = next(iter(tools)) if len(tools) == 1 else None
        verdict = decide(
            AnswerFacts(
                guarded=self.enabled,
                reading=reading_of(self.intent),
                say=Say.CLAIMS,
                acted=any(e.call.name in self.mutating_tools for e in executed),
                checkable=self.check is not None and not checked,
                confirmed=bool(confirmed),
                ghost_retried=any(
                    e.decision is GuardDecision.FORCED and e.reason is GuardReason.GHOST_CLAIM for e in decided
                ),
                claimed_one=one in CLAIMABLE,
            )
        )
        match verdict.do:
            case Do.FORCE:
                assert one is not None
                return self._force(notes, step, one, verdict)
            case Do.CHECK:
                self._note(notes, step, verdict)
                assert self.check is not None
                return replace(self.check(text), claimed=tuple(said))
            case Do.REQUIRE:
                self._note(notes, step, verdict)
                return ForceRetry(verdict, tool=None, instruction=self.ghost_instruction, offer_respond=True)
        reason = WordsReason.UNBACKED_CLAIM if self._changed(executed) else WordsReason.GHOST_CLAIM
        if self.enabled:  # a disabled guard still keeps a claim from the user, but records nothing
            notes.append(GuardEvent(step, GuardDecision.CLAIM_CAUGHT, GuardReason(reason.value)))
        return Accept(words=Words(text, WordsVerdict.WITHHELD, reason, tuple(said)))

    def _caught_checked(
        self,
        notes: list[GuardEvent],
        text: str,
        said: list[str],
        tools: set[str],
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        decided: Sequence[GuardEvent],
        confirmed: bool,
    ) -> Accept | ForceRetry:
        """`_caught` once the words were checked: never a second check; `confirmed`: the check itself
        declared the claim (not only the word lists)."""
        verdict = self._caught(
            notes, text, said, tools, executed, step=step, decided=decided, checked=True, confirmed=confirmed
        )
        assert not isinstance(verdict, CheckWords)
        return verdict

    def claiming_text(self, words: Words, executed: Sequence[ExecutedCall]) -> str:
        """What of shown words `review_titles` checks against the user's titles: all of them in a turn
        where a change was made (whatever the language, they may speak of it, and of another task),
        else the sentences the word lists read as claims; nothing when the words are not shown."""
        if not words.shown:
            return ""
        if self._changed(executed):
            return words.text
        return "\n".join(c.sentence for c in self.claims_in(words.text) if c.sentence)

    def review_titles(
        self, words: Words, named: Sequence[str], executed: Sequence[ExecutedCall], *, step: int
    ) -> tuple[Words, tuple[GuardEvent, ...]]:
        """Claims matched to tasks as data: shown words (`claiming_text`) that name one of the user's task
        titles (`named`, read from the database) that no successful change of the turn touched
        ("Deleted Yoga" after deleting Gym) are withheld, in any language."""
        touched = [
            title_of(e.result.data) or "" for e in executed if e.result.success and e.call.name in self.mutating_tools
        ]
        untouched = [t for t in named if not any(named_in(t, done) and named_in(done, t) for done in touched if done)]
        if not words.shown or not untouched:
            return words, ()
        event = GuardEvent(step, GuardDecision.CLAIM_CAUGHT, GuardReason.UNBACKED_CLAIM)
        return Words(words.text, WordsVerdict.WITHHELD, WordsReason.UNBACKED_CLAIM, tuple(untouched)), (event,)

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
        (a model making one call per step is asked again until then, within the budgets). A model
        going through a list (more than a few changes of one kind in its last step, or several asked
        about) and an action over the whole list ("mark everything done") are never covered by a
        count: the model goes on until it answers in words."""
        # A call ignored over the per-step limit was not attempted: the model gets to send it again.
        attempted = [e for e in executed if e.result.code != ResultCode.IGNORED and not e.result.model_fixable]
        if self.enabled and _going_through_a_list(executed, read=self.intent.needs_tool):
            return False
        if not self.enabled or not self.intent.needs_tool:  # a call that found no task the user named answers nothing
            return any(e.ran and e.result.code != ResultCode.NOT_GROUNDED for e in attempted)
        if self._missing(executed) is not None:
            return False
        if any(whole_list_words().search(fold(a.clause)) for a in self.intent.actions if a.tool in _LIST_TOOLS):
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

    def _changed(self, executed: Sequence[ExecutedCall]) -> bool:
        return any(e.result.success and e.call.name in self.mutating_tools for e in executed)

    def _force(self, notes: list[GuardEvent], step: int, tool: str, verdict: Verdict) -> ForceRetry:
        self._note(notes, step, verdict, tool)
        return ForceRetry(verdict, tool=tool, instruction=self.instruction(tool))

    def _note(self, notes: list[GuardEvent], step: int, verdict: Verdict, tool: str | None = None) -> None:
        if self.enabled and (event := verdict.event(step, tool)) is not None:
            notes.append(event)


def _declares(declared: Declaration, tool: str) -> bool:
    """Whether a check's declaration says the change of `tool` was made."""
    kinds = _CLAIMED_AS.get(tool, set())
    return any(c.action in kinds for c in declared.done)


def _altered(e: ExecutedCall) -> bool:
    """A call the backend ran otherwise than the model made it (a value dropped, an argument repaired),
    or a search with filters that found nothing (the model's words may say there is nothing at all)."""
    task = task_of(e.result.data)
    listing = listing_of(e.result.data)
    searched = (
        listing is not None
        and listing["count"] == 0
        and any(k in listing for k in ("query", "tag", "priority", "due_before", "due_after"))
    )
    return bool(e.result.dropped) or (task is not None and "repaired" in task) or searched


def _done_of(declared: Declaration) -> tuple[str, ...]:
    """The changes a check says verified words claim, as "action task" (the reply says the rest)."""
    return tuple(f"{c.action} {c.task}".strip() for c in declared.done)


def _events(verdict: Verdict, step: int) -> tuple[GuardEvent, ...]:
    event = verdict.event(step)
    return (event,) if event is not None else ()


def _noted(verdict: _Verdict, notes: list[GuardEvent]) -> _Verdict:
    """The verdict with the events its review decided, in order (after any it carries already)."""
    return replace(verdict, events=verdict.events + tuple(notes)) if notes else verdict
