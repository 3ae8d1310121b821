"""Why a tool call failed, and a task's fields, in the user's words (the catalogs'): what a reply says
of a failed call, whoever writes the reply (services/reply, the offline model). The tools' own error
texts are written for the model and never reach the user."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import Payload, invalid_fields
from backend.app.language.catalog import Texts


def field_name(t: Texts, field: str) -> str:
    return {
        "title": t("title"),
        "description": t("description"),
        "priority": t("priority"),
        "due_date": t("due date"),
        "due_at": t("due time"),
        "recurrence": t("repeat"),
        "tags": t("tags"),
        "status": t("status"),
    }.get(field, field)


def failure_reason(t: Texts, code: str | None, arguments: Mapping[str, Any], data: Payload | None) -> str:
    """Why a call failed, for the user (the tool's own error is written for the model): from its
    result's code, never from its error text."""
    code = code or ""
    if code == ResultCode.NOT_FOUND:
        return t("there is no task by that name on your list.")
    if code == ResultCode.CONFLICT:
        return t("it was changed by another request at the same time; nothing was done. Please try again.")
    if code == ResultCode.RENAMED:
        return t("it was renamed after the question was asked; nothing was done.")
    if code == ResultCode.DUE_DATE_IN_PAST:
        return t("the due date {date} is in the past.", date=arguments.get("due_date"))
    if code == ResultCode.STORAGE_ERROR:
        return t("the database refused this change.")
    if code == ResultCode.NOT_APPLIED:
        return t("another change of this message failed, so none was applied.")
    if code == ResultCode.NOTHING_TO_UNDO:
        return t("there is nothing to undo.")
    if code == ResultCode.UNDO_CONFLICT:
        return t("another change got in the way; nothing was undone.")
    fields = [f["field"].split(".")[0] for f in invalid_fields(data)]
    if code == ResultCode.INVALID_ARGUMENTS and fields:
        names = t.join([field_name(t, f) for f in dict.fromkeys(fields)])
        return t("the {fields} given for it was not valid.", fields=names)
    if code in (
        ResultCode.INVALID_ARGUMENTS,
        ResultCode.NO_CHANGES,
        ResultCode.ARGUMENTS_TOO_LARGE,
        ResultCode.TOOL_OUTPUT_TOO_LARGE,
        ResultCode.UNKNOWN_TOOL,
    ):
        return t("the request for it was not valid.")
    return t("something went wrong.")
