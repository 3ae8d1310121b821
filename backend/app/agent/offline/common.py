"""What every part of the offline model shares: its name and stock phrases, a command, a reading.

The stock phrases are message ids of the catalogs (`language/catalog.py`): the model writes them in
the language of the message it answers."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

_I = re.IGNORECASE


def N_(message: str) -> str:
    """A catalog message kept as English until it is written in the language answered in."""
    return message


MODEL_NAME = "taskchat-offline"
NEGATION_REPLY = N_("Okay, I won't do that. Nothing was changed.")
ASK_WHICH = N_('Which task do you mean? Please name it, for example "delete Buy milk".')
ASK_TITLE = N_('What should the task be called? For example "add buy milk tomorrow".')
_I = re.IGNORECASE


class Command(NamedTuple):
    name: str
    args: dict[str, Any]


class Parsed(NamedTuple):
    """What one clause (or a whole message) means: tool commands, or a reply explaining why not."""

    commands: list[Command]
    reply: str | None = None
    negated: bool = False


class Reading(NamedTuple):
    """How a message reads, in any language the app reads: the calls it asks for, what kind of
    message it is (the reader's kind: command, question, negated, small_talk, chat ...), and the
    language to answer it in."""

    commands: list[Command]
    kind: str
    language: str


# (the user's message, today, the user's earlier messages in the conversation, oldest first)
Reader = Callable[[str, dt.date, Sequence[str]], Reading]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""
