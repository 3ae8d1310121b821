"""Taskchat's offline "model": deterministic rules that speak the chat-completions wire format.

Used when no LLM API key is configured, so the app works out of the box, the test suite needs no
network and benchmarks measure Taskchat rather than a provider. It is NOT an LLM: it parses a
small command language with precompiled regexes (pure string work, no I/O) and says so whenever
it talks about itself. The same request body always gives the same response: ids are hashes of
the body and `created` is 0. (Only a missing "Today's date:" line makes it read the clock.)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from backend.app.services.intent import classify
from backend.app.tools.task_tools import Said, SaidAdd

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


class OfflineModel:
    label: str = "offline"
    model_name: str = MODEL_NAME

    async def create(self, body: dict[str, Any], *, deadline: float) -> dict[str, Any]:
        del deadline  # answering takes microseconds; there is nothing to time out
        return respond(body)


# --- dates ----------------------------------------------------------------------------------
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_DATE_CORE = (
    r"(?P<iso>\d{4}-\d{2}-\d{2})|(?P<after>(?:the\s+)?day\s+after\s+tomorrow)"
    r"|(?P<today>today|tonight|this\s+(?:morning|afternoon|evening))|(?P<tomorrow>tomorrow|tmrw|tmr)"
    r"|in\s+(?P<count>\d{1,3}|an?|one|two|three|four|five|six|seven)\s+(?P<unit>days?|weeks?)"
    r"|(?P<nextweek>next\s+week)"
    r"|(?:(?P<rel>next|this|coming)\s+)?(?P<wd>weekend|mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?"
    r"|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
    r"|(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?"
    r"(?:,?\s+(?P<year>\d{4}))?"
)
_DATE_LEAD = r"(?P<lead>(?:(?:due|by|on|for|before|until|till)\s+)*)"
_DATE_FIND = re.compile(rf"(?<![\w-]){_DATE_LEAD}(?:{_DATE_CORE})(?![\w-])", _I)
_DATE_FULL = re.compile(rf"^\s*(?:to\s+)?{_DATE_LEAD}(?:{_DATE_CORE})\s*$", _I)
_TODAY_LINE = re.compile(r"Today's date:\s*(\d{4}-\d{2}-\d{2})")


def _resolve_date(m: re.Match[str], today: dt.date) -> dt.date | None:
    g = m.groupdict()
    try:
        if g["iso"]:
            return dt.date.fromisoformat(g["iso"])
        if g["mon"]:
            month = _MONTHS.index(g["mon"].lower()) + 1
            found = dt.date(int(g["year"] or today.year), month, int(g["day"]))
            # "dec 1" with no year means the next Dec 1, never one in the past.
            return found if g["year"] or found >= today else found.replace(year=today.year + 1)
    except ValueError:
        return None
    if g["after"]:
        return today + dt.timedelta(days=2)
    if g["today"] or g["tomorrow"]:
        return today + dt.timedelta(days=0 if g["today"] else 1)
    if g["count"]:
        n = _COUNTS.get(g["count"].lower()) or int(g["count"])
        return today + dt.timedelta(days=n * (7 if g["unit"].lower().startswith("w") else 1))
    if g["nextweek"]:
        return today + dt.timedelta(days=7)
    target = 5 if g["wd"].lower() == "weekend" else _WEEKDAYS.index(g["wd"].lower()[:3])
    # "friday", "on friday" and "next friday" all mean the first Friday after today.
    return today + dt.timedelta(days=(target - today.weekday()) % 7 or 7)


def _parse_date(text: str, today: dt.date) -> str | None:
    m = _DATE_FULL.match(text)
    found = _resolve_date(m, today) if m else None
    return found.isoformat() if found else None


def _take_date(text: str, today: dt.date) -> tuple[str | None, str]:
    """The first date phrase in an add command, and the text without it."""
    for m in _DATE_FIND.finditer(text):
        wd = m["wd"]
        at_edge = not text[: m.start()].strip(" ,") or not text[m.end() :].strip(" ,.!?")
        # A bare weekday ("watch friday night lights") is only a date at an edge or after a
        # preposition; abbreviations ("sat exam") need the preposition.
        if wd and not (m["lead"] or m["rel"]) and (len(wd) < 6 or not at_edge):
            continue
        found = _resolve_date(m, today)
        if found is not None:
            return found.isoformat(), text[: m.start()] + " " + text[m.end() :]
    return None, text


def _today(messages: list[Mapping[str, Any]]) -> dt.date:
    for message in messages:
        if message.get("role") == "system" and (m := _TODAY_LINE.search(_text(message.get("content")))):
            try:
                return dt.date.fromisoformat(m[1])
            except ValueError:
                break
    return dt.date.today()


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
    due, meta = _take_date(meta, today)
    titles = [quoted[1].strip()] if quoted else _split_items(_clean_title(meta))
    extra |= {k: v for k, v in (("priority", priority), ("due_date", due), ("tags", tags)) if v}
    return [Command("add_task", {"title": title, **extra}) for title in titles]


# --- clause rules ---------------------------------------------------------------------------
_FIELDS = r"title|name|priority|due\s+date|deadline|due|date|description|notes?|details|tags?|status"
_FIELD_KEYS = {
    "title": "title",
    "name": "title",
    "priority": "priority",
    "due date": "due_date",
    "due": "due_date",
    "deadline": "due_date",
    "date": "due_date",
    "description": "description",
    "note": "description",
    "notes": "description",
    "details": "description",
    "tag": "tags",
    "tags": "tags",
    "status": "status",
}
_POLITE_HEAD = re.compile(
    r"^(?:(?:please|pls|plz|kindly|ok(?:ay)?|hey|hi|so|also|and|then|now|just|can\s+you"
    r"|could\s+you|would\s+you|will\s+you|can\s+u|i\s+want\s+to|i'?d\s+like\s+to"
    r"|i\s+(?:need|want)\s+you\s+to|go\s+ahead\s+and|let'?s)\b[\s,:!.-]*)+",
    _I,
)
_POLITE_TAIL = re.compile(r"(?:[\s.!?,]+|\s*\b(?:please|pls|plz|thanks|thank\s+you)\b)+$", _I)
# "don't forget to X" is a reminder, not a negation.
_NEGATION = re.compile(
    r"^(?:(?:no|wait)[,.!]?\s+)?(?:don'?t(?!\s+(?:let\s+me\s+)?forget)|do\s+not|never|no\s+need\s+to"
    r"|i\s+(?:don'?t|do\s+not)\s+want(?:\s+you)?\s+to)\b",
    _I,
)
_ADD = re.compile(
    r"^(?:add|create|new\s+(?:task|todo|reminder)|make\s+(?:an?\s+)?(?:new\s+)?(?:task|todo|reminder)"
    r"|remind\s+me|remember\s+to|don'?t\s+(?:let\s+me\s+)?forget(?:\s+to)?|(?:todo|to-do|task)(?=\s*:))\b"
    r"[\s:]*(?P<body>.+)$",
    _I,
)
_VERB_AHEAD = (
    r"(?:please\s+|also\s+)?(?:add|create|new\s+task|remind\s+me|list|show|complete|finish|mark|check\s+off"
    r"|delete|remove|cancel|get\s+rid\s+of|drop|rename|change|set|update|make|move|reschedule|postpone"
    r"|i\s+(?:just\s+)?(?:finished|completed)|done\s+with|what'?s|what\s+are|what\s+do\s+i)\b"
)
# One capturing group: re.split keeps the separators, so unsplit pieces can be glued back.
_CLAUSE_SPLIT = re.compile(
    rf"(\s*;\s*|\s*,?\s+(?:and\s+)?then\s+|\s*,?\s+and\s+(?={_VERB_AHEAD})"
    rf"|\s*,\s*(?={_VERB_AHEAD}))",
    _I,
)
_STATUS_PENDING_IN = re.compile(r"\bnot\s+(?:done|completed?|finished)\b", _I)
_STATUS_COMPLETED_IN = re.compile(r"\b(?:completed?|done|finished)\b", _I)
_STATUS_OPEN_IN = re.compile(r"\b(?:pending|open|left|remaining|incomplete|unfinished|outstanding|due|to\s+do)\b", _I)
_VERB_HEAD = re.compile(
    r"^(?:add|create|new\s+task|remind\s+me(?:\s+to)?|complete|finish|mark|check\s+off|delete"
    r"|remove|cancel|get\s+rid\s+of|drop|rename|change|update|set|make|move|show|list)\b\s*",
    _I,
)
_DONE_TAIL = re.compile(r"\s+(?:as\s+)?(?:done|complete|completed|finished)$", _I)

Builder = Callable[[re.Match[str], dt.date], Parsed | None]


def _status_in(text: str) -> str:
    if _STATUS_PENDING_IN.search(text):
        return "pending"
    return "completed" if _STATUS_COMPLETED_IN.search(text) else "pending" if _STATUS_OPEN_IN.search(text) else "all"


def _build_add(m: re.Match[str], today: dt.date) -> Parsed:
    commands = _add_commands(m["body"], today)
    return Parsed(commands) if commands else Parsed([], ASK_TITLE)


def _build_list(m: re.Match[str], today: dt.date) -> Parsed:
    return Parsed([Command("list_tasks", {"status": _status_in(m[0])})])


def _by_ref(name: str) -> Builder:
    def build(m: re.Match[str], today: dt.date) -> Parsed:
        ref = _clean_ref(m["ref"])
        return Parsed([Command(name, {"task_id": ref})]) if ref else Parsed([], ASK_WHICH)

    return build


def _update(field: str | None = None, fixed: str | None = None) -> Builder:
    """update_task builder; field None means the regex names it, "guess" means infer it from the value."""

    def build(m: re.Match[str], today: dt.date) -> Parsed | None:
        key = field or _FIELD_KEYS[" ".join(m["field"].lower().split())]
        if key == "guess":
            key, value = _guess_field(m["val"], today)
        else:
            value = fixed or _field_value(key, m["val"], today)
        if value is None:
            return None  # not this rule after all ("move X to paris"); later rules may match
        ref = _clean_ref(m["ref"])
        return Parsed([Command("update_task", {"task_id": ref, key: value})]) if ref else Parsed([], ASK_WHICH)

    return build


def _field_value(key: str, raw: str, today: dt.date) -> Any:
    text = _unquote(raw)
    if key == "priority":
        return _priority(text)
    if key == "due_date":
        return _parse_date(text, today)
    if key == "status":
        return _status(text)
    if key == "tags":
        return [t.lstrip("#") for t in _TAG_SPLIT.split(text) if t.lstrip("#")] or None
    return text or None


def _guess_field(raw: str, today: dt.date) -> tuple[str, Any]:
    """ "change gym to high priority / friday / done / Gym class": the value says which field."""
    for key in ("priority", "due_date", "status"):
        if (value := _field_value(key, raw, today)) is not None:
            return key, value
    return "title", _field_value("title", raw, today)


def _rule(pattern: str, build: Builder) -> tuple[re.Pattern[str], Builder]:
    return re.compile(pattern, _I), build


_DONE = r"(?:done|complete|completed|finished)"
# First match wins, so specific shapes come before general ones (updates before "X is done").
_RULES: tuple[tuple[re.Pattern[str], Builder], ...] = (
    _rule(
        r"^(?:undo|revert|roll\s+back|take\s+(?:that|it)\s+back|put\s+(?:it|that|them)\s+back)"
        r"(?:\s+(?:that|it|this|the\s+last\s+(?:change|action|one)|my\s+last\s+(?:change|action)))?$",
        lambda m, today: Parsed([Command("undo_last_change", {})]),
    ),
    (_ADD, _build_add),
    _rule(r"^rename\s+(?P<ref>.+?)\s+(?:to|as|into)\s+(?P<val>.+)$", _update("title")),
    _rule(
        rf"^(?:change|update|edit|set|modify)\s+(?:the\s+)?(?P<field>{_FIELDS})\s+(?:of|for|on)\s+(?P<ref>.+?)"
        r"\s+(?:to|as|=)\s+(?P<val>.+)$",
        _update(),
    ),
    _rule(
        rf"^(?:change|update|edit|set|modify)\s+(?P<ref>.+?)(?:'s)?\s+(?P<field>{_FIELDS})\s*(?:to|as|=|:)?"
        r"\s+(?P<val>.+)$",
        _update(),
    ),
    _rule(
        r"^make\s+(?P<ref>.+?)\s+(?P<val>(?:an?\s+)?(?:high|medium|low|normal|top)(?:[\s-]+priority)?|urgent)$",
        _update("priority"),
    ),
    _rule(r"^prioriti[sz]e\s+(?P<ref>.+)$", _update("priority", fixed="high")),
    _rule(
        r"^(?:move|reschedule|postpone|push(?:\s+back)?|defer|delay)\s+(?P<ref>.+)\s+(?:to|until|till|for|on)"
        r"\s+(?P<val>.+)$",
        _update("due_date"),
    ),
    _rule(r"^(?P<ref>.+?)\s+is\s+(?:now\s+)?due\s+(?P<val>.+)$", _update("due_date")),
    _rule(
        r"^(?:mark|set)\s+(?P<ref>.+?)\s+(?:as\s+)?(?:not\s+(?:done|completed?|finished)|pending|incomplete"
        r"|undone|unfinished|open)$",
        _update("status", fixed="pending"),
    ),
    _rule(r"^(?:unmark|reopen|uncomplete)\s+(?P<ref>.+)$", _update("status", fixed="pending")),
    _rule(
        r"^(?:list|show|display|view)(?:\s+me)?(?:\s+(?:all|my|the|everything|what|what'?s|pending|open|remaining"
        r"|completed|done|finished|outstanding|tasks?|todos?|to-?dos?|list)\b.*)?$",
        _build_list,
    ),
    _rule(
        r"^what(?:'s|\s+is|\s+are|\s+else)\s+(?:left|pending|remaining|open|due|next|done|completed|finished"
        r"|outstanding|on\s+(?:my|the)\s+\w+|(?:my|the|all)\b.*\b(?:tasks?|todos?|to-?dos?|list))\b.*$",
        _build_list,
    ),
    _rule(
        r"^what\s+(?:do|should)\s+i\s+(?:have|still\s+have|need\s+to\s+do|have\s+(?:left|to\s+do)|do\s+next)\b.*$",
        _build_list,
    ),
    _rule(
        r"^(?:(?:all|my|all\s+my|the)\s+)?(?:(?:pending|open|remaining|completed|done|finished|outstanding)\s+)?"
        r"(?:tasks|todos|to-?dos|todo|to-?do\s+list|task\s+list|list)$",
        _build_list,
    ),
    _rule(r"^(?:do\s+i\s+have|are\s+there|any|how\s+many)\s+.*\b(?:tasks?|todos?|left|pending)\b.*$", _build_list),
    _rule(r"^(?:complete|finish|check\s+off|tick\s+off|cross\s+off)\s+(?P<ref>.+)$", _by_ref("complete_task")),
    _rule(rf"^mark\s+(?P<ref>.+?)\s+(?:as\s+)?{_DONE}$", _by_ref("complete_task")),
    _rule(rf"^mark\s+(?:as\s+)?{_DONE}\s*:?\s+(?P<ref>.+)$", _by_ref("complete_task")),
    _rule(r"^(?:check|tick|cross)\s+(?P<ref>.+?)\s+off$", _by_ref("complete_task")),
    _rule(rf"^(?P<ref>.+?)\s+(?:is|are|was|has\s+been)\s+{_DONE}$", _by_ref("complete_task")),
    _rule(r"^(?:(?:i'?m|i\s+am)\s+)?done\s+with\s+(?P<ref>.+)$", _by_ref("complete_task")),
    _rule(r"^i(?:'ve|\s+have)?\s+(?:just\s+)?(?:finished|completed)\s+(?P<ref>.+)$", _by_ref("complete_task")),
    _rule(r"^(?:delete|remove|cancel|drop|erase|trash|scrap|get\s+rid\s+of)\s+(?P<ref>.+)$", _by_ref("delete_task")),
    _rule(r"^(?:change|update|edit|set|modify)\s+(?P<ref>.+?)\s+to\s+(?P<val>.+)$", _update("guess")),
)


def _parse_clause(raw: str, today: dt.date) -> Parsed:
    text = _POLITE_TAIL.sub("", _POLITE_HEAD.sub("", raw.strip()))
    if not text:
        return Parsed([])
    if _NEGATION.match(text):
        return Parsed([], NEGATION_REPLY, negated=True)
    for pattern, build in _RULES:
        if (m := pattern.match(text)) and (parsed := build(m, today)) is not None:
            return parsed
    return Parsed([])


def parse_message(text: str, today: dt.date) -> Parsed:
    """All commands in a user message. A piece after "and"/"then"/"," that isn't a command on its
    own is glued back ("add pick up kids and drop them at school" stays one task), and so is a
    comma piece after an add, which is the add's item list ("add milk, drop cookies")."""
    text = text.replace("’", "'")
    pieces = _CLAUSE_SPLIT.split(text)
    clauses: list[tuple[str, Parsed]] = [(pieces[0], _parse_clause(pieces[0], today))]
    for separator, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        parsed = _parse_clause(piece, today)
        in_add_list = separator.strip() == "," and any(c.name == "add_task" for c in clauses[-1][1].commands)
        if ";" in separator or (not in_add_list and (parsed.commands or parsed.negated)):
            clauses.append((piece, parsed))
        else:
            joined = clauses[-1][0] + separator + piece
            clauses[-1] = (joined, _parse_clause(joined, today))
    commands = [c for _, parsed in clauses for c in parsed.commands]
    reply = next((p.reply for _, p in clauses if p.reply), None)
    return Parsed(commands, None if commands else reply)


def said_in(text: str, *, today: dt.date) -> Said:
    """What the message itself names for each tool, as this parser reads it (English wording), and
    the message: what may repair a model's argument that names nothing (`tools.task_tools.Said`)."""
    references: dict[str, tuple[str, ...]] = {}
    adds: list[SaidAdd] = []
    plain = text.replace("’", "'")
    for command in parse_message(text, today).commands:
        said = command.args.get("title") if command.name == "add_task" else command.args.get("task_id")
        if not isinstance(said, str) or not said.strip():
            continue
        if command.name != "add_task":
            references[command.name] = (*references.get(command.name, ()), said)
            continue
        fields: dict[str, Any] = {}
        if command.args.get("priority"):
            fields["priority"] = command.args["priority"]
        if command.args.get("due_date"):
            fields["due_date"] = dt.date.fromisoformat(command.args["due_date"])
        quoted = any(f"{a}{said}{b}" in plain for a, b in _QUOTES)
        adds.append(SaidAdd(said, quoted=quoted, fields=fields))
    return Said(message=text, references=references, adds=tuple(adds))


_QUOTES = (('"', '"'), ("'", "'"), ("“", "”"), ("«", "»"))


# --- small talk -----------------------------------------------------------------------------
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|yo|howdy|greetings|good\s+(?:morning|afternoon|evening)"
    r"|how\s+are\s+you|how'?s\s+it\s+going|what'?s\s+up)\b",
    _I,
)
_THANKS = re.compile(r"\b(?:thanks|thank\s+you|thx|cheers)\b", _I)
_QUESTION = re.compile(
    r"^\W*(?:help|how|what|who|why|can|could|do|does|is|are|show\s+me\s+how|tell\s+me|explain)\b"
    r"|\?\s*$",
    _I,
)


def small_talk(text: str) -> str:
    if not text.strip() or _GREETING.match(text):
        return f"Hi! {IDENTITY}. Try {EXAMPLES}."
    if _THANKS.search(text):
        return f"You're welcome! {IDENTITY}, so keep commands simple, like {EXAMPLES}."
    if _QUESTION.search(text):
        return (
            f'{IDENTITY}, so I understand simple commands: "add buy milk tomorrow", "show my tasks", '
            '"mark buy milk done", "delete buy milk" or "rename buy milk to buy oat milk".'
        )
    return f"Sorry, I didn't understand that. {IDENTITY}, so I only understand simple commands like {EXAMPLES}."


# --- summarizing tool results ---------------------------------------------------------------
def _tool_results(messages: list[Mapping[str, Any]], start: int) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool name, arguments, decoded content) for each tool message after the last user message."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    results: list[tuple[str, dict[str, Any], Any]] = []
    for message in messages[start + 1 :]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, Mapping) else None
                if isinstance(function, Mapping):
                    args = _loads(function.get("arguments"))
                    args = args if isinstance(args, dict) else {}
                    calls[str(call.get("id"))] = (str(function.get("name") or ""), args)
        elif message.get("role") == "tool":
            name, args = calls.get(str(message.get("tool_call_id")), (str(message.get("name") or ""), {}))
            results.append((name, args, _loads(message.get("content"))))
    return results


def _loads(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _find_task(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    if "title" in data:
        return data
    keys = ("task", "item", "deleted", "updated", "created")
    inner = next((data[k] for k in keys if isinstance(data.get(k), dict)), None)
    return _find_task(inner)


def _summarize(name: str, args: dict[str, Any], payload: Any) -> str:
    if not isinstance(payload, dict) or "success" not in payload:
        shown = payload if isinstance(payload, str) else json.dumps(payload, default=str)
        return f"{f'The {name} tool' if name else 'A tool'} returned: {shown[:300]}"
    if not payload["success"]:
        error = str(payload.get("error") or "the tool reported a failure").rstrip(". ")
        return f"I couldn't do that: {error}."
    data = payload.get("data")
    if name == "list_tasks":
        return _summarize_list(data, str(args.get("status") or "all"))
    if name == "undo_last_change":
        undone = data.get("undone") if isinstance(data, dict) else None
        titles = ", ".join(f'"{u.get("title")}"' for u in undone or [] if isinstance(u, dict))
        return f"Undone ({titles})." if titles else "Undone."
    task = _find_task(data)
    title = task.get("title") or args.get("title") or args.get("task_id") or "the task"
    if name == "add_task":
        details = [
            f"due {task['due_date']}" if task.get("due_date") else "",
            f"{task['priority']} priority" if task.get("priority") not in (None, "medium") else "",
            " ".join(f"#{t}" for t in task.get("tags") or [] if isinstance(task.get("tags"), list)),
        ]
        shown = ", ".join(d for d in details if d)
        return f'Added "{title}"' + (f" ({shown})." if shown else ".")
    verbs = {
        "delete_task": 'Deleted "{}".',
        "complete_task": 'Marked "{}" as completed.',
        "update_task": 'Updated "{}".',
    }
    return verbs.get(name, "Done: {}.").format(title)


def _summarize_list(data: Any, status: str) -> str:
    tasks = data if isinstance(data, list) else data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, list):
        return "I looked up your tasks."
    count = data.get("count") if isinstance(data, dict) else None
    total = count if isinstance(count, int) and count >= len(tasks) else len(tasks)
    kind = "" if status == "all" else f"{status} "
    if not tasks:
        return f"You have no {kind}tasks."
    items = []
    for task in (t for t in tasks[:15] if isinstance(t, dict)):
        notes = [
            str(task["status"]) if status == "all" and task.get("status") else "",
            f"due {task['due_date']}" if task.get("due_date") else "",
        ]
        shown = ", ".join(n for n in notes if n)
        items.append(f"{task.get('title', '?')}" + (f" ({shown})" if shown else ""))
    more = f", and {total - len(items)} more" if total > len(items) else ""
    return f"You have {total} {kind}task{'s' if total != 1 else ''}: {', '.join(items)}{more}."


# --- choosing the calls ---------------------------------------------------------------------
def _tool_choice(raw: Any) -> tuple[str, str | None]:
    """("auto" | "none" | "required" | "forced", forced tool name)."""
    if isinstance(raw, Mapping):  # also the {"type": "any" | "tool", "name": ...} spelling some gateways use
        function = raw.get("function")
        name = function.get("name") if isinstance(function, Mapping) else raw.get("name")
        if name:
            return "forced", str(name)
        raw = raw.get("type")
    if raw in ("none", "required", "any"):
        return ("required" if raw == "any" else str(raw)), None
    return "auto", None


def _offered(tools: Any) -> frozenset[str]:
    names = set()
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, Mapping):
            function = tool.get("function")
            name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
            if isinstance(name, str):
                names.add(name)
    return frozenset(names)


def _forced_call(name: str, text: str, commands: list[Command], today: dt.date) -> Command:
    """The best arguments for a tool the caller insists on, even when the message didn't parse."""
    if same := next((c for c in commands if c.name == name), None):
        return same
    if name == "list_tasks":
        return Command(name, {"status": _status_in(text)})
    stripped = _DONE_TAIL.sub("", _VERB_HEAD.sub("", _POLITE_TAIL.sub("", _POLITE_HEAD.sub("", text.strip()))))
    if name == "add_task":
        added = _add_commands(stripped, today)
        return added[0] if added else Command(name, {"title": text.strip()})
    if name in ("complete_task", "delete_task", "update_task"):
        ref = next((c.args["task_id"] for c in commands if "task_id" in c.args), None)
        return Command(name, {"task_id": ref or _clean_ref(stripped) or stripped or text.strip()})
    return Command(name, {})  # a tool this model has no rules for


def _shorter_retry(results: list[tuple[str, dict[str, Any], Any]], offered: frozenset[str]) -> Command | None:
    """The last call refused as ARGUMENTS_TOO_LARGE, again with its long text cut to fit, as a model
    would; once per tool per turn (a second refusal of the same tool ends the turn honestly)."""
    refused = [r for r in results if isinstance(r[2], dict) and r[2].get("code") == "ARGUMENTS_TOO_LARGE"]
    if not refused or refused[-1] is not results[-1]:  # only a refusal that nothing answered yet
        return None
    name, args, payload = refused[-1]
    limit = re.search(r"limit of (\d+)", str(payload.get("error") or ""))
    if name not in offered or not args or limit is None or sum(n == name for n, _, _ in refused) > 1:
        return None
    budget = int(limit.group(1)) * 3 // 4
    shortened = dict(args)
    while (excess := len(json.dumps(shortened, ensure_ascii=False).encode()) - budget) > 0:
        longest = max(
            (k for k, v in shortened.items() if isinstance(v, str) and k not in ("title", "task_id")),
            key=lambda k: len(shortened[k]),
            default=None,
        )
        value = shortened.get(longest, "") if longest else ""
        cut = value[: max(len(value) - excess - 1, 0)].rstrip() + "…"
        if len(cut) >= len(value):
            return None  # nothing left to cut (the title alone is over the limit): the guard reports it
        shortened[str(longest)] = cut
    return Command(name, shortened)


def _missing_tools_reply(commands: list[Command]) -> str:
    names = list(dict.fromkeys(c.name for c in commands))
    tools = f"the {' and '.join(names)} tool{'s' if len(names) > 1 else ''}"
    return f"I'd need {tools} for that, but {'they aren' if len(names) > 1 else 'it isn'}'t available right now."


def _decide(body: Mapping[str, Any], messages: list[Mapping[str, Any]]) -> tuple[str, list[Command]]:
    """(text reply, tool calls); the text is dropped from the response when there are calls."""
    mode, forced = _tool_choice(body.get("tool_choice"))
    offered = frozenset() if mode == "none" else _offered(body.get("tools"))
    if mode == "forced" and forced not in offered:
        mode = "auto"  # a real server would reject this request; be lenient instead
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user_text = _text(messages[last_user].get("content")) if last_user >= 0 else ""
    today = _today(messages)
    if results := _tool_results(messages, last_user):
        reply = " ".join(_summarize(*result) for result in results)
        if mode != "none" and (retry := _shorter_retry(results, offered)):
            return reply, [retry]
        if mode == "forced" and forced != "respond":
            return reply, [_forced_call(str(forced), user_text, parse_message(user_text, today).commands, today)]
        wants_respond = mode == "forced" or (mode == "required" and "respond" in offered)
        return reply, [Command("respond", {"message": reply})] if wants_respond else []
    parsed = parse_message(user_text, today)
    if not parsed.commands and any(a.tool == "undo_last_change" for a in classify(user_text).actions):
        parsed = Parsed([Command("undo_last_change", {})])  # "deshaz eso", "mach das rückgängig": any language
    usable = [c for c in parsed.commands if c.name in offered]
    if parsed.commands and not usable:
        reply = _missing_tools_reply(parsed.commands)
    else:
        reply = parsed.reply or small_talk(user_text)
    if mode == "forced":
        if forced == "respond":
            return reply, [Command("respond", {"message": reply})]
        return reply, [_forced_call(str(forced), user_text, parsed.commands, today)]
    if usable:
        return reply, usable
    if mode == "required":
        for fallback in (Command("respond", {"message": reply}), Command("list_tasks", {"status": "all"})):
            if fallback.name in offered:
                return reply, [fallback]
    return reply, []


# --- wire format ----------------------------------------------------------------------------
def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def _tokens(chars: int) -> int:
    return math.ceil(chars / 4)


def respond(body: Mapping[str, Any]) -> dict[str, Any]:
    """One chat.completion for an OpenAI chat-completions request body (see the module docstring)."""
    raw_messages = body.get("messages")
    messages = [m for m in raw_messages if isinstance(m, Mapping)] if isinstance(raw_messages, list) else []
    content, commands = _decide(body, messages)
    if body.get("parallel_tool_calls") is False:
        commands = commands[:1]
    digest = hashlib.blake2b(json.dumps(body, sort_keys=True, default=str).encode(), digest_size=12).hexdigest()
    tool_calls: list[dict[str, Any]] = []
    for n, command in enumerate(commands, start=1):
        arguments = json.dumps(command.args, ensure_ascii=False)
        short = hashlib.blake2b(f"{digest}:{n}:{command.name}:{arguments}".encode(), digest_size=4).hexdigest()
        tool_calls.append(
            {"id": f"call_{n}_{short}", "type": "function", "function": {"name": command.name, "arguments": arguments}}
        )
    message: dict[str, Any] = {"role": "assistant", "content": None if tool_calls else content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    prompt_chars = sum(len(_text(m.get("content"))) for m in messages)
    if body.get("tools"):
        prompt_chars += len(json.dumps(body["tools"], default=str))
    completion_chars = len(message["content"] or "") + sum(
        len(c["function"]["name"]) + len(c["function"]["arguments"]) for c in tool_calls
    )
    prompt_tokens, completion_tokens = _tokens(prompt_chars), _tokens(completion_chars)
    return {
        "id": f"offline-{digest}",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL_NAME,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
