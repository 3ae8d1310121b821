"""Conditions: "if yoga is done", "wenn Yoga erledigt ist", "om yoga är klar" (each file's
`condition` words at a clause's head). What a condition says of a task is supposed, not asked: it
names no task for a change beside the message's command (the guard's row C12, `Intent.supposed`)."""

from __future__ import annotations

from backend.app.language.lexicon import Form, Lexicon, lexicons


def supposes(lex: Lexicon, clause: str, form: Form, head: int, start: int) -> bool:
    """A condition at the clause's head before a verb that states (`form`, at `start`): beside the
    message's other clauses it supposes, and governs the commands after it in its sentence, as "si"
    in Spanish always has ("if yoga is done, delete gym" is asked about); alone, it says what it
    says ("Once a week plants is done"). Said of the user or of the assistant, it is about no task
    ("once you're done, mark yoga complete", "once you've added milk, …")."""
    subject = lex.skip("condition", clause, head) if form in ("declarative", "past") else None
    if subject is None or subject > start:
        return False
    return not any((p := lex.claim(k)) and p.match(clause, subject, start) for k in ("first_person", "second_person"))


def opens_condition(clause: str) -> bool:
    """The clause opens with a condition word of some language and goes on, verb or none ("se yoga"
    of "se yoga è fatto", cut at the folded "è", the Italian "and"; never the word alone: "sí" folds
    to "si", "if")."""
    return any(
        (end := lex.skip("condition", clause, lex.after_fillers(clause))) is not None and end < len(clause.rstrip())
        for lex in lexicons()
    )
