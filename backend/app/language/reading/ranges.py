"""Ranges of numbered titles in the assistant's words: "Item 1 to Item 10", "Item 1–Item 10", "del
Item 1 al Item 10", "Item 1 se Item 10 tak" name every title between their ends, as a yes to the
question grounds what it names (reading/question.py). A range is read only where both ends are one
stem and a number, the second the larger ("Item 1 and Item 10" is two tasks; "Report 1 to Item 10" no
range), joined by a dash or a language's word for "to" (`ranges` in the language files)."""

from __future__ import annotations

import re
from functools import cache

from backend.app.language.lexicon import words_of

_MOST = 100  # titles a range may span: past that it is no range of a to-do list ("call 1-800-555")


@cache
def _range() -> re.Pattern[str]:
    to = words_of("ranges").pattern
    return re.compile(
        rf"(?<!\w)(?P<stem>[^\W\d_]+) ?#?(?P<first>\d{{1,3}})"
        rf"[\"']? ?(?:[-–—]|\.\.\.?|…|{to}) ?[\"']?(?:(?P=stem) ?#?)?(?P<last>\d{{1,3}})(?!\w)"
    )


_SPACED = re.compile(r"(?<=\d) [-–—] (?=[^\W\d_]+ ?#?\d)")


def unspaced(folded: str) -> str:
    """A spaced dash between two numbered titles made plain ("item 1 – item 10": "item 1–item 10"),
    so that it reads as the range it is and not as a break between two clauses."""
    return _SPACED.sub("–", folded)


def with_ranges(words: str) -> str:
    """`words` (folded), with a line for each title a range in them names between its ends."""
    between: list[str] = []
    for line in words.splitlines():
        for found in _range().finditer(line):
            first, last = int(found["first"]), int(found["last"])
            if first < last <= first + _MOST:
                between += [f"{found['stem']} {n}" for n in range(first + 1, last)]
    return "\n".join([words, *between]) if between else words
