"""What a keep in the user's message keeps ("delete gym, keep taxes"): the words after its verb, when
they name something besides the conversation and the whole list (reading/intent.py `_Found.keep`)."""

from __future__ import annotations

from backend.app.language.lexicon import fold, whole_list_words, words_of
from backend.app.language.reading.clauses import whole
from backend.app.language.reading.naming import names_something
from backend.app.language.reading.question import points
from backend.app.language.reading.quoted import PLACEHOLDER


def kept_words(clause: str) -> str | None:
    """What a retraction keeps, where it keeps what it names (a word of `keep` and words that name
    something besides the whole list: "taxes" of "keep taxes", "die steuer" of "behalte die Steuer",
    "taxes ko" of "taxes ko rehne do", a quoted title); None where it keeps what the conversation
    points to ("keep it", "leave it alone", "garde-le", "keep everything") or is a retraction said in
    full ("laisse tomber"): those take back the commands before it."""
    folded = fold(clause)
    kept = words_of("keep").search(folded)
    if kept is None or whole("said_in_full", clause):  # "laisse tomber", "lascia perdere": a retraction
        return None
    rest = _closed(whole_list_words().sub(" ", f"{folded[: kept.start()]} {folded[kept.end() :]}"))
    named = names_something(rest) or PLACEHOLDER.search(rest) is not None  # a quoted title: 'keep "Taxes"'
    return rest if named and not points(rest) else None


def _closed(words: str) -> str:
    """A keep's words without the word closing it that says no more of them (`keep_after`: "taxes" of
    "leave taxes alone", "laat taxes staan")."""
    words = " ".join(words.split())
    closing = [m for m in words_of("keep_after").finditer(words) if m.start() > 0 and m.end() == len(words)]
    return words[: closing[0].start()].rstrip() if closing else words


def named_words(text: str) -> set[str]:
    """The words of `text` that name something, and its numbers ("gym" of "keep the gym"; "taxes",
    "2024" of "keep taxes 2024": no keep of it takes back "delete taxes 2023"), folded."""
    return {w for w in fold(text).split() if names_something(w) or w.isdigit()}
