"""The reply: the one place that writes what the user reads, from what really happened, in the
language of the user's message (`language/catalog.py`).

What it promises, in both response modes:
- every call the user asked for, and every action they asked for that no call attempted, appears
  with its real outcome: done, failed (with a reason written for them), not done, or asked about (a
  question ends the reply); a change nobody asked for that was not run is no line of it (it is in
  the metadata);
- the model's own words are shown only when the guard let them through (`run.words`): never
  beside a change that did not happen, never with a claim no successful call backs, and, where the
  model is asked to check them, only once its check matched what ran. In `direct` mode, once a tool
  ran the reply is built from the results; in `model` mode the model's words come first, with the
  results they leave out added;
- when a clear command ran no tool even after the guard's forced retry and nothing else was done,
  the reply is the contract's "Technical error: Tool not triggered." (in the user's language).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from backend.app.agent.guard_protocol import Words, WordsReason, WordsVerdict
from backend.app.agent.loop_types import ANSWERED, StopReason
from backend.app.agent.run_io import RunRecord
from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import GuardDecision
from backend.app.calls.payloads import listing_of, task_id_of, title_of
from backend.app.calls.tools import BULK, CHANGING, Tool, stated_by
from backend.app.calls.types import ExecutedCall
from backend.app.language.catalog import Texts
from backend.app.language.lexicon import fold
from backend.app.language.reading.asks import Action, Intent
from backend.app.language.reading.question import read_question
from backend.app.language.reading.whole import names_every_task
from backend.app.schemas.chat import ActionRecord
from backend.app.services.guard.claims import claims
from backend.app.services.guard.coverage import unattempted
from backend.app.services.guard.events import forced_tools
from backend.app.services.guard.events import silent as silent_calls
from backend.app.services.guard.final_calls import final_calls, repeats_of_done
from backend.app.services.guard.reply_check import TOOL_OF
from backend.app.services.reply.wording import (
    action_phrase,
    bulk_line,
    done_line,
    failed_line,
    state_line,
    without_words,
)
from backend.app.tools.titles import named_in, shares_words

TOOL_NOT_TRIGGERED = "Technical error: Tool not triggered."
# Words withheld because they said a change happened that did not: the reply says nothing changed.
_CLAIMED = frozenset({WordsReason.GHOST_CLAIM, WordsReason.UNBACKED_CLAIM, WordsReason.DENIED_SUCCESS})


class Status(StrEnum):
    DONE = "done"
    FAILED = "failed"
    NOT_DONE = "not_done"
    ASKED = "asked"


class NotDoneReason(StrEnum):
    """Why something was not done, for dashboards (`execution_metadata.reply.not_done`)."""

    IGNORED = "ignored"  # over the calls-per-step limit
    BUDGET = "budget"  # a per-turn budget ran out
    DESTRUCTIVE_CAP = "destructive_cap"  # more deletions than MAX_DESTRUCTIVE_CALLS_PER_TURN
    NOT_REQUESTED = "not_requested"  # the guard refused a change the message did not ask for
    TOOL_NOT_TRIGGERED = "tool_not_triggered"  # asked, forced, and the model still did not call it
    MODEL_CHOSE_OTHER = "model_chose_other"  # the model read or edited instead; its choice stood
    STOPPED = "stopped"  # the turn stopped (step limit, an error) before it
    NOT_ATTEMPTED = "not_attempted"  # the model never called a tool for it


_CODE_REASON = {
    ResultCode.IGNORED: NotDoneReason.IGNORED,
    ResultCode.BUDGET_EXCEEDED: NotDoneReason.BUDGET,
    ResultCode.DESTRUCTIVE_LIMIT: NotDoneReason.DESTRUCTIVE_CAP,
    ResultCode.NOT_REQUESTED: NotDoneReason.NOT_REQUESTED,
    ResultCode.NOT_GROUNDED: NotDoneReason.NOT_REQUESTED,
}


@dataclass(frozen=True, slots=True)
class ActionReport:
    """One action of the turn as the user should hear it: a call's outcome, or an action asked
    for that no call attempted (`call` None). A `silent` one (a change nobody asked for, not run)
    is in the metadata only."""

    action: str
    status: Status
    message: str
    call: ExecutedCall | None = None
    reason: NotDoneReason | None = None
    silent: bool = False

    def metadata(self) -> ActionRecord:
        data = self.call.result.data if self.call else None
        named = self.status is Status.DONE and self.action != Tool.LIST
        return ActionRecord(
            action=self.action,
            success=self.status is Status.DONE,
            task_id=task_id_of(data) if named else None,
            task_title=title_of(data) if named else None,
            message=self.message,
            status=self.status.value,
        )


@dataclass(frozen=True, slots=True)
class Replaced:
    """The model's words that were not shown, and why (`reason` None: withheld without one)."""

    reason: WordsReason | None
    claims: tuple[str, ...]
    model_reply: str  # the first 500 characters

    @property
    def why(self) -> str:
        """The reason as `execution_metadata.reply.replaced` and the metrics name it."""
        return self.reason.value if self.reason is not None else "withheld"


@dataclass(slots=True)
class Reply:
    text: str
    reports: list[ActionReport]
    source: str  # "results", "model" or "contract" (the not-triggered message)
    replaced: list[Replaced] = field(default_factory=list)
    words: str = ""  # the model's own words the text shows ("": none; the rest is the catalog's)

    @property
    def not_done(self) -> list[ActionReport]:
        return [o for o in self.reports if o.status is Status.NOT_DONE]


class Question(Protocol):
    @property
    def question(self) -> str: ...

    @property
    def covers(self) -> frozenset[int]: ...

    @property
    def tools(self) -> frozenset[str]: ...


# -- each call's outcome -----------------------------------------------------------------------------
def _status(e: ExecutedCall, silent: frozenset[tuple[int, str]]) -> tuple[Status, bool]:
    """A call's outcome for the user, and whether it is silent (a change nobody asked for, not run)."""
    if e.result.success:
        return Status.DONE, False
    if e.result.code == ResultCode.STATED:  # not done, and not silent: how the task stands is said
        return Status.NOT_DONE, False
    if e.result.code == ResultCode.NOT_REQUESTED or (e.step, e.call.name) in silent:
        return Status.NOT_DONE, True
    if e.result.code in (
        ResultCode.NOT_GROUNDED,
        ResultCode.NEEDS_CONFIRMATION,
        ResultCode.AMBIGUOUS,
        ResultCode.DESTRUCTIVE_LIMIT,
    ):
        return Status.ASKED, False
    return (Status.FAILED if e.ran else Status.NOT_DONE), False


def _lines(t: Texts, shown: Sequence[tuple[ExecutedCall, Status]], said: str) -> list[str]:
    """A line per call, but many changes of one kind done (a pasted list) in one line, where the first was."""
    done: dict[str, list[str]] = {}
    for e, status in shown:
        if status is Status.DONE:
            done.setdefault(e.call.name, []).append(title_of(e.result.data) or "")
    bulk = {tool: line for tool, titles in done.items() if len(titles) > BULK and (line := bulk_line(t, tool, titles))}
    lines: list[str] = []
    for e, status in shown:
        if status is not Status.DONE or e.call.name not in bulk:
            lines.append(_line(t, e, status, said))
        elif bulk[e.call.name] not in lines:
            lines.append(bulk[e.call.name])
    return lines


def _line(t: Texts, e: ExecutedCall, status: Status, said: str) -> str:
    if status is Status.DONE:
        return done_line(t, e)
    if e.result.code == ResultCode.STATED:
        return state_line(t, e.result.data)
    target = e.arguments.get("task_id") or e.arguments.get("title") or ""
    what = action_phrase(t, e.call.name, target)
    if status is Status.ASKED:  # not covered by the turn's question: nothing names the task to ask about
        if e.call.name == Tool.ADD:
            return t("I didn't add “{title}”: your message doesn't mention it.", title=target)
        if e.result.code == ResultCode.DESTRUCTIVE_LIMIT:  # over the cap, beside a choice asked first
            return t("Not done: {action} (too many actions in one message; send it again).", action=what)
        return t("I didn't {action}: which task do you mean?", action=what)
    if status is Status.NOT_DONE:
        if e.result.code == ResultCode.BUDGET_EXCEEDED:
            return t("Not done: {action} (this message ran out of its budget).", action=what)
        return t("Not done: {action} (too many actions in one message; send it again).", action=what)
    return failed_line(t, e, said=said)


def _metadata_message(t: Texts, e: ExecutedCall, status: Status) -> str:
    title = title_of(e.result.data)
    if status is Status.DONE:
        if e.call.name == Tool.LIST:
            listing = listing_of(e.result.data)
            return t.n("Listed {count} task", "Listed {count} tasks", listing["count"] if listing else 0)
        if e.call.name == Tool.UNDO:
            return done_line(t, e)
        done: dict[str, str] = {  # the contract's "Deleted: Read book"
            Tool.ADD: t("Added: {title}", title=title or ""),
            Tool.DELETE: t("Deleted: {title}", title=title or ""),
            Tool.COMPLETE: t("Completed: {title}", title=title or ""),
        }
        return done.get(e.call.name, t("Updated: {title}", title=title or ""))
    if status is Status.ASKED:
        return t("Asked first: {action}", action=action_phrase(t, e.call.name, title or _ref(e)))
    if status is Status.NOT_DONE:
        return t("Not done: {action}", action=action_phrase(t, e.call.name, title or _ref(e)))
    return t("Failed: {action}", action=action_phrase(t, e.call.name, _ref(e)))


def _ref(e: ExecutedCall) -> str:
    return str(e.arguments.get("task_id") or e.arguments.get("title") or "")


def user_words(message: str, folded: str) -> str:
    """The user's own spelling of `folded`, a part of their message as the reader folded it ("wasche
    ist durch" -> "Wäsche ist durch"), so that a reply quotes them as they wrote; `folded` itself when
    it cannot be found."""
    size = len(folded)
    for start in range(len(message) - size + 1):
        if fold(message[start : start + size]) == folded:
            return message[start : start + size]
    return folded


def _why_not(action: Action, run: RunRecord) -> NotDoneReason:
    for event in run.guard_events:
        if event.tool == action.tool and event.decision is GuardDecision.TRUSTED:
            return NotDoneReason.MODEL_CHOSE_OTHER
    if action.tool in forced_tools(run.guard_events):
        return NotDoneReason.TOOL_NOT_TRIGGERED
    if run.stop_reason is StopReason.BUDGET_EXCEEDED:
        return NotDoneReason.BUDGET
    if run.stop_reason not in ANSWERED:
        return NotDoneReason.STOPPED
    return NotDoneReason.NOT_ATTEMPTED


def _asks_about(action: Action, asked: Mapping[Tool, str]) -> bool:
    """Whether the model's words ask the user about this action: a question about a change of its
    tool sharing a word with what it names ("delete gym please": "Are you sure you want to delete
    “Gym”?"), or any question about a change of its tool where the action is over every task ("borra
    todo": "¿Quieres que borre las 12 tareas?"). Only the line's "Please ask again" rests on it: the
    action is said not done either way."""
    question = asked.get(action.tool)
    return question is not None and (shares_words(question, action.about) or names_every_task(action.about))


def _action_line(t: Texts, request: str, reason: NotDoneReason, *, asked_back: bool = False) -> str:
    """The line for an action no call attempted. Beside the model's question about it, it is only said
    not done: "Please ask again" would talk over the question the user is to answer."""
    if reason is NotDoneReason.MODEL_CHOSE_OTHER:
        return t(
            "Not done: “{request}”. I did something else instead; ask again if you still want it.", request=request
        )
    if reason is NotDoneReason.BUDGET:
        return t("Not done: “{request}”. This message ran out of its budget first.", request=request)
    if reason is NotDoneReason.STOPPED:
        return t("Not done: “{request}”. I stopped before it.", request=request)
    if asked_back and reason is NotDoneReason.NOT_ATTEMPTED:
        return t("Not done: “{request}”.", request=request)
    return t("Not done: “{request}”. Please ask again.", request=request)


def _stopped(t: Texts, run: RunRecord, *, done_all: bool, nothing: bool) -> str:
    """Why the turn ended before it was done, as the user hears it: what was done is said above it, what
    was not is this (a budget, a step limit, a model going in circles or writing what cannot be run).
    `done_all`: every action the message asks for was done; a model stopped for repeating itself
    after that left nothing undone, and is not said. `nothing`: no line above it and no change made."""
    if run.stop_reason is StopReason.REPEATED_CALL and done_all:
        return ""
    if run.stop_reason is StopReason.LLM_ERROR:
        if nothing:
            return t("Nothing was changed: the assistant stopped answering before it finished.")
        return t("The assistant stopped answering before it finished: anything not listed above was not done.")
    if run.stop_reason in (
        StopReason.BUDGET_EXCEEDED,
        StopReason.MAX_STEPS,
        StopReason.REPEATED_CALL,
        StopReason.MODEL_FIX_RETRIES_EXHAUSTED,
    ):
        if nothing:
            return t("Nothing was changed: I stopped before I could do it. Please ask again.")
        return t("That is as far as I got with this message: anything not listed above was not done. Please ask again.")
    return ""


# -- the reply ------------------------------------------------------------------------------------
def compose(
    *,
    run: RunRecord,
    intent: Intent,
    message: str,
    response_mode: str,
    t: Texts,
    question: Question | None = None,
) -> Reply:
    """The reply to the user's `message`. With `question` (a confirmation the turn asks), the calls
    it asks about are `asked`, and the question ends the reply."""
    calls = final_calls(run.executed)
    covered = question.covers if question is not None else frozenset()
    reports: list[ActionReport] = []
    shown: list[tuple[ExecutedCall, Status]] = []
    quiet = silent_calls(run.guard_events)
    for e in calls:
        status, silent = _status(e, quiet)
        if id(e) in covered:
            status, silent = Status.ASKED, False
        reason = _CODE_REASON.get(e.result.code) if e.result.code and status is Status.NOT_DONE else None
        unasked = silent or e.result.code == ResultCode.STATED  # no action of the user's: only its state is said
        reports.append(ActionReport(e.call.name, status, _metadata_message(t, e, status), e, reason, silent=unasked))
        if not silent and id(e) not in covered:
            shown.append((e, status))
    lines = _lines(t, shown, message)
    left = unattempted(intent, [*calls, *repeats_of_done(run.executed)])
    words = run.words
    shown_words = words.text if words is not None and words.shown and run.stop_reason in ANSWERED else ""
    asked = read_question(shown_words).changes if shown_words else {}
    # A question of the backend's that stands for the model's (restated) asks back about its actions.
    restated = question.tools if question is not None and not question.covers else frozenset()
    for action in left:
        reason = _why_not(action, run)
        request = user_words(message, action.text)
        line = _action_line(t, request, reason, asked_back=_asks_about(action, asked) or action.tool in restated)
        lines.append(line)
        reports.append(ActionReport(action.tool, Status.NOT_DONE, line, reason=reason))
    changed = any(e.result.success and e.call.name in CHANGING for e in run.executed)
    if stopped := _stopped(t, run, done_all=intent.needs_tool and not left, nothing=not lines and not changed):
        lines.append(stopped)
    ask = [question.question] if question is not None else []
    replaced = [_replaced(words)] if words is not None and words.verdict is WordsVerdict.WITHHELD else []
    if not calls and intent.needs_tool and run.stop_reason in (StopReason.TOOL_NOT_TRIGGERED, StopReason.NO_TOOL_CALLS):
        return Reply(t("Technical error: Tool not triggered."), reports, "contract", replaced)
    if words is not None and words.shown and run.stop_reason in ANSWERED:
        said = words.text
        if response_mode != "model":  # direct mode: the results, then the question the model asks back
            return Reply("\n".join([*lines, said, *ask]), reports, "results" if lines else "model", replaced, said)
        missing = [done_line(t, o.call) for o in reports if o.call is not None and not _stated(o, words)]
        answered = [state_line(t, e.result.data) for e, _ in shown if e.result.code == ResultCode.STATED]
        not_attempted = [o.message for o in reports if o.call is None]
        return Reply("\n".join([said, *missing, *answered, *not_attempted, *ask]), reports, "model", replaced, said)
    text = "\n".join([*lines, *ask]) or without_words(t, intent, claimed=any(r.reason in _CLAIMED for r in replaced))
    return Reply(text, reports, "results", replaced)


def _stated(outcome: ActionReport, words: Words) -> bool:
    """Whether the shown words state this report's change: they claim its action on its task (what the
    check declared of verified words, or else what the word lists read). A change the words only
    mention ("shall I delete “Gym”?" after Gym was deleted), or claim with no task ("Done!"), is not
    stated: the reply gives it its line. Reads, undo and what did not succeed need none here."""
    e = outcome.call
    if e is None or outcome.status is not Status.DONE or e.call.name not in CHANGING or e.call.name == Tool.UNDO:
        return True
    title = title_of(e.result.data) or ""
    same = stated_by(e.call.name)
    if words.verdict is WordsVerdict.VERIFIED:  # what the check says the words claim
        declared = [c.split(" ", 1) for c in words.claims]
        if any(
            len(d) == 2 and TOOL_OF.get(d[0]) in same and (named_in(d[1], title) or named_in(title, d[1]))
            for d in declared
        ):
            return True
    return any(set(c.tools) & same and named_in(c.sentence, title) for c in claims(words.text))


def _replaced(words: Words) -> Replaced:
    return Replaced(reason=words.reason, claims=tuple(words.claims), model_reply=words.text[:500])
