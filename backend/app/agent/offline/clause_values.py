"""The offline model's values: priority, status, tags, task references and titles in a clause."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from backend.app.agent.offline.common import _I, Command
from backend.app.agent.offline.dates import _take_date
from backend.app.calls.tools import Tool
from backend.app.language.reading.when import due_fields, take_when

# --- values: priority, status, tags, references, titles -------------------------------------
_PRIORITY_NAMES = {
    "high": "high",
    "top": "high",
    "urgent": "high",
    "important": "high",
    "medium": "medium",
    "normal": "medium",
    "med": "medium",
    "low": "low",
}
_PRIORITY_WORD = re.compile(r"^(?:an?\s+)?(high|top|urgent|important|medium|normal|med|low)(?:[\s-]+priority)?$", _I)
_PRIORITY_PHRASES = (
    re.compile(
        r"(?<![\w-])(?:(?:with|at|as|in)\s+)?(?:an?\s+)?(high|medium|low|normal|top)[\s-]+priority(?![\w-])", _I
    ),
    re.compile(r"(?<![\w-])(?:with\s+)?priority\s*(?:[:=]|of|is)?\s*(high|medium|low|normal)(?![\w-])", _I),
    re.compile(r"^(urgent|important)\b[\s:!-]*|[\s,-]*\b(urgent(?:ly)?|asap|it'?s\s+urgent)[!.]*$", _I),
)
_URGENT_INSIDE = re.compile(r"\burgent\b", _I)
_COMPLETED_WORD = re.compile(r"^(?:done|completed?|finished)$", _I)
_PENDING_WORD = re.compile(r"^(?:pending|open|not\s+(?:done|completed?|finished)|incomplete|undone|to\s?do)$", _I)
_HASHTAG = re.compile(r"(?<![\w#])#([\w-]+)")
_TAG_SPLIT = re.compile(r"[\s,]+(?:and\s+)?")
_QUOTED = re.compile(r"[\"“]([^\"“”]+)[\"”]")
_REF_LEAD = re.compile(r"^(?:the|my|our)\s+", _I)
_REF_TAIL = re.compile(
    r"(?:\s+(?:from|off|on|in)\s+(?:my|the)\s+(?:list|tasks|task\s+list|to-?do(?:\s+list)?|todos)"
    r"|\s+(?:task|todo|to-do|item|reminder))$",
    _I,
)
_VAGUE_REFS = {
    "it",
    "them",
    "this",
    "that",
    "one",
    "task",
    "tasks",
    "a task",
    "item",
    "something",
    "anything",
    "everything",
    "all",
    "all tasks",
    "all of them",
    "a",
    "an",
}
_PRONOUN_HEAD = re.compile(r"^(?:it|them|they|those|these|him|her|all)\b", _I)
_TITLE_LEAD = re.compile(
    r"^(?:(?:an?|another)\s+)?(?:new\s+)?(?:task|todo|to-do|reminder)s?\b\s*"
    r"(?::|to\b|called\b|named\b|titled\b|for\b)?\s*|^(?:to|called|named|titled)\s+",
    _I,
)
_TITLE_TAIL = re.compile(
    r"\s+(?:to|on|in|onto)\s+(?:my\s+|the\s+)?(?:list|tasks|task\s+list|to-?do(?:\s+list)?"
    r"|todos)$",
    _I,
)
_FINAL_AND = re.compile(r"^(.*)\s+and\s+(.*)$", _I | re.DOTALL)
_DESCRIPTION = re.compile(
    r"(?:\s+|\s*,\s*)(?:with\s+(?:the\s+|a\s+)?(?:description|notes?|details)\s*:?"
    r"|(?:description|notes?|details)\s*:)\s*(?P<d>.+)$",
    _I,
)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'“‘" and text[-1] in "\"'”’":
        return text[1:-1].strip()
    return text


def _priority(text: str) -> str | None:
    m = _PRIORITY_WORD.match(text.strip())
    return _PRIORITY_NAMES[m[1].lower()] if m else None


def _take_priority(text: str) -> tuple[str | None, str]:
    for pattern in _PRIORITY_PHRASES:
        if m := pattern.search(text):
            word = next(g for g in m.groups() if g).lower()
            return _PRIORITY_NAMES.get(word, "high"), text[: m.start()] + " " + text[m.end() :]
    # "reply to urgent email": the word is part of the title, but still says high priority.
    return ("high" if _URGENT_INSIDE.search(text) else None), text


def _status(text: str) -> str | None:
    text = text.strip()
    return "completed" if _COMPLETED_WORD.match(text) else "pending" if _PENDING_WORD.match(text) else None


def _clean_ref(raw: str) -> str | None:
    """The user's words for a task, verbatim but for filler; None when they name no task ("it")."""
    ref = raw.strip(" ,.!?")
    unquoted = _unquote(ref)
    if unquoted != ref:
        return unquoted or None  # a quoted name is taken exactly as typed
    previous = None
    while previous != ref:
        previous, ref = ref, _REF_TAIL.sub("", _REF_LEAD.sub("", ref)).strip(" ,")
    ref = _unquote(ref)
    if not ref or ref.lower() in _VAGUE_REFS or _PRONOUN_HEAD.match(ref):
        return None
    return ref


def _clean_title(raw: str) -> str:
    title = " ".join(raw.split())
    previous = None
    while previous != title:
        previous = title
        title = _TITLE_TAIL.sub("", _TITLE_LEAD.sub("", title.strip(" ,;:.!?-"))).strip(" ,;:.!?-")
    return _unquote(title)


def _split_items(title: str) -> list[str]:
    """ "milk, eggs and bread" -> three titles. " and " alone never splits ("salt and pepper")."""
    if "," not in title:
        return [title] if title else []
    parts = title.split(",")
    last = parts.pop().strip()
    if last.lower().startswith("and "):
        parts.append(last[4:])
    elif m := _FINAL_AND.match(last):
        parts.extend((m[1], m[2]))
    else:
        parts.append(last)
    return [t for t in (_clean_title(p) for p in parts) if t]


def _add_commands(body: str, today: dt.date) -> list[Command]:
    extra: dict[str, Any] = {}
    if m := _DESCRIPTION.search(body):
        extra["description"] = _unquote(m["d"])
        body = body[: m.start()]
    quoted = _QUOTED.search(body)
    meta = body[: quoted.start()] + " " + body[quoted.end() :] if quoted else body
    tags = _HASHTAG.findall(meta)
    meta = _HASHTAG.sub(" ", meta)
    priority, meta = _take_priority(meta)
    rule, at, meta = take_when(meta, "en")
    due, meta = _take_date(meta, today)
    titles = [quoted[1].strip()] if quoted else _split_items(_clean_title(meta))
    extra |= {k: v for k, v in (("priority", priority), ("tags", tags)) if v}
    extra |= due_fields(dt.date.fromisoformat(due) if due else None, at, rule, today)
    return [Command(Tool.ADD, {"title": title, **extra}) for title in titles]
