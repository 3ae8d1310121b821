"""The task tools' names and what kind of change each one makes: the one vocabulary the loop, the tools,
the guard's decision table and the reply share."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Tool(StrEnum):
    ADD = "add_task"
    LIST = "list_tasks"
    COMPLETE = "complete_task"
    DELETE = "delete_task"
    UPDATE = "update_task"
    UNDO = "undo_last_change"


@dataclass(frozen=True, slots=True)
class Traits:
    """What a tool does, as the decisions about its calls need it.

    `reads`: changes nothing. `targets`: acts on one task named by `task_id`. `destructive`: a change
    the user cannot simply see again and edit back (a delete, a completion): where its target is the
    backend's choice and not the words', the user is asked first, and a message that asks for no change
    may still be asked about it. `capped`: counted against the per-turn cap on deletions.
    """

    reads: bool = False
    targets: bool = False
    destructive: bool = False
    capped: bool = False

    @property
    def changes(self) -> bool:
        return not self.reads


TRAITS: dict[str, Traits] = {
    Tool.ADD: Traits(),
    Tool.LIST: Traits(reads=True),
    Tool.COMPLETE: Traits(targets=True, destructive=True),
    Tool.DELETE: Traits(targets=True, destructive=True, capped=True),
    Tool.UPDATE: Traits(targets=True),
    Tool.UNDO: Traits(),
}
UNKNOWN = Traits()  # a name that is no task tool: treated as a change, never as a read


def traits(name: str) -> Traits:
    return TRAITS.get(name, UNKNOWN)


# More changes of one kind than this make a list (a pasted list, a request over the whole list): the
# guard lets the model go on through it, the reply says it in one line ("Added 12 tasks: ..."), a
# confirmation asks about it in one phrase ("delete 50 tasks (“A”, “B”, “C” and 47 more)").
BULK = 4
