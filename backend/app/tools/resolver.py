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
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process

from backend.app.tools.titles import filler, normalize_title, same_word


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
# Up to this many candidates every title is normalized and scored (a few ms). Above it, normalizing
# each title in Python would cost more than the whole fuzzy search, so a C-speed shortlist comes first.
_FULL_SCAN = 2_000
_SHORTLIST = 200


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


def _words_fit(reference: str, title: str) -> bool:
    """Every meaningful word of the (normalized) reference has a `same_word` in the title.

    The title may have more words ("book" still finds "Return book to library": which one is then
    the Ambiguous answer's job); the reference may not bring a word the title lacks.
    """
    words = title.split()
    wanted = [w for w in reference.split() if not filler(w)] or reference.split()
    return all(any(same_word(w, t) for t in words) for w in wanted)


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
