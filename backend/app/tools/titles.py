"""How words name a task's title, for the resolver (resolver.py) and the guard's checks of the
user's and the assistant's words: `named_in` (every meaningful word of the title has a counterpart,
a typo or an ending allowed), `exactly_named` (the title as written), `partly_named` (a distinctive
part: enough to ask, not to change), `shares_words`, and `normalize_title`, which they all compare
with. Pure: no database, no state."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from rapidfuzz.distance import OSA

from backend.app.language.lexicon import (
    add_verbs,
    fold,
    lexicons,
    list_places,
    reference_words,
    task_nouns,
    whole_list_words,
    words_of,
)
from backend.app.language.reading.ranges import ranges_in, says_nothing

_APOSTROPHES = re.compile(r"['’‘`]")
# An elided article or preposition ("l'assurance", "dell'auto", "qu'il"): the word after it is the word.
_ELISION = re.compile(r"\b(?:[^\W\d_]{1,2}|[^\W\d_]{1,2}ll)['’‘`](?=[^\W\d_]{2})")
_NON_WORD = re.compile(r"[^\w\s]|_")
_TOKEN = re.compile(r"[\w'’]+")  # a word as typed, with its apostrophes ("you're")
_LETTERS = re.compile(r"[^\W\d_]+")
_LEADING = frozenset({"the", "my", "a", "an"})
_FILLER = frozenset({"the", "my", "a", "an", "to", "of", "for", "and", "in", "on", "at", "with"})

# Scripts written without spaces between words.
_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN")


def _singular(word: str) -> str:
    # Deliberately simple rules, applied to reference and titles alike, so both sides agree even
    # where English does not ("movies" -> "movy"); the fuzzy stage absorbs the rest.
    if len(word) <= 3 or not word.isalpha():
        return word  # "bus", "yes", "10s"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # groceries -> grocery
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]  # boxes -> box, glasses -> glass
    if word.endswith(("ss", "us", "is")):
        return word  # glass, status, analysis: not plurals
    return word[:-1] if word.endswith("s") else word


def normalize_title(text: str) -> str:
    """casefold, accents off, elisions off ("l'assurance" -> "assurance"), punctuation out,
    whitespace collapsed, plurals singular, a leading article or possessive (in any covered
    language) and a trailing "task" dropped (never the only word): "The books task!" -> "book",
    "la compra" -> "compra". ("Book list" keeps its list.)"""
    words = [_singular(w) for w in _NON_WORD.sub(" ", _APOSTROPHES.sub("", _ELISION.sub("", fold(text)))).split()]
    if len(words) > 1 and (words[0] in _LEADING or filler(words[0])):
        words = words[1:]
    if len(words) > 1 and words[-1] == "task":
        words = words[:-1]
    return " ".join(words)


@cache
def filler(word: str) -> bool:
    """A word that tells no title from another, in any covered language ("the", "de", "la", "der")."""
    if word in _FILLER:
        return True
    return any((p := lex.word("title_fillers")) is not None and p.fullmatch(word) for lex in lexicons())


def same_word(a: str, b: str) -> bool:
    """A typo of the same word: equal first letter, 1 edit (2 past six letters), numbers exact.

    Typos rarely hit a word's first letter, so "milk"/"silk" and "mom"/"dad" are different words
    while "rad"/"read" and "raed"/"read" (a transposition) are the same one. A number names a
    different task ("Errand 4" is not "Errand 3"), so a word with a digit must match exactly.
    """
    if a == b:
        return True
    if a[0] != b[0] or any(ch.isdigit() for ch in a + b):
        return False
    longest = max(len(a), len(b))
    allowed = 0 if longest <= 2 else 1 if longest <= 6 else 2
    return bool(OSA.distance(a, b, score_cutoff=allowed) <= allowed)


def _meaningful(text: str) -> list[str]:
    words = normalize_title(text).split()
    return [w for w in words if not filler(w)] or words


def named_in(text: str, title: str, *, strict: bool = False) -> bool:
    """Whether `text` (the user's own words) names the task `title`: every meaningful word of the
    title has a counterpart in the text, typo-tolerant (`_same_word`) or the same word with an
    ending ("врач" in "к врачу", "ara" in "aradım"). "bin the taxes task" names "Taxes"; "delete it"
    or "should I delete the old invoices" name nothing else. In a script written without spaces
    (Japanese, Chinese, Thai) a title is named where the text holds it ("ジム" in "ジムのタスク消して").
    A change verb names only a verb of a title; with `strict` (the assistant's words) so do a filler
    and a word for a task, a list or all of them ("ta", "tes", "list": never "Taxes", "Test", "Lisa")."""
    if _unspaced(title):
        return bool(_squeezed(title)) and _squeezed(title) in _squeezed(text)
    words = normalize_title(text).split()
    wanted = _meaningful(title)
    if not wanted:
        return _symbols_named(text, title)
    near = [t for t in words if not (strict and _function_word(t))]
    return all(w in words or any(_near(w, t) for t in near) for w in wanted)


_NUMBERED = re.compile(r"(?P<stem>.*?\D)\s*(?P<number>\d+)")  # "Item 5": its words, then its number


def in_range(text: str, title: str, *, alone: bool = True) -> bool:
    """Whether `text` names a numbered title ("Item 5") by a range of its numbers that its piece of
    the words says alone (language/reading/ranges.py): "item 3 to item 7", "items 3-7", "Should I
    delete Gym and Item 1–Item 10?", "gli item dal 3 al 7"; not "item 1 to item 5 can stay". The
    title's words (a typo or a plural allowed) stand right before the range's first number, or one
    word before it ("dal"), and again before its second, if anything does; its number lies between.
    Not `alone`: whatever else the piece says (what the user leaves out: "except item 4 to item 7")."""
    numbered = _NUMBERED.fullmatch(fold(title).strip())
    if numbered is None or not (stem := _meaningful(numbered["stem"])):
        return False
    number = int(numbered["number"])
    for found in ranges_in(text):
        if not found.low <= number <= found.high or (found.again and not _stem_said(found.again, stem)):
            continue
        before = found.before.split()
        for skipped in (0, 1):  # the title's words right before the number, or one word before it
            head = len(before) - len(stem) - skipped
            if head >= 0 and _stem_said(before[head : head + len(stem)], stem):
                rest = before[:head] + before[head + len(stem) :]
                if not alone or says_nothing(" ".join(rest) + " " + found.after):
                    return True
    return False


def says_more(text: str, title: str) -> bool:
    """Whether `text`, words that name `title`, say something of their own beside it: a word of no
    (any language's `not`), or a word neither of the title (a typo or an ending allowed) nor one that
    only qualifies an item ("too", "same for", "today", "please"), says which list ("from my list"),
    is a title's filler or a word for a task: "taxes can stay", "taxes ok", "Item 3 bleibt", "taxes
    se queda", "taxes no"; not "taxes too", "the taxes task", "auch Taxes bitte". A filler of a
    request ("ok", "gut", "bien") says something here: beside a title it judges the task. Never in a
    script written without spaces, whose words cannot be told apart."""
    if _unspaced(title):
        return False
    own = normalize_title(title).split()  # all its words: "no" of "Just say no" is the title's
    words = [w for w in _TOKEN.findall(fold(text)) if not any(_near(t, normalize_title(w) or w) for t in own)]
    rest = " ".join(words)
    if words_of("not").search(rest):
        return True
    rest = task_nouns().sub(" ", words_of("modifiers", "polite").sub(" ", list_places().sub(" ", rest)))
    return any(not filler(w) for w in _LETTERS.findall(rest))


def inside(title: str, longer: str) -> bool:
    """Whether `longer` holds all of `title`'s words in order, and more, none of them a change verb
    ("Gym class" holds "Gym", "Pay rent" holds "Rent"; "Item 10" does not hold "Item 1", nor "Delete
    gym" "Gym": in "delete gym" the verb is the command's)."""
    own, more = normalize_title(title).split(), normalize_title(longer).split()
    for i in range(len(more) - len(own) + 1 if own and len(more) > len(own) else 0):
        if more[i : i + len(own)] == own:
            return not any(_verb(w) for w in (*more[:i], *more[i + len(own) :]))
    return False


def apart(text: str, title: str, titles: Iterable[str]) -> str:
    """`text` without the places where it names one of `titles` that holds `title` (`inside`; a typo
    or an ending allowed): what is left names *Gym* only where the user named it apart from their *Gym
    class*, in that order or another ("delete 2024 taxes" names no *Taxes* beside *Taxes 2024*). "delete
    gym class" -> "delete"; "delete gym and gym class" -> "delete gym and". An exact title wins over a
    shorter one inside it."""
    longer = [normalize_title(t).split() for t in titles if inside(title, t)]
    if not longer:
        return text
    return "\n".join(_apart_in(normalize_title(line).split(), longer) for line in text.splitlines())


def _apart_in(words: list[str], longer: list[list[str]]) -> str:
    """One line of `apart`: each place that says a longer title, left to right, none over another."""
    kept = [True] * len(words)
    for wanted in longer:
        i, n = 0, len(wanted)
        while i <= len(words) - n:
            if all(kept[i : i + n]) and _stem_said(words[i : i + n], wanted):
                kept[i : i + n] = [False] * n
                i += n
            else:
                i += 1
    return " ".join(w if k else "\n" for w, k in zip(words, kept, strict=True))


def _stem_said(words: list[str], stem: list[str]) -> bool:
    """`words` say each of `stem`'s, a typo or an ending allowed, in any order: "2024 taxes" says *Taxes 2024*."""
    if len(words) != len(stem):
        return False
    left = list(words)
    for s in stem:
        said = next((i for i, w in enumerate(left) if w == s or _near(s, normalize_title(w) or w)), None)
        if said is None:
            return False
        del left[said]
    return True


def _near(word: str, said: str) -> bool:
    """`said` is the title's `word` with a typo or an ending; a change verb only where the title's word
    is a verb too ("cancelled" is "Cancel subscription"'s; "remove" is no "Remote", "mark" no "Market",
    "complete" no "Comp")."""
    return (same_word(word, said) or _ending(word, said)) and (not _verb(said) or _verb(word))


@cache
def _function_word(word: str) -> bool:
    """A filler, or a word for a task, a list or all of them, in some language ("ta", "list", "toute")."""
    return filler(word) or bool(task_nouns().fullmatch(word)) or bool(whole_list_words().fullmatch(word))


@cache
def _verb(word: str) -> bool:
    """A form of some language's verbs for a change ("remove", "mark", "lösche", "cancelled")."""
    return any(lex.any_verb is not None and lex.any_verb.fullmatch(word) for lex in lexicons())


def exactly_named(text: str, title: str) -> bool:
    """Whether `text` holds the title itself: its words in order, as written (case, accents,
    punctuation, plurals and a leading article aside), no typo allowed ("delete the taxes task" holds
    "Taxes"; "delete the tax" does not, "delete read books" holds "Read book" only as `named_in`).
    What lets a delete or complete whose target the backend chose run without asking."""
    if _unspaced(title):
        return bool(_squeezed(title)) and _squeezed(title) in _squeezed(text)
    wanted, words = normalize_title(title).split(), normalize_title(text).split()
    if not wanted:
        return _symbols_named(text, title)
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words) - len(wanted) + 1))


def _symbols(text: str) -> list[str]:
    """The symbols of a text (emoji, signs), which a title of no words is made of ("🧺", "✈️ ★")."""
    return [c for c in text if unicodedata.category(c).startswith("S")]


def _symbols_named(text: str, title: str) -> bool:
    """A title of symbols only ("🧺") is named where the text holds each of its symbols."""
    own = _symbols(title)
    return bool(own) and all(c in text for c in own)


def partly_named(text: str, title: str) -> bool:
    """Whether `text` names at least a distinctive part of `title`: one of its meaningful words of
    four letters or more, typo-tolerant or with an ending ("reisepass" of "Reisepass verlängern",
    "rent" of "Pay rent"), or of three letters written exactly so ("oma" of "Oma bellen", "was" of
    "Was doen": too short for a typo or an ending to say anything), or in a script written without
    spaces two characters of it in a row that are not all kana ("歯医者" of "歯医者の予約"); the words
    for a task or a list themselves do not count, nor a title whose number the text contradicts.
    Weaker than `named_in`: enough to ask the user about the task, not to change it."""
    if _unspaced(title):
        own, said = _squeezed(title), _squeezed(text)
        pairs = (own[i : i + 2] for i in range(len(own) - 1))
        return any(p in said and not all(_kana(c) for c in p) for p in pairs)
    words = normalize_title(text).split()
    numbers = {w for w in normalize_title(title).split() if w.isdigit()}
    if numbers and numbers.isdisjoint(words) and any(w.isdigit() for w in words):
        return False  # "Errand 4" names no part of "Errand 3": its number tells them apart
    nouns = task_nouns()
    wanted = [w for w in _meaningful(title) if len(w) >= 3 and not w.isdigit() and not nouns.fullmatch(fold(w))]
    return any(w in words if len(w) == 3 else any(same_word(w, t) or _ending(w, t) for t in words) for w in wanted)


def _kana(char: str) -> bool:
    return unicodedata.name(char, "").startswith(("HIRAGANA", "KATAKANA"))


def _ending(word: str, said: str) -> bool:
    """`said` is `word` with an ending of up to four letters (a case, a suffix: "aradım" of "ara"), or
    the two share a stem and differ only in their last letters (a conjugation: "llamé" of "llamar")."""
    if len(word) < 3 or word.isdigit() or said.isdigit():
        return False
    if said.startswith(word):
        return len(said) - len(word) <= 4
    stem = next((i for i, (a, b) in enumerate(zip(word, said, strict=False)) if a != b), min(len(word), len(said)))
    return stem >= 4 and stem >= len(word) - 2 and stem >= len(said) - 3


def _unspaced(text: str) -> bool:
    """Whether `text` holds a character of a script written without spaces (never ASCII text, the
    usual title, which is then not looked at character by character)."""
    return not text.isascii() and any(_unspaced_char(c) for c in text)


@lru_cache(maxsize=4096)
def _unspaced_char(char: str) -> bool:
    return unicodedata.name(char, "").startswith(_UNSPACED)


def _squeezed(text: str) -> str:
    return "".join(c for c in fold(text) if c.isalnum())


def shares_words(text: str, title: str) -> bool:
    """Whether a title to add shares at least one meaningful word with the user's words. Words for a
    task or a list themselves, and the verbs for adding, do not count: "A list of tasks" shares
    nothing with "ajoute du lait à ma liste", nor "Add task to the list" with "add milk"."""
    if _unspaced(title):
        return bool(_squeezed(title)) and _squeezed(title) in _squeezed(text)
    words = normalize_title(text).split()
    generic = (task_nouns(), add_verbs(), reference_words())
    own = [
        w for w in normalize_title(title).split() if not filler(w) and not any(p.fullmatch(fold(w)) for p in generic)
    ]
    return any(any(same_word(w, t) for t in words) for w in own)


def only_items_say_more(names: str, items: Sequence[str], title: str) -> bool:
    """Whether the only words for the action that name `title` are verbless items that say something
    of their own beside it ("taxes can stay" of "delete gym, taxes can stay", "lösch Gym, Item 3
    bleibt"): read as one more item of the change only because no verb of them was read."""
    naming = [line for line in names.splitlines() if named_in(line, title)]
    return bool(naming) and all(line in items and says_more(line, title) for line in naming)
