"""What a call's reference came to (`Found`), and what the decision table's verdict on that target
makes of the call (`acted`: rows T3-T20, docs/guard.md): the task to act on, or the result that says
why none is acted on (asked about, stated, refused). `TaskFinder` (tools/references.py) gathers the
facts and asks the table; this is the one place its verdict becomes a result. And the task a
reference into the conversation points to (`from_conversation`), whether a lookup named no task
(`names_no_task`), and the refusal of a call made at a version the task is past (`changed_meanwhile`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Do, Verdict
from backend.app.calls.facts import Source
from backend.app.calls.payloads import Choices, TaskNamed, choices_of
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.db.repositories.tasks import TaskRepository, TaskRow
from backend.app.tools.referents import Pick, Unclear, choice, needs_confirmation


@dataclass(frozen=True, slots=True)
class Found:
    """What a reference came to: the task (`match`), or the result saying why none is acted on (not
    found, several, asked about, refused). `notes` say how the reference was read ("'it' → Gym (the
    last one)"), `repairs` what was used in place of the model's argument, and `used` the reference
    the call went on with when a repair replaced the model's: the title of the task used."""

    match: TaskRow | ToolResult
    notes: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()
    used: str | None = None
    source: Source = Source.MODEL  # who chose the task: the model's reference, the conversation, a repair

    def then(self, later: Found) -> Found:
        """`later`'s match, after this one's notes and repairs."""
        used = later.used if later.used is not None else self.used
        source = later.source if later.source is not Source.MODEL else self.source
        return Found(later.match, self.notes + later.notes, self.repairs + later.repairs, used, source)


async def from_conversation(repo: TaskRepository, reference: str, found: Pick | Unclear) -> Found:
    """A reference into the conversation ("it", "the second one"): the task it points to, if it
    is still there and the owner's (the ids come from this user's own turns, and are looked up
    under the owner anyway); else the user is asked."""
    if isinstance(found, Unclear):
        choices = [choice(c.id, c.title, c.facts) for c in found.candidates]
        data = Choices(reference=reference, candidates=[c.title for c in found.candidates], choices=choices)
        return Found(ToolResult(success=False, code=ResultCode.AMBIGUOUS, error=found.message, data=data))
    row = await repo.get_row(uuid.UUID(found.task.id))
    if row is None:
        error = f"'{reference}' was “{found.task.title}” ({found.how}), which no longer exists"
        return Found(ToolResult(success=False, code=ResultCode.NOT_FOUND, error=error))
    source = Source.RECENT if found.recent else Source.CONTEXT
    return Found(row, notes=(f"'{reference}' → {row.title} ({found.how})",), source=source)


def acted(verdict: Verdict, call: ToolCall, row: TaskRow, other: TaskRow | None, notes: tuple[str, ...]) -> Found:
    """What the table's verdict on the target `row` makes of the call (`other`: the one task the
    user's words name for this action instead, which ASK_NAMED asks about)."""
    named = {"id": str(row.id), "title": row.title}
    match verdict.do:
        case Do.RUN:
            return Found(row, notes)
        case Do.ASK:
            return Found(needs_confirmation(verdict, call.name, row), notes)
        case Do.STATE:  # the handler reads how it stands (tools/handlers.py `_find`)
            return Found(verdict.refusal(f"Not done: the user asked how '{row.title}' stands.", named), notes)
        case Do.ASK_NAMED:
            # The task the user's words name, in place of the model's pick ("kryssa av tvätten"
            # completing "Present till Elsa" asks about "Tvätta"); only asked about.
            assert other is not None
            repair = f"the message does not name '{row.title}': asked about '{other.title}'"
            return Found(needs_confirmation(verdict, call.name, other), notes, (repair,))
    if verdict.code == ResultCode.NOT_REQUESTED:
        error = (
            f"'{row.title}' is not named by the user's words for this change (only as content, by another "
            "change, or in what they said no to); nothing was done"
        )
        return Found(verdict.refusal(error, {"title": row.title}), notes)
    what = f"The user's message does not name '{row.title}'; nothing was done. Ask the user which task they mean."
    return Found(verdict.refusal(what, named), notes)


def names_no_task(result: ToolResult) -> bool:
    """A reference that names no task: no title is it, or it points into a conversation that showed
    none ("the task" before any was shown: a question with nothing to choose from)."""
    asked = choices_of(result.data)
    return result.code == ResultCode.NOT_FOUND or (
        result.code == ResultCode.AMBIGUOUS and asked is not None and not asked["choices"]
    )


def changed_meanwhile(call: ToolCall, row: TaskRow) -> Found | None:
    """The refusal of a call made at a version (a REST `If-Match`) the task is no longer at."""
    if call.expected_version is None or row.version == call.expected_version:
        return None
    data = TaskNamed(id=str(row.id), title=row.title, version=row.version)
    error = f"'{row.title}' is at version {row.version}, not {call.expected_version}: it changed meanwhile"
    return Found(ToolResult(success=False, code=ResultCode.PRECONDITION_FAILED, error=error, data=data))
