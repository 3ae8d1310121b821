"""Intent classification (interim minimal version; the full one replaces it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ToolName = Literal["add_task", "list_tasks", "complete_task", "delete_task", "update_task"]

_TABLE: tuple[tuple[ToolName, re.Pattern[str]], ...] = (
    ("delete_task", re.compile(r"\b(delete|remove)\b", re.I)),
    ("list_tasks", re.compile(r"\b(list|show|what are|what's left|what is left)\b", re.I)),
    ("add_task", re.compile(r"\b(add|create|new task)\b", re.I)),
    ("complete_task", re.compile(r"\b(mark|done|complete)\b", re.I)),
    ("update_task", re.compile(r"\b(update|change|set)\b", re.I)),
)
_QUESTION = re.compile(r"^\s*(how (do|can|would|should) i|how to|what does|can i|is it possible)\b", re.I)
_NEGATION = re.compile(r"\b(don't|do not|never|no need to)\b", re.I)


@dataclass(frozen=True, slots=True)
class Intent:
    kind: Literal["command", "question", "negated", "chat"]
    tools: tuple[ToolName, ...]
    reason: str

    @property
    def needs_tool(self) -> bool:
        return self.kind == "command" and bool(self.tools)

    @property
    def primary(self) -> ToolName | None:
        return self.tools[0] if self.tools else None


def classify(message: str) -> Intent:
    if _QUESTION.search(message):
        return Intent("question", (), "a question about how to use the app")
    if _NEGATION.search(message):
        return Intent("negated", (), "a negated request")
    found: list[tuple[int, ToolName]] = []
    for tool, pattern in _TABLE:
        match = pattern.search(message)
        if match:
            found.append((match.start(), tool))
    if not found:
        return Intent("chat", (), "no command keyword")
    tools = tuple(dict.fromkeys(t for _, t in sorted(found)))
    return Intent("command", tools, f"keywords matched {', '.join(tools)}")
