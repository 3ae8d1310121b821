"""The reply: the one place that writes what the user reads, from what really happened.

What it promises, in both response modes:
- every call that ran, and every action the user asked for, appears with its real outcome: done,
  failed (with the reason), not done (ignored, over a cap, out of budget, refused, never called) or
  asked about (which task did you mean?);
- a model's words are shown only when they say nothing the results contradict: never a claim of a
  change no successful call made, never a denial of one that succeeded, never a "Done!" over a
  failure. In `direct` mode, once a tool ran the reply is built from the results alone; in `model`
  mode the model's text is kept when it is consistent, with the results it leaves out added.
- when a clear command ran no tool even after the guard's forced retry and nothing else was done,
  the reply is exactly "Technical error: Tool not triggered." (the contract).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from backend.app.agent.dispatch import BUDGET_EXCEEDED, DESTRUCTIVE_LIMIT, IGNORED, REPEATED_CALL, UNKNOWN_TOOL
from backend.app.agent.run import RunResult
from backend.app.agent.types import ANSWERED, ExecutedCall, GuardDecision, StopReason
from backend.app.services.claims import Claim, denial
from backend.app.services.guard import (
    NOT_REQUESTED,
    WRONG_TOOL,
    ExecutionGuard,
    satisfies,
)
from backend.app.services.intent import Action, Intent
from backend.app.services.wording import describe_list, describe_undo, fmt
from backend.app.tools.references import NOT_GROUNDED
from backend.app.tools.resolver import named_in

TOOL_NOT_TRIGGERED = "Technical error: Tool not triggered."
EMPTY_REPLY = "(The model returned an empty reply.)"
NOTHING_CHANGED = "Nothing was changed."
TASK_TOOLS = frozenset({"add_task", "list_tasks", "complete_task", "delete_task", "update_task", "undo_last_change"})

_DONE = {"add_task": "Added", "delete_task": "Deleted", "complete_task": "Completed", "update_task": "Updated"}
_VERB = {
    "add_task": "add",
    "delete_task": "delete",
    "complete_task": "complete",
    "update_task": "update",
    "list_tasks": "list tasks",
    "undo_last_change": "undo",
}
_NOT_RUN_WHY = {
    IGNORED: "over the limit of tool calls in one step",
    BUDGET_EXCEEDED: "this message reached its tool calls budget",
    DESTRUCTIVE_LIMIT: "too many deletions in one message: send them again to confirm",
    NOT_REQUESTED: "your message asked for no change",
    NOT_GROUNDED: "your message didn't ask for it",
}
_STOPPED = {
    StopReason.BUDGET_EXCEEDED: "I stopped because this message reached its {detail} limit.",
    StopReason.MAX_STEPS: "Stopped after {detail} steps without a final answer.",
    StopReason.REPEATED_CALL: "I stopped because the same action was requested twice without progress.",
    StopReason.MODEL_FIX_RETRIES_EXHAUSTED: "The model kept sending invalid tool calls, so I stopped.",
    StopReason.LLM_ERROR: "The language model stopped answering, so I stopped here.",
    StopReason.TOOL_ERROR: "",
    StopReason.NO_TOOL_CALLS: TOOL_NOT_TRIGGERED,
    StopReason.TOOL_NOT_TRIGGERED: "",
}


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


class ReplacedReason(StrEnum):
    """Why the model's words were not shown (`execution_metadata.reply.replaced`)."""

    GHOST_CLAIM = "ghost_claim"  # claimed a change, none succeeded
    UNBACKED_CLAIM = "unbacked_claim"  # claimed more than the successful calls did
    DENIED_SUCCESS = "denied_success"  # said a change failed that succeeded
    HIDES_FAILURE = "hides_failure"  # something failed or was not done, the words may not say so


_CODE_REASON = {
    IGNORED: NotDoneReason.IGNORED,
    BUDGET_EXCEEDED: NotDoneReason.BUDGET,
    DESTRUCTIVE_LIMIT: NotDoneReason.DESTRUCTIVE_CAP,
    NOT_REQUESTED: NotDoneReason.NOT_REQUESTED,
    NOT_GROUNDED: NotDoneReason.NOT_REQUESTED,
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One action of the turn as the user should hear it: a call's outcome, or an action asked
    for that no call attempted (`call` None)."""

    action: str
    status: Status
    message: str
    call: ExecutedCall | None = None
    reason: NotDoneReason | None = None
    asked_text: str | None = None

    def metadata(self) -> dict[str, Any]:
        data = self.call.result.data if self.call and isinstance(self.call.result.data, dict) else {}
        done = self.status is Status.DONE
        return {
            "action": self.action,
            "success": done,
            "task_id": data.get("id") if done and self.action != "list_tasks" else None,
            "task_title": data.get("title") if done and self.action != "list_tasks" else None,
            "message": self.message,
            "status": self.status.value,
        }


@dataclass(slots=True)
class Reply:
    text: str
    outcomes: list[Outcome]
    source: str  # "results", "model" or "contract" (the not-triggered message)
    replaced: list[dict[str, Any]] = field(default_factory=list)

    @property
    def not_done(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status is Status.NOT_DONE]


# -- which calls the user hears about --------------------------------------------------------------
def _target(e: ExecutedCall) -> str:
    value = e.arguments.get("task_id") or e.arguments.get("title") or ""
    return str(value).strip().casefold()


def final_calls(executed: Sequence[ExecutedCall]) -> list[ExecutedCall]:
    """The calls the user should hear about: not a fixable failure the model then fixed (a later
    success of the same tool on the same target, or on any target when the failed call named none),
    not a repeat, not a call re-sent after being ignored, not a wrong tool the guard replaced, not
    a name that is no task tool."""
    shown: list[ExecutedCall] = []
    for i, e in enumerate(executed):
        later = executed[i + 1 :]
        code = e.result.code
        if code in (REPEATED_CALL, WRONG_TOOL, UNKNOWN_TOOL) or e.call.name not in TASK_TOOLS:
            continue
        if e.result.model_fixable and any(
            o.call.name == e.call.name and o.result.success and (not _target(e) or _target(o) == _target(e))
            for o in later
        ):
            continue
        if code == IGNORED and any(o.call.name == e.call.name and o.call.arguments == e.call.arguments for o in later):
            continue
        shown.append(e)
    return shown


def _status(e: ExecutedCall, unasked: frozenset[tuple[int, str]] = frozenset()) -> Status:
    """A call's outcome for the user. A change the message never asked for that the user's words do
    not name (`unasked`: the guard's extra calls) is not done; a forced one is a question to them."""
    if e.result.success:
        return Status.DONE
    if e.result.code == NOT_GROUNDED and (e.step, e.call.name) in unasked:
        return Status.NOT_DONE
    if e.result.code in (NOT_GROUNDED, "AMBIGUOUS"):
        return Status.ASKED
    return Status.FAILED if e.ran else Status.NOT_DONE


# -- describing one outcome ------------------------------------------------------------------------
def describe(e: ExecutedCall, status: Status | None = None) -> str:
    name = e.call.name
    target = e.arguments.get("task_id") or e.arguments.get("title")
    what = f"{_VERB.get(name, name)} “{target}”" if target else _VERB.get(name, name)
    status = status or _status(e)
    if status is Status.NOT_DONE:
        why = _NOT_RUN_WHY.get(e.result.code or "", e.result.error or "not run")
        return f"Not done: {what} ({why})."
    if status is Status.ASKED and e.result.code == NOT_GROUNDED:
        return f"I didn't {what}: your message doesn't name that task. Which task do you mean?"
    if not e.result.success:
        return f"Couldn't {what}: {e.result.error}"
    data = e.result.data if isinstance(e.result.data, dict) else {}
    if name == "list_tasks":
        return describe_list(data)
    if name == "undo_last_change":
        return describe_undo(data)
    details = []
    if name == "add_task":
        if data.get("due_date"):
            details.append(f"due {data['due_date']}")
        if data.get("priority") and data.get("priority") != "medium":
            details.append(f"{data['priority']} priority")
        if data.get("tags"):
            details.append(" ".join(f"#{t}" for t in data["tags"]))
    if name == "update_task":
        changed = [k for k in ("title", "description", "priority", "due_date", "tags", "status") if k in e.arguments]
        details.extend(
            f"{k.replace('_', ' ')} {'cleared' if data.get(k) in (None, []) else fmt(data.get(k))}" for k in changed
        )
    suffix = f" ({', '.join(details)})" if details else ""
    return f"{_DONE.get(name, 'Done')}: “{data.get('title', '')}”{suffix}."


def _call_outcome(e: ExecutedCall, status: Status) -> Outcome:
    data = e.result.data if isinstance(e.result.data, dict) else {}
    if status is Status.DONE:
        message = f"Listed {data.get('count', 0)} tasks" if e.call.name == "list_tasks" else None
        message = describe_undo(data) if e.call.name == "undo_last_change" else message
        message = message or f"{_DONE.get(e.call.name, e.call.name)}: {data.get('title')}"
    elif status is Status.NOT_DONE:
        message = f"Not done: {_NOT_RUN_WHY.get(e.result.code or '', e.result.error or 'not run')}"
    else:
        message = f"Failed: {e.result.error}"
    reason = _CODE_REASON.get(e.result.code or "") if status is Status.NOT_DONE else None
    return Outcome(e.call.name, status, message, call=e, reason=reason)


# -- actions asked for that no call attempted ------------------------------------------------------
def _unattempted(intent: Intent, calls: Sequence[ExecutedCall]) -> list[Action]:
    """The actions asked for that no call attempted, in the message's order. First each action
    takes a call that names what it is about ("eggs" of "add milk and eggs"); then an action with a
    verb of its own takes any call of its tool, and an item of a list is covered by any call naming
    it (one "salt and pepper" task covers "add salt and pepper")."""
    if not intent.needs_tool:
        return []
    left = list(calls)
    matched: dict[int, ExecutedCall] = {}
    for index, action in enumerate(intent.actions):
        naming = [c for c in left if satisfies(c, action) and action.object and named_in(_said(c), action.object)]
        if naming:
            matched[index] = naming[0]
            left.remove(naming[0])
    missing = []
    for index, action in enumerate(intent.actions):
        if index in matched:
            continue
        if action.explicit:
            other = next((c for c in left if satisfies(c, action)), None)
            if other is not None:
                left.remove(other)
                continue
        elif any(satisfies(c, action) and named_in(_said(c), action.object) for c in calls):
            continue
        missing.append(action)
    return missing


def _said(call: ExecutedCall) -> str:
    return " ".join(str(v) for v in call.arguments.values() if isinstance(v, str))


def _why_not(action: Action, guard: ExecutionGuard, run: RunResult) -> NotDoneReason:
    for event in guard.events:
        if event.tool == action.tool and event.decision is GuardDecision.TRUSTED:
            return NotDoneReason.MODEL_CHOSE_OTHER
    if action.tool in guard.forced:
        return NotDoneReason.TOOL_NOT_TRIGGERED
    if run.stop_reason is StopReason.BUDGET_EXCEEDED:
        return NotDoneReason.BUDGET
    if run.stop_reason not in ANSWERED:
        return NotDoneReason.STOPPED
    return NotDoneReason.NOT_ATTEMPTED


_WHY_NOT_TEXT = {
    NotDoneReason.MODEL_CHOSE_OTHER: "the model answered with another action instead; ask again if you still want it",
    NotDoneReason.TOOL_NOT_TRIGGERED: "the model did not call the tool for it, even when asked again",
    NotDoneReason.BUDGET: "this message ran out of its budget first",
    NotDoneReason.STOPPED: "the turn stopped before it",
    NotDoneReason.NOT_ATTEMPTED: "the model did not call a tool for it",
}


def _action_outcome(action: Action, reason: NotDoneReason) -> Outcome:
    text = f"Not done: “{action.text}” ({_WHY_NOT_TEXT[reason]})."
    return Outcome(action.tool, Status.NOT_DONE, text, reason=reason, asked_text=action.text)


# -- the reply ---------------------------------------------------------------------------------
def compose(
    *, run: RunResult, intent: Intent, guard: ExecutionGuard, response_mode: str, question: Question | None = None
) -> Reply:
    """The reply. With `question` (a confirmation the turn asks), the calls it asks about are
    `asked`, and the question ends the reply."""
    reply = _compose(run=run, intent=intent, guard=guard, response_mode=response_mode)
    if question is None:
        return reply
    outcomes = [
        dataclasses.replace(o, status=Status.ASKED, reason=None)
        if o.call is not None and id(o.call) in question.covers
        else o
        for o in reply.outcomes
    ]
    return Reply(f"{reply.text}\n{question.question}", outcomes, reply.source, reply.replaced)


class Question(Protocol):
    @property
    def question(self) -> str: ...

    @property
    def covers(self) -> frozenset[int]: ...


def _compose(*, run: RunResult, intent: Intent, guard: ExecutionGuard, response_mode: str) -> Reply:
    calls = final_calls(run.executed)
    status = {id(e): _status(e, guard.unasked) for e in calls}
    outcomes = [_call_outcome(e, status[id(e)]) for e in calls]
    outcomes += [_action_outcome(a, _why_not(a, guard, run)) for a in _unattempted(intent, calls)]
    lines = [describe(e, status[id(e)]) for e in calls] + [o.message for o in outcomes if o.call is None]
    stopped = _STOPPED.get(run.stop_reason, "").format(detail=(run.stop_detail or "").replace("_", " "))
    if stopped and stopped not in lines:
        lines.append(stopped)
    model_text = run.text.strip()
    if not calls and intent.needs_tool and run.stop_reason in (StopReason.TOOL_NOT_TRIGGERED, StopReason.NO_TOOL_CALLS):
        return Reply(TOOL_NOT_TRIGGERED, outcomes, "contract")
    if not calls or not any(e.ran for e in calls):
        # Nothing ran (no call, or every call refused): the model's answer, unless it claims a change.
        return _without_calls(run, guard, model_text, lines, outcomes)
    if response_mode == "model" and run.stop_reason in ANSWERED and model_text:
        kept = _consistent(model_text, calls, outcomes, guard)
        if isinstance(kept, str):
            return Reply(kept, outcomes, "model")
        return Reply("\n".join(lines), outcomes, "results", [kept])
    if model_text.endswith("?") and not guard.claims_in(model_text) and run.stop_reason in ANSWERED:
        lines.append(model_text)  # the model asks the user something (which one? what date?)
    return Reply("\n".join(lines) or NOTHING_CHANGED, outcomes, "results")


def _without_calls(
    run: RunResult, guard: ExecutionGuard, model_text: str, lines: list[str], outcomes: list[Outcome]
) -> Reply:
    """No task tool ran: the model's words (with what was not done), unless they claim a change."""
    ghost = guard.ghost_claims(model_text, run.executed)
    if ghost:
        replaced = _replaced(ReplacedReason.GHOST_CLAIM, [c.words for c in ghost], model_text)
        text = "\n".join([*lines, f"{NOTHING_CHANGED} (No task tool ran, so the model's reply is not shown.)"])
        return Reply(text, outcomes, "results", [replaced])
    if lines:
        text = "\n".join(lines if not model_text else [model_text, *lines])
        return Reply(text, outcomes, "results" if not model_text else "model")
    return Reply(model_text or EMPTY_REPLY, outcomes, "model")


def _consistent(
    text: str, calls: Sequence[ExecutedCall], outcomes: Sequence[Outcome], guard: ExecutionGuard
) -> str | dict[str, Any]:
    """In model mode: the model's text, completed with the successes it does not name, when it says
    nothing the results contradict; else why it is replaced."""
    succeeded = {e.call.name for e in calls if e.result.success}
    said = guard.claims_in(text)
    unbacked = _unbacked(said, succeeded)
    if unbacked:
        reason = ReplacedReason.UNBACKED_CLAIM if succeeded & _CHANGES else ReplacedReason.GHOST_CLAIM
        return _replaced(reason, unbacked, text)
    if any(o.status is not Status.DONE for o in outcomes):
        return _replaced(ReplacedReason.HIDES_FAILURE, [c.words for c in said], text)
    if (denied := denial(text)) is not None and succeeded & _CHANGES:
        return _replaced(ReplacedReason.DENIED_SUCCESS, [denied], text)
    folded = text.casefold()
    missing = [
        describe(e)
        for e in calls
        if e.call.name in _CHANGES and str((e.result.data or {}).get("title", "")).casefold() not in folded
    ]
    return "\n".join([text, *missing])


def _unbacked(said: Sequence[Claim], succeeded: set[str]) -> list[str]:
    """The words of each claimed change that no successful call (tool names in `succeeded`) made."""
    return [c.words for c in said if (c.tools and not set(c.tools) & succeeded) or (not c.tools and not succeeded)]


def contradicts(text: str, succeeded: set[str], guard: ExecutionGuard) -> bool:
    """Whether the model's text says something the successes contradict: a change none made, or that
    a change which succeeded was not done (what `_consistent` replaces a model's text for, when no
    call failed)."""
    return bool(_unbacked(guard.claims_in(text), succeeded)) or (
        bool(succeeded & _CHANGES) and denial(text) is not None
    )


_CHANGES = frozenset({"add_task", "delete_task", "complete_task", "update_task"})


def _replaced(reason: ReplacedReason, words: list[str], text: str) -> dict[str, Any]:
    return {"reason": reason.value, "claims": words, "model_reply": text[:500]}
