"""Reading one clause of a chat message: its leftmost task verb, in any covered language, and what
the words around that verb make of it (a command, a question, advice, a report, a negation).

`intent.classify` cuts a message into sentences and clauses here, reads each clause with
`read_clause`, and combines the readings into an `Intent`; the word-level tests it needs between
clauses (small talk, fillers, a clause that declines, an item of a list) live here too (what words
name a task, `names_something`, is `naming.py`). Every rule is
the same for every language: the words come from the language files (`language/data/*.toml`).
Quoted text reaches this module as a placeholder (`intent.py`), which no pattern here matches.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal, NamedTuple

from backend.app.calls.tools import Tool, having
from backend.app.language.lexicon import Lexicon, VerbPattern, conjunctions, lexicons
from backend.app.language.lexicon import modifiers as _modifiers
from backend.app.language.reading.conditions import condition, happened, plans

# What a clause's words make of its verb. A message's kind (`intent.Kind`) is one of these, or
# small talk, or too long to read.
ReadingKind = Literal["command", "question", "advice", "report", "negated", "chat"]
# When two languages read one clause differently, the most cautious reading wins.
_CAUTION: dict[ReadingKind, int] = {
    "negated": 0,
    "advice": 1,
    "report": 2,
    "question": 3,
    "chat": 4,
    "command": 5,
}


@dataclass(frozen=True, slots=True)
class Reading:
    """How one language reads a clause: its kind, the tools its verb names, and why."""

    kind: ReadingKind
    tools: tuple[Tool, ...]
    why: str
    start: int
    language: str
    length: int = 0  # of the verb match: a longer one is the more specific reading
    requested: bool = False  # the clause opens with a request frame of its own ("can you ...")
    sets_mood: bool = False  # a question, advice or supposition that governs the verbs coordinated with it
    weak: bool = False  # only "the verb is not where a command's is": another language may know better
    head: int = 0  # where the clause's own words start, past fillers and a request frame
    stated: bool = False  # a state said of a task, no command's verb ("taxes as done"; negated: "gym isn't done")
    # a plan, supposition, condition, advice or question: it names no task to change ("if yoga is done")
    supposes: bool = False


# A period in a number ("1.5 h") or after a number that follows a word ("auf den 15. Dezember") ends
# no sentence; one after a number that opens a sentence or follows ':' does ("description: 1. Revenue").
_SENTENCE = re.compile(r"(?:[^.!?;\n¿¡]|(?<=\d)\.(?=\d)|(?:(?<=\w \d)|(?<=\w \d\d))\.(?= ?[^\W_]))*[.!?;\n]*")
_PUNCT = re.compile(r"^\W+|\W+$")
# The readings of the clauses seen last: a clause read once is not read again (a pasted list repeats
# its shapes, a conversation its "yes" and "thanks"). Each reading depends on the clause alone.
_MEMO = 4096
# Items of a list ("add milk, eggs and bread") are counted for these tools only.
ITEM_TOOLS = having("items")
_NUMBERED = re.compile(r"§\d+§")  # a quoted span's placeholder (language/reading/intent.py `_quotes`)
_ITEM_NOISE = re.compile(r"\d+(?:[:./-]\d+)*(?:st|nd|rd|th|am|pm)?|#[\w-]+|\"\"|[^\w\s]")


def unnumbered(clause: str) -> str:
    """`clause` with each quoted span's placeholder number zeroed, at the same width (positions in it
    stay those of `clause`): what a clause reads as does not depend on which quote it holds, so the
    clauses of a pasted list of quoted titles (`add "milk", add "eggs"`) are read once."""
    return _NUMBERED.sub(lambda m: "§" + "0" * (len(m.group()) - 2) + "§", clause) if "§" in clause else clause


def clear_memos() -> None:
    """Forget every clause read so far (the reader bench: each shape is a new message)."""
    for memo in (_read_clause, _whole, _only_fillers, _is_item):
        memo.cache_clear()
    for clear in MEMOS:
        clear()


MEMOS: list[Callable[[], None]] = []  # other modules' memos of clauses (negation.py), forgotten with these


def short(text: str) -> str:
    """`text` on one line, cut to 50 characters: how a reason or an action quotes the user's words."""
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:47] + "..."


def _first_verb(lex: Lexicon, clause: str) -> tuple[VerbPattern, re.Match[str]] | None:
    """The leftmost verb form; at one position the longest, then the first in the file. One scan
    finds the position (`any_verb`), the forms are then only tried there."""
    first = _search(lex.any_verb, clause)
    if first is None:
        return None
    at = first.start()
    found = [(v, m) for v in lex.verbs if (m := v.pattern.match(clause, at))]
    return min(found, key=lambda f: (-len(f[1].group()), f[0].order), default=None)


def verb_tools(clause: str) -> tuple[Tool, ...]:
    """The tools of the first verb form (any form: a command, a question, a report) each language
    finds in the clause."""
    found = (_first_verb(lex, clause) for lex in lexicons())
    return tuple(dict.fromkeys(tool for f in found if f is not None for tool in f[0].tools))


def _head(lex: Lexicon, clause: str) -> tuple[int, bool]:
    """Where the clause's own words start once fillers and request frames are stripped, and whether
    a request frame was stripped ("please can you just ...")."""
    pos, requested = 0, False
    while True:
        if (end := lex.skip("fillers", clause, pos)) is not None:
            pos = end
        elif (end := lex.skip("request", clause, pos)) is not None:
            pos, requested = end, True
        else:
            return pos, requested


def _search(pattern: re.Pattern[str] | None, text: str) -> re.Match[str] | None:
    return pattern.search(text) if pattern is not None else None


def _is_question_opening(lex: Lexicon, clause: str) -> bool:
    opener = lex.word("question")
    return opener is not None and opener.match(clause, lex.after_fillers(clause)) is not None


def _field_edit(lex: Lexicon, after: str) -> bool:
    """'remove the tag from X', 'add a due date to X': a field of a task within three words."""
    fields = lex.word("fields")
    if fields is None:
        return False
    window = " ".join(after.split()[:4])
    return bool(fields.search(window)) and bool(_search(lex.word("field_links"), after))


def _negated_inside(lex: Lexicon, verb: str) -> re.Match[str] | None:
    """A negation inside a verb around its object, right before the words that close the verb ("hak
    Gym nicht ab", "markiere Gym nicht als erledigt"); not the verb's own ("vergiss nicht", "glöm
    inte att"), a state's ("als nicht erledigt"), a word's ("die nicht dringenden Aufgaben"), nor a
    title's ("hak Warum nicht ab", "marque marcher 10000 pas comme fait")."""
    negation, states, asking = lex.word("negation"), lex.word("done_states"), lex.word("question")
    first = len(verb.split()[0]) if verb.strip() else 0
    for said in negation.finditer(verb, first + 1) if negation is not None else ():
        before, rest = verb[: said.start()].split(), verb[said.end() :].split()
        title = not before[-1].isalpha() or (asking is not None and asking.fullmatch(before[-1]) is not None)
        state = bool(rest) and states is not None and states.fullmatch(rest[0]) is not None
        if said.start() > first + 1 and len(rest) <= 2 and not title and not state:
            return said
    return None


def _read_in(lex: Lexicon, clause: str, *, asked: bool, alone: bool) -> Reading | None:
    """How one language reads a clause, if it finds one of its verbs in it (`alone`: the message's only clause)."""
    found = _first_verb(lex, clause)
    if found is None:
        return None
    verb, match = found
    start, word = match.start(), short(match.group())
    before, after = clause[:start], clause[match.end() :]
    question = asked or _is_question_opening(lex, clause)
    head, requested = _head(lex, clause)

    def reading(kind: ReadingKind, why: str, tools: tuple[Tool, ...] = (), *, mood: bool = True) -> Reading:
        sets_mood, length, at = mood and kind in ("question", "advice", "report"), len(match.group()), min(head, start)
        return Reading(kind, tools, why, start, lex.code, length, requested, sets_mood, head=at, supposes=sets_mood)

    negation = lex.word("negation")
    inside = _negated_inside(lex, match.group()) if verb.form in ("imperative", "infinitive") else None
    if neg := _search(negation, before) or (lex.flag("negation_anywhere") and (_search(negation, after) or inside)):
        negated = reading("negated", f"'{word}' is negated by '{neg.group()}'", verb.tools)
        return dataclasses.replace(negated, stated=verb.form in ("declarative", "past"))  # "gym isn't done"
    advice = lex.word("advice")
    if adv := _search(advice, before) or (lex.flag("advice_anywhere") and _search(advice, after)):
        return reading("advice", f"'{short(adv.group())}' asks for advice about '{word}'")
    usage = _search(lex.word("usage"), clause)
    if usage is not None and (usage.start() <= start or lex.flag("usage_anywhere")):
        return reading("question", f"'{short(usage.group())}' asks how the app works")
    not_asking: ReadingKind = "question" if question else "report"
    if (about := None if alone or asked else condition(lex, clause, verb.form, head, match.span())) is not None:
        return reading("report", f"'{word}' is supposed" if about else f"'{word}' says when", mood=about)
    if verb.form == "past":  # "I deleted gym yesterday, can you add it back?": the past governs only itself
        said = reading(not_asking, f"'{word}' tells what happened", mood=False)
        return dataclasses.replace(said, supposes=plans(lex, before))
    if rep := _search(lex.word("report"), before) or (
        lex.flag("report_anywhere") and _search(lex.word("report"), after)
    ):
        said = reading(not_asking, f"'{short(rep.group())}' reports or supposes '{word}'")
        return dataclasses.replace(said, supposes=not happened(lex, before, verb.form))
    tools = verb.tools
    if set(tools) & {Tool.ADD, Tool.DELETE} and _field_edit(lex, after):
        tools = (Tool.UPDATE,)
    command = f"'{word}' asks for {tools[0]}"
    if verb.form == "declarative":
        if question and Tool.LIST not in tools:  # "is the report done?"; but "what's left?" asks for the list
            return reading("question", f"'{word}' is asked about")
        return dataclasses.replace(reading("command", command, tools), stated=True)
    # "time to clean up: delete gym": what follows a colon with no verb before it starts afresh.
    colon = clause.rfind(":", 0, start)
    after_colon = colon + 1 + len(clause[colon + 1 :]) - len(clause[colon + 1 :].lstrip()) if colon >= 0 else -1
    at_head = start == head or (colon >= 0 and lex.after_fillers(clause, after_colon) == start)
    if verb.form == "imperative" and (at_head or lex.flag("imperative_anywhere")):
        return reading("command", command, tools)
    if verb.form == "infinitive" and (
        requested
        or (at_head and not question and lex.flag("infinitive_at_head"))
        or (lex.flag("infinitive_at_end") and not question and not _PUNCT.sub("", after))
    ):
        return reading("command", command, tools)
    fallback = reading("question" if question else "chat", f"'{word}' is not in a command position", tools)
    return dataclasses.replace(fallback, weak=True)


def read_clause(clause: str, *, asked: bool, alone: bool = False) -> Reading | None:
    """The most cautious reading any language gives the clause (memoised, `_read_clause`)."""
    return _read_clause(unnumbered(clause), asked=asked, alone=alone)


@lru_cache(maxsize=_MEMO)
def _read_clause(clause: str, *, asked: bool, alone: bool) -> Reading | None:
    """The most cautious reading any language gives the clause. A reading that only found a verb
    out of a command's place is weaker than another language's command: "milk add karo" is Urdu
    word order, not an English statement."""
    readings = [r for lex in lexicons() if (r := _read_in(lex, clause, asked=asked, alone=alone)) is not None]
    if not readings:
        return None
    if any(r.kind == "command" for r in readings):
        readings = [r for r in readings if not r.weak]
    # Between commands, the longer verb match is the more specific one ("marque ... comme urgente").
    return min(readings, key=lambda r: (_CAUTION[r.kind], r.start, -r.length))


def whole(kind: str, clause: str) -> bool:
    return _whole(kind, unnumbered(clause))


@lru_cache(maxsize=_MEMO)
def _whole(kind: str, clause: str) -> bool:
    """The clause, without fillers and punctuation, is one of the language's `kind` phrases, or (a
    retraction) a run of them ("ah non, laisse tomber", "wait, nvm, keep it")."""
    plain = _PUNCT.sub("", clause)
    for lex in lexicons():
        pattern = _run(lex.code, kind) if kind in ("retraction", "said_in_full") else lex.word(kind)
        if pattern is None:
            continue
        head = lex.after_fillers(clause)
        for rest in (_PUNCT.sub("", clause[head:]), plain) if head else (plain,):
            if rest and pattern.fullmatch(rest):
                return True
    return False


@cache
def _run(code: str, kind: str) -> re.Pattern[str] | None:
    pattern = next(lex.word(kind) for lex in lexicons() if lex.code == code)
    return re.compile(rf"(?:(?:{pattern.pattern})\W*)+") if pattern is not None else None


def only_fillers(clause: str) -> bool:
    return _only_fillers(unnumbered(clause))


@lru_cache(maxsize=_MEMO)
def _only_fillers(clause: str) -> bool:
    """Nothing but fillers and punctuation ("ok", "hey!", "yes please") in some language."""
    return any(not _PUNCT.sub("", clause[lex.after_fillers(clause) :]) for lex in lexicons())


def is_item(clause: str) -> bool:
    return _is_item(unnumbered(clause))


@lru_cache(maxsize=_MEMO)
def _is_item(clause: str) -> bool:
    """A verbless clause that names something ("eggs"), not one that only qualifies ("high priority")."""
    rest = _modifiers().sub(" ", _ITEM_NOISE.sub(" ", clause))
    return any(c.isalpha() for c in rest)


_LIST_COLON = re.compile(r":(?:\s|$)")  # a colon that opens a list, not one of a time or an address
# A list's marker at the head of a line: "- ", "* ", "• ", "3. ", "3) ".
_MARKER = re.compile(r"\s*(?:[-*•·+]|\d{1,3}[.)])\s*")


def item_line(clause: str, reading: Reading, *, numbered: bool = False) -> bool:
    """A line of a list that begins with a verb ("add these:\n- delete old photos"): the verb stands
    right after the list's marker, which is all that kept it from a command's place; or that ends
    with one ("füge hinzu:\n- alte Dateien löschen"), a title in a language that puts it last. Another
    item. `numbered`: the line's number ("1. delete old photos") was read as a sentence of its own."""
    if numbered:
        return reading.kind == "command" and reading.start == 0
    marker = _MARKER.match(clause)
    if marker is None:
        return False
    if reading.weak and reading.kind == "chat":
        return marker.end() == reading.start
    return reading.kind == "command" and not _PUNCT.sub("", clause[reading.start + reading.length :])


def opens_titles(clause: str, reading: Reading) -> bool:
    """An add whose verb a colon and a space follow ("add these: milk", "list mein daal do: sabzi"; not
    "add dentist at 10:30"): the rest of its sentence lists titles."""
    return reading.tools[0] == Tool.ADD and _LIST_COLON.search(clause, reading.start + reading.length) is not None


def listed_item(
    clause: str, reading: Reading | None, previous: Reading | None, *, colon: Reading | None, numbered: bool
) -> bool:
    """Whether the clause is one more item of `previous`, the command before it: one with no verb, a
    list's line that begins with one ("add these:\n- delete old photos"), or, in the list a colon after
    an add's verb opens, one whose verb stands where no command does ("list mein daal do: sabzi,
    purana sofa hatana"). `colon`: the sentence's add that opened such a list. A command stays one
    ("add these: milk, eggs, and delete gym"): the words cannot tell it from a title, and read as a
    title the user's command would be refused."""
    if previous is None or not set(previous.tools) & ITEM_TOOLS or not is_item(clause):
        return False
    return (
        reading is None
        or (previous is colon and reading.kind == "chat" and reading.weak)
        or item_line(clause, reading, numbered=numbered)
    )


@cache
def _clause_split() -> re.Pattern[str]:
    return conjunctions()


class Sentence(NamedTuple):
    """A sentence's clauses; `asked`: it ends with '?' or opens with '¿'; `joins`: for each clause, what
    joins it to the clause before ("" for the first; "and", ",", ", and": a blank clause's too)."""

    clauses: list[str]
    asked: bool
    joins: list[str]


def split_sentences(text: str) -> list[Sentence]:
    found = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group()
        if not sentence.strip(" .!?;\n"):
            continue
        opened = m.start() > 0 and text[m.start() - 1] == "¿"
        clauses, joins = _clauses(sentence.strip(" .!?;\n"))
        found.append(Sentence(clauses, "?" in sentence or opened, joins))
    return found


def _clauses(sentence: str) -> tuple[list[str], list[str]]:
    """The sentence cut at its conjunctions and commas, and what joins each clause to the one before. A
    conjunction that leaves out right after a word for every task stays at the head of the clause after
    it ("delete everything but gym": "but gym", left out, never an item), unless that clause has a verb
    ("delete all done ones but add milk") or, after an edit, a value ("set all to high but gym to low")."""
    from backend.app.language.reading.exceptions import after_all, gives_value  # they read clauses here

    clauses: list[str] = []
    joins: list[str] = [""]
    kept: dict[int, int] = {}  # a clause that holds its conjunction: the conjunction's length
    start = 0
    for m in _clause_split().finditer(sentence):
        clauses.append(sentence[start : m.start()])
        join = "" if after_all(sentence, m) else m.group()
        blank = not clauses[-1].strip() and len(joins[-1]) < 20  # across a blank clause (",,,,": one long join)
        joins.append(f"{joins[-1]} {join}" if blank else join if clauses[-1].strip() else joins[-1])
        if not join:
            kept[len(clauses)], start = m.end() - m.start(), m.start()
        else:
            start = m.end()
    clauses.append(sentence[start:])
    # a clause with a verb, or a value after an edit's value, is another change ("set all to high but gym
    # to low"; "move all but gym to friday" is one)
    edits = {i for i in kept if Tool.UPDATE in verb_tools(clauses[i - 1]) and gives_value(clauses[i - 1])}
    own = [i for i in kept if verb_tools(clauses[i]) or (i in edits and gives_value(clauses[i]))]
    for i in own:
        clauses[i], joins[i] = clauses[i][kept[i] :], clauses[i][: kept[i]]
    return clauses, joins
