"""Which language a message is in: the language Taskchat answers in.

The evidence is the language files' own: the language's frequent words (`[detect] common`), its
words for a task or a list and for a task's state, its whole yes/no answers, and its task verbs.
Evidence several languages share is shared among them (Spanish and Portuguese both say "marca" and
"como"; "feita" is only Portuguese). The winner must also know a fair share of the message's words
(`_COVERS`): a Swedish sentence that shares one word with German ("den") is no German. A message
with no such evidence ("2", "Gym", a message in Polish or Japanese) takes the conversation's
language when there is one, else English;
`known` then says the reader does not know the message's language. A tie between languages goes to
the conversation's language, then to the reader's, then to the first file (English).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from backend.app.language.lexicon import fold, lexicons

DEFAULT = "en"
_VERB = 2.0  # one of the language's task verbs in the message: worth two of its frequent words
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_KINDS = ("task_nouns", "done_states")
_COVERS = 0.3  # the share of a message's words its language's lists must know
_READ = 300  # characters: the start of a long message tells its language (and bounds the lists' work)
_KNOWN = ("fillers", "title_fillers", "task_nouns", "done_states", "small_talk", "request", "negation", "retraction")


@dataclass(frozen=True, slots=True)
class Language:
    """The language a turn answers in (`code`), what was detected in the message (None: no
    language the files know), and how the choice was made."""

    code: str
    detected: str | None
    how: str  # "words", "conversation" or "default"

    @property
    def known(self) -> bool:
        return self.detected is not None


def _latin(text: str) -> bool:
    """Whether the text's letters are mostly Latin: every file is written in Latin letters."""
    if text.isascii():  # every ASCII letter is a Latin one
        return True
    letters = [c for c in text if c.isalpha()]
    latin = sum(1 for c in letters if "LATIN" in unicodedata.name(c, ""))
    return not letters or latin * 2 >= len(letters)


@lru_cache(maxsize=512)  # a turn asks for the same message's language more than once
def scores(text: str) -> Mapping[str, float]:
    """Evidence per language code for `text` (0 for none). A word counts 1, shared among the
    languages that have it; a task verb of the language counts `_VERB`, shared the same way (Spanish
    and Portuguese both say "marca"). Not to be changed: the result is shared."""
    folded = fold(text) if _latin(text) else ""
    whole = " ".join(_WORD.findall(folded))
    found: dict[str, float] = {lex.code: 0.0 for lex in lexicons()}
    if not whole:
        return found
    evidence: list[tuple[float, set[str]]] = []  # (weight, languages having it)
    for word in set(whole.split()):
        having = {lex.code for lex in lexicons() if word in lex.common}
        if having:
            evidence.append((1.0, having))
    for kind in _KINDS:
        hits: dict[str, set[str]] = {}
        for lex in lexicons():
            pattern = lex.word(kind)
            for m in pattern.finditer(whole) if pattern is not None else ():
                hits.setdefault(m.group(), set()).add(lex.code)
        evidence += [(1.0, having) for having in hits.values()]
    verbs = {lex.code for lex in lexicons() if lex.any_verb is not None and lex.any_verb.search(whole)}
    if verbs:
        evidence.append((_VERB * len(verbs), verbs))
    for lex in lexicons():
        for kind in ("yes", "no"):
            pattern = lex.reference(kind)
            if pattern is not None and pattern.fullmatch(whole):
                evidence.append((1.0, {lex.code}))
    for weight, having in evidence:
        for code in having:
            found[code] += weight / len(having)
    return found


def _an_answer_in(code: str, text: str) -> bool:
    """Whether the text is only yes or no words of the language, with its polite words ("sí, dale")."""
    lex = next((lex for lex in lexicons() if lex.code == code), None)
    words = _WORD.findall(fold(text))
    if lex is None or not words or len(words) > 4:
        return False
    kinds = [lex.reference("yes"), lex.reference("no"), lex.word("fillers")]
    answers = [p for p in kinds[:2] if p is not None]
    whole = " ".join(words)
    if any(p.fullmatch(whole) for p in answers):
        return True
    return any(p.fullmatch(w) for p in answers for w in words) and all(
        any(p is not None and p.fullmatch(w) for p in kinds) for w in words
    )


@lru_cache(maxsize=64)
def _bounded(pattern: re.Pattern[str] | None) -> re.Pattern[str] | None:
    """A reference pattern (written to match a whole answer) as whole words within a text."""
    return re.compile(rf"(?<![\w'])(?:{pattern.pattern})(?![\w])") if pattern is not None else None


@lru_cache(maxsize=512)
def covers(code: str, text: str) -> float:
    """The share of the message's words that the language's lists know (its frequent words, task
    verbs, fillers, words for a task, a state, small talk, requests, negations, retractions)."""
    words = _WORD.findall(fold(text))
    if not words:
        return 0.0
    lex = next(lex for lex in lexicons() if lex.code == code)
    whole = " ".join(words)
    known = [False] * len(whole)
    patterns = [lex.word(kind) for kind in _KNOWN] + [v.pattern for v in lex.verbs]
    patterns += [_bounded(lex.reference(kind)) for kind in ("yes", "no", "this", "last")]
    for pattern in patterns:
        for m in pattern.finditer(whole) if pattern is not None else ():
            known[m.start() : m.end()] = [True] * (m.end() - m.start())
    position, explained = 0, 0
    for word in words:
        start = whole.index(word, position)
        position = start + len(word)
        explained += word in lex.common or all(known[start:position])
    return explained / len(words)


def detect(text: str, *, reader: Sequence[str] = (), previous: str | None = None) -> Language:
    """The language to answer `text` in. `reader`: the languages the message was read in (one
    entry per clause reading); `previous`: the language of the conversation so far. A tie goes to
    the language whose lists know more of the message's words, then to the reader's, then to the
    conversation's."""
    text = text[:_READ]
    if previous is not None and _an_answer_in(previous, text):
        # A yes or a no in the conversation's language ("sí, dale", "ok", "ja, mach"), though another
        # language's lists know a word of it as a verb ("dale" adds in Urdu): it answers in that language.
        return Language(previous, previous, "words")
    found = scores(text)
    best = max(found.values(), default=0)
    tied = [code for code, score in found.items() if score == best and best > 0]
    if len(tied) > 1:  # the language whose lists explain more of the message ("cancelei": Portuguese)
        most = max(covers(code, text) for code in tied)
        tied = [code for code in tied if covers(code, text) == most]
    for preferred in (*reader, previous):
        if preferred in tied:
            tied = [preferred]
            break
    if not tied or covers(tied[0], text) < _COVERS:
        return Language(previous or DEFAULT, None, "conversation" if previous else "default")
    return Language(tied[0], tied[0], "words")
