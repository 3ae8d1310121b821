"""The offline model's English rules: clauses -> tool commands (or a reply saying why not). The app
reads every other wording with its own reader (services/turn/commands.py), which keeps these rules'
reading of English where they know more of it."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from backend.app.agent.offline.clause_values import _TAG_SPLIT, _add_commands, _clean_ref, _priority, _status, _unquote
from backend.app.agent.offline.common import _I, ASK_TITLE, ASK_WHICH, NEGATION_REPLY, Command, Parsed
from backend.app.agent.offline.dates import _parse_date
from backend.app.calls.tools import Tool

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
    return Parsed([Command(Tool.LIST, {"status": _status_in(m[0])})])


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
        return Parsed([Command(Tool.UPDATE, {"task_id": ref, key: value})]) if ref else Parsed([], ASK_WHICH)

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
        lambda m, today: Parsed([Command(Tool.UNDO, {})]),
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
    _rule(r"^(?:complete|finish|check\s+off|tick\s+off|cross\s+off)\s+(?P<ref>.+)$", _by_ref(Tool.COMPLETE)),
    _rule(rf"^mark\s+(?P<ref>.+?)\s+(?:as\s+)?{_DONE}$", _by_ref(Tool.COMPLETE)),
    _rule(rf"^mark\s+(?:as\s+)?{_DONE}\s*:?\s+(?P<ref>.+)$", _by_ref(Tool.COMPLETE)),
    _rule(r"^(?:check|tick|cross)\s+(?P<ref>.+?)\s+off$", _by_ref(Tool.COMPLETE)),
    _rule(rf"^(?P<ref>.+?)\s+(?:is|are|was|has\s+been)\s+{_DONE}$", _by_ref(Tool.COMPLETE)),
    _rule(r"^(?:(?:i'?m|i\s+am)\s+)?done\s+with\s+(?P<ref>.+)$", _by_ref(Tool.COMPLETE)),
    _rule(r"^i(?:'ve|\s+have)?\s+(?:just\s+)?(?:finished|completed)\s+(?P<ref>.+)$", _by_ref(Tool.COMPLETE)),
    _rule(r"^(?:delete|remove|cancel|drop|erase|trash|scrap|get\s+rid\s+of)\s+(?P<ref>.+)$", _by_ref(Tool.DELETE)),
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
        in_add_list = separator.strip() == "," and any(c.name == Tool.ADD for c in clauses[-1][1].commands)
        if ";" in separator or (not in_add_list and (parsed.commands or parsed.negated)):
            clauses.append((piece, parsed))
        else:
            joined = clauses[-1][0] + separator + piece
            clauses[-1] = (joined, _parse_clause(joined, today))
    commands = [c for _, parsed in clauses for c in parsed.commands]
    reply = next((p.reply for _, p in clauses if p.reply), None)
    return Parsed(commands, None if commands else reply)
