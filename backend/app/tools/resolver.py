"""ReferenceResolver (interim minimal version; the full one replaces it)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process


@dataclass(frozen=True, slots=True)
class Candidate:
    id: uuid.UUID
    title: str


@dataclass(frozen=True, slots=True)
class Resolved:
    candidate: Candidate
    score: float
    method: Literal["uuid", "exact", "normalized", "fuzzy"]


@dataclass(frozen=True, slots=True)
class NotFound:
    reference: str

    @property
    def message(self) -> str:
        return f"No task matching '{self.reference}' found"


@dataclass(frozen=True, slots=True)
class Ambiguous:
    reference: str
    candidates: tuple[Candidate, ...]

    @property
    def message(self) -> str:
        titles = ", ".join(c.title for c in self.candidates)
        return f"Multiple tasks match '{self.reference}'. Please be more specific: {titles}"


Resolution = Resolved | NotFound | Ambiguous


def parse_uuid(reference: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(reference.strip())
    except ValueError:
        return None


def _norm(text: str) -> str:
    words = [w[:-1] if w.endswith("s") and len(w) > 3 else w for w in text.casefold().split()]
    return " ".join(words)


class ReferenceResolver:
    def __init__(self, *, threshold: float = 0.6, margin: float = 0.15, limit: int = 5) -> None:
        self.threshold, self.margin, self.limit = threshold, margin, limit

    def resolve(self, reference: str, candidates: Sequence[Candidate]) -> Resolution:
        ref = reference.strip().strip("'\"")
        if not ref:
            return NotFound(reference)
        exact = [c for c in candidates if c.title.casefold() == ref.casefold()]
        if len(exact) == 1:
            return Resolved(exact[0], 1.0, "exact")
        if len(exact) > 1:
            return Ambiguous(ref, tuple(exact[: self.limit]))
        scored = process.extract(_norm(ref), [_norm(c.title) for c in candidates], scorer=fuzz.WRatio,
                                 score_cutoff=self.threshold * 100, limit=self.limit)
        if not scored:
            return NotFound(ref)
        best = scored[0]
        if len(scored) == 1 or best[1] - scored[1][1] >= self.margin * 100:
            return Resolved(candidates[best[2]], best[1] / 100, "fuzzy")
        close = [candidates[s[2]] for s in scored if best[1] - s[1] < self.margin * 100]
        return Ambiguous(ref, tuple(close))
