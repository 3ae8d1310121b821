"""Deterministic, realistic task titles for the resolver benchmark and its equivalence test.

Titles look like a real to-do list ("Email the Kestrel budget report before Friday"): a verb, an
object, often a name (people, projects, places: a long-tailed pool, as a list that grew to 100k tasks
would have) and sometimes a qualifier. Many titles share the common words (the hard case for a
trigram prefilter) while most stay distinct.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

VERBS = (
    "Buy",
    "Call",
    "Email",
    "Fix",
    "Read",
    "Write",
    "Clean",
    "Book",
    "Pay",
    "Review",
    "Plan",
    "Send",
    "Pick up",
    "Renew",
    "Cancel",
    "Schedule",
    "Prepare",
    "Finish",
    "Update",
    "Order",
    "Return",
    "Water",
    "Wash",
    "Paint",
    "Print",
    "Sign",
    "File",
    "Check",
    "Organize",
    "Practice",
    "Submit",
    "Draft",
    "Research",
    "Backup",
    "Install",
    "Replace",
    "Visit",
    "Invite",
    "Thank",
    "Pack",
)
ADJECTIVES = (
    "",
    "",
    "",
    "the",
    "the new",
    "the old",
    "my",
    "quarterly",
    "weekly",
    "monthly",
    "annual",
    "kitchen",
    "garden",
    "team",
    "family",
    "budget",
    "project",
    "travel",
    "insurance",
    "car",
    "tax",
    "birthday",
    "holiday",
    "school",
    "client",
    "office",
    "bathroom",
    "dentist",
    "doctor",
    "bank",
    "gym",
    "library",
    "marketing",
    "sales",
)
NOUNS = (
    "milk",
    "bread",
    "report",
    "invoice",
    "mom",
    "dad",
    "Dana",
    "landlord",
    "plumber",
    "sink",
    "book",
    "novel",
    "essay",
    "slides",
    "presentation",
    "flights",
    "hotel",
    "rent",
    "bills",
    "contract",
    "proposal",
    "windows",
    "garage",
    "plants",
    "roses",
    "car",
    "bike",
    "fence",
    "documents",
    "passport",
    "license",
    "subscription",
    "appointment",
    "meeting",
    "lunch",
    "dinner",
    "party",
    "gift",
    "cake",
    "letter",
    "package",
    "receipt",
    "form",
    "application",
    "piano",
    "guitar",
    "laptop",
    "phone",
    "printer",
    "router",
    "backup",
    "photos",
    "closet",
    "shelves",
    "curtains",
    "lamp",
    "battery",
    "tires",
    "oil",
    "filter",
    "keys",
    "shoes",
    "jacket",
    "groceries",
    "medicine",
    "prescription",
    "vaccine",
    "checkup",
    "haircut",
    "newsletter",
    "website",
    "database",
    "server",
    "budget",
    "roadmap",
    "spreadsheet",
    "notes",
    "minutes",
    "agenda",
    "tickets",
    "concert",
    "museum",
    "recipe",
)
QUALIFIERS = (
    "",
    "",
    "",
    "",
    "",
    "today",
    "tomorrow",
    "before Friday",
    "this weekend",
    "next week",
    "for Dana",
    "for the team",
    "at 5pm",
    "online",
    "again",
    "with Sam",
    "before the trip",
    "by Monday",
    "after work",
    "on Saturday",
    "for mom",
    "asap",
)


@dataclass(frozen=True, slots=True)
class Probe:
    """A reference a user might type, and which kind of reference it is."""

    kind: str  # exact | case | plural | typo | ambiguous | missing
    reference: str


_ONSETS = ("b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou")
_CODAS = ("", "", "n", "r", "l", "s", "x", "th", "nd", "rt")


def _names(count: int, seed: int) -> list[str]:
    """Pronounceable made-up names: people, projects, places."""
    rng = random.Random(seed)
    names = {
        "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(rng.choice((2, 2, 3)))
        ).capitalize()
        for _ in range(count)
    }
    return sorted(names)


NAMES = _names(6_000, seed=3)


def title(rng: random.Random) -> str:
    # Names are long-tailed: a few are everywhere, most appear now and then.
    name = NAMES[min(int(rng.paretovariate(1.2)) - 1, len(NAMES) - 1)] if rng.random() < 0.3 else rng.choice(NAMES)
    noun = rng.choice(NOUNS)
    obj = f"{name} {noun}" if rng.random() < 0.5 else f"{noun} for {name}" if rng.random() < 0.7 else noun
    words = [rng.choice(VERBS), rng.choice(ADJECTIVES), obj, rng.choice(QUALIFIERS)]
    return " ".join(w for w in words if w)


def titles(count: int, *, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [title(rng) for _ in range(count)]


def _typo(text: str, rng: random.Random) -> str:
    words = text.split()
    candidates = [i for i, w in enumerate(words) if len(w) >= 5]
    if not candidates:
        return text + "x"
    i = rng.choice(candidates)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]  # swap two neighbouring letters
    return " ".join(words)


def probes(existing: list[str], *, per_kind: int, seed: int = 11) -> Iterator[Probe]:
    """References drawn from `existing` titles: exact, case-changed, pluralized, typo'd, vague, absent."""
    rng = random.Random(seed)
    for _ in range(per_kind):
        t = rng.choice(existing)
        yield Probe("exact", t)
        yield Probe("case", rng.choice(existing).upper())
        yield Probe("plural", rng.choice(existing) + "s")
        yield Probe("typo", _typo(rng.choice(existing), rng))
        yield Probe("ambiguous", f"{rng.choice(VERBS)} {rng.choice(NOUNS)}")
        yield Probe("missing", f"{rng.choice(('Quantum', 'Zebra', 'Xylophone'))} {rng.choice(('harp', 'yodel'))}")
