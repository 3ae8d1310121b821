"""What a clause's words name: a task, or nothing but words for a task or a list, a title's fillers,
polite words and pointers into the conversation ("it", "la", "die"). The guard and the reply check
ask it of an action's words."""

from __future__ import annotations

import re
from functools import cache

from backend.app.language.lexicon import fold, lexicons
from backend.app.language.lexicon import task_nouns as _task_nouns

_WORDS = re.compile(r"[^\W\d_]+")


def names_something(text: str, *, references: bool = True) -> bool:
    """Whether `text` has a word besides words for a task or a list, the fillers of a title, and
    (unless `references` is false) a reference into the conversation ("it", "la", "die")."""
    words = _WORDS.findall(_task_nouns().sub(" ", fold(text)))
    return any(not _title_filler(w) and not _filler(w) and not (references and _reference_word(w)) for w in words)


@cache
def _reference_word(word: str) -> bool:
    """ "it", "la", "die", or a task's state said with it ("it done", "la como hecha")."""
    return any(
        ((p := lex.reference("this")) is not None and p.fullmatch(word))
        or ((s := lex.word("done_states")) is not None and s.fullmatch(word))
        for lex in lexicons()
    )


@cache
def _filler(word: str) -> bool:
    """ "please", "plz", "bitte", "por favor": a word that only makes a clause polite."""
    return any((p := lex.word("fillers")) is not None and p.fullmatch(word) for lex in lexicons())


@cache
def _title_filler(word: str) -> bool:
    return any((p := lex.word("title_fillers")) is not None and p.fullmatch(word) for lex in lexicons())
