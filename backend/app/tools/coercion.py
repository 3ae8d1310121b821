"""Safe coercions of common model mistakes, each reported as a warning the model sees next step.

Done:    single string -> one-element list (tags); enum case ("HIGH" -> "high"); ISO datetime ->
         its date (due_date); `completed: true/false` -> `status` (update_task); an invented
         owner field (`user_id`, ...) is dropped: the owner is always the token's.
Not done (rejected by validation instead): splitting strings on commas, string <-> number,
         array -> single value. See specs/coercion.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from backend.app.calls.tools import Tool

_OWNER_KEYS = ("user_id", "userId", "owner", "owner_id", "ownerId")
_ENUMS: dict[str, tuple[str, ...]] = {
    "priority": ("low", "medium", "high"),
    "status": ("all", "pending", "completed"),
}
_ISO_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")


@dataclass(frozen=True, slots=True)
class Coercion:
    kind: str
    field: str
    before: Any
    after: Any

    @property
    def message(self) -> str:
        if self.kind == "dropped_owner":
            return f"{self.field}: dropped ({self.kind}); the owner is always the signed-in user"
        return f"{self.field}: {self.before!r} coerced to {self.after!r} ({self.kind})"


def coerce_arguments(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[Coercion]]:
    args = dict(arguments)
    done: list[Coercion] = []
    for key in _OWNER_KEYS:
        if key in args:
            done.append(Coercion("dropped_owner", key, args.pop(key), None))
    if isinstance(args.get("tags"), str):
        done.append(Coercion("string_to_list", "tags", args["tags"], [args["tags"]]))
        args["tags"] = [args["tags"]]
    for field, allowed in _ENUMS.items():
        value = args.get(field)
        if isinstance(value, str) and value not in allowed and value.strip().lower() in allowed:
            done.append(Coercion("enum_case", field, value, value.strip().lower()))
            args[field] = value.strip().lower()
    due = args.get("due_date")
    if isinstance(due, str) and (match := _ISO_DATETIME.match(due.strip())):
        done.append(Coercion("datetime_to_date", "due_date", due, match.group(1)))
        args["due_date"] = match.group(1)
    if tool == Tool.UPDATE and isinstance(args.get("completed"), bool) and "status" not in args:
        status = "completed" if args["completed"] else "pending"
        done.append(Coercion("completed_to_status", "completed", args.pop("completed"), status))
        args["status"] = status
    return args, done
