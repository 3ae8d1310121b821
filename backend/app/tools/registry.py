"""The tool registry: each task tool defined once, and the one lookup.

A `ToolDef` ties what the model sees (the spec, its JSON schema made from the arguments model) to the
class that validates the call's arguments and the handler that runs it (tools/handlers.py), so the
schema and the validation can never drift apart. The chat loop, MCP and REST all offer tools from
`TOOLS`, masked by the deployment's TOOLS_ALLOW / TOOLS_DENY through `find_tool`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from backend.app.calls.tools import Tool, traits
from backend.app.calls.types import ToolCall, ToolSpec
from backend.app.tools.handlers import Done, StepScope, ToolHandlers
from backend.app.tools.schemas import (
    AddTaskArgs,
    ListTasksArgs,
    TaskRefArgs,
    UndoArgs,
    UpdateTaskArgs,
    compact_schema,
)

Handler = Callable[[ToolHandlers, StepScope, Any, ToolCall], Awaitable[Done]]


@dataclass(frozen=True, slots=True)
class ToolDef:
    """A tool: what the model sees (`spec`, its schema from `args`), how its arguments are read
    (`args`) and what runs it (`handler`, a `ToolHandlers` method, called on the handlers of the
    `TaskTools` running the step, with that step's `StepScope`). `TOOLS` below lists them all."""

    spec: ToolSpec
    args: type[BaseModel]
    handler: Handler


def _define(tool: Tool, description: str, args: type[BaseModel], handler: Handler) -> ToolDef:
    """The tool's spec: its traits (calls/tools.py) say whether it reads only and whether it is
    destructive (MCP's hints, the loop's read phase)."""
    found = traits(tool)
    return ToolDef(ToolSpec(tool, description, compact_schema(args), found.reads, found.destructive), args, handler)


def find_tool(name: str, offered: Collection[str] | None = None) -> ToolDef | None:
    """The one lookup: the tool called `name`, if there is one and the deployment offers it
    (`offered`: TOOLS_ALLOW / TOOLS_DENY applied; None: every tool)."""
    definition = TOOLS.get(name)
    return definition if definition is not None and (offered is None or name in offered) else None


TOOLS: dict[str, ToolDef] = {
    d.spec.name: d
    for d in (
        _define(Tool.ADD, "Create a task for the user.", AddTaskArgs, ToolHandlers.add_task),
        _define(
            Tool.LIST,
            "List the user's tasks, newest first.",
            ListTasksArgs,
            ToolHandlers.list_tasks,
        ),
        _define(
            Tool.COMPLETE, "Mark a task as completed (never un-completes).", TaskRefArgs, ToolHandlers.complete_task
        ),
        _define(Tool.DELETE, "Delete a task permanently.", TaskRefArgs, ToolHandlers.delete_task),
        _define(
            Tool.UPDATE,
            "Change a task's fields; give only the fields to change.",
            UpdateTaskArgs,
            ToolHandlers.update_task,
        ),
        _define(
            Tool.UNDO,
            "Undo the user's most recent change (all of one message's changes).",
            UndoArgs,
            ToolHandlers.undo_last_change,
        ),
    )
}
TOOL_SPECS: tuple[ToolSpec, ...] = tuple(d.spec for d in TOOLS.values())
