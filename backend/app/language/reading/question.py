"""Reading the assistant's question, as a yes to it grounds a change (services/turn/context.py): which
changes it asks about, in which words, and what it says no to."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from backend.app.calls.tools import Tool
from backend.app.language.lexicon import Lexicon, fold, lexicons
from backend.app.language.reading.clauses import read_clause, split_sentences, verb_tools
from backend.app.language.reading.exceptions import Cut, gives_value, in_clause, in_verbless
from backend.app.language.reading.negation import and_joined, declines
from backend.app.language.reading.quoted import placeheld, restored


@dataclass(frozen=True, slots=True)
class Question:
    """What an assistant's message asks, read like a message: for each change it asks about, the
    clauses that ask it ("Should I delete “Gym”, or mark “Yoga” as done?": delete → "should i delete
    “Gym”", complete → "or mark “Yoga” as done"); the clauses that ask nothing of a change; the
    sentences that do not ask at all (a yes answers none of them); and what it says no to or leaves
    out ("…, but not Taxes?", "… everything except Taxes?"): a yes never grounds a change of that."""

    changes: dict[Tool, str]
    options: tuple[str, ...]  # the asking clauses without a verb: "A1", "A2 ya A10"
    others: tuple[str, ...]  # the sentences that ask nothing ("Entendido.", "Yoga is due tomorrow.")
    declined: tuple[str, ...] = ()


_FULL_STOPS = str.maketrans({"。": ". ", "！": "! ", "？": "? "})


@lru_cache(maxsize=256)
def read_question(text: str) -> Question:
    folded, typed = placeheld(text.translate(_FULL_STOPS))
    changes: dict[Tool, list[str]] = {}
    options: list[str] = []
    others: list[str] = []
    declined: list[str] = []
    for clauses, asked, joins in split_sentences(folded):
        if not asked:
            others.append(restored(" ".join(clauses), typed))
            continue
        current: tuple[Tool, ...] = ()  # the change verbless clauses around it list items of
        leading: list[str] = []  # verbless clauses before the sentence's first verb ("(Sabzi, Dhobi) done kar doon?")
        excepting = opened = False  # an exception before ("except Gym"), still open before a verb ("alles außer Gym")
        saying_no = False  # the clause before says no ("…, but not Taxes"): what "and" joins to it does too
        for clause, join in zip(clauses, joins, strict=True):
            tools = verb_tools(clause)
            # "… except Gym and Yoga?", "…, but not Yoga and Report?" (not "… and Report to Monday?")
            joins_no = saying_no and and_joined(join) and not (Tool.UPDATE in current and gives_value(clause))
            if not tools and (excepting or joins_no):
                declined.append(restored(clause, typed))
                continue
            edit = Tool.UPDATE in current
            if not tools and (span := in_verbless(bare := clause.strip(), current, edit=edit, framed=True)) is not None:
                start, end = span
                declined.append(restored(bare[start:end], typed))
                excepting, opened = True, start > 0 and end == len(bare)
                if not (clause := (bare[:start] + " " + bare[end:]).strip()):
                    continue
            saying_no = not tools and declines(clause.strip())
            if saying_no:  # "Should I delete Gym and Yoga, but not Taxes?": no item
                others.append(restored(clause, typed))
                declined.append(others[-1])
                continue
            if (excepted := _cut(clause, tools, opened)) is not None:
                clause = excepted.clause
                declined.append(restored(excepted.left_out, typed))
            excepting = excepted is not None or (excepting and not tools)
            opened = opened and not tools
            words = restored(clause, typed)
            if tools and not current:
                words = "\n".join([*leading, words])
            current = tools or current
            for tool in current:
                changes.setdefault(tool, []).append(words)
            if not tools:
                options.append(words.strip(" ?¿？()"))
                if not current:
                    leading.append(words)
    return Question({t: "\n".join(c) for t, c in changes.items()}, tuple(options), tuple(others), tuple(declined))


def points(words: str) -> bool:
    """Whether the clauses asking a change point into the conversation for the task they change: a
    pronoun that is no article ("it", "es", "isay"); a reference that ends them ("that one", "ska
    jag bocka av den") or stands inside the verb ("check that off"); or, in the language of the
    verb, a pronoun or an article right before it where no noun follows the verb ("que la marque
    como hecha", "je la supprime", "soll ich die abhaken"). Never an article before its noun
    ("¿Borro la lista?"), nor a word before a verb that has its object ("Do you want me to delete the
    3 tasks?")."""
    folded = fold(words)
    found = list(_WORD.finditer(folded))
    return any(_points_in(lex, folded, found) for lex in lexicons())


def _points_in(lex: Lexicon, folded: str, found: list[re.Match[str]]) -> bool:
    this, articles = lex.reference("this"), lex.word("title_fillers")
    said = [w[0] for w in found]
    if this is not None and any(this.fullmatch(" ".join(said[-n:])) for n in (1, 2, 3)):
        return True
    verb = lex.any_verb.search(folded) if lex.any_verb is not None else None
    start, end = (verb.start(), verb.end()) if verb is not None else (-1, -1)
    bare = verb is not None and all(_said_of(lex, w) for w in _WORD.findall(folded[end:]))  # no object after it
    for word in found:
        pointer = this is not None and this.fullmatch(word[0]) is not None
        article = articles is not None and articles.fullmatch(word[0]) is not None
        inside = start < word.start() < end
        clitic = bare and start in (word.start(), word.end() + 1)
        if (pointer and (not article or inside)) or ((pointer or article) and clitic):
            return True
    return False


def _said_of(lex: Lexicon, word: str) -> bool:
    """A word that can follow a verb without being its object: a filler or a state ("como hecha")."""
    return any((p := lex.word(kind)) is not None and p.fullmatch(word) for kind in ("title_fillers", "done_states"))


_WORD = re.compile(r"[^\W_]+")


def _cut(clause: str, tools: tuple[Tool, ...], opened: bool) -> Cut | None:
    """What a clause asking about a change leaves out ("Should I delete everything except Gym?"), or
    its words before a verb that comes last while an exception is open ("Soll ich alles außer Gym
    und Yoga löschen?": "Yoga")."""
    reading = read_clause(clause, asked=True) if tools else None
    return in_clause(clause, reading, tools, opened=opened) if reading is not None else None
