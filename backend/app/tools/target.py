"""What a call's reference came to (`Found`), and what the decision table's verdict on that target
makes of the call (`acted`: rows T3-T18, docs/guard.md): the task to act on, or the result that says
why none is acted on (asked about, stated, refused). `TaskFinder` (tools/references.py) gathers the
facts and asks the table; this is the one place its verdict becomes a result.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Do, Verdict
from backend.app.calls.facts import Source
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.db.repositories.tasks import TaskRow
from backend.app.tools.referents import needs_confirmation


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
