"""What a user's message itself names, read before the model runs (the offline model's parser reads
it, the tools use it to repair a model's arguments that name nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SaidAdd:
    """A task the user's message asks to add, as the message gives it."""

    title: str
    quoted: bool = False  # the user put the title in quotes: exactly this title
    fields: Mapping[str, Any] = field(default_factory=dict)  # priority, due_date, as the user gave them


@dataclass(frozen=True, slots=True)
class Said:
    """What the user's message itself names, read before the model runs: the message, the task
    references it gives each tool ("taxes" for `delete_task`) and the tasks it asks to add. A model's
    argument that names nothing (a reference no task answers to, a title sharing no word with the
    message), a title other than the one the user quoted, or a priority or due date other than the
    one the user gave, is repaired with these, said so in the result. A reference that resolves is
    never replaced, and nothing the message does not name is ever used."""

    message: str = ""
    references: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    adds: tuple[SaidAdd, ...] = ()
