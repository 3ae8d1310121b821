"""The task tools' names and what each one is: the one vocabulary the loop, the tools, the reader,
the guard's decision table and the reply share. Every set of tools the code needs is read from
`TRAITS` (below); no other module lists tool names by hand."""

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
    """What a tool is, as the decisions about its calls need it.

    `action`: the word the reply check declares a change of this tool with ("delete Gym").
    `reads`: changes nothing. `targets`: acts on one task named by `task_id`, so it may be chosen
    among twins (a question with buttons). `destructive`: a change the user cannot simply see again
    and edit back (a delete, a completion): where its target is the backend's choice and not the
    words', the user is asked first, and a request over the whole list is one question. `capped`:
    counted against the per-turn cap on deletions. `items`: the verbless clauses after its verb are
    more items of it ("add milk, eggs"). `claimable`: a model's claim of it without the call may be
    forced. `states`: the tools whose success states this change (a completion and an edit that marks
    the task done state each other).
    """

    action: str
    reads: bool = False
    targets: bool = False
    destructive: bool = False
    capped: bool = False
    items: bool = False
    claimable: bool = False
    states: tuple[str, ...] = ()

    @property
    def changes(self) -> bool:
        return not self.reads


TRAITS: dict[str, Traits] = {
    Tool.ADD: Traits("add", items=True, claimable=True),
    Tool.LIST: Traits("list", reads=True),
    Tool.COMPLETE: Traits(
        "complete", targets=True, destructive=True, items=True, claimable=True, states=(Tool.UPDATE,)
    ),
    Tool.DELETE: Traits("delete", targets=True, destructive=True, capped=True, items=True, claimable=True),
    Tool.UPDATE: Traits("update", targets=True, claimable=True, states=(Tool.COMPLETE,)),
    Tool.UNDO: Traits("undo"),
}
UNKNOWN = Traits("")  # a name that is no task tool: treated as a change, never as a read


def traits(name: str) -> Traits:
    return TRAITS.get(name, UNKNOWN)


def having(trait: str) -> frozenset[Tool]:
    """The tools whose `trait` is true: `having("destructive")`."""
    return frozenset(Tool(t) for t, found in TRAITS.items() if getattr(found, trait))


# The tools that change data (every one but a listing), and the ones that only read.
CHANGING = having("changes")
READING = having("reads")


def stated_by(name: str) -> frozenset[str]:
    """The tools whose success states a change of `name`: itself, and an edit for a completion."""
    return frozenset({name, *traits(name).states})


def of_action(action: str) -> Tool | None:
    """The tool a declared action names ("delete" -> delete_task)."""
    return next((Tool(t) for t, found in TRAITS.items() if found.action == action), None)


# More changes of one kind than this make a list (a pasted list, a request over the whole list): the
# guard lets the model go on through it, the reply says it in one line ("Added 12 tasks: ..."), a
# confirmation asks about it in one phrase ("delete 50 tasks (“A”, “B”, “C” and 47 more)").
BULK = 4
