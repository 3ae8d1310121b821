"""Where words give a range of numbered titles: two numbers with a range between them, "item 3 to
item 7", "Items 3-7", "Item 3 bis 7", "del item 3 al 7", "Item 1–Item 10" (each language file's
`range` words, or a dash in every language; the title's words may stand again before the second).

A range is a set: what an exception leaves out of ("delete items 1-5 except item 3": exceptions.py).
Said alone in its item, it tells the backend which numbered tasks between its ends a delete or a
completion may be about (tools/titles.py `in_range`): only the backend's reading, so such a change is
asked about, never run on it (tools/references.py). It is read so only where it says nothing else:
the piece of its clause that holds it (between the separators of a list: a line, a comma, "and")
holds besides it only the title's words, the verb of the change, the model's own offer to make it
and words that name nothing ("the", "please"); "delete gym, item 1 to item 5 can stay" says the
range stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from backend.app.language.lexicon import conjunctions, fold, lexicons, words_of
from backend.app.language.reading.naming import names_something

_AGAIN = r"[^\W\d_][\w'’]*"  # the title's word said again before the second number: "Item 3 to Item 7", "l'item"


@cache
def _between() -> str:
    """What stands between a range's two numbers: a dash, or a range word of some language."""
    return rf"\s*[-–—]\s*|\s+(?:{words_of('range').pattern})\s+"


@cache
def plain() -> str:
    """A range as a pattern without groups ("1-5", "1 al item 5"), for other patterns."""
    return rf"\d+(?:{_between()})(?:{_AGAIN}\s*)?\d+"


@cache
def _ranges() -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.])(?P<low>\d+)(?:{_between()})(?:(?P<again>{_AGAIN})\s*)?(?P<high>\d+)(?![\w.])")


@dataclass(frozen=True, slots=True)
class Range:
    """A range in folded words: its two numbers, the words said again before the second ("item" of
    "item 3 to item 7"), and the words of its piece before and after it."""

    low: int
    high: int
    again: list[str]
    before: str
    after: str


def ranges_in(text: str) -> Iterator[Range]:
    """The ranges the folded words of `text` give, the first number smaller than the second."""
    folded = fold(text)
    for found in _ranges().finditer(folded):
        low, high = int(found["low"]), int(found["high"])
        if low < high:
            start, end = _piece(folded, found.start(), found.end())
            again = (found["again"] or "").split()
            yield Range(low, high, again, folded[start : found.start()], folded[found.end() : end])


def a_range(text: str) -> bool:
    """Whether the words give a range (what an exception may leave out of: "items 1-5 except item 3")."""
    return any(int(m["low"]) < int(m["high"]) for m in _ranges().finditer(fold(text)))


def says_nothing(words: str) -> bool:
    """Whether words beside a range say nothing of their own: but the model's own offer to make a
    change ("should I", "soll ich", "quieres que") and the verbs of a change ("tick off", "ta bort",
    "hak … ab"), in any language, they name nothing ("the", "please"; not "can stay")."""
    for lex in lexicons():
        if (offer := lex.claim("own_offer")) is not None:
            words = offer.sub(" ", words)
    return not names_something(_without_verbs(words))


def _without_verbs(words: str) -> str:
    kept = list(words)
    for lex in lexicons():
        for found in lex.any_verb.finditer(words) if lex.any_verb is not None else ():
            for verb in lex.verbs:
                if (said := verb.pattern.match(words, found.start())) is not None:
                    kept[said.start() : said.end()] = " " * (said.end() - said.start())
    return "".join(kept)


@cache
def _separators() -> re.Pattern[str]:
    """What separates the items of a list, in any language: a line, a clause's separators and the
    words that join items of one list ("and", "och", "en")."""
    return re.compile(f"\n|{conjunctions().pattern}|{words_of('additive').pattern}")  # a line is a clause


def _piece(folded: str, start: int, end: int) -> tuple[int, int]:
    """The piece of the words around a range: from the list separator before it to the one after
    (never one inside it: "Item 1 – Item 10")."""
    cuts = [m for m in _separators().finditer(folded) if m.end() <= start or m.start() >= end]
    head = max((m.end() for m in cuts if m.end() <= start), default=0)
    tail = min((m.start() for m in cuts if m.start() >= end), default=len(folded))
    return head, tail
