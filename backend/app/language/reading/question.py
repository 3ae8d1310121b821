"""Reading the assistant's question, as a yes to it grounds a change (services/turn/context.py): which
changes it asks about, in which words, and what it says no to."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from backend.app.calls.tools import Tool
from backend.app.language.lexicon import Lexicon, fold, lexicons, words_of
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
        # the clause before says no ("…, but not Taxes"): what "and" joins to it does too; or it keeps
        # what follows it ("keep gym"): what a comma joins to it is kept too
        saying_no = keeping = False
        chain: list[str] = []  # the items since the last verb ("gym" of "… aur gym aur yoga rakh loon?")
        cut, cut_joins = _kept_apart(clauses, joins)
        for i, (clause, join) in enumerate(zip(cut, cut_joins, strict=True)):
            tools, edit = verb_tools(clause), Tool.UPDATE in current
            # "… except Gym and Yoga?", "…, but not Yoga and Report?", "…keep Gym, Yoga?" (not "…and Report to Monday?")
            joins_no = saying_no and (and_joined(join) or keeping) and not (edit and gives_value(clause))
            if not tools and (excepting or joins_no):
                declined.append(restored(clause, typed))
                continue
            if not tools and (span := in_verbless(bare := clause.strip(), current, edit=edit, framed=True)) is not None:
                start, end = span
                declined.append(restored(bare[start:end], typed))
                excepting, opened = True, start > 0 and end == len(bare)
                if not (clause := (bare[:start] + " " + bare[end:]).strip()):
                    continue
            keeps = None if tools else _keeps(clause, " ".join(cut[i + 1 :]))
            saying_no = not tools and (declines(clause.strip()) or keeps is not None)
            keeping = keeps == "before"
            if saying_no:  # "Should I delete Gym and Yoga, but not Taxes?", "… and keep Gym?": no item
                if keeps == "after":  # "soll ich gym und yoga behalten", "gym, yoga rakh loon": those are kept too
                    declined += [restored(w, typed) for w in _taken_back(chain, changes, leading)]
                if keeps is not None:  # an alternative still ("delete “Gym”, or keep it?"): no plain offer
                    options.append(restored(clause, typed).strip(" ?¿？()"))
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
            chain = [*chain, words] if not tools else []
            if not tools:
                options.append(words.strip(" ?¿？()"))
                if not current:
                    leading.append(words)
    return Question({t: "\n".join(c) for t, c in changes.items()}, tuple(options), tuple(others), tuple(declined))


def _kept_apart(clauses: list[str], joins: list[str]) -> tuple[list[str], list[str]]:
    """The clauses, each that holds a word that keeps a task cut at the "and" right before it ("ska
    jag ta bort taxes | och behalla gym"), or where it holds a verb of a change too, at the first
    "and" between them ("zal ik taxes verwijderen | en gym en yoga houden"): what is kept is no item
    of the change."""
    cut_clauses, cut_joins = [], []
    for clause, join in zip(clauses, joins, strict=True):
        keep = words_of("keep").search(clause)
        at = keep.start() if keep is not None else -1
        verbs = [m.start() for lex in lexicons() if at >= 0 and lex.any_verb and (m := lex.any_verb.search(clause))]
        low, high = sorted((min(verbs), at)) if verbs else (0, 0)
        # the "and" right before the keep word ("taxes och yoga | och lata resten vara"), else the first one
        # between the verb and the keep word ("taxes verwijderen | en gym en yoga houden", "behall gym | och …")
        right = [c for c in words_of("additive").finditer(clause, 0, max(at, 0)) if not clause[c.end() : at].strip()]
        cut = right[0] if right else next(words_of("additive").finditer(clause, low, high), None) if high else None
        if cut is None:
            cut_clauses.append(clause)
            cut_joins.append(join)
        else:
            cut_clauses += [clause[: cut.start()], clause[cut.end() :]]
            cut_joins += [join, cut.group()]
    return cut_clauses, cut_joins


def _keeps(clause: str, rest: str) -> str | None:
    """Whether a clause of the assistant's question keeps what it names, and where those words stand:
    "before" them ("keep gym", "should i keep gym", "dejo gym") or "after" them, ending the clause
    ("gym behalten", "yoga rakh loon"), or None (a purpose or a manner amid it: "to keep it tidy"; a
    done state after it, in it or in the `rest` of the sentence: "dejo gym como completada")."""
    found = words_of("keep").search(clause)
    if found is None or words_of("done_states").search(f"{clause[found.end() :]} {rest}"):
        return None  # "¿dejo gym y yoga como completadas?" leaves them done: a completion
    opening = _opening().match(clause)
    if not clause[opening.end() if opening else 0 : found.start()].strip():
        return "before"
    # ending the clause, in a language whose verb comes last ("gym behalten", "yoga rakh loon"); never
    # amid it ("… to keep things tidy"), nor a clause of its own ("… before you leave", "Sick leave")
    verb_last = any(lex.verb_last() and (w := lex.word("keep")) and w.fullmatch(found.group()) for lex in lexicons())
    return "after" if verb_last and not clause[found.end() :].strip() else None


def _taken_back(chain: list[str], changes: dict[Tool, list[str]], leading: list[str]) -> list[str]:
    """The items in `chain` taken out of the changes and the leading items they were listed in."""
    for words in chain:
        for listed in (*changes.values(), leading):
            if words in listed:
                listed.remove(words)
    return chain


@cache
def _opening() -> re.Pattern[str]:
    """The assistant's own frame at the start of a clause ("should i", "soll ich", "kya main")."""
    parts = [p.pattern for lex in lexicons() for p in (lex.claim("own_offer"), lex.word("fillers")) if p is not None]
    return re.compile(rf"^(?:[\W_]*(?:{'|'.join(parts)}))*")


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
