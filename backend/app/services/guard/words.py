"""What the user may see of the model's own words (`Words`, agent/guard_protocol.py), the part of the
guard's review that is no verdict on a call:

- Never shown beside a change that did not happen: when a call of the turn failed, was refused or is
  asked about, the words are not shown, unless the message asked for no change and the words came
  after the model was told its changes were not run.
- In `direct` mode they are shown only when no call ran; in `model` mode beside the results.
- When shown, every claim the word lists read must match a successful call with that action on that
  task; then the model is asked what its words claim (`guard/reply_check.py`): every claimed change must
  match a successful call, no change that succeeded may be denied, and an unreadable check verifies
  nothing.

`ExecutionGuard` (guard/execution.py) is a `WordsReview`: it holds the turn's facts these reviews read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from backend.app.agent.guard_protocol import Accept, CheckWords, ForceRetry, Words, WordsReason, WordsVerdict
from backend.app.calls.decisions import Do, GuardDecision, GuardEvent, GuardReason, Verdict
from backend.app.calls.facts import AnswerFacts, Say
from backend.app.calls.payloads import listing_of, task_of, title_of
from backend.app.calls.tools import having
from backend.app.calls.types import ExecutedCall
from backend.app.calls.verdicts import decide
from backend.app.language.detect import covers
from backend.app.language.lexicon import lexicons
from backend.app.language.reading.asks import Intent
from backend.app.language.reading.question import read_question
from backend.app.services.guard.call_review import Answered, reading_of
from backend.app.services.guard.claims import Claim, claims, denial, readable
from backend.app.services.guard.coverage import ASKED, covered
from backend.app.services.guard.events import silent
from backend.app.services.guard.final_calls import final_calls
from backend.app.services.guard.reply_check import TOOL_OF, Declaration, made_by, titles_of
from backend.app.tools.titles import named_in

CLAIMABLE = having("claimable")  # a claimed change that may be forced
_AFTER_CLAIMS = (GuardReason.GHOST_CLAIM, GuardReason.YES_TO_QUESTION)  # the one retry a claim may force


class WordsReview:
    """The review of the model's words, over the facts of the turn its subclass holds."""

    __slots__ = ()
    intent: Intent
    enabled: bool
    mutating_tools: frozenset[str]
    instruction: Callable[[str], str]
    ghost_instruction: str
    words_beside_results: bool
    check: Callable[[str], CheckWords] | None
    answered: Answered | None

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        """Every action asked for was attempted (guard/coverage.py)."""
        return covered(self.intent, executed, enabled=self.enabled)

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
        if any(e.result.code in ASKED for e in bad):
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
        # A yes to the assistant's plain offer of one change, and words claiming it (or no kind): that
        # change is forced ("Should I delete “Gym”?" → "yes" → "Done!").
        offered = self.answered.offered if self.answered is not None else None
        yes_to_one = offered is not None and tools <= {offered}
        verdict = decide(
            AnswerFacts(
                guarded=self.enabled,
                reading=reading_of(self.intent),
                say=Say.CLAIMS,
                acted=any(e.call.name in self.mutating_tools for e in executed),
                checkable=self.check is not None and not checked,
                confirmed=bool(confirmed),
                ghost_retried=any(e.decision is GuardDecision.FORCED and e.reason in _AFTER_CLAIMS for e in decided),
                claimed_one=one in CLAIMABLE,
                yes_to_one=yes_to_one,
            )
        )
        match verdict.do:
            case Do.FORCE:
                forced = offered if verdict.reason is GuardReason.YES_TO_QUESTION else one
                assert forced is not None
                return self._force(notes, step, forced, verdict)
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

    def _changed(self, executed: Sequence[ExecutedCall]) -> bool:
        return any(e.result.success and e.call.name in self.mutating_tools for e in executed)

    def _force(self, notes: list[GuardEvent], step: int, tool: str, verdict: Verdict) -> ForceRetry:
        self._note(notes, step, verdict, tool)
        return ForceRetry(verdict, tool=tool, instruction=self.instruction(tool))

    def _note(self, notes: list[GuardEvent], step: int, verdict: Verdict, tool: str | None = None) -> None:
        if self.enabled and (event := verdict.event(step, tool)) is not None:
            notes.append(event)


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
