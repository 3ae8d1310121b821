"""A model's confirmation question is read as asking the change it names (`read_question`), so that
the user's yes grounds it (issue 48). German says a delete as "von der Liste nehmen" (take off the
list), a question of the model's and a request of the user's alike. (First-person questions in the
other languages, "Apago Gym?", "Cancello Gym?", were read for a while and withdrawn after review:
as `past` forms they also read an offer as a claim, "Tolgo Gym se vuoi.", and an idiom as the change
asked about, "Ti tolgo un dubbio: vuoi che aggiunga Gym?".)"""

from __future__ import annotations

import pytest

from backend.app.calls.tools import Tool
from backend.app.language.reading.intent import classify
from backend.app.language.reading.question import read_question


@pytest.mark.parametrize(
    "question",
    [
        "Gym von der Liste nehmen?",
        "Soll ich Gym von deiner Liste nehmen?",
        "Soll ich „Gym“ aus deiner Einkaufsliste streichen?",
        "Darf ich Gym von deinen Aufgaben nehmen?",
    ],
)
def test_a_german_question_to_take_a_task_off_the_list_asks_a_delete(question: str) -> None:
    assert Tool.DELETE in read_question(question).changes, read_question(question)


@pytest.mark.parametrize(
    ("message", "about"),
    [
        ("nimm Gym von der Liste", "gym"),
        ("kannst du Gym von der Liste nehmen?", "gym"),
        ("Brot von der Liste nehmen, Milch hinzufügen", "brot"),
    ],
)
def test_a_german_request_to_take_a_task_off_the_list_deletes_it(message: str, about: str) -> None:
    found = classify(message)
    assert found.kind == "command" and found.actions[0].tool == Tool.DELETE, found
    assert found.actions[0].about.casefold().split()[0] == about  # "gym von der liste": the list's words go later


@pytest.mark.parametrize(
    "message",
    [
        "ich will Gym nicht von der Liste nehmen",
        "soll ich Gym von der Liste nehmen?",
        "wir sollten Gym von der Liste nehmen",
    ],
)
def test_a_german_wish_or_question_to_take_it_off_is_no_command(message: str) -> None:
    assert classify(message).kind != "command", classify(message)


def test_a_fullwidth_quote_is_a_quote_and_keeps_its_own_title() -> None:
    """＂Gym＂ folds to "Gym": the spans as typed and the placeholders are found alike, so each quote
    comes back as its own title (the first one read as "Yoga" before)."""
    found = classify('delete ＂Gym＂ and "Yoga"')
    assert found.quotes == ('"Gym"', '"Yoga"'), found
    assert '"Gym"' in found.actions[0].object and "Yoga" not in found.actions[0].object, found.actions


@pytest.mark.parametrize(
    "question",
    [
        "Poxa! Quer que eu tire «Academia» da lista?",
        "Quer que eu tire “Mercado” da sua lista?",
        'Entendi. Tire "Inglês" da lista, então?',
    ],
)
def test_portuguese_tire_before_a_quoted_title_asks_a_delete(question: str) -> None:
    """ "tire" is also "take" ("tire uma foto"): a delete only before a quoted title or a word that
    points at a task, as in the model's "Quer que eu tire «Academia» da lista?"."""
    assert Tool.DELETE in read_question(question).changes, read_question(question)


@pytest.mark.parametrize(("message", "command"), [('tire "Mercado" da lista', True), ("tire uma foto da lista", False)])
def test_portuguese_tire_is_a_delete_only_before_a_quoted_title(message: str, command: bool) -> None:
    found = classify(message)
    assert (found.kind == "command" and found.actions[0].tool == Tool.DELETE) is command, found


@pytest.mark.parametrize(
    "question",
    [
        "Vill du att jag markerar alla 12 uppgifter som klara (Gym, Tvätta och Item 1–Item 10)?",
        "Okej! Vill du att jag markerar ”Gym” som klar?",
        "Ska jag bocka av Gym, eller vill du att jag markerar Tvätta som klart?",
    ],
)
def test_a_swedish_question_in_the_models_present_asks_a_completion(question: str) -> None:
    """ "(vill du att) jag markerar … som klar": the model's own present, read as the delete's present
    forms are ("vill du att jag tar bort ...")."""
    assert Tool.COMPLETE in read_question(question).changes, read_question(question)


@pytest.mark.parametrize(
    "question",
    [
        "Vill du att Lisa markerar Gym som klar?",  # another's present: not the model's offer
        "Appen markerar Gym som klar automatiskt, vill du ha en påminnelse?",
        "Vill du att jag markerar Gym som inte klar?",  # a reopening, not a completion
    ],
)
def test_a_swedish_present_of_anyone_else_asks_no_completion(question: str) -> None:
    assert Tool.COMPLETE not in read_question(question).changes, read_question(question)
