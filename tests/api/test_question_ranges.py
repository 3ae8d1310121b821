"""A question that names numbered tasks as a range names every task between its ends (issue 48).

A model asks "Should I delete Gym, Report and Item 1 to Item 10?" and the user says yes: the yes
grounds what the question names, and "Item 1 to Item 10" names Item 2 to Item 9 as surely as it names
its two ends. Once, only the ends were grounded and the model's deletes of the eight between were
refused with "which task do you mean?" (the held-out flow set, flow-es-whole_list-1 and
flow-sv-whole_list-2). Only a range both of whose ends are one stem and a number reads so: a list of
two ("Item 1 and Item 10"), ends of two stems, or a range of other tasks names nothing between.
"""

from __future__ import annotations

import pytest
from support.api import MakeClient, statuses
from support.asking import TWELVE, sweep, yes_to

ITEMS = tuple(f"Item {n}" for n in range(1, 11))

# (the user's request, the model's question naming the list with a range, the tool, the user's yes)
RANGED = [
    ("delete everything", "Should I delete all 12 tasks (Gym, Report and Item 1 to Item 10)?", "delete_task", "yes"),
    ("clear it all out", "Want me to remove Gym, Report, and Item 1 through Item 10?", "delete_task", "yep"),
    ("tick everything off", "Should I mark Gym, Report and Item 1–Item 10 as done?", "complete_task", "yes please"),
    ("delete everything", "Delete Gym, Report and Item 1-10?", "delete_task", "sure"),
    ("delete all of it", "Should I delete “Gym”, “Report” and “Item 1” to “Item 10”?", "delete_task", "ok"),
    ("alles weg", "Soll ich „Gym“, „Report“ und „Item 1“ bis „Item 10“ löschen?", "delete_task", "ja"),
    ("borra todo", "¿Quieres que borre tus 12 tareas (Gym, Report e Item 1 a Item 10)?", "delete_task", "sí"),
    ("márcalo todo", "¿Quieres que marque Gym, Report y de Item 1 a Item 10 como hechas?", "complete_task", "sí, dale"),
    ("lösch alles", "Soll ich Gym, Report und Item 1 bis Item 10 löschen?", "delete_task", "ja"),
    ("hak alles ab", "Soll ich Gym, Report und Item 1 – Item 10 abhaken?", "complete_task", "ja, bitte"),
    ("supprime tout", "Je supprime Gym, Report et Item 1 à Item 10 ?", "delete_task", "oui"),
    ("cancella tutto", "Vuoi che elimini Gym, Report e da Item 1 a Item 10?", "delete_task", "sì"),
    ("verwijder alles", "Zal ik Gym, Report en Item 1 t/m Item 10 verwijderen?", "delete_task", "ja"),
    ("apaga tudo", "Quer que eu apague Gym, Report e do Item 1 ao Item 10?", "delete_task", "sim"),
    ("conclui tudo", "Posso concluir Gym, Report e Item 1 até Item 10?", "complete_task", "pode"),
    ("markera allt", "Ska jag markera alla 12 (Gym, Report och Item 1–Item 10) som klara?", "complete_task", "ja tack"),
    ("ta bort allt", "Ska jag ta bort Gym, Report och Item 1 till Item 10?", "delete_task", "ja"),
    ("sab delete kar do", "Kya main Gym, Report aur Item 1 se Item 10 tak delete kar doon?", "delete_task", "haan"),
]


@pytest.mark.parametrize(("message", "question", "tool", "yes"), RANGED)
async def test_a_yes_to_a_question_naming_a_range_of_numbered_tasks_changes_each_of_them(
    make_client: MakeClient, message: str, question: str, tool: str, yes: str
) -> None:
    client, body = await yes_to(make_client, TWELVE, message, question, sweep(tool, TWELVE), yes=yes)

    left = await statuses(client)
    if tool == "delete_task":
        assert left == {}, body["assistant_message"]
    else:
        assert left == dict.fromkeys(TWELVE, "completed"), body["assistant_message"]


# (the model's question, the tasks its yes may change): a yes never reaches past what the words name.
NOT_BETWEEN = [
    ("Should I delete Gym, Report, Item 1 and Item 10?", {"Gym", "Report", "Item 1", "Item 10"}),
    ("Should I delete Item 1 to Item 5?", {"Item 1", "Item 2", "Item 3", "Item 4", "Item 5"}),
    ("Soll ich Item 3 bis Item 6 löschen?", {"Item 3", "Item 4", "Item 5", "Item 6"}),
    ("¿Borro Item 1 y Item 10?", {"Item 1", "Item 10"}),
    ("Should I delete Report 1 to Item 10?", {"Report", "Item 1", "Item 10"}),  # two stems: no range
    ("Should I delete Item 10 to Item 1?", {"Item 10", "Item 1"}),  # a range runs upwards
    ("Should I delete Item 1 to Item 10000?", {"Item 1"}),  # nothing of that size is read as a range
]


@pytest.mark.parametrize(("question", "may_go"), NOT_BETWEEN)
async def test_a_yes_changes_no_numbered_task_the_question_does_not_name(
    make_client: MakeClient, question: str, may_go: set[str]
) -> None:
    client, body = await yes_to(make_client, TWELVE, "delete everything", question, sweep("delete_task", TWELVE))

    left = set(await statuses(client))
    assert set(TWELVE) - may_go <= left, body["assistant_message"]
    if may_go == {"Item 1", "Item 2", "Item 3", "Item 4", "Item 5"}:
        assert not left & may_go, body["assistant_message"]  # the range itself is done whole
