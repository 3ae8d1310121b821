"""Per-language word lists for reading a user's message (intent) and a model's reply (claims).

Each language is one TOML file in `data/` (`en.toml` documents the schema); adding a language is
adding a file, no code. Entries are regular-expression fragments, matched whole-word on folded text
(`fold`: casefolded, typographic quotes made plain, accents removed). Entries are folded the same
way when loaded, so a file may be written with accents ("añade") and still match a user who types
without them ("anade").
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Literal, get_args

from backend.app.calls.tools import Tool
from backend.app.language import scan

Form = Literal["imperative", "infinitive", "past", "declarative"]
TOOL_NAMES: frozenset[str] = frozenset(Tool)
FORMS: tuple[Form, ...] = get_args(Form)

# `order`: fillers that say when or instead ("then", "luego"), read with the fillers, never beside a
# yes. `exception`: words that leave out of a change of tasks what they name ("except", "außer"),
# `exception_after_all` only right after a word for every task ("all but gym", "todo menos gym").
# `additive`: conjunctions that join items of one list, over which a no goes on ("don't delete gym and taxes").
# `not`: words that say no to what stands before them, closing a clause ("lösch Gym, aber Taxes nicht").
# `copula`: "is", "ist", "está": a clause that holds one states something of its own ("taxes is done").
# `keep`: "keep", "behalten", "dejo": in the assistant's question, a clause with one says no ("…and keep Gym?");
# in the user's, a retraction that keeps what it names ("keep taxes") says no to that task only.
# `keep_after`: words closing a keep that say no more of what it keeps ("alone" of "leave taxes alone",
# "staan" of "laat taxes staan", "vara" of "låt taxes vara").
# `retraction` entries with a wildcard (.* or [\w-]+) keep what it stands for; the others are said in full
# ("laisse tomber": `said_in_full`).
# `state_question`, `alternative` ("or"), `polite` ("please"): a question of how a task stands (state.py).
# `condition`: "if", "wenn", "om" at a clause's head before a verb that states: the clause supposes (clauses.py).
# `happened`: the words of `report` that say what happened ("j'ai", "ho", "maine"): their clause supposes nothing.
_WORDS = (
    "fillers", "order", "request", "usage", "question", "advice", "report", "negation", "retraction", "small_talk",
    "fields", "field_links", "modifiers", "conjunctions", "task_nouns", "title_fillers", "done_states", "whole_list",
    "list_places", "not_all", "exception", "exception_after_all", "additive",
    "not", "copula", "keep", "keep_after", "state_question", "alternative", "polite", "range", "condition", "happened"
)  # fmt: skip
_CLAIMS = ("first_person", "second_person", "done", "offer", "own_offer", "nothing", "state", "denial")
# References into the conversation: "it", "the last one", "the second one", "#2", yes and no.
_REFERENCES = ("this", "last", "previous", "just_added", "number", "yes", "no")
_DATES = ("today", "tomorrow", "after_tomorrow", "in_days", "next_week", "next_month", "soonest", "latest")
_PRIORITIES = ("high", "medium", "low")
# How a language says a task repeats ([repeats]; services/turn/commands.py reads them into an RRULE):
# `every` before a weekday ("every tuesday"), whole phrases for the common rules, `month_day` (its
# first group the day of the month) and `every_days`/`every_weeks`/`every_months` (their first group
# the interval; a phrase with none, "every other week", is an interval of 2).
_REPEATS = (
    "every", "daily", "workdays", "weekly", "monthly", "yearly", "month_day",
    "every_days", "every_weeks", "every_months",
)  # fmt: skip
_FLAGS = (
    "imperative_anywhere",
    "negation_anywhere",
    "advice_anywhere",
    "usage_anywhere",
    "report_anywhere",
    "infinitive_at_end",
    "infinitive_at_head",
    "exception_follows",  # an exception word follows what it leaves out ("gym ke ilawa")
    "closing_not",  # a word of `not` after an item closes it as a no ("Taxes nicht", "taxes no")
    "closing_not_after_number",  # ... after a title's number too ("Item 3 nicht"; not French "100 pas")
)
_FLAG_DEFAULTS = {"infinitive_at_head": True, "closing_not_after_number": True}
QUOTES = str.maketrans("’‘`´“”„«»＂＇", '\'\'\'\'""""""\'')  # fullwidth too: `fold` decomposes those to plain ones


def fold(text: str) -> str:
    """Lowercase, plain quotes, no accents: the form every pattern is matched against."""
    if text.isascii():  # nothing to decompose, no accent to drop: most messages, read several times
        return text.translate(QUOTES).casefold()
    decomposed = unicodedata.normalize("NFKD", text.translate(QUOTES).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _alternation(entries: list[str], *, whole: bool = False) -> re.Pattern[str] | None:
    if not entries:
        return None
    # Longest first, so that at one position "get rid of" is tried before "get".
    body = "|".join(f"(?:{fold(e)})" for e in sorted(entries, key=len, reverse=True))
    if whole:
        return re.compile(rf"(?:{body})")
    return re.compile(rf"(?<![\w'])(?:{body})(?![\w])")


@dataclass(frozen=True, slots=True)
class VerbPattern:
    """One tool's forms of one kind; `tools` is the tool and the others that do the same job."""

    tools: tuple[Tool, ...]
    form: Form
    pattern: re.Pattern[str]
    order: int


@dataclass(frozen=True, slots=True)
class Dates:
    """A language's words for days: `today`, `tomorrow`, `after_tomorrow`, `in_days` (its first group
    is the number of days), `next_week`, `next_month` (the same day of the next month), `soonest` and
    `latest` (of several due dates, the first or the last), and `weekdays` (Monday first)."""

    words: dict[str, re.Pattern[str] | None]
    weekdays: tuple[re.Pattern[str] | None, ...]
    # A time of day ("at 3pm", "um 15 Uhr", "à 15h30"), each its own pattern with the named groups `h`,
    # and `m`, `am`, `pm` where it has them.
    times: tuple[re.Pattern[str], ...] = ()
    repeats: dict[str, re.Pattern[str] | None] = field(default_factory=dict)
    # Words said with a weekday for the next one ("next monday", "lundi prochain"): the first matches
    # them ending right before the weekday (searched in the text before it), the second right after it
    # (matched where it ends; `when._closes` says whether what follows lets it go with the day).
    around_weekday: tuple[re.Pattern[str] | None, re.Pattern[str] | None] = (None, None)

    def word(self, kind: str) -> re.Pattern[str] | None:
        return self.words[kind]


@dataclass(frozen=True, slots=True)
class Lexicon:
    code: str
    name: str
    verbs: tuple[VerbPattern, ...]
    words: dict[str, re.Pattern[str] | None]
    claims: dict[str, re.Pattern[str] | None]
    flags: dict[str, bool]
    references: dict[str, re.Pattern[str] | None]
    ordinals: tuple[re.Pattern[str], ...]  # position i+1 in the list shown last
    common: frozenset[str] = frozenset()  # frequent words of the language: which language a text is in
    dates: Dates = Dates(dict.fromkeys(_DATES), (None,) * 7)
    priorities: dict[str, re.Pattern[str] | None] = field(default_factory=dict)  # high, medium, low
    # Every verb form of every tool in one alternation: where the first verb of a text starts, found in
    # one scan instead of one per tool and form (the verbs are then matched only there).
    any_verb: re.Pattern[str] | None = None
    any_past: re.Pattern[str] | None = None  # the same for the past forms (what a reply claims happened)

    def word(self, kind: str) -> re.Pattern[str] | None:
        return self.words[kind]

    def claim(self, kind: str) -> re.Pattern[str] | None:
        return self.claims[kind]

    def verb_last(self) -> bool:
        """Whether the language may put a command's verb last ("milk add kar do", "Milch hinzufügen")."""
        return self.flags["imperative_anywhere"] or self.flags["infinitive_at_end"]

    def reference(self, kind: str) -> re.Pattern[str] | None:
        return self.references[kind]

    def flag(self, name: str) -> bool:
        return self.flags[name]

    def skip(self, kind: str, text: str, pos: int) -> int | None:
        """Past one `kind` phrase at `pos` and the spaces and punctuation after it; None if none is there."""
        pattern = self.words[kind]
        if pattern is None or (m := pattern.match(text, pos)) is None or m.end() == pos:
            return None
        end = m.end()
        while end < len(text) and not (text[end].isalnum() or text[end] == '"'):
            end += 1
        return end

    def after_fillers(self, text: str, pos: int = 0) -> int:
        """Where `text` really starts once fillers ("ok, so, please") are skipped."""
        while (end := self.skip("fillers", text, pos)) is not None:
            pos = end
        return pos


def _tools(key: str) -> tuple[Tool, ...]:
    names = tuple(n.strip() for n in key.split("|"))
    unknown = [n for n in names if n not in TOOL_NAMES]
    if unknown:
        raise ValueError(f"unknown tool {unknown[0]!r} in [verbs.{key}]")
    return tuple(Tool(n) for n in names)


def _strings(table: dict[str, Any], key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}.{key} must be a list of strings")
    return list(value)


def parse(code: str, data: dict[str, Any]) -> Lexicon:
    """A language file's contents, checked and compiled (a bad file fails loudly at start-up)."""
    known = {"name", "verbs", "words", "claims", "references", "detect", "dates", "priorities", "repeats", *_FLAGS}
    if extra := sorted(set(data) - known):
        raise ValueError(f"{code}: unknown key {extra[0]!r}")
    verbs: list[VerbPattern] = []
    every_verb: list[str] = []
    every_past: list[str] = []
    for key, forms in data.get("verbs", {}).items():
        if extra := sorted(set(forms) - set(FORMS)):
            raise ValueError(f"{code}: unknown form {extra[0]!r} in [verbs.{key}]")
        for form in FORMS:
            entries = _strings(forms, form, f"{code}.verbs.{key}")
            pattern = _alternation(entries)
            if pattern is not None:
                verbs.append(VerbPattern(_tools(key), form, pattern, len(verbs)))
                every_verb += entries
                every_past += entries if form == "past" else []
    words_table, claims_table, references_table = (data.get(k, {}) for k in ("words", "claims", "references"))
    detect_table, dates_table = data.get("detect", {}), data.get("dates", {})
    priorities_table, repeats_table = data.get("priorities", {}), data.get("repeats", {})
    tables = (
        (words_table, _WORDS, "words"),
        (claims_table, _CLAIMS, "claims"),
        (references_table, (*_REFERENCES, "ordinals"), "references"),
        (detect_table, ("common",), "detect"),
        (dates_table, (*_DATES, "weekdays", "times", "before_weekday", "after_weekday"), "dates"),
        (repeats_table, _REPEATS, "repeats"),
        (priorities_table, _PRIORITIES, "priorities"),
    )
    _known_keys(code, tables)
    listed = {k: _strings(words_table, k, f"{code}.words") for k in _WORDS}
    listed["fillers"] += listed["order"]  # read as fillers everywhere; `order` alone only beside a yes
    listed["said_in_full"] = [r for r in listed["retraction"] if ".*" not in r and "[\\w-]+" not in r]
    words = {k: _alternation(v, whole=k == "conjunctions") for k, v in listed.items()}
    claims = {k: _alternation(_strings(claims_table, k, f"{code}.claims")) for k in _CLAIMS}
    flags = {k: bool(data.get(k, _FLAG_DEFAULTS.get(k, False))) for k in _FLAGS}
    references = {k: _alternation(_strings(references_table, k, f"{code}.references"), whole=True) for k in _REFERENCES}
    ordinals = tuple(re.compile(fold(o)) for o in _strings(references_table, "ordinals", f"{code}.references"))
    common = frozenset(fold(w) for w in _strings(detect_table, "common", f"{code}.detect"))
    dates = _dates(code, dates_table, repeats_table)
    priorities = {k: _alternation(_strings(priorities_table, k, f"{code}.priorities")) for k in _PRIORITIES}
    return Lexicon(
        code,
        str(data.get("name", code)),
        tuple(verbs),
        words,
        claims,
        flags,
        references,
        ordinals,
        common,
        dates,
        priorities,
        _any(every_verb),
        _any(every_past),
    )


def _dates(code: str, dates_table: dict[str, Any], repeats_table: dict[str, Any]) -> Dates:
    return Dates(
        {k: _alternation(_strings(dates_table, k, f"{code}.dates")) for k in _DATES},
        _weekdays(code, dates_table.get("weekdays", [])),
        tuple(_bounded(t) for t in _strings(dates_table, "times", f"{code}.dates")),
        {k: _alternation(_strings(repeats_table, k, f"{code}.repeats")) for k in _REPEATS},
        (
            _weekday_words(_strings(dates_table, "before_weekday", f"{code}.dates"), r"(?<![\w'])(?:{})\s+$"),
            _weekday_words(_strings(dates_table, "after_weekday", f"{code}.dates"), r"\s+(?:{})(?![\w])"),
        ),
    )


def _weekday_words(entries: list[str], frame: str) -> re.Pattern[str] | None:
    return re.compile(frame.format("|".join(f"(?:{fold(e)})" for e in entries))) if entries else None


def _known_keys(code: str, tables: tuple[tuple[dict[str, Any], tuple[str, ...], str], ...]) -> None:
    for table, allowed, where in tables:
        if extra := sorted(set(table) - set(allowed)):
            raise ValueError(f"{code}: unknown key {extra[0]!r} in [{where}]")


def _bounded(entry: str) -> re.Pattern[str]:
    """One entry alone, between word boundaries (its named groups kept: an alternation would repeat them)."""
    return re.compile(rf"(?<![\w'])(?:{entry})(?![\w])")


def _any(entries: list[str]) -> re.Pattern[str] | None:
    """Every entry in one alternation, grouped by first character (`scan`): one fast scan says where
    the first of them starts."""
    fragments = [fold(e) for e in sorted(entries, key=len, reverse=True)]
    return scan.starts(fragments, before=r"(?<![\w'])", after=r"(?![\w])") if fragments else None


def _weekdays(code: str, value: Any) -> tuple[re.Pattern[str] | None, ...]:
    if value == []:
        return (None,) * 7
    if not isinstance(value, list) or len(value) != 7 or not all(isinstance(d, list) for d in value):
        raise ValueError(f"{code}.dates.weekdays must be seven lists of strings, Monday first")
    return tuple(_alternation(_strings({"day": d}, "day", f"{code}.dates.weekdays")) for d in value)


@cache
def lexicons() -> tuple[Lexicon, ...]:
    """Every language in `data/`, English first (it breaks ties), then by file name."""
    folder = resources.files(__package__).joinpath("data")
    files = [f for f in folder.iterdir() if f.name.endswith(".toml")]
    files.sort(key=lambda f: (f.name != "en.toml", f.name))
    return tuple(parse(f.name.removesuffix(".toml"), tomllib.loads(f.read_text(encoding="utf-8"))) for f in files)


@cache
def words_of(*kinds: str) -> re.Pattern[str]:
    """Every language's words of `kinds`, as one pattern (a message may mix languages)."""
    parts = [p.pattern for lex in lexicons() for kind in kinds if (p := lex.word(kind)) is not None]
    return re.compile("|".join(parts) or "(?!)")


@cache
def conjunctions() -> re.Pattern[str]:
    """Clause separators of every language (a message may mix them)."""
    parts = [p.pattern for lex in lexicons() if (p := lex.word("conjunctions")) is not None]
    return re.compile(r",|&|\s[-–—]\s|(?<!\w)(?:" + "|".join(parts or ["and"]) + r")(?!\w)")


@cache
def modifiers() -> re.Pattern[str]:
    """Words that only qualify an item (dates, priorities) in any language: a clause of nothing else
    is not an item of its own ("add call mom tomorrow, high priority")."""
    return words_of("modifiers")


@cache
def task_nouns() -> re.Pattern[str]:
    """Words for a task or a list themselves, in any language ("task", "liste", "Aufgabe"): a title
    made of nothing else names nothing."""
    return words_of("task_nouns")


# Weekday names beyond the language files, for an answer to "which one?" ("den på onsdag"): wide
# names only (from CLDR, through Babel), so that no short abbreviation reads as a weekday.
_DAY_LOCALES = ("da", "fi", "nb", "pl", "sv", "tr")


@cache
def month_names() -> tuple[tuple[int, str], ...]:
    """(month number, folded name), wide and abbreviated (3 letters or more), in the languages that
    have a file (from CLDR, through Babel): read only beside a day number."""
    from babel.dates import get_month_names

    found: set[tuple[int, str]] = set()
    for lex in lexicons():
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for number, name in get_month_names(width, context, locale=lex.code).items():
                    if len(cleaned := fold(name).rstrip(".")) >= 3:
                        found.add((number, cleaned))
    return tuple(sorted(found))


@cache
def day_names() -> tuple[tuple[int, str], ...]:
    """(weekday, Monday 0; folded wide name) in the languages of `_DAY_LOCALES`."""
    from babel.dates import get_day_names

    names = {(day, fold(name)) for code in _DAY_LOCALES for day, name in get_day_names("wide", locale=code).items()}
    return tuple(sorted(names))


@cache
def whole_list_words() -> re.Pattern[str]:
    """Words that name every task of the list, in any language ("all", "alles", "todas")."""
    return words_of("whole_list")


@cache
def list_places() -> re.Pattern[str]:
    """Words that only say which list a task is on, in any language ("from all your tasks", "de toda tu lista")."""
    return words_of("list_places")


@cache
def not_all() -> re.Pattern[str]:
    """Phrases with a word for every task that name none, in any language ("all right", "alles klar")."""
    return words_of("not_all")


@cache
def add_verbs() -> re.Pattern[str]:
    """Every form of every language's verbs for adding ("add", "ajoute", "hinzufügen")."""
    parts = [v.pattern.pattern for lex in lexicons() for v in lex.verbs if Tool.ADD in v.tools]
    return re.compile("|".join(parts) if parts else r"(?!)")


@cache
def reference_words() -> re.Pattern[str]:
    """Every language's words that point to a task through the conversation ("this", "esto", "das"):
    a title made of nothing else is no title anyone gave."""
    parts = [p.pattern for lex in lexicons() for kind in ("this", "last") if (p := lex.reference(kind)) is not None]
    return re.compile("|".join(parts) if parts else r"(?!)")


def covered_languages() -> list[tuple[str, str]]:
    return [(lex.code, lex.name) for lex in lexicons()]


def lexicon(code: str) -> Lexicon | None:
    """The language `code`'s word lists, if there is a file for it."""
    return next((lex for lex in lexicons() if lex.code == code), None)
