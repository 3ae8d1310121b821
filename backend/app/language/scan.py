"""Where the first of many regular expressions matches, at little cost per character scanned.

Python's regular expressions try every alternative of an alternation at each position where the
text could start a match. A language's verbs are a few hundred alternatives, many opening with a
lookbehind ("(?<=j'ai )ajouté"), which the engine cannot skip by their first letter: one scan of a
long message costs microseconds per word. `starts` groups the alternatives by the characters they
can start with, each group behind a one-character lookahead, so that at a position only the group of
its character is tried (an alternative is in the group of every character it can start with). It
finds the positions the plain alternation finds, not always with the same alternative: it says
where a match starts, the caller then tries its own patterns there. An alternative whose first
characters cannot be told (it may match the empty string, or starts with a class like `\\w`) is
tried at every position.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# The standard library's own pattern parser, the one `re.compile` uses: private, stable since 3.11,
# and only read here for an alternative's first characters (anything unexpected means "unknown").
_parser: Any = importlib.import_module("re._parser")
_ZERO_WIDTH = {_parser.AT, _parser.ASSERT, _parser.ASSERT_NOT}  # boundaries and lookarounds
_RANGE_MAX = 64  # a class wider than this ("[a-z]" is fine, "[^x]" is not) is not told apart


def _first(items: Any) -> tuple[set[str], bool] | None:
    """(the characters a parsed sequence can start with, whether it can match empty); None if unknown."""
    chars: set[str] = set()
    for op, av in items:
        if op in _ZERO_WIDTH:
            continue
        if op is _parser.LITERAL:
            return chars | {chr(av)}, False
        if op is _parser.IN:
            for kind, value in av:
                if kind is _parser.LITERAL:
                    chars.add(chr(value))
                elif kind is _parser.RANGE and value[1] - value[0] <= _RANGE_MAX:
                    chars |= {chr(c) for c in range(value[0], value[1] + 1)}
                else:
                    return None
            return chars, False
        if op is _parser.BRANCH:
            nullable = False
            for branch in av[1]:
                if (found := _first(branch)) is None:
                    return None
                chars |= found[0]
                nullable = nullable or found[1]
        elif op is _parser.SUBPATTERN:
            if (found := _first(av[-1])) is None:
                return None
            chars |= found[0]
            nullable = found[1]
        elif op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT):
            low, _high, item = av
            if (found := _first(item)) is None:
                return None
            chars |= found[0]
            nullable = low == 0 or found[1]
        else:
            return None
        if not nullable:
            return chars, False
    return chars, True


def first_chars(fragment: str) -> set[str] | None:
    """The characters any match of `fragment` starts with; None when that cannot be told."""
    try:
        found = _first(_parser.parse(fragment).data)
    except re.error:
        return None
    if found is None or found[1] or not found[0]:
        return None
    return found[0]


def starts(fragments: list[str], *, before: str, after: str) -> re.Pattern[str]:
    """`before(?:f1|f2|...)after`, grouped by first character: its matches start where some fragment's
    match starts, which of them matched is not kept (see the module's docstring)."""
    groups: dict[str, list[str]] = {}
    unknown: list[str] = []
    for fragment in fragments:
        chars = first_chars(fragment)
        for c in sorted(chars) if chars is not None else ():
            groups.setdefault(c, []).append(fragment)
        if chars is None:
            unknown.append(fragment)
    parts = [f"(?={re.escape(c)})(?:" + "|".join(f"(?:{f})" for f in group) + ")" for c, group in groups.items()]
    parts += [f"(?:{f})" for f in unknown]
    return re.compile(before + "(?:" + "|".join(parts) + ")" + after)
