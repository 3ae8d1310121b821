"""What a model's words plainly offer to do: one change of one quoted task, asked at their end ("Makes
sense! Want me to delete "Gym" from your list?"). Read where the words themselves cannot be shown, so
that the backend can ask the same in its catalog's words (services/confirmations/questions.py
`restated`); anything but a plain offer is none here.

A plain offer is read by what its words are, not by what they are not: around the quoted title
stand only its verb (right before it, or right after it where the verb comes last: "Soll ich „Yoga“
löschen?"; before it, any verb the files know), the model's own offer to make it ("should I", "want
me to", "soll ich", "quer que eu": the files' `own_offer`, never a condition, a time or the user's
act), a title's fillers ("the", "my"; other fillers only at the start: elsewhere they may say when,
"sen", "luego"), the list the task is taken from ("from your list": `list_places`, in words for a
list only) and a done state ("as done"), all of one language. Any other word ("keep it instead of
deleting", "the "Gym" tag", "tomorrow", "Anna", "for you", "when") makes it something else; so does
a word no list names, as Urdu's light verb ("delete kar doon") and Portuguese "marque" (also a
French participle) are.
"""

from __future__ import annotations

import re

from backend.app.calls.tools import Tool
from backend.app.language.lexicon import QUOTES, Lexicon, VerbPattern, fold, lexicons
from backend.app.language.reading.question import read_question
from backend.app.language.reading.quoted import QUOTED

OFFERED = frozenset({Tool.DELETE, Tool.COMPLETE})  # changes that name only their task
_WORD = re.compile(r"[^\W_]+")  # letters or digits: "on 12/05", "at 7" are words too
_QUOTE = ' "§" '  # the title's place in the clause, as the reader marks a quote


def offered_change(words: str) -> tuple[Tool, str] | None:
    """The change `words` end by plainly offering and the one title they quote for it, folded
    ("delete", "gym"), or None: a question that does not end the words ("… Just kidding, it
    stays."), asks a choice or more than one clause, quotes more or less than one title, or holds
    any word but a plain offer's ("Should I not delete "Gym"?", "keep "Gym" or delete it?", "Should
    Anna delete "Gym"?", "delete "Gym" tomorrow?")."""
    if not words.rstrip().endswith(("?", "？")):
        return None
    question = read_question(words)
    if len(question.changes) != 1 or question.options or (tool := next(iter(question.changes))) not in OFFERED:
        return None
    clause = question.changes[tool].translate(QUOTES)
    spans = list(QUOTED.finditer(clause))
    if "\n" in clause or len(spans) != 1:
        return None
    before, after = fold(clause[: spans[0].start()]).strip(), fold(clause[spans[0].end() :]).strip()
    said = before + _QUOTE + after
    if not any(_offers(lex, said, len(before), tool) for lex in lexicons()):
        return None
    if any(p is not None and p.search(said) for lex in lexicons() for p in (lex.word("negation"), lex.word("fields"))):
        return None  # a filler of one language may be another's no ("na"), a field its verb ("tag")
    return tool, fold(spans[0][1] or spans[0][2]).strip()


def _offers(lex: Lexicon, said: str, at: int, tool: Tool) -> bool:
    """Whether the language reads `said` (the title's place at `at`) as a plain offer: a verb of its
    that asks for the change (its imperative or infinitive, never a past or a state: ""Gym"
    deleted?", ""Gym" is done?") right beside the title, spanning no words of its own ("tick your
    warm-up off "Gym""), and every other word its offer's, a title's filler, the list, or a done
    state where the change is a completion."""
    end = at + len(_QUOTE)
    asking = [v for v in lex.verbs if v.form in ("imperative", "infinitive")]
    beside = [(v, m) for v in asking for m in v.pattern.finditer(said) if m.end() == at or m.start() == end]
    verb = next(((m.start(), m.end()) for v, m in beside if _tight(v, m.group())), None)
    if verb is None:  # "the "Gym" tag", "Like "Gym", should I …"
        return False
    head = (0, lex.after_fillers(said))  # "ok so, …"; fillers elsewhere may say when ("sen", "luego")
    framing = [verb, head, *_matches(lex, ("own_offer",), ("title_fillers",), said[:at])]
    states = ("done_states", "title_fillers") if tool == Tool.COMPLETE else ("title_fillers",)  # "as done"
    after = said[end:]
    placing = [verb, *_shifted([*_matches(lex, (), states, after), *_lists(lex, after)], end)]
    return _only(said, 0, at, framing) and _only(said, end, len(said), placing)


def _tight(verb: VerbPattern, said: str) -> bool:
    """Whether every word between the first and last of a verb's match is one its pattern spells ("von
    deiner Liste löschen"), none that a gap in it let through ("tick your warm-up off")."""
    return all(
        re.search(rf"(?<![^\W\d_]){re.escape(w)}(?![^\W\d_])", verb.pattern.pattern) for w in _WORD.findall(said)[1:-1]
    )


def _lists(lex: Lexicon, text: str) -> list[tuple[int, int]]:
    """Where `text` says the list a task is taken from ("from your list", "da lista"): after its first
    word, only words for a list and a title's fillers ("from Anna's list", "from your other list" say
    another)."""
    plain = [p for p in (lex.word("task_nouns"), lex.word("title_fillers")) if p is not None]
    return [
        (a, b)
        for a, b in _every(lex.word("list_places"), text)
        if all(any(p.fullmatch(w) for p in plain) for w in _WORD.findall(text[a:b])[1:])
    ]


def _only(said: str, start: int, end: int, known: list[tuple[int, int]]) -> bool:
    """Whether every word of `said[start:end]` lies within one of the `known` spans."""
    covered = [False] * len(said)
    for a, b in known:
        covered[a:b] = [True] * (b - a)
    return all(all(covered[start + m.start() : start + m.end()]) for m in _WORD.finditer(said[start:end]))


def _matches(lex: Lexicon, claims: tuple[str, ...], words: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    patterns = [lex.claim(kind) for kind in claims] + [lex.word(kind) for kind in words]
    return [span for p in patterns for span in _every(p, text)]


def _shifted(spans: list[tuple[int, int]], by: int) -> list[tuple[int, int]]:
    return [(a + by, b + by) for a, b in spans]


def _every(pattern: re.Pattern[str] | None, text: str) -> list[tuple[int, int]]:
    """Every match of `pattern` in `text`, overlapping ones too ("do you want" and "want me to")."""
    found: list[tuple[int, int]] = []
    at = 0
    while pattern is not None and (m := pattern.search(text, at)) is not None:
        found.append((m.start(), m.end()))
        at = m.start() + 1
    return found
