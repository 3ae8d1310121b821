"""The values a call would store or filter by, as the decision table has them (calls/verdicts.py, rows
V1-V6, docs/guard.md): a priority, a due date or tags on an add or an edit, a listing's filters.

A value of a kind the user's words (the message, or their earlier messages) give is kept; one the user
gave otherwise ("due friday" while the model says Thursday) is theirs; one nobody gave (a small model's
tags made of schema words, a priority and a due date it filled in) is not stored, nor is a filter
nobody asked for applied. What was dropped goes with the call's result (`Done.dropped`), so that the
record says it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from backend.app.calls.decisions import Do
from backend.app.calls.facts import Arg, Given, Grounding, ValueFacts
from backend.app.calls.said import Said
from backend.app.calls.verdicts import decide
from backend.app.tools.titles import named_in

M = TypeVar("M", bound=BaseModel)
# A due time and a repeat are when a task is due, as a due date is: the same rows of the table.
_ARG = {
    "priority": Arg.PRIORITY,
    "due_date": Arg.DUE_DATE,
    "tags": Arg.TAGS,
    "due_at": Arg.DUE_DATE,
    "recurrence": Arg.DUE_DATE,
}
# The value each field has when nobody gave one (an add's defaults): such a value is no one's choice.
_UNSET: dict[str, Any] = {"priority": "medium", "due_date": None, "tags": [], "due_at": None, "recurrence": None}
# A listing's filters, the kind of value each is, and its value when not applied.
_FILTERS: dict[str, tuple[str, Any]] = {
    "query": ("words", None),
    "tag": ("words", None),
    "priority": ("priority", None),
    "due_before": ("due_date", None),
    "due_after": ("due_date", None),
}


@dataclass(frozen=True, slots=True)
class Dropped:
    """A value not stored, or a filter not applied: which argument, and the value the model gave."""

    argument: str
    value: Any

    def note(self) -> str:
        return f"{self.argument} {self.value!r} not used: the user's words do not give it"


@dataclass(slots=True)
class Values:
    """One call's values, as the table keeps, repairs or drops them; `guarded`: the table applies (a
    chat turn under a guarded policy), else every value is kept as the model gave it."""

    said: Said | None
    grounding: Grounding | None
    guarded: bool = False
    repairs: list[str] = field(default_factory=list)
    applied: dict[str, Any] = field(default_factory=dict)
    dropped: list[Dropped] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.guarded = self.guarded or self.grounding is not None

    def repaired(self, name: str, value: Any, why: str) -> None:
        self.repairs.append(why)
        self.applied[name] = value

    def fields(self, args: M, users: Mapping[str, Any], names: Sequence[str], *, edit: bool = False) -> M:
        """`args` with each of `names` as the table has it: `users` are the values the user gave for
        this very task (an add's priority and due date as the message said them); `edit`: the call
        changes a task (a value nobody gave is then no change at all, not a default). An edit's values
        are what it is for: its priority or due date is dropped only when the message gives another of
        its values it can read ("move the dentist to friday" with a priority nobody said), never when
        the words give none the lists read (another language, other wording: the edit stands whole);
        its done state only where a clause that says no alone gives one ("don't complete gym, rename
        it to Gym class")."""
        readable = (
            not edit
            or any(
                getattr(args, n, None) not in (None, []) and self._gives(n) for n in ("priority", "due_date", "status")
            )
            or bool(getattr(args, "title", None))
        )
        for name in names:
            value = getattr(args, name)
            if name in users and users[name] != value:  # the user gave it, the model another or none
                verdict = decide(ValueFacts(_ARG[name], guarded=self.guarded, given=Given.OTHER))
                if verdict.do is Do.REPAIR:
                    self.repaired(
                        name, _json(users[name]), f"{name} '{value}' is not what the user said: used '{users[name]}'"
                    )
                    args = args.model_copy(update={name: users[name]})
                continue
            if value is None or value == [] or (not edit and value == _UNSET[name]):
                continue
            if name == "status":  # the model's, unless only a no gives it ("don't complete gym, rename it …")
                if value == "completed" and not self._keep(Arg.STATUS, not self._refuses(name)):
                    self.dropped.append(Dropped(name, value))
                    args = _with(args, name, None, edit=edit)
                continue
            if name == "tags":
                kept = [tag for tag in value if self._keep(Arg.TAGS, self._words(tag))]
                if kept != value:
                    self.dropped += [Dropped(name, tag) for tag in value if tag not in kept]
                    args = _with(args, name, kept, edit=edit)
                continue
            if name not in users and readable and not self._keep(_ARG[name], self._gives(name)):
                self.dropped.append(Dropped(name, _json(value)))
                args = _with(args, name, _UNSET[name], edit=edit)
        return args

    def filters(self, args: M) -> M:
        """A listing's arguments with only the filters the user's words ask for."""
        for name, (kind, cleared) in _FILTERS.items():
            value = getattr(args, name, None)
            if value is None or value == "":
                continue
            given = self._words(str(value)) if kind == "words" else self._gives(kind)
            if not self._keep(Arg.FILTER, given):
                self.dropped.append(Dropped(name, _json(value)))
                args = args.model_copy(update={name: cleared})
        if getattr(args, "status", None) == "completed" and not self._keep(Arg.FILTER, self._gives("status")):
            self.dropped.append(Dropped("status", "completed"))
            args = args.model_copy(update={"status": "all"})
        return args

    # -- the facts -------------------------------------------------------------------------------
    def _keep(self, arg: Arg, given: bool) -> bool:
        return decide(ValueFacts(arg, guarded=self.guarded, given=Given.YES if given else Given.NO)).do is Do.KEEP

    def _refuses(self, name: str) -> bool:
        return self.said is not None and self.said.refuses(name)

    def _gives(self, name: str) -> bool:
        return self.said is None or self.said.gives(name)

    def _words(self, value: str) -> bool:
        """Whether the user's words name this value (a tag, a search word)."""
        return self.said is None or named_in(self.said.everything, value)


def _with(args: M, name: str, value: Any, *, edit: bool) -> M:
    """`args` with `name` at `value`; on an edit, a field left with no value is unset (no change)."""
    if not edit:
        return args.model_copy(update={name: value})
    data = args.model_dump(exclude_unset=True)
    if value:
        data[name] = value
    else:
        data.pop(name, None)
    return type(args).model_validate(data)


def _json(value: Any) -> Any:
    """A value as JSON keeps it (a date as its ISO text)."""
    return value.isoformat() if hasattr(value, "isoformat") else value
