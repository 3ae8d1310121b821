"""Quoted text in a message ('Read book', "Buy milk"): a title, never scanned. While a message is read
each quoted span is a placeholder word (`placeheld`); what the reader gives back has the spans as the
user typed them (`restored`)."""

from __future__ import annotations

import re

from backend.app.language.lexicon import QUOTES, fold

# A quoted span that holds a title, its text in group 1 or 2 (services/turn/commands.py reads it): an
# empty or blank one ('""', '" "') holds none.
QUOTED = re.compile(r"\"(?=[^\"]*[^\"\s])([^\"]*)\"|(?<![\w'])'(?=[^']*[^'\s])([^']*)'(?!\w)")
PLACEHOLDER = re.compile(r"\"?§(\d+)§\"?")  # a quoted span while the message is read (no pattern matches §)
_SPACES = re.compile(r"[ \t\u00a0]+")


def placeheld(message: str) -> tuple[str, list[str]]:
    """The folded message with each quoted span replaced by a placeholder, and the spans as typed."""
    typed = [m.group() for m in QUOTED.finditer(message.translate(QUOTES))]
    spans = iter(range(len(typed)))
    folded = QUOTED.sub(lambda m: f' "§{next(spans, 0)}§" ', fold(message))
    return _SPACES.sub(" ", folded), typed


def restored(text: str, typed: list[str]) -> str:
    """`text` with its placeholders back as the user typed the quotes."""
    return PLACEHOLDER.sub(lambda m: typed[int(m[1])] if int(m[1]) < len(typed) else '""', text)


def unquoted(text: str) -> str:
    """`text` without its placeholders, its spaces collapsed."""
    return " ".join(PLACEHOLDER.sub(" ", text).split())
