"""Every code a tool result can carry: the written contract between whoever refuses or runs a call
(the loop's checks, the guard, the task tools) and whoever reads the result (the reply, the wording,
confirmations, records, metrics). A `StrEnum`, so a code is its own value on the wire and in rows."""

from __future__ import annotations

from enum import StrEnum


class ResultCode(StrEnum):
    # Refused by the loop before the tools (agent/normalize.py; the decision table's loop rows, agent/dispatch.py).
    ARGUMENTS_TOO_LARGE = "ARGUMENTS_TOO_LARGE"  # fixable: the call's arguments exceed the cap
    ARGUMENTS_JSON_PARSE_ERROR = "ARGUMENTS_JSON_PARSE_ERROR"  # fixable: the arguments are not JSON
    UNKNOWN_TOOL = "UNKNOWN_TOOL"  # fixable: no tool of that name is offered
    TOOL_OUTPUT_TOO_LARGE = "TOOL_OUTPUT_TOO_LARGE"  # the tool ran; its output was over the cap
    DESTRUCTIVE_LIMIT = "DESTRUCTIVE_LIMIT"  # over the turn's cap on destructive calls: not run
    REPEATED_CALL = "REPEATED_CALL"  # the same call again: not run, the turn stops
    BUDGET_EXCEEDED = "BUDGET_EXCEEDED"  # a per-turn budget ran out: not run
    IGNORED = "IGNORED"  # over the calls-per-step limit: not run
    # Refused or asked about by the guard's decision table (calls/verdicts.py, docs/guard.md).
    NOT_GROUNDED = "NOT_GROUNDED"  # the target is not one the user's words name
    NOT_REQUESTED = "NOT_REQUESTED"  # refused, unsaid: a change the message did not ask for, or said no to
    NEEDS_CONFIRMATION = "NEEDS_CONFIRMATION"  # looked up, nothing changed: the user is asked first
    STATED = "STATED"  # looked up, nothing changed: the user asked how it stands, and is told
    RENAMED = "RENAMED"  # a yes met a task renamed since its question: not run (services/turn/answers.py)
    # Answered by the task tools (tools/).
    NOT_FOUND = "NOT_FOUND"  # no task of the user's matches the reference
    AMBIGUOUS = "AMBIGUOUS"  # several tasks match: `data.choices` lists them
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"  # fixable: `data.fields` names what is wrong
    DUE_DATE_IN_PAST = "DUE_DATE_IN_PAST"  # fixable
    NO_CHANGES = "NO_CHANGES"  # fixable: an update that names no field
    NOT_APPLIED = "NOT_APPLIED"  # strict mode: another call of the step was invalid or failed, so none ran
    CONFLICT = "CONFLICT"  # another change to the task won a race
    PRECONDITION_FAILED = "PRECONDITION_FAILED"  # a REST If-Match named another version of the task
    STORAGE_ERROR = "STORAGE_ERROR"  # the database refused the change: nothing done
    NOTHING_TO_UNDO = "NOTHING_TO_UNDO"
    UNDO_CONFLICT = "UNDO_CONFLICT"  # the change set to undo was changed since, or is not the newest
