"""A model's own confirmation question, in each language with a file, is read as asking the change it
names (`read_question`), so that the user's yes grounds it (issue 48: "The conversation grounds a
yes"). The first person present a model asks in ("Apago Gym?", "Cancello Gym?", "Je coche Gym ?") is
never a command in the user's own message: said by the user it tells or asks, it does not ask for a
change. (Like every past form, in the model's own words such a form says what it did: "Lo cancello
subito." beside no delete is a claim, not an offer. An add's present, "La aggiungo subito.", is left
unread for that reason: it is an offer.) The wordings here were written for this test, apart from the
held-out sets."""

from __future__ import annotations

import pytest

from backend.app.calls.tools import Tool
from backend.app.language.reading.intent import classify, read_question

DELETE, COMPLETE = Tool.DELETE, Tool.COMPLETE

QUESTIONS = [
    ("Cancello Gym?", DELETE),
    ("Allora, cancello “Gym” dalla lista?", DELETE),
    ("Tolgo Gym dalla lista?", DELETE),
    ("Segno Gym come fatta?", COMPLETE),
    ("Je coche Gym ?", COMPLETE),
    ("Je coche « Gym » dans ta liste ?", COMPLETE),
    ("Je retire Gym de la liste ?", DELETE),
    ("Gym von der Liste nehmen?", DELETE),
    ("Soll ich Gym von deiner Liste nehmen?", DELETE),
    ("Apago Gym?", DELETE),
    ("Então, excluo “Gym” da sua lista?", DELETE),
    ("Removo Gym?", DELETE),
    ("Quer que eu tire Gym da lista?", DELETE),
    ("Posso tirar “Gym” da sua lista?", DELETE),
    ("Concluo a tarefa Gym?", COMPLETE),
    ("Marco Gym como feita?", COMPLETE),
]


@pytest.mark.parametrize(("question", "tool"), QUESTIONS)
def test_a_models_confirmation_question_is_read_as_asking_its_change(question: str, tool: Tool) -> None:
    assert tool in read_question(question).changes, read_question(question)


@pytest.mark.parametrize(
    "message",
    [
        "cancello gym?",
        "apago gym?",
        "removo gym ou não?",
        "je coche gym ?",
        "il cancello è rotto",  # the gate
        "eu apago gym toda semana",
        "sempre tiro um cochilo depois do almoço",  # "tiro": a nap
        "concluo que gym não vale a pena",  # "I conclude"
        "marco ligou ontem",  # a name
    ],
)
def test_the_first_person_a_model_asks_in_is_no_command_of_the_user(message: str) -> None:
    assert classify(message).kind != "command", classify(message)


@pytest.mark.parametrize(
    ("message", "tool"),
    [
        ("tire gym da lista", DELETE),
        ("tira a academia da minha lista", DELETE),
        ("por favor tire o curso de inglês da lista", DELETE),
        ("nimm Gym von der Liste", DELETE),
        ("cancella gym", DELETE),
    ],
)
def test_the_commands_beside_them_still_ask(message: str, tool: Tool) -> None:
    found = classify(message)
    assert found.kind == "command" and tool in found.tools, found
