"""A question about how things stand: the user asks what they did, when a task is due, whether it is
still on the list ("did I already pay the rent?", "wann ist der Zahnarzt?", "¿sigue el dentista en
la lista?"). It asks for no change, whatever a model makes of it: a change of a task it names is
neither made nor asked about; the task's state is said (docs/guard.md, rows C20, T17).

Each language file's `state_question` says how such a question opens: the user in the first person
with a verb of the past or of having ("did I", "hab ich", "j'ai", "heb ik", "kya maine"), when or how
long with a copula or the user's own past ("when is", "wann ist", "c'est pour quand"), or a task
still there or done ("is … still", "steht … noch", "sigue … en la lista", "c'è ancora"). A message
is read so only when it asks nothing else, by structure (a review found each of these asking for
a change in words no list reads):

- every sentence of it is such a question (small talk aside), with its question mark, in one
  clause: "is the rent still open, close it" and "finally paid the rent, is it still open?" are not;
- the question opens within the clause's first words, with no question word before it ("why is gym
  still there?" is a complaint);
- in no language's words does it address the assistant ("you", "du", "tu"), make a request ("can
  you", "any chance you could", "please", "bitte"), ask how the app works ("how do I delete") or
  say no ("did I not say gym should go?"), and after its opening it says nothing of the user's own
  ("… even though I paid it?");
- no verb of a change stands in it but in the past ("did I delete gym?") or one right after the
  user's own "did I" ("did I finish the laundry?"): "when are you going to tick off the rent?" and
  "did I finish gym please complete it?" ask for one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from backend.app.calls.tools import READING, Tool
from backend.app.language.lexicon import Lexicon, lexicons, words_of
from backend.app.language.reading.clauses import Sentence, only_fillers, whole

_WITHIN = 3  # the question opens at one of a clause's first words ("wait did i …", "ok so when is …")
_AFTER = 1  # the verb "did I" governs comes right after it, or one word on ("did i already finish")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class _Opened:
    """Where a sentence's question about how things stand opens: its clause, the words, and whether
    they are the user's own first person ("did I", "hab ich")."""

    clause: str
    words: re.Match[str]
    own: bool
    lex: Lexicon  # the language whose words open it


def asks_how_it_stands(sentences: Sequence[Sentence]) -> str | None:
    """The words that open the message's question about how a task stands, when every sentence asks
    one and nothing else (the module's rules); None otherwise."""
    first: _Opened | None = None
    for sentence in sentences:
        if all(_says_nothing(c) for c in sentence.clauses):
            continue
        if (opened := _question(sentence)) is None:
            return None
        first = first or opened
    return first.words.group() if first is not None else None


def questions_of_state(sentences: Sequence[Sentence]) -> tuple[str, ...]:
    """The sentences of a message with a command that each ask only how a task stands ("did I pay the
    rent? add call landlord": "did i pay the rent"), as the reader folded them."""
    return tuple(" ".join(s.clauses) for s in sentences if s.asked and _question(s) is not None)


def _question(sentence: Sentence) -> _Opened | None:
    """Where the sentence's question about how a task stands opens, if it asks only that."""
    if not sentence.asked or words_of("state_question").search(" ".join(sentence.clauses)) is None:
        return None  # one search of every language's openings first: most questions have none
    content = [c.strip(" \t\"'") for c in sentence.clauses if not _says_nothing(c)]
    # A request, a "please", a question about the app or a no, in any language, asks more than how a
    # task stands (words to the assistant are its own language's: Spanish "has" and Italian "hai" are
    # words of English and Urdu questions).
    if len(content) != 1 or words_of("request", "polite", "usage", "negation").search(content[0]):
        return None
    opened = next((o for lex in lexicons() if (o := _opened(lex, content[0])) is not None), None)
    return None if opened is None or _changes(opened) else opened


def _says_nothing(clause: str) -> bool:
    """Small talk, fillers, or no word at all ("lol", "😬"): a clause of these asks nothing; but not a
    yes nor a done state ("is gym still open? it's done", "am I done with the rent? yes")."""
    if not any(c.isalpha() for c in clause):
        return True
    said = whole("small_talk", clause) or only_fillers(clause)
    return said and _told().search(clause) is None


@cache
def _told() -> re.Pattern[str]:
    """Every language's yes and done states: small talk with one of them tells something."""
    yes = [p.pattern for lex in lexicons() if (p := lex.reference("yes")) is not None]
    return re.compile("|".join([words_of("done_states").pattern, *yes]))


@cache
def _claims(kind: str) -> re.Pattern[str]:
    """Every language's words of a person ("first_person": "i", "ich")."""
    return re.compile("|".join(p.pattern for lex in lexicons() if (p := lex.claim(kind)) is not None) or "(?!)")


def _opened(lex: Lexicon, clause: str) -> _Opened | None:
    pattern, opener = lex.word("state_question"), lex.word("question")
    if pattern is None or opener is None:
        return None
    for word in list(_WORD.finditer(clause))[:_WITHIN]:
        if (m := pattern.match(clause, word.start())) is not None:
            own = lex.claim("first_person")
            return _Opened(clause, m, own is not None and own.search(m.group()) is not None, lex)
        if opener.match(clause, word.start()) is not None:
            return None  # a question word before it: "why is gym still there?"
    return None


def _beside_an_alternative(opened: _Opened) -> bool:
    """Whether an "or" of its language after the opening offers more than "not" ("did I pay the rent
    or should it be closed?", "¿he pagado el alquiler o lo marcas?", "is gym still there or what?")."""
    alternative, no = opened.lex.word("alternative"), opened.lex.word("not")
    said = alternative.search(opened.clause, opened.words.end()) if alternative is not None else None
    rest = opened.clause[said.end() :].strip(" ?!.") if said is not None else ""
    return said is not None and (no is None or no.fullmatch(rest) is None)


def _changes(opened: _Opened) -> bool:
    """Whether the question asks for a change after all: the user's own words after its opening ("…
    even though I paid it?"), an alternative ("… or should it be closed?"), or a verb of a change in
    a command's form, in any language, but the one the user's own "did I" governs right after it
    ("did I finish the laundry?"); a past or a state is what is asked ("did I delete gym?")."""
    clause, end = opened.clause, opened.words.end()
    subject = re.match(r"\s*\S+", clause[end:])  # "wann habe | ich": the word after the opening is its subject
    you = opened.lex.claim("second_person")
    if (you is not None and you.search(clause)) or _beside_an_alternative(opened):
        return True
    if _claims("first_person").search(clause, end + (subject.end() if subject else 0)):
        return True
    governed = opened.own
    for at, form, tools in sorted(_verbs(clause, end)):
        if form not in ("imperative", "infinitive") or not set(tools) - READING:
            continue
        if not (governed and len(clause[end:at].split()) <= _AFTER):
            return True
        governed = False
    return False


def _verbs(clause: str, start: int) -> Iterator[tuple[int, str, tuple[Tool, ...]]]:
    """Every verb form any language finds in the clause from `start`: where, which form, which tools."""
    for lex in lexicons():
        for found in lex.any_verb.finditer(clause, start) if lex.any_verb is not None else ():
            for verb in lex.verbs:
                if verb.pattern.match(clause, found.start()) is not None:
                    yield found.start(), verb.form, verb.tools
