"""How words name every task of the list: "delete them all", the model's "Should I delete all 50
tasks?", but not "Should I delete Gym from all your tasks?" (a place), "All right, ..." (a phrase
that names none), nor a word inside a quoted title. Read for the decision table's T15 and T16
(tools/whole_list.py)."""

from __future__ import annotations

import re
from functools import cache

from backend.app.language.lexicon import fold, lexicons, list_places, not_all, whole_list_words
from backend.app.language.lexicon import task_nouns as _task_nouns
from backend.app.language.reading.quoted import QUOTED

_WORDS = re.compile(r"[^\W\d_]+")  # words of letters, as clauses reads them


def names_every_task(text: str) -> bool:
    """Whether `text` names every task of the list ("delete them all", "alles erledigt", the model's
    "delete all 50?") by a word for all of them outside a quoted title ("Should I delete “Clear
    all”?") and outside a phrase that names none ("All right, should I delete Gym?": `not_all`)."""
    return bool(whole_list_words().search(_untitled(text)))


def all_from_a_list(text: str) -> bool:
    """Whether every word of `text` for all tasks only says which list a task is taken from ("Should I
    delete Gym from all your tasks?", "de toda tu lista": `list_places`)."""
    words = _untitled(text)
    return bool(whole_list_words().search(words)) and not whole_list_words().search(list_places().sub(" ", words))


def of_finished(text: str) -> bool:
    """Whether the words for every task say the finished ones: a done state right beside a word for a
    task ("all your finished tasks", "alle erledigten Aufgaben", "todas las tareas terminadas"), never
    a done word elsewhere ("Klar, soll ich alle Aufgaben löschen?") nor one that is a word for a list
    itself (Spanish "lista", also "ready")."""
    words = _WORDS.findall(whole_list_words().sub(" ", _untitled(text)))  # "poori list" is the whole list
    nouns = [bool(_task_nouns().fullmatch(w)) for w in words]
    return any(
        _done_word(w) and not nouns[i] and ((i > 0 and nouns[i - 1]) or (i + 1 < len(words) and nouns[i + 1]))
        for i, w in enumerate(words)
    )


@cache
def _done_word(word: str) -> bool:
    """A done state of some language, of three letters or more (not Dutch "af", also a particle)."""
    return len(word) > 2 and any((p := lex.word("done_states")) is not None and p.fullmatch(word) for lex in lexicons())


def unplaced(text: str) -> str:
    """`text` folded, without the words that say which list a task is taken from (`list_places`);
    quoted titles stay: they are what names a task."""
    return list_places().sub(" ", fold(text))


def _untitled(text: str) -> str:
    """The folded words of `text`, each quoted title one placeholder word (no words come together
    across it; quotes are a title's even around "everything", which may be one), without the phrases
    that name no task ("alles klar": never "klar", done)."""
    lines = "\n".join(" ".join(line.split()) for line in fold(text).splitlines())  # a line is a clause
    return not_all().sub(" ", QUOTED.sub(" §title§ ", lines))
