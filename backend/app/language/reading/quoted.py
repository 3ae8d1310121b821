"""Quoted text in a message ('Read book', "Buy milk"): a title, never scanned. While a message is read
each quoted span is a placeholder word (`placeheld`); what the reader gives back has the spans as the
user typed them (`restored`)."""

from __future__ import annotations

import re

from backend.app.language.lexicon import QUOTES, fold, lexicons

# A message is read whole, up to MAX_MESSAGE_CHARS (the schema's bound); what that costs is measured
# by `python -m backend.devtools.bench.reader` (docs/performance). In a message longer than this, a
# field's value ("... with this description: ...") that starts within it is content, read like a quote.
FIELD_WITHIN = 300

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


def placeheld_field(message: str) -> tuple[str, list[str]]:
    """`placeheld`, and in a long message a field's value as one more quoted span."""
    text, typed = placeheld(message)
    if len(text) > FIELD_WITHIN and (at := _field_value(text)) is not None:
        typed.append(restored(text[at:], typed).strip())
        text = f'{text[:at]} "§{len(typed) - 1}§"'
    return text, typed


def _field_value(text: str) -> int | None:
    """Where a field's value starts, in a long text: after the first colon within FIELD_WITHIN
    that follows a field's name ("... with this description: ...", "Notiz: ..."). What comes
    after is the value, content like a quote, not words to read."""
    colon = text.find(":", 0, FIELD_WITHIN)
    while colon >= 0:
        name = " ".join(text[max(0, colon - 60) : colon].split()[-3:])
        if any((f := lex.word("fields")) is not None and f.search(name) for lex in lexicons()):
            return colon + 1
        colon = text.find(":", colon + 1, FIELD_WITHIN)
    return None


def restored(text: str, typed: list[str]) -> str:
    """`text` with its placeholders back as the user typed the quotes."""
    return PLACEHOLDER.sub(lambda m: typed[int(m[1])] if int(m[1]) < len(typed) else '""', text)


def unquoted(text: str) -> str:
    """`text` without its placeholders, its spaces collapsed."""
    return " ".join(PLACEHOLDER.sub(" ", text).split())
