"""What every part of the offline model shares: its name and stock phrases, a command, a reading."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

_I = re.IGNORECASE


MODEL_NAME = "taskchat-offline"
IDENTITY = "I'm Taskchat's offline rule-based model, not an LLM (no API key is configured)"
EXAMPLES = '"add buy milk tomorrow", "show my tasks" or "mark buy milk done"'
NEGATION_REPLY = "Okay, I won't do that. Nothing was changed."
ASK_WHICH = 'Which task do you mean? Please name it, for example "delete Buy milk".'
ASK_TITLE = 'What should the task be called? For example "add buy milk tomorrow".'
_I = re.IGNORECASE


class Command(NamedTuple):
    name: str
    args: dict[str, Any]


class Parsed(NamedTuple):
    """What one clause (or a whole message) means: tool commands, or a reply explaining why not."""

    commands: list[Command]
    reply: str | None = None
    negated: bool = False


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""
