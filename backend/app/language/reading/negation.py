"""Where a no is, and how far it reaches in its sentence (read by intent.py and question.py).

A clause without a verb the reader knows is a no where it opens with a negation ("not the yoga",
"nicht Taxes") or, after a change of existing tasks and in a language whose negation follows what
it negates, where a word of no closes it ("lösch Gym, aber Taxes nicht"; each language's `not`).
What "and" joins to a no (each language's `additive`, never a comma, "but" or "then") is one too
when it has no verb of its own ("don't delete gym and taxes") or only states the state the no's verb
would put a task in ("do not mark gym and taxes as done"; not "taxes is done": a `copula`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from backend.app.calls.tools import Tool
from backend.app.language.detect import scores
from backend.app.language.lexicon import Lexicon, lexicon, lexicons, words_of
from backend.app.language.reading.clauses import MEMOS, Reading, read_clause, unnumbered
from backend.app.language.reading.exceptions import gives_value

_PUNCT = re.compile(r"^\W+|\W+$")
_NUMBER = 3  # a title's number ("Item 3", "Q10"), not a count ("marcher 10000 pas")
_ELIDED = re.compile(r"['’]")  # "l'item": one word of letters
_BEFORE = 2  # at most so many words stand before a closing no ("die Steuern nicht"; not "Taxes brauch ich nicht")


def declines(clause: str) -> bool:
    return _declines(unnumbered(clause))


@lru_cache(maxsize=4096)
def _declines(clause: str) -> bool:
    """A clause with no verb the reader knows that opens with a negation: after a command ("delete
    gym, not the yoga") it excludes what it names, never adds it as an item. (Alone it may be a
    reason for a change, "not doing it this week", or a request, "nicht mehr nötig": not read so.)
    Only a negation of the clause's own language opens one: "no te olvides del yoga" is a Spanish
    reminder, not the English "no"."""
    negations = ((lex, lex.word("negation")) for lex in _own(clause))
    return any(n is not None and n.match(clause, lex.after_fillers(clause)) for lex, n in negations)


MEMOS.append(_declines.cache_clear)


def _completes(pending: str, clause: str, reading: Reading) -> bool:
    """Whether a stated clause's state ends the verb a pending no negates ("comme faites" of "ne marque
    pas gym ... comme faites"; not "done" after "no worries and taxes done", nor "erledigt" after
    "kein Stress und Taxes erledigt")."""
    joined = read_clause(f"{pending} {clause[reading.start :]}", asked=False)
    return (
        joined is not None and joined.kind == "negated" and joined.start < len(pending) < joined.start + joined.length
    )


def _own_word(clause: str) -> bool:
    """A clause after "and" that says something of its own: a value ("taxes to low"), a copula ("taxes
    is", "taxes is done already") or a yes ("taxes sí", "Taxes schon")."""
    yes = (lex.reference("yes") for lex in lexicons())
    return (
        gives_value(clause)
        or words_of("copula").search(clause) is not None
        or any(y is not None and y.search(clause) for y in yes)
    )


def _opens_not(clause: str) -> bool:
    """A clause that opens with a word that says no to an item ("not the yoga", "nicht Taxes", "no gym")."""
    words = clause.split()
    return bool(words) and words_of("not").fullmatch(words[0]) is not None


_VERBS_IN_A_NO = 6  # "never delete, complete or move gym" has three
_NEXT_VERB = 200


def _alternatives(clause: str, reading: Reading) -> bool:
    """Whether the clause's verb is one of verbs an "or" lists ("complete or move gym", "complete ou
    mova gym": the verb's language may not be the "or"'s): after a no that ends with its verb, the
    rest of that no's list, not a command."""
    rest = clause[reading.start + reading.length :].lstrip()
    said = words_of("alternative").match(rest)
    after = read_clause(rest[said.end() :].lstrip(), asked=False) if said is not None else None
    return after is not None and after.start == 0 and bool(after.tools)


def _ends_with_verb(clause: str, reading: Reading, negation: re.Pattern[str] | None) -> bool:
    """Whether a no's clause ends with its verb: nothing after the verb ("never delete") or, where the
    no follows the verb, only the no and the verb's own particle ("verwijder niet", "lösch nicht",
    "ta inte bort": without its no the clause reads as that verb to its end, "ta bort")."""
    if not clause[reading.start + reading.length :].strip(" ,;.!?"):
        return True
    plain = " ".join(negation.sub(" ", clause).split()).rstrip(" ,;.!?") if negation is not None else ""
    again = read_clause(plain, asked=False) if plain else None
    return again is not None and again.tools == reading.tools and again.start + again.length == len(plain)


def and_joined(join: str) -> bool:
    """Whether what joins a clause to the one before is a word that joins items of one list alone
    ("gym and taxes", "gym & taxes"; not "gym, and taxes", "gym but taxes"): some language's `additive`."""
    joined = " ".join(join.split())
    return joined == "&" or words_of("additive").fullmatch(joined) is not None


def _own(clause: str) -> list[Lexicon]:
    """The languages a clause is most likely in, or every one."""
    found = scores(clause)
    best = max(found.values(), default=0)
    own = {code for code, score in found.items() if score == best and best > 0}
    return [lex for lex in lexicons() if not own or lex.code in own]


def verbs_of(clause: str, reading: Reading) -> tuple[Tool, ...]:
    """The changes a negated clause says no to: its verb's and every verb's after it ("never delete or
    complete gym": both). Every change, the safer no, where a verb is not known, and where the clause
    goes on past what is read of it: `_VERBS_IN_A_NO` verbs, each within `_NEXT_VERB` characters of
    the one before (each read costs a read of what it is given)."""
    tools, at = list(reading.tools), reading.start + reading.length
    for _ in range(_VERBS_IN_A_NO + 1):
        rest = clause[at:]
        after = read_clause(rest[:_NEXT_VERB], asked=False) if tools else None
        if not tools or after is None or not after.length:
            return tuple(dict.fromkeys(tools)) if len(rest) <= _NEXT_VERB or not tools else ()
        tools = [*tools, *after.tools] if after.tools else []
        at += after.start + after.length
    return ()


@dataclass(slots=True)
class Scope:
    """The no open in a sentence as the reader walks it: its tools (empty where its verb is not known),
    or None; `statement`: the no is a statement ("gym isn't done"), which no state joins; `pending`:
    a verbless clause before any command, which is a no that a stated clause joins where it opens with
    a negation ("ne marque pas gym", a verb the reader does not know, "… et taxes comme faites"), never
    a bare item (a reason, "non mi servono più gym e taxes")."""

    tools: tuple[Tool, ...] | None = None
    statement: bool = False
    pending: str = ""
    run: int = 0  # where the items "and" joins up to the clause before start
    run_join: str = ""  # what joined the first of them to the clause before it (", aber")
    command: tuple[str, Reading] | None = None  # the sentence's last command: its clause and reading
    closed: bool = False  # the last clause was a no a word of no closed: the command goes on after it
    last: str = ""  # what the clause before was: "command", "item" or "" (anything else)
    before: str = ""  # what the clause before the one being read was
    bare: bool = False  # the no's clause ends with its verb ("never delete, complete or move gym")

    def start(self) -> None:
        """A new sentence: a no ends with its sentence."""
        self.tools, self.statement, self.pending, self.bare = None, False, "", False
        self.command, self.closed, self.last = None, False, ""

    def commanded(self, clause: str, reading: Reading) -> None:
        self.command, self.last = (clause, reading), "command"

    def item(self, at: int, join: str) -> None:
        if self.before != "item" or not and_joined(join):
            self.run, self.run_join = at, join
        self.last = "item"

    def negated(self, clause: str, reading: Reading, tools: tuple[Tool, ...]) -> None:
        """A clause whose verb is negated ("don't delete gym", "gym isn't done"), saying no to `tools`
        (`verbs_of`). Only a negation of the verb itself opens a no that goes on over "and" ("don't
        delete gym and taxes"), never one of another verb before it ("don't hesitate to delete gym and
        taxes", "why don't you delete ...")."""
        lex = lexicon(reading.language)
        negation = lex.word("negation") if lex is not None else None
        said = list(negation.finditer(clause, 0, reading.start)) if negation is not None else []
        gap = clause[said[-1].end() : reading.start] if said else ""
        own = lex is None or not gap.strip() or lex.after_fillers(gap.strip()) == len(gap.strip())
        self.tools, self.statement = (tools if own else None), reading.stated
        self.bare = own and _ends_with_verb(clause, reading, negation)

    def said(
        self, clause: str, reading: Reading | None, join: str, changing: tuple[Tool, ...], at: int
    ) -> tuple[list[str], int | None, tuple[Tool, ...]]:
        """The clauses this one says no with ([] when it is no part of a no; a pending no first), from
        which action on the actions before it are in the no too, and the changes it says no to (none
        known: every change). A clause a word of no closes takes back the items "and" joined right
        before it after a "but" ("lösch Yoga, aber Gym und Taxes nicht": Gym; not "lösch Gym, Yoga und
        Taxes nicht", "hak Gym und Yoga ab und Taxes nicht"), never the command ("lösch Gym und Taxes
        nicht" may say "delete Gym, not Taxes"), and the command goes on after it. `changing`: the
        tools of the sentence's command if it changes existing tasks; `at`: the actions so far."""
        self.closed, self.before, self.last = False, self.last, ""
        joined, pending = and_joined(join), self.pending
        bare, self.bare = self.bare, False
        if bare and self.tools and reading is not None and join.strip() == "," and _alternatives(clause, reading):
            return [clause], None, (*self.tools, *verbs_of(clause, reading))  # "never delete, complete or move gym"
        self.pending = clause if reading is None and not at else ""
        if joined and self.tools is not None and reading is None and not _own_word(clause):
            return [clause], None, self.tools  # "don't delete gym and taxes"
        if joined and reading is not None and self._states(clause, reading):
            if self.tools is not None:
                return [clause], None, self.tools  # "do not mark gym and taxes as done"
            if pending and declines(pending) and _completes(pending, clause, reading):
                self.pending = pending
                return [pending, clause], None, reading.tools  # "ne marque pas gym et taxes comme faites"
        if reading is None and changing and self._closes(clause):
            self.tools, self.closed = None, True
            contrast = any(c.isalpha() for c in self.run_join) and not and_joined(self.run_join)
            return [clause], self.run if joined and self.before == "item" and contrast else None, changing
        item_no = reading is None and at > 0 and bool(changing) and _opens_not(clause) and declines(clause)
        self.tools, self.statement = (changing if item_no else None), False  # "not the yoga"; never after an add
        return [], None, ()

    def _states(self, clause: str, reading: Reading) -> bool:
        """A clause that only states the state the no's verb would put a task in ("taxes as done" after
        "don't mark gym", "taxes como hechas" after "no marques gym"); never a statement of its own,
        with a copula ("taxes is done", "taxes ya está hecha") or after one ("gym isn't done and taxes
        done"), nor of another change ("taxes done" after "don't delete gym")."""
        if not reading.stated or reading.requested or self.statement:
            return False
        same = not self.tools or bool(set(reading.tools) & set(self.tools))
        return same and words_of("copula").search(clause) is None

    def _closes(self, clause: str) -> bool:
        """A clause a word of no closes, in the command's language where such a word follows what it
        says no to (`closing_not`: "Taxes nicht", "taxes pas", "taxes no", "taxes nahin"; not "Why
        not" in English, nor "Warum nicht" in an English message): its `not` after one or two words
        of letters, a title's number of up to three digits beside them where the language says so
        (`closing_not_after_number`: "el item 3 no", "Item 3 nicht"; not French "marcher 100 pas"),
        last but for fillers ("taxes no por favor"), or before a word that ends the command's verb
        ("hak Gym und Taxes nicht ab")."""
        lex = lexicon(self.command[1].language) if self.command is not None else None
        word = lex.word("not") if lex is not None and lex.flag("closing_not") else None
        words = _PUNCT.sub("", clause).split()
        said = [i for i, w in enumerate(words) if word is not None and word.fullmatch(w)]
        number = lex is not None and lex.flag("closing_not_after_number")
        named = [w for w in words[: said[-1]] if not (number and w.isdigit() and len(w) <= _NUMBER)] if said else []
        if lex is None or not 0 < len(named) <= _BEFORE or not all(_ELIDED.sub("", w).isalpha() for w in named):
            return False
        rest = " ".join(words[said[-1] + 1 :])
        return lex.after_fillers(rest) == len(rest) or (" " not in rest and self._ends_verb(rest))

    def _ends_verb(self, word: str) -> bool:
        """Whether the word ends the command's verb ("ab" of "hak ... ab")."""
        assert self.command is not None
        clause, reading = self.command
        joined = read_clause(f"{clause} {word}", asked=False)
        return joined is not None and joined.length > reading.length
