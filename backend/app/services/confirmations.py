"""Confirmations: a turn that should not act without the user's yes asks, and keeps exactly what a yes runs.

A question is asked (`propose`) when deletions go over the per-turn cap, when the model deletes or
completes on a message that asks for no change (a question, small talk; never after a "don't"), when
a forced or extra delete or complete names a task the user's words did not, and when a delete,
complete or update
names several tasks of one title (then the user picks one: "2", "the second one", "the one due
Friday"). The next message in the conversation answers it (`answer`): a yes in any covered
language (or `"confirm": "<id>"`) runs exactly the stored calls, with no LLM call; a no cancels;
anything else cancels it and is handled as a new message. Questions expire.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from backend.app.agent.dispatch import DESTRUCTIVE_LIMIT
from backend.app.agent.types import ExecutedCall
from backend.app.db.models import PendingConfirmation
from backend.app.language.lexicon import fold
from backend.app.services.guard import NOT_REQUESTED
from backend.app.tools.context import ConversationContext, Pick, TaskRef
from backend.app.tools.references import NOT_GROUNDED

ASKABLE = frozenset({"delete_task", "complete_task"})  # never without the user's own words or a yes
CHOOSABLE = frozenset({"delete_task", "complete_task", "update_task"})
_VERBS = {"delete_task": "delete", "complete_task": "complete", "update_task": "update"}


@dataclass(frozen=True, slots=True)
class Proposal:
    """What to ask: `actions` are exactly the calls an answer runs ({name, arguments, label})."""

    kind: Literal["confirm", "choose"]
    question: str
    actions: list[dict[str, Any]]
    covers: frozenset[int] = field(default_factory=frozenset)  # id() of the calls it asks about


def propose(
    calls: Sequence[ExecutedCall], *, ask_unasked: bool = True, extra: frozenset[tuple[int, str]] = frozenset()
) -> Proposal | None:
    """The question a turn's results call for, if any (a choice among twins first). A change the
    message did not ask for is asked about unless `ask_unasked` is false (the user said no)."""
    for e in calls:
        choices = e.result.data.get("choices") if isinstance(e.result.data, dict) else None
        if e.result.code == "AMBIGUOUS" and e.call.name in CHOOSABLE and isinstance(choices, list) and choices:
            actions = [
                {
                    "name": e.call.name,
                    "arguments": {**e.arguments, "task_id": c["id"]},
                    "label": c["title"] + (f" ({c['detail']})" if c.get("detail") else ""),
                }
                for c in choices
            ]
            numbered = "; ".join(f"{i}. {a['label']}" for i, a in enumerate(actions, start=1))
            question = f"Which one should I {_VERBS[e.call.name]}? {numbered}. Answer with its number."
            return Proposal("choose", question, actions, frozenset({id(e)}))
    asks = [e for e in calls if (_needs_yes(e) and (e.step, e.call.name) not in extra) or (ask_unasked and _unasked(e))]
    if not asks:
        return None
    actions = [_action(e) for e in asks]
    listed = " and ".join(f"{_VERBS.get(a['name'], a['name'])} “{a['label']}”" for a in actions)
    return Proposal("confirm", f"Do you want me to {listed}? Answer yes or no.", actions, frozenset(map(id, asks)))


def _unasked(e: ExecutedCall) -> bool:
    return e.result.code == NOT_REQUESTED and e.call.name in ASKABLE


def _needs_yes(e: ExecutedCall) -> bool:
    if e.result.code == DESTRUCTIVE_LIMIT:
        return True
    data = e.result.data if isinstance(e.result.data, dict) else {}
    return e.result.code == NOT_GROUNDED and e.call.name in ASKABLE and bool(data.get("id"))


def _action(e: ExecutedCall) -> dict[str, Any]:
    data = e.result.data if isinstance(e.result.data, dict) else {}
    arguments = dict(e.arguments)
    if data.get("id"):
        arguments["task_id"] = data["id"]  # the task resolved then, not a title to resolve again
    label = str(data.get("title") or e.arguments.get("task_id") or e.arguments.get("title") or "")
    return {"name": e.call.name, "arguments": arguments, "label": label}


@dataclass(frozen=True, slots=True)
class Answer:
    """What the user's message does to a pending question: run these calls, cancel, or neither
    (then it is cancelled and the message is a new one)."""

    verdict: Literal["run", "cancel", "new"]
    actions: tuple[dict[str, Any], ...] = ()
    how: str = ""


def answer(pending: PendingConfirmation, message: str, *, confirm: str | None) -> Answer:
    by_id = confirm is not None and confirm == str(pending.id)
    if by_id and (pending.kind == "confirm" or len(pending.actions) == 1):
        return Answer("run", tuple(pending.actions), "confirmed by id")
    said = ConversationContext().answer(message)
    if pending.kind == "confirm":
        if said is True:
            return Answer("run", tuple(pending.actions), "yes")
        return Answer("cancel" if said is False else "new", how="no" if said is False else "")
    picked = _pick(pending.actions, message)
    if picked is not None:
        return Answer("run", (picked,), "chosen")
    return Answer("cancel" if said is False else "new", how="no" if said is False else "")


def _pick(actions: Sequence[dict[str, Any]], message: str) -> dict[str, Any] | None:
    """The action the user picked: by number or position ("2", "the second one"), or by what tells
    it apart ("the one due Friday", "the high priority one") when exactly one fits."""
    shown = tuple(TaskRef(str(a["arguments"]["task_id"]), str(a["label"])) for a in actions)
    found = ConversationContext(shown=shown, shown_last=True).resolve(message)
    if isinstance(found, Pick):
        return next(a for a in actions if str(a["arguments"]["task_id"]) == found.task.id)
    said = fold(message)
    fitting = [a for a in actions if any(_fits(part, said) for part in _details(str(a["label"])))]
    return fitting[0] if len(fitting) == 1 else None


def _details(label: str) -> list[str]:
    inside = label[label.rfind("(") + 1 : -1] if label.endswith(")") and "(" in label else ""
    return [p.strip() for p in inside.split(",") if p.strip() and not p.strip().startswith("added")]


def _fits(part: str, said: str) -> bool:
    words = fold(part)
    if words in said:
        return True
    if words.startswith("due "):  # "the one due friday": the due date's weekday
        try:
            day = date.fromisoformat(words[4:])
        except ValueError:
            return False
        return fold(calendar.day_name[day.weekday()]) in said
    return words.split()[0] in said.split() if words.endswith("priority") else False
