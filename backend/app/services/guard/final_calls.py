"""Which of a turn's calls the user hears about, and what each one was about."""

from __future__ import annotations

from collections.abc import Sequence

from backend.app.calls.codes import ResultCode
from backend.app.calls.tools import Tool, having
from backend.app.calls.types import ExecutedCall

TASK_TOOLS = frozenset(Tool)

_READS = having("reads")


def target(e: ExecutedCall) -> str:
    """What the call named (a reference or a title), casefolded."""
    value = e.arguments.get("task_id") or e.arguments.get("title") or ""
    return str(value).strip().casefold()


def final_calls(executed: Sequence[ExecutedCall]) -> list[ExecutedCall]:
    """The calls the user should hear about: not a fixable failure the model then fixed (a later
    success of the same tool on the same target, or on any target when the failed call named none),
    not a repeat, not a call re-sent after being ignored, not a name that is no task tool."""
    shown: list[ExecutedCall] = []
    for i, e in enumerate(executed):
        later = executed[i + 1 :]
        code = e.result.code
        if code in (ResultCode.REPEATED_CALL, ResultCode.UNKNOWN_TOOL) or e.call.name not in TASK_TOOLS:
            continue
        if e.result.model_fixable and any(
            o.call.name == e.call.name and o.result.success and (not target(e) or target(o) == target(e)) for o in later
        ):
            continue
        if code == ResultCode.IGNORED and any(
            o.call.name == e.call.name and o.call.arguments == e.call.arguments for o in later
        ):
            continue
        shown.append(e)
    return shown


def repeats_of_done(executed: Sequence[ExecutedCall]) -> list[ExecutedCall]:
    """The reads refused as repeats of one that succeeded earlier in the turn (the same name and
    arguments): what the model asked with them was answered by that call ("what's on my list? show my
    tasks", listed once). They are no line of the reply; they only cover the requests for a read. A
    repeated change is not one: "delete gym and delete yoga" answered with gym twice leaves yoga undone."""
    return [
        e
        for i, e in enumerate(executed)
        if e.result.code == ResultCode.REPEATED_CALL
        and e.call.name in _READS
        and any(o.result.success and o.call.name == e.call.name and o.arguments == e.arguments for o in executed[:i])
    ]
