"""ReferenceResolver: map what the user called a task ("read books", "Rad book", a UUID) to one task.

Pure: the caller passes the candidates (id and title of every task the user owns), nothing here
touches the database. Stages, first decisive one wins:

1. UUID: the id or nothing. A UUID is never fuzzy-matched (a near-miss id is another task).
2. exact: case-insensitive (`casefold`) title equality.
3. normalized: equality after `normalize_title` (punctuation, articles, plurals, a trailing "task").
4. fuzzy: rapidfuzz scores on normalized titles, kept when >= `threshold` and when every word of
   the reference has a plausible counterpart in the title (`_words_fit`): a score alone let
   "Errand 4" find "Errand 3", "Call mom" find "Call dad" and "Buy milk" find "Buy silk".

Several equally good answers are always `Ambiguous`, never a silent guess: the tool reports the
message to the model and the user picks.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from backend.app.language.lexicon import add_verbs, fold, lexicons, reference_words, task_nouns, whole_list_words


@dataclass(frozen=True, slots=True)
class Candidate:
    """A task the reference may name: its id and title."""

    id: uuid.UUID
    title: str


@dataclass(frozen=True, slots=True)
class Resolved:
    """Exactly one task matched; `score` is 0..1 and `method` the stage that decided."""

    candidate: Candidate
    score: float
    method: Literal["uuid", "exact", "normalized", "fuzzy"]


@dataclass(frozen=True, slots=True)
class NoMatch:
    """No task matched the reference."""

    reference: str

    @property
    def message(self) -> str:
        return f"No task matching '{self.reference}' found"


@dataclass(frozen=True, slots=True)
class Ambiguous:
    """Several tasks matched about equally well; `candidates` best first, at most `limit`."""

    reference: str
    candidates: tuple[Candidate, ...]

    @property
    def message(self) -> str:
        titles = ", ".join(c.title for c in self.candidates)
        return f"Multiple tasks match '{self.reference}'. Please be more specific: {titles}"


Resolution = Resolved | NoMatch | Ambiguous

_UUID = re.compile(r"[0-9a-f]{8}(-?)[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{12}", re.IGNORECASE)
_QUOTES = "'\"`“”‘’«»"
_APOSTROPHES = re.compile(r"['’‘`]")
# An elided article or preposition ("l'assurance", "dell'auto", "qu'il"): the word after it is the word.
_ELISION = re.compile(r"\b(?:[^\W\d_]{1,2}|[^\W\d_]{1,2}ll)['’‘`](?=[^\W\d_]{2})")
_NON_WORD = re.compile(r"[^\w\s]|_")
_LEADING = frozenset({"the", "my", "a", "an"})
_FILLER = frozenset({"the", "my", "a", "an", "to", "of", "for", "and", "in", "on", "at", "with"})
# Up to this many candidates every title is normalized and scored (a few ms). Above it, normalizing
# each title in Python would cost more than the whole fuzzy search, so a C-speed shortlist comes first.
_FULL_SCAN = 2_000
_SHORTLIST = 200
# Scripts written without spaces between words.
_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN")


def clean_reference(reference: str) -> str:
    """The reference without surrounding whitespace and quotes (the model often quotes titles)."""
    return reference.strip().strip(_QUOTES).strip()


def parse_uuid(reference: str) -> uuid.UUID | None:
    """The UUID the reference spells (quotes and whitespace ignored), else None.

    Only the plain hex forms count: uuid.UUID alone would also accept braces, "urn:uuid:",
    underscores and non-ASCII digits, so a title could pass for an id.
    """
    text = clean_reference(reference)
    return uuid.UUID(text) if _UUID.fullmatch(text) else None


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
    if len(words) > 1 and (words[0] in _LEADING or _filler(words[0])):
        words = words[1:]
    if len(words) > 1 and words[-1] == "task":
        words = words[:-1]
    return " ".join(words)


@cache
def _filler(word: str) -> bool:
    """A word that tells no title from another, in any covered language ("the", "de", "la", "der")."""
    if word in _FILLER:
        return True
    return any((p := lex.word("title_fillers")) is not None and p.fullmatch(word) for lex in lexicons())


def _score(reference: str, title: str, token_set: float) -> float:
    """max(ratio, damped token_set) on normalized strings, 0..100.

    ratio catches typos in the same word order ("rad book"); token_set catches reordered words and a
    reference that is part of a title ("book" in "return book to library") but says 100 for *any*
    subset. Damping it by up to 25% as the lengths drift apart keeps those matches (so "book" still
    finds every book task and asks which) while a title close in length to the reference ranks first.
    """
    shorter, longer = sorted((len(reference), len(title)))
    damping = 0.75 + 0.25 * (shorter / longer) if longer else 1.0
    return max(fuzz.ratio(reference, title), token_set * damping)


def _same_word(a: str, b: str) -> bool:
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


def _words_fit(reference: str, title: str) -> bool:
    """Every meaningful word of the (normalized) reference has a `_same_word` in the title.

    The title may have more words ("book" still finds "Return book to library": which one is then
    the Ambiguous answer's job); the reference may not bring a word the title lacks.
    """
    words = title.split()
    wanted = [w for w in reference.split() if not _filler(w)] or reference.split()
    return all(any(_same_word(w, t) for t in words) for w in wanted)


def _meaningful(text: str) -> list[str]:
    words = normalize_title(text).split()
    return [w for w in words if not _filler(w)] or words


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


def _near(word: str, said: str) -> bool:
    """`said` is the title's `word` with a typo or an ending; a change verb only where the title's word
    is a verb too ("cancelled" is "Cancel subscription"'s; "remove" is no "Remote", "mark" no "Market",
    "complete" no "Comp")."""
    return (_same_word(word, said) or _ending(word, said)) and (not _verb(said) or _verb(word))


@cache
def _function_word(word: str) -> bool:
    """A filler, or a word for a task, a list or all of them, in some language ("ta", "list", "toute")."""
    return _filler(word) or bool(task_nouns().fullmatch(word)) or bool(whole_list_words().fullmatch(word))


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
    return any(w in words if len(w) == 3 else any(_same_word(w, t) or _ending(w, t) for t in words) for w in wanted)


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
        w for w in normalize_title(title).split() if not _filler(w) and not any(p.fullmatch(fold(w)) for p in generic)
    ]
    return any(any(_same_word(w, t) for t in words) for w in own)


class ReferenceResolver:
    """Resolves a task reference against candidates; see the module docstring for the stages.

    threshold: lowest fuzzy score (0..1) that counts as a match.
    margin: how far the best fuzzy match must lead the second to win outright.
    limit: most candidates listed in an `Ambiguous` answer.
    """

    def __init__(self, *, threshold: float = 0.6, margin: float = 0.15, limit: int = 5) -> None:
        if not 0 < threshold <= 1 or not 0 <= margin <= 1 or limit < 1:
            raise ValueError("need 0 < threshold <= 1, 0 <= margin <= 1 and limit >= 1")
        self.threshold, self.margin, self.limit = threshold, margin, limit

    def resolve(self, reference: str, candidates: Sequence[Candidate]) -> Resolution:
        ref = clean_reference(reference)
        if not ref:
            return NoMatch(ref)
        if (task_id := parse_uuid(ref)) is not None:
            hit = next((c for c in candidates if c.id == task_id), None)
            return Resolved(hit, 1.0, "uuid") if hit else NoMatch(ref)

        key = ref.casefold()
        folded = [c.title.casefold() for c in candidates]
        exact = [c for c, title in zip(candidates, folded, strict=True) if title.strip() == key]
        if len(exact) == 1:
            return Resolved(exact[0], 1.0, "exact")
        if exact:
            return Ambiguous(ref, tuple(exact[: self.limit]))

        wanted = normalize_title(ref)
        if not wanted:
            return NoMatch(ref)  # only punctuation: nothing to compare
        pool, complete = self._pool(key, candidates, folded)
        titles = [normalize_title(c.title) for c in pool]
        same = [c for c, t in zip(pool, titles, strict=True) if t == wanted]
        if len(same) == 1 and complete:
            return Resolved(same[0], 1.0, "normalized")
        if same:
            return self._ambiguous(ref, same, pool)
        return self._fuzzy(ref, wanted, pool, titles, complete)

    def _pool(self, key: str, candidates: Sequence[Candidate], folded: list[str]) -> tuple[Sequence[Candidate], bool]:
        """The candidates worth normalizing, and whether they are all that could match.

        Large lists are shortlisted in C by token_set_ratio on the casefolded titles: it keeps typos,
        plurals, articles and subsets ("book" in "return book to library") with 10 points of slack for
        what normalization would add. A full shortlist may have cut a good match, so it is
        `complete=False` and then nothing but an exact match wins outright: the answer is Ambiguous.
        """
        if len(candidates) <= _FULL_SCAN:
            return candidates, True
        cutoff = max(0.0, self.threshold * 100 - 10)
        hits = process.extract(key, folded, scorer=fuzz.token_set_ratio, score_cutoff=cutoff, limit=_SHORTLIST)
        return [candidates[index] for _, _, index in hits], len(hits) < _SHORTLIST

    def _fuzzy(self, ref: str, wanted: str, pool: Sequence[Candidate], titles: list[str], complete: bool) -> Resolution:
        cutoff = self.threshold * 100
        # Two C passes with score_cutoff prune most titles; only survivors get the damped score.
        found = {i for _, _, i in process.extract(wanted, titles, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)}
        token_sets = process.extract(wanted, titles, scorer=fuzz.token_set_ratio, score_cutoff=cutoff, limit=None)
        token_set = {i: s for _, s, i in token_sets}
        scored = [
            (_score(wanted, titles[i], token_set.get(i, 0.0)), i)
            for i in found | token_set.keys()
            if _words_fit(wanted, titles[i])
        ]
        # Best first; equal scores keep the caller's order (stable sort on the index).
        ranked = sorted(((s, i) for s, i in scored if s >= cutoff), key=lambda p: (-p[0], p[1]))
        if not ranked:
            return NoMatch(ref)
        best = ranked[0][0]
        gap = best - ranked[1][0] if len(ranked) > 1 else 100.0
        clear = gap > 0 and gap >= self.margin * 100  # a tie is never clear, even with margin=0
        if clear and complete:
            return Resolved(pool[ranked[0][1]], round(best / 100, 4), "fuzzy")
        if clear:  # a clear winner of a cut shortlist: list it first, with what else came close
            return self._ambiguous(ref, [pool[i] for _, i in ranked], pool)
        return self._ambiguous(ref, [pool[i] for s, i in ranked if best - s < self.margin * 100], pool)

    def _ambiguous(self, ref: str, first: Sequence[Candidate], rest: Sequence[Candidate]) -> Ambiguous:
        # `first` has at least two entries unless the shortlist was cut; then fill from the shortlist
        # so the user sees several of the many tasks that matched.
        shown = first if len(first) > 1 else list(dict.fromkeys([*first, *rest[: self.limit]]))
        return Ambiguous(ref, tuple(shown[: self.limit]))
