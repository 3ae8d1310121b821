"""What a message asks for, as tool calls with their arguments, in every covered language.

The reader (`language/reading/intent.py`) says which actions a message asks for and the words each is about; this
reads those words with the language files' own lists: a due date (`[dates]`), a priority
(`[priorities]`), a quoted title, and what is left once words for a task or a list and a title's
fillers are taken off its edges ("huevos a mi lista" -> "huevos", "la tarea del gimnasio" ->
"gimnasio"). Titles keep the user's own spelling (case and accents). The offline model answers with
these calls, and argument repairs take the user's own titles, dates and priorities from them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from backend.app.agent.offline import parse_message
from backend.app.agent.offline.common import Command, Reading
from backend.app.calls.tools import Tool
from backend.app.language.detect import detect
from backend.app.language.lexicon import QUOTES, fold, lexicons, task_nouns
from backend.app.language.reading.asks import Action, Intent
from backend.app.language.reading.intent import classify
from backend.app.language.reading.quoted import QUOTED
from backend.app.language.reading.when import cut_chars, day_in, due_fields, repeat_in, take_when, time_in

_TOKEN = re.compile(r"\S+")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
_ISO = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")
_REFERENCE_KINDS = ("this", "last", "previous", "just_added")


@dataclass(frozen=True, slots=True)
class Asked:
    """One call the message asks for: the tool, its arguments, and whether the user quoted the title."""

    name: str
    args: dict[str, str] = field(default_factory=dict)
    quoted: bool = False


def commands_in(message: str, *, today: dt.date, intent: Intent | None = None) -> list[Asked]:
    """The calls `message` asks for, in order (none unless it is a command)."""
    intent = intent or classify(message)
    if not intent.needs_tool:
        return []
    words = _Original(message)
    found: list[Asked] = []
    for action in intent.actions:
        asked = _asked(action, words, today)
        if asked is not None:
            found.append(asked)
    return found


def _asked(action: Action, words: _Original, today: dt.date) -> Asked | None:
    tool = action.tool
    about = action.about
    language = action.language or "en"
    if tool == Tool.LIST:
        return Asked(tool, {"status": "all"})
    if tool == Tool.UNDO:
        return Asked(tool, {})
    if tool == Tool.ADD:
        return _add(about, words, today, language)
    reference = _reference(about, words, language)
    if tool == Tool.UPDATE:
        fields = _fields(about, today, language)
        return Asked(tool, {"task_id": reference, **fields}) if fields else None
    return Asked(tool, {"task_id": reference})


def _add(about: str, words: _Original, today: dt.date, language: str) -> Asked | None:
    quoted = QUOTED.search(about.translate(QUOTES))
    args: dict[str, str] = {}
    text = about
    if quoted is not None:
        title = quoted.group(1) or quoted.group(2)
        text = about[: quoted.start()] + " " + about[quoted.end() :]
    rule, at, text = take_when(text, language)
    due, text = _take_date(text, today)
    priority, text = _take_priority(text)
    args |= due_fields(due, at, rule, today)
    if priority is not None:
        args["priority"] = priority
    if quoted is None:
        title = words.spelled(_trim(text, language))
    if not title.strip():
        return None
    return Asked(Tool.ADD, {"title": title.strip(), **args}, quoted=quoted is not None)


def _reference(about: str, words: _Original, language: str) -> str:
    """What the words call the task: a reference into the conversation as said ("la segunda", "eso"),
    else the title words once a task's and a list's words are taken off ("it" when none is left)."""
    quoted = QUOTED.search(about.translate(QUOTES))
    if quoted is not None:
        return quoted.group(1) or quoted.group(2)
    about = _without_state(about)
    tokens = _EDGE.sub("", " ".join(fold(about).split())).split()
    for end in range(len(tokens), 0, -1):  # "naya wala task kar do": the reference, then its verb's words
        if _conversational(said := " ".join(tokens[:end])):
            return said
    trimmed = _trim(about, language)
    return words.spelled(trimmed) if trimmed else "it"


def _fields(about: str, today: dt.date, language: str) -> dict[str, str]:
    rule, at, rest = take_when(about, language)
    due, rest = _take_date(rest, today)
    priority, _ = _take_priority(rest)
    # A time with no day changes only the time of day the task already has: not read here.
    found: dict[str, str] = due_fields(due, at if due is not None else None, rule, today)
    if priority is not None:
        found["priority"] = priority
    return found


def _conversational(text: str) -> bool:
    """Whether `text` is all an ordinal or a reference into the conversation ("the second one", "it")."""
    return _conversational_pattern().fullmatch(text) is not None


@cache
def _conversational_pattern() -> re.Pattern[str]:
    """Every language's ordinals and references as one alternation: one match of the text instead of
    one per pattern and language (a hundred, half of reading a message's commands). The patterns
    have no groups and no inline flags, so each keeps its meaning inside it."""
    patterns = [o.pattern for lex in lexicons() for o in lex.ordinals]
    references = (lex.reference(kind) for lex in lexicons() for kind in _REFERENCE_KINDS)
    patterns += [p.pattern for p in references if p is not None]
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def _without_state(text: str) -> str:
    """The words without the state the task is put in, at their end ("gym as done", "gym como hecha")."""
    folded = fold(text)
    for lex in lexicons():
        pattern = lex.word("done_states")
        m = pattern.search(folded) if pattern is not None else None
        if m is not None and m.start() > 0 and not _EDGE.sub("", folded[m.end() :]):
            return cut_chars(text, m.start(), m.end())
    return text


# -- dates and priorities --------------------------------------------------------------------------
def _take_date(text: str, today: dt.date) -> tuple[dt.date | None, str]:
    """The first due date the text says, and the text without it (nor the filler before it)."""
    folded = fold(text)
    if m := _ISO.search(folded):
        try:
            return dt.date.fromisoformat(m.group(1)), cut_chars(text, m.start(), m.end())
        except ValueError:
            pass
    found = day_in(folded, today)
    if found is None:
        return None, text
    (start, end), day = found
    return day, cut_chars(text, start, end)


def _take_priority(text: str) -> tuple[str | None, str]:
    folded = fold(text)
    for lex in lexicons():
        for level in ("high", "low", "medium"):
            pattern = lex.priorities.get(level)
            m = pattern.search(folded) if pattern is not None else None
            if m is not None:
                return level, cut_chars(text, m.start(), m.end())
    return None, text


# -- titles ----------------------------------------------------------------------------------------
@cache
def _filler(word: str, language: str) -> bool:
    """A word that does not tell one title from another in this language ("the", "de", "meiner", the
    Urdu light verb "kar do"), or a word for a task or a list in any."""
    if task_nouns().fullmatch(word):
        return True
    return any(
        (p := lex.word("title_fillers")) is not None and p.fullmatch(word)
        for lex in lexicons()
        if lex.code in (language, "en")
    )


def _trim(text: str, language: str) -> str:
    """The words once fillers and words for a task or a list are off both edges, and off the end a
    phrase that only says where the task goes ("a mi lista", "auf meine Liste", "to my to-do list")."""
    tokens = [t for t in text.split() if _EDGE.sub("", t)]
    folded = [fold(_EDGE.sub("", t)) for t in tokens]
    start, end = 0, len(tokens)
    while start < end and _filler(folded[start], language):
        start += 1
    # "huevos a la lista del super", "eggs on my shopping list": where the task goes is no part of its title.
    for j in range(start + 1, end):
        if task_nouns().fullmatch(folded[j]):
            back = j - 1
            while back > start and back >= j - 2 and not _filler(folded[back], language):
                back -= 1  # one or two words saying which list ("shopping")
            if _filler(folded[back], language) and back > start:
                while back - 1 > start and _filler(folded[back - 1], language):
                    back -= 1
                end = back
                break
    while end > start and _filler(folded[end - 1], language):
        end -= 1
    words = tokens[start:end]
    return _EDGE.sub("", " ".join(words)) if words else ""


class _Original:
    """The message as the user typed it, to give folded words back their spelling."""

    def __init__(self, message: str) -> None:
        self.tokens = _TOKEN.findall(message)
        self.folded = [_EDGE.sub("", fold(t)) for t in self.tokens]

    def spelled(self, text: str) -> str:
        """`text` (read from the folded message) as the user spelled it, where it can be found."""
        wanted = [_EDGE.sub("", fold(t)) for t in text.split()]
        if not wanted:
            return text
        # The shortest stretch of the message that holds the words in their order: the words as typed
        # together, or read around a time or a date cut from between them ("meet Bob at 5 with Anna").
        found = [at for start, w in enumerate(self.folded) if w == wanted[0] if (at := self._in_order(start, wanted))]
        best = min(found, key=lambda at: at[-1] - at[0], default=None)
        return self._join([self.tokens[i] for i in best]) if best is not None else text

    def _in_order(self, start: int, wanted: list[str]) -> list[int]:
        """Where each of `wanted` stands from `start` on, each after the one before (none if one is missing)."""
        at = [start]
        for word in wanted[1:]:
            nxt = next((i for i in range(at[-1] + 1, len(self.folded)) if self.folded[i] == word), None)
            if nxt is None:
                return []
            at.append(nxt)
        return at

    @staticmethod
    def _join(span: list[str]) -> str:
        return _EDGE.sub("", span[0]) if len(span) == 1 else " ".join([_lead(span[0]), *span[1:-1], _tail(span[-1])])


def _lead(token: str) -> str:
    return re.sub(r"^[\W_]+", "", token)


def _tail(token: str) -> str:
    return re.sub(r"[\W_]+$", "", token)


# -- one reading for the offline model and for argument repairs --------------------------------------
def asked_in(message: str, *, today: dt.date, intent: Intent | None = None) -> list[Asked]:
    """The calls `message` asks for. English wording the offline model's English rules read whole
    (they know more of it: a description, tags, a rename, a field to change) keeps their reading when
    it asks for the same tools as the reader's, or the reader read no call (nothing, or a command whose
    fields it cannot read: a rename); any other wording, in any language, is read here."""
    intent = intent or classify(message)
    read = commands_in(message, today=today, intent=intent)
    english = parse_message(message, today).commands
    # A reference into the conversation ("the one I just added") is the reader's: the English rules
    # would read it as a title.
    pointed = any(_conversational(str(a.args.get("task_id", ""))) for a in read)
    # Where the reader read no change asked (a question, a no, a retraction), that reading stands.
    unread = not read and intent.kind in ("chat", "command")
    if english and not pointed and (unread or sorted(c.name for c in english) == sorted(a.name for a in read)):
        plain = message.translate(QUOTES)
        return [Asked(c.name, c.args, quoted=_quoted_in(plain, c.args.get("title"))) for c in english]
    return read


def _quoted_in(message: str, title: object) -> bool:
    return isinstance(title, str) and any(f"{q}{title}{q}" in message for q in "\"'")


def offline_reading(message: str, today: dt.date, earlier: Sequence[str] = ()) -> Reading:
    """How the offline model reads a message: the reader's kind, the calls, the language to answer in
    (a message two languages share, "sì", takes the language of the user's earlier messages)."""
    intent = classify(message)
    commands = [Command(a.name, a.args) for a in asked_in(message, today=today, intent=intent)]
    previous = next((found for m in reversed(earlier) if (found := detect(m).detected)), None)
    language = detect(message, reader=intent.languages, previous=previous).code
    return Reading(commands, intent.kind if commands or intent.kind != "command" else "chat", language)


# -- what kinds of value a message gives ----------------------------------------------------------
_DIGIT = re.compile(r"\d")


def gives_in(text: str, *, today: dt.date) -> frozenset[str]:
    """The kinds of value `text` gives, whatever their value, in any covered language: a "priority"
    ("urgent", "baja"), a "due_date" (a day word, a weekday, any number: "on the 12th", "15/3"), a
    "status" of done ("done", "terminées", a verb for completing). A model's value of a kind the user's
    words do not give is the model's default, not the user's (the decision table drops it: row V6). A
    "due_at" is a time of day or any number ("at noon", "um 7"); a "recurrence" is a repeat, or a word
    for "every" that may begin one the lists do not read."""
    found: set[str] = set()
    folded = fold(text)
    if _take_priority(text)[0] is not None:
        found.add("priority")
    timed = bool(_DIGIT.search(folded)) or time_in(folded) is not None
    if timed or _take_date(text, today)[0] is not None:
        found.add("due_date")
    if timed:
        found.add("due_at")
    if repeat_in(folded) is not None or any(
        (every := lex.dates.repeats.get("every")) is not None and every.search(folded) for lex in lexicons()
    ):
        found.add("recurrence")  # a repeat, or a word for "every" that may begin one the lists do not read
    for lex in lexicons():
        done = lex.word("done_states")
        if (done is not None and done.search(folded)) or any(
            Tool.COMPLETE in v.tools and v.pattern.search(folded) for v in lex.verbs
        ):
            found.add("status")
            break
    return frozenset(found)
