"""What a change of every task leaves out: "delete all except gym", "borra todo menos gym", "lösch
alles außer Gym", "gym ke ilawa sab delete kar do", "delete everything but gym, and yoga".

The words an exception names are the user's no: `intent.classify` and `question.read_question` put
them with the message's (or the question's) declined clauses, which never name the target of a
change (row T4 of the decision table refuses a call only they name).

An exception leaves out of a set: a language's `exception` word ("except", "außer", "sauf") does
in a change of existing tasks whose words before it hold one of the same language's words for
every task (`whole_list`, outside a phrase that names none: "all good except gym" is a report), as
do its `exception_after_all` words right after such a word ("all but gym": "but" is a conjunction
elsewhere, "menos" a "less"). So a title that holds such a word stays a title ("delete the task Save
for car", "add pack everything except the charger"). Where a language puts the word after what it
leaves out (`exception_follows`, Urdu "ke ilawa"), the words between the verb, or the clause's
head, and the word are left out ("gym ke alawa yoga bhi delete kar do", with no set, is "besides
gym, yoga too"). After such a change in the same sentence, a clause that opens with an exception
word ("delete all, except gym") or after it ("…, and yoga") is left out too.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from backend.app.calls.tools import Tool, having
from backend.app.language.lexicon import Lexicon, conjunctions, lexicon, lexicons, not_all, whole_list_words, words_of
from backend.app.language.reading.clauses import Reading
from backend.app.language.reading.naming import names_something
from backend.app.language.reading.ranges import a_range, plain
from backend.app.language.reading.when import day_in, time_in

_TARGETS = having("targets")
# Up to six words between a word for every task and an exception word: "all the tasks on my list but gym".
_BETWEEN = r"(?:\s+[^\W\d_][\w'-]*){0,6}?[\s,]+"
_PUNCT = re.compile(r"[^\w\s]")


@dataclass(frozen=True, slots=True)
class Cut:
    """A command's clause without what its exception leaves out (blanked, so that the reading's
    positions stay those of the clause), the words left out, and whether the verbless items before
    the clause are left out with them (the words stand at its head, before the verb: "gym aur yoga ke
    ilawa sab delete kar do")."""

    clause: str
    left_out: str
    leading_too: bool


@cache
def _after_all(code: str) -> re.Pattern[str] | None:
    """One of the language's words for every task, then one of its exception words that leave out
    only there (group 1)."""
    lex = lexicon(code)
    assert lex is not None
    every, after = lex.word("whole_list"), lex.word("exception_after_all")
    sets = rf"{every.pattern}|{plain()}" if every else ""  # "todo menos", "items 1-5 menos"
    return re.compile(rf"(?:{sets}){_BETWEEN}({after.pattern})") if every and after else None


def _unnamed(text: str) -> str:
    """`text` with the phrases that name no task blanked ("all good", "alles klar"), at their width."""
    return not_all().sub(lambda m: " " * len(m.group()), text)


def after_all(text: str, word: re.Match[str]) -> bool:
    """Whether `word` of `text` (a conjunction, or a comma before one of the words) is an exception
    word that leaves out only after a word for every task, right after one ("delete everything but
    gym", "borra todo, menos gym"); the clause splitter keeps it in its clause."""
    at = word.start()
    if word.group() == ",":  # "todo, menos gym": the word after the comma, which leaves something out
        after = words_of("exception_after_all").match(text, len(text) - len(text[word.end() :].lstrip()))
        rest = conjunctions().split(text[after.end() :], maxsplit=1)[0] if after is not None else ""
        if after is None or not _leaves(rest, edit=False):  # "everything, besides that, …"
            return False
        at = after.start()
    elif not words_of("exception_after_all").fullmatch(word.group()):
        return False
    start = max(0, at - 120)  # a word for every task and up to six words: never a whole long message
    window = _unnamed(text[start : at + 40])
    patterns = (p for lex in lexicons() if (p := _after_all(lex.code)) is not None)
    return any(m.start(1) == at - start for p in patterns for m in p.finditer(window))


def _a_set(lex: Lexicon, unnamed: str) -> bool:
    """Whether words (their phrases that name no task blanked: `_unnamed`) hold one of the language's
    words for every task, or a range of numbered titles ("items 1-5"): what an exception leaves out of."""
    every = lex.word("whole_list")
    return (every is not None and every.search(unnamed) is not None) or a_range(unnamed)


def _names(text: str) -> bool:
    """Whether `text` names something: a word that is no filler or reference, a quoted title, or a
    number ("except item 4", "außer 3 bis 5": a numbered title, or a range of them)."""
    return names_something(text) or "§" in text or any(c.isdigit() for c in text)


def _leaves(text: str, *, edit: bool) -> bool:
    """Whether the words an exception word opens leave something out: they name something and, in an
    edit, give no value of their own, which makes them another change ("set all to high except gym to
    low"; but "delete everything except gym today")."""
    return _names(text) and not (edit and gives_value(text))


_ANY_DAY = dt.date(2026, 1, 1)  # only whether words say a day is read, never which
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


@cache
def _values() -> re.Pattern[str]:
    """Every pattern `gives_value` searches one by one, as one (named groups unnamed: they repeat), so
    that where it finds nothing none of them would."""
    found = [
        p.pattern
        for lex in lexicons()
        for p in (*lex.priorities.values(), *lex.dates.words.values(), *lex.dates.weekdays, *lex.dates.times)
        if p is not None
    ]
    return re.compile("|".join(_NAMED_GROUP.sub("(?:", p) for p in found) or "(?!)")


def gives_value(text: str) -> bool:
    """Whether `text` says a priority, a day or a time of day ("to low", "to friday", "at 5")."""
    if _values().search(text) is None:  # one search first: most clauses of an edit say none
        return False
    priorities = (p for lex in lexicons() for p in lex.priorities.values() if p is not None)
    return any(p.search(text) for p in priorities) or day_in(text, _ANY_DAY) is not None or time_in(text) is not None


def in_clause(clause: str, reading: Reading, tools: tuple[Tool, ...], *, opened: bool) -> Cut | None:
    """What a clause with a verb leaves out: where an exception of a verbless clause before it is still
    open (`opened`) and the verb comes last, its words before the verb ("alles außer Gym und Yoga
    löschen": "Yoga"); else its own exception (`_cut`)."""
    lex = lexicon(reading.language)
    if opened and lex is not None and lex.verb_last():
        return _before_verb(clause, reading)
    return _cut(clause, reading, tools)


def in_verbless(clause: str, change: tuple[Tool, ...], *, edit: bool, framed: bool = False) -> tuple[int, int] | None:
    """What a clause without a verb leaves out: after a change of existing tasks in its sentence
    (`change`, the tools of the sentence's last command), what an exception word opens (`_left_out`;
    `edit`: that change is an edit that gave a value); before one, only what an exception leaves out
    of a set (`of_every`)."""
    if set(change) & _TARGETS:
        return _left_out(clause, edit=edit)
    return of_every(clause, framed=framed)


def _cut(clause: str, reading: Reading, tools: tuple[Tool, ...]) -> Cut | None:
    """What a clause leaves out, if it asks for (or about) a change of existing tasks by `tools`
    (the verb `reading` found) and has an exception."""
    if not set(tools) & _TARGETS or not words_of("exception", "exception_after_all").search(clause):
        return None
    unnamed = _unnamed(clause)
    edit = Tool.UPDATE in tools
    spans = [span for lex in lexicons() if (span := _span(lex, clause, unnamed, reading, edit=edit)) is not None]
    if not spans:
        return None
    start, end = min(spans)
    kept = clause[:start] + " " * (end - start) + clause[end:]
    return Cut(kept.rstrip(), clause[start:end].strip(), end <= reading.start and start == reading.head)


def _span(lex: Lexicon, clause: str, unnamed: str, reading: Reading, *, edit: bool) -> tuple[int, int] | None:
    """Where the first of `lex`'s exceptions leaves out in the clause: from the word to the verb (the
    verb last: "alles außer Gym löschen") or to the clause's end, after a word for every task; where
    the word follows what it leaves out, from the clause's head or the verb to it, in a change of
    every task ("gym ke ilawa sab delete kar do"). `unnamed`: the clause, its phrases that name no
    task blanked."""
    verb_end = reading.start + reading.length
    pattern = lex.word("exception")
    found = pattern.search(clause, reading.head) if pattern is not None else None
    if found is not None and lex.flag("exception_follows"):
        start = reading.head if found.end() <= reading.start else verb_end if found.start() >= verb_end else None
        rest = unnamed[: start or 0] + " " + unnamed[found.end() :]
        return (start, found.end()) if start is not None and _a_set(lex, rest) else None
    words = [found.span()] if found is not None and _a_set(lex, unnamed[reading.head : found.start()]) else []
    if (after := _after_all(lex.code)) is not None and (but := after.search(unnamed, reading.head)):
        words.append(but.span(1))
    start, end = min(words, default=(0, 0))
    stop = reading.start if start < reading.start else len(clause.rstrip(" :"))  # a list's colon stays
    # an edit's value after the exception is the task's own where the edit gave one before it ("set
    # all to high except gym to low"), else the edit's ("move everything except gym to friday")
    edit = edit and gives_value(clause[:start])
    return (start, stop) if words and _leaves(clause[end:stop], edit=edit) else None


@lru_cache(maxsize=1024)
def _left_out(clause: str, *, edit: bool = False) -> tuple[int, int] | None:
    """What a clause without a verb, after a change in its sentence, leaves out of it: all of it where
    it opens with an exception word ("except gym", "menos el gym", "but gym" kept after "everything")
    or ends with one ("Gym ausgenommen", "gym ke ilawa"); from the word on where words come before it
    ("thanks, except gym"). Nothing where what follows names nothing ("other than that", "salvo eso")
    or, after an edit (`edit`), gives a value ("set all to high, except gym to low")."""
    if not words_of("exception", "exception_after_all").search(clause):
        return None
    spans: list[tuple[int, int]] = []
    head = len(clause) - len(clause.lstrip(", ")) if clause.startswith(",") else 0  # a comma the splitter kept
    for lex in lexicons():
        at = head + lex.after_fillers(clause[head:])
        for kind in ("exception", "exception_after_all"):
            pattern = lex.word(kind)
            opening = pattern.match(clause, at) if pattern is not None else None
            # an after-all word opens a clause only where the splitter kept it there ("but gym", ",
            # menos gym": a comma it kept stays at the clause's head)
            kept = head or (opening is not None and conjunctions().fullmatch(opening.group()))
            if opening is not None and (kind == "exception" or kept):
                return (0, len(clause)) if _leaves(clause[opening.end() :], edit=edit) else None
        if (pattern := lex.word("exception")) is None or (found := pattern.search(clause, at)) is None:
            continue
        if lex.flag("exception_follows") or not _PUNCT.sub("", clause[found.end() :]).strip():
            spans.append((0, found.end()))  # "gym ke ilawa", "Gym ausgenommen"
        elif _leaves(clause[found.end() :], edit=edit):
            spans.append((found.start(), len(clause)))
    return min(spans, default=None)


@lru_cache(maxsize=1024)
def of_every(text: str, *, framed: bool = False) -> tuple[int, int] | None:
    """Where words for every task and an exception after them leave out, in a clause with no verb
    and no other words ("alles außer Gym" of "alles außer Gym und Yoga löschen"; an option: "1)
    everything except Gym"): from the exception word to the end. `framed`: a question's clause, where
    a language that puts its verb last may open with other words ("Soll ich alles außer Gym und
    Yoga löschen?"; never "Everything is done except Gym, should I mark it done?")."""
    if not words_of("exception", "exception_after_all").search(text):
        return None
    unnamed = _unnamed(text)
    words: list[tuple[int, int]] = []
    for lex in lexicons():
        if lex.flag("exception_follows"):
            continue
        pattern = lex.word("exception")
        found = [m.span()] if pattern is not None and (m := pattern.search(text)) is not None else []
        if (after := _after_all(lex.code)) is not None and (but := after.search(unnamed)) is not None:
            found.append(but.span(1))
        before = unnamed[: min(found, default=(0, 0))[0]]
        if found and _a_set(lex, before) and ((framed and lex.verb_last()) or _only_a_set(before)):
            words.append(min(found))
    start, end = min(words, default=(0, 0))
    return (start, len(text)) if words and _leaves(text[end:], edit=False) else None


def _only_a_set(words: str) -> bool:
    """Words for every task, and nothing else but fillers and words for tasks: not "everything's done"
    (a report)."""
    return not names_something(whole_list_words().sub(" ", words), references=False)


def _before_verb(clause: str, reading: Reading) -> Cut | None:
    """The words before a verb that comes last, left out where an exception before it is still open
    ("alles außer Gym und Yoga löschen": "Yoga")."""
    words = clause[reading.head : reading.start]
    if not words.strip():
        return None
    return Cut(clause[: reading.head] + " " * len(words) + clause[reading.start :], words.strip(), False)
