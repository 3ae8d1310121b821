"""What a clause supposes rather than asks or reports: a condition ("if yoga is done", "wenn Yoga
erledigt ist", "om yoga är klar": each file's `condition` words at a clause's head), a plan or a near
miss ("I might finish yoga", "j'ai failli finir yoga"). What it says of a task is not asked: it names
no task for a change beside the message's command (the guard's row C12, `Intent.supposed`)."""

from __future__ import annotations

import re

from backend.app.language.lexicon import Form, Lexicon
from backend.app.language.reading.naming import names_something


def condition(lex: Lexicon, clause: str, form: Form, head: int, verb: tuple[int, int]) -> bool | None:
    """Whether a condition at the clause's head, before a verb that states (`form`, at `verb`), is about
    a task (True) or says when (False), if the clause is one. About a task, beside the message's other
    clauses, it supposes and governs the commands after it in its sentence, as "si" in Spanish always
    has ("if yoga is done, delete gym", "once I've finished yoga, delete gym" are asked about); alone,
    it says what it says ("Once a week plants is done"). Naming none, it governs nothing ("once that's
    done, delete gym"). One said to the assistant is no condition ("once you're done, mark yoga
    complete", "once you've added milk, delete gym": do this, then that)."""
    subject = lex.skip("condition", clause, head) if form in ("declarative", "past") else None
    you = lex.claim("second_person")
    if subject is None or subject > verb[0] or (you is not None and you.match(clause, subject, verb[0])):
        return None
    return _names_task(lex, f"{clause[subject : verb[0]]} {clause[verb[1] :]}")


def _names_task(lex: Lexicon, words: str) -> bool:
    """The condition's words but its verb name a task: not "that" of "that's", "c'est", "I've"."""
    copula, me = lex.word("copula"), lex.claim("first_person")
    said = [
        w
        for w in re.split(r"[\s']+", words)
        if len(w) > 2 and not (copula and copula.fullmatch(w)) and not (me and me.fullmatch(w))
    ]
    return names_something(" ".join(said))


def plans(lex: Lexicon, before: str) -> bool:
    """A report word before a past verb says a plan or a near miss ("I almost finished", "ho quasi
    finito"), not what happened (`happened`: "j'ai fini", "ho finito")."""
    return not all(_happened_words(lex, before))


def happened(lex: Lexicon, before: str, form: Form) -> bool:
    """The report words before the verb, one at least, all say what happened ("j'ai fini", "ho finito"),
    none a plan or a near miss ("j'ai failli"), and the verb is no infinitive ("j'ai oublié de finir")."""
    said = _happened_words(lex, before)
    return form != "infinitive" and bool(said) and all(said)


def _happened_words(lex: Lexicon, before: str) -> list[bool]:
    """For each report word before the verb, whether it is one of `happened`."""
    past, report = lex.word("happened"), lex.word("report")
    said = report.finditer(before) if report is not None else ()
    return [past is not None and past.fullmatch(m.group()) is not None for m in said]
