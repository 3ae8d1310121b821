"""What a model's reply says happened: claims of a change ("Taxes has been removed", "He eliminado
la tarea") and denials ("Sorry, I couldn't add it"), in every covered language.

A claim is a past form of a task verb (the language files' `past` lists) in a sentence that is not
a question, an offer or plan ("want me to delete it?", "I'll add it"), a negation ("nothing was
deleted"), a description of the user's own act ("you added it on Monday") or of the list ("here
are your completed tasks"); or a reply that opens with a word like "Done!". The guard and the reply
use these to keep a model's words from contradicting what the tools did.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass

from backend.app.calls.tools import Tool
from backend.app.language.lexicon import Lexicon, fold, lexicons

_QUOTED = re.compile(r"\"[^\"]*\"|(?<![\w'])'[^']*'(?!\w)")
_SENTENCE = re.compile(r"[^.!?;\n¿¡]*[.!?;\n]*")
_OPENING = re.compile(r"^\W*")
_HELD = re.compile(r'"§(\d+)§"')
# The longest text read for claims: the lists cost up to ~11 microseconds a character here (9 ms for
# the worst 800 at a 146 ms probe), so longer words are shown up to the last sentence that ends
# within this (`readable`), never unread.
READABLE = 800
_SENTENCE_END = re.compile(r"[.!?…。！？;:\n]\s")


def readable(text: str) -> str:
    """`text` if the claim reader reads all of it; else its sentences that end within READABLE
    characters (or its words, if none does), and "…"."""
    if len(text) <= READABLE:
        return text
    head = text[:READABLE]
    ends = [m.start() + 1 for m in _SENTENCE_END.finditer(head + " ")]
    cut = ends[-1] if ends else head.rfind(" ")
    return head[: cut if cut > 0 else READABLE - 1].rstrip() + " …"


@dataclass(frozen=True, slots=True)
class Claim:
    """A change the reply says happened: the tools that would back it (empty: any change), its words,
    whether the assistant claims it as its own act ("I've deleted ..."), and its sentence, quotes
    included (the titles it names)."""

    tools: tuple[Tool, ...]
    words: str
    first_person: bool
    sentence: str = ""


class _Marks:
    """Where a sentence's markers of one kind end, so "the last one before this verb" is a bisect."""

    def __init__(self, pattern: re.Pattern[str] | None, sentence: str) -> None:
        self.ends = [m.end() for m in pattern.finditer(sentence)] if pattern is not None else []

    def last_before(self, pos: int) -> int:
        """End of the last marker ending at or before `pos`, -1 if none."""
        i = bisect.bisect_right(self.ends, pos)
        return self.ends[i - 1] if i else -1


def _claims_in(lex: Lexicon, sentence: str) -> list[Claim]:
    found: list[Claim] = []
    opening = _OPENING.match(sentence)
    done = lex.claim("done")
    if done is not None and (m := done.match(sentence, lex.after_fillers(sentence, opening.end() if opening else 0))):
        found.append(Claim((), m.group(), True))
    if lex.any_past is None or not lex.any_past.search(sentence):  # one scan for the usual sentence claiming nothing
        return found
    pasts = [(v, m) for v in lex.verbs if v.form == "past" for m in v.pattern.finditer(sentence)]
    if not pasts:
        return found
    blockers = [_Marks(lex.claim(k), sentence) for k in ("offer", "nothing", "state")]
    negation = _Marks(lex.word("negation"), sentence)
    negated_anywhere = lex.flag("negation_anywhere") and bool(negation.ends)
    mine, yours = _Marks(lex.claim("first_person"), sentence), _Marks(lex.claim("second_person"), sentence)
    for verb, m in pasts:
        at = m.start()
        if negated_anywhere or negation.last_before(at) >= 0 or any(b.last_before(at) >= 0 for b in blockers):
            continue
        if yours.last_before(at) > mine.last_before(at):
            continue  # the user's own act: "you completed it on Monday"
        found.append(Claim(verb.tools, m.group(), mine.last_before(at) >= 0))
    return found


def _sentences(text: str) -> list[tuple[str, str]]:
    """(the sentence as read, quotes emptied; the sentence with its quotes) for each sentence that is
    not a question."""
    quoted: list[str] = []

    def hold(m: re.Match[str]) -> str:
        quoted.append(m.group())
        return f' "§{len(quoted) - 1}§" '

    held = _QUOTED.sub(hold, fold(text))
    found = []
    for m in _SENTENCE.finditer(held):
        sentence = m.group()
        if sentence.strip() and "?" not in sentence:
            written = _HELD.sub(lambda h: quoted[int(h[1])], sentence)
            found.append((_HELD.sub('""', sentence), written))
    return found


def claims(text: str) -> list[Claim]:
    """Every change the text claims happened, in order, at most one per verb occurrence."""
    found: list[Claim] = []
    for sentence, written in _sentences(text):
        seen: set[tuple[int, str]] = set()
        for lex in lexicons():
            for claim in _claims_in(lex, sentence):
                key = (sentence.find(claim.words), claim.words)
                if key not in seen:
                    seen.add(key)
                    found.append(dataclasses.replace(claim, sentence=written))
    return found


def denial(text: str) -> str | None:
    """The words by which the text says something was not done ("couldn't", "no se pudo"), if any."""
    folded = fold(text)
    for lex in lexicons():
        pattern = lex.claim("denial")
        if pattern is not None and (m := pattern.search(folded)):
            return m.group()
    return None
