"""The reply check: before a model's words reach the user, the model says in a structured call what
they claim, and the backend compares that with what really ran.

Word lists read claims in the languages they know, and miss wordings and languages they do not
("Klaar, verwijderd!", "Yoga ya no está en tu lista"). So whenever a reply would carry the model's
own words, the model is asked once, with `check_reply` forced, which changes the words say were
made (`done`) and which they say were not (`not_done`). A claimed change that no successful call
made, or a denial of one that succeeded, keeps the words from the user; so does an answer that is
not a well-formed `check_reply` call (a check that cannot be read verifies nothing). The check sees
only the user's message and the reply, never the tool results: it reports, the backend judges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from backend.app.agent.guard_protocol import CheckWords
from backend.app.calls.payloads import choices_of, listing_of, title_of, undo_of
from backend.app.calls.tools import Tool, of_action, stated_by
from backend.app.calls.types import ExecutedCall, ToolSpec
from backend.app.core.jsontypes import JsonObject
from backend.app.tools.titles import named_in

Action = Literal["add", "delete", "complete", "update", "undo"]
# The tools a declared action may be backed by (a completion and an edit state each other).
_TOOLS: dict[str, frozenset[str]] = {a: stated_by(of_action(a) or a) for a in get_args(Action)}
TOOL_OF: dict[str, Tool] = {a: tool for a in get_args(Action) if (tool := of_action(a)) is not None}
_CHANGE = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(_TOOLS)},
        "task": {"type": "string", "description": "The task's title as the reply names it; empty if it names none."},
    },
    "required": ["action", "task"],
}
CHECK_TOOL = ToolSpec(
    name="check_reply",
    description="Report what the assistant's reply says about changes to the user's tasks.",
    parameters={
        "type": "object",
        "properties": {
            "done": {
                "type": "array",
                "items": _CHANGE,
                "description": "Each change the reply says HAS BEEN made (added, deleted, completed, updated, undone).",
            },
            "not_done": {
                "type": "array",
                "items": _CHANGE,
                "description": "Each change the reply says was NOT made, or failed.",
            },
        },
        "required": ["done", "not_done"],
    },
    read_only=True,
)
_INSTRUCTION = (
    "You read a to-do assistant's reply to its user and report, with check_reply, what the reply says "
    "about the user's tasks, in any language. `done`: each change the reply says has been made "
    "(including a bare 'Done!', which is a change with an empty task). `not_done`: each change it says "
    "was not made or failed. Offers, questions, plans, advice, greetings and descriptions of the list "
    "are neither. Report what the reply says, not what you think happened."
)


class _Change(BaseModel):
    model_config = ConfigDict(extra="ignore")
    action: Action
    task: str = Field(default="", max_length=500)


class _Declaration(BaseModel):
    model_config = ConfigDict(extra="ignore")
    done: list[_Change] = Field(max_length=50)
    not_done: list[_Change] = Field(max_length=50)


@dataclass(frozen=True, slots=True)
class Change:
    action: str
    task: str


@dataclass(frozen=True, slots=True)
class Declaration:
    """What the model says its words claim."""

    done: tuple[Change, ...]
    not_done: tuple[Change, ...]


def check_request(message: str, text: str) -> CheckWords:
    """The one request that asks what `text` (the reply to `message`) claims."""
    content = f"The user wrote:\n<<<\n{message}\n>>>\n\nThe assistant replied:\n<<<\n{text}\n>>>"
    return CheckWords(
        tool=CHECK_TOOL,
        messages=[{"role": "system", "content": _INSTRUCTION}, {"role": "user", "content": content}],
    )


def read_declaration(arguments: JsonObject | None) -> Declaration | None:
    """The declaration in a `check_reply` call's arguments; None when there is none to read."""
    if arguments is None:
        return None
    try:
        found = _Declaration.model_validate(arguments)
    except ValidationError:
        return None
    return Declaration(
        tuple(Change(c.action, c.task.strip()) for c in found.done),
        tuple(Change(c.action, c.task.strip()) for c in found.not_done),
    )


def made_by(change: Change, successes: Sequence[ExecutedCall]) -> bool:
    """Whether a successful call made `change`: its tool, on the task it names (any task when the
    change names none). An add claimed must be the title stored, as written: a claim of "delete old
    photos from phone" added is false when "old photos from phone" was (a paraphrase of a task that
    exists names it in part: "the dentist" for "Dentist appointment")."""
    return any(e.call.name in _TOOLS[change.action] and _names(change, e) for e in successes)


def _names(change: Change, e: ExecutedCall) -> bool:
    task = change.task
    if not task:
        return True
    if change.action == "add":
        return any(named_in(task, title) and named_in(title, task) for title in titles_of(e))
    return any(named_in(task, title) or named_in(title, task) for title in titles_of(e))


def titles_of(e: ExecutedCall) -> list[str]:
    """The titles of the tasks a call's result names."""
    data = e.result.data
    title = title_of(data)
    found = [title] if title else []
    if listing := listing_of(data):
        found += [task["title"] for task in listing["tasks"] if task["title"]]
    if undo := undo_of(data):
        found += [item["title"] for item in undo["undone"] if item["title"]]
    if asked := choices_of(data):
        found += [choice["title"] for choice in asked["choices"] if choice["title"]]
    return found
