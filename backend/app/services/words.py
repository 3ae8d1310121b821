"""The verdict on the model's own words: whether the user may read them, and why not.

The execution guard (`guard.py`) gives it; the reply (`reply.py`) shows the words or composes the
reply from the results, and the turn's records (`records.py`) count the words withheld. It is a value
of its own so that those readers need nothing of the guard's rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class WordsVerdict(StrEnum):
    SHOWN = "shown"  # read by the word lists only (no check asked: the guard is off or checks are)
    VERIFIED = "verified"  # the model's check matched what ran
    WITHHELD = "withheld"  # not shown: see `WordsReason`
    NOT_SHOWN = "not_shown"  # the reply is composed from the results (direct mode, tools ran)


class WordsReason(StrEnum):
    """Why the model's words were withheld (`execution_metadata.reply.replaced`)."""

    GHOST_CLAIM = "ghost_claim"  # claimed a change, none succeeded
    UNBACKED_CLAIM = "unbacked_claim"  # claimed a change (a task, an action) no successful call made
    DENIED_SUCCESS = "denied_success"  # said a change failed that succeeded
    HIDES_FAILURE = "hides_failure"  # something failed, was refused or is asked about
    UNVERIFIED = "unverified"  # the check that would verify them could not be read


@dataclass(frozen=True, slots=True)
class Words:
    """The model's final words and whether the user may read them."""

    text: str
    verdict: WordsVerdict
    reason: WordsReason | None = None
    claims: tuple[str, ...] = ()

    @property
    def shown(self) -> bool:
        return self.verdict in (WordsVerdict.SHOWN, WordsVerdict.VERIFIED)
