"""A yes to the model's question never changes a task the question keeps (found on 2026-12-07).

"Should I keep Gym and delete Taxes?" read "should i keep gym" as an item of the delete (a clause
with no verb of a change joined to one), so a yes let a model that deleted every task delete Gym
too, in every language. A clause of the question with a word that keeps a task (each language
file's `keep`: "keep", "behalten", "dejo", "garde", "houden", "behålla", "rakh") now says no to
changing what it names, as "…, but not Gym?" did, and so does what "and" joins to it: after the
keep word ("keep Gym and Yoga") or, where the verb comes last, before it ("Gym und Yoga behalten").
"""

from __future__ import annotations

import pytest
from support.api import MakeClient, statuses
from support.asking import sweep, yes_to

TASKS = ("Gym", "Taxes", "Yoga")

KEEPS = [
    "Should I delete Taxes but keep Gym and Yoga?",
    "Should I keep Gym and Yoga and delete Taxes?",
    "¿Borro Taxes y dejo Gym y Yoga?",
    "Je supprime Taxes et je garde Gym et Yoga ?",
    "Ska jag ta bort Taxes och behålla Gym och Yoga?",
    "Soll ich Gym und Yoga behalten und Taxes löschen?",
    "Soll ich Taxes löschen, Gym und Yoga behalten?",
    "Zal ik Taxes verwijderen en Gym en Yoga houden?",
    "Kya main Taxes delete kar doon aur Gym aur Yoga rakh loon?",
    "Vuoi che elimini Taxes e tenga Gym e Yoga?",
    "Quer que eu apague Taxes e deixe Gym e Yoga?",
    # a comma goes on after a keep, as "and" does (found by a review)
    "Should I delete Taxes and keep Gym, Yoga?",
    "Should I keep Gym, Yoga and delete Taxes?",
    "¿Borro Taxes y dejo Gym, Yoga?",
    "Soll ich Taxes löschen und Gym, Yoga behalten?",
    "Zal ik Taxes verwijderen en Gym, Yoga houden?",
    "Kya main Taxes delete kar doon aur Gym, Yoga rakh loon?",
    "Should I delete Taxes and hold off on Gym and Yoga?",
    "Behåll Gym och ta bort Taxes?",  # the keep word opens the question
    "Should I keep Gym and delete Taxes?",
    "Should I delete Taxes and keep Gym?",
    "Should I delete Taxes but keep Gym?",
    "Want me to leave Gym alone and remove Taxes?",
    "Soll ich Gym behalten und Taxes löschen?",
    "Soll ich Taxes löschen und Gym behalten?",
    "¿Borro Taxes y dejo Gym?",
    "¿Dejo Gym y borro Taxes?",
    "Je supprime Taxes et je garde Gym ?",
    "Je garde Gym et je supprime Taxes ?",
    "Elimino Taxes e tengo Gym?",
    "Zal ik Taxes verwijderen en Gym houden?",
    "Ska jag ta bort Taxes och behålla Gym?",
    "Kya main Taxes delete kar doon aur Gym rakh loon?",
]


@pytest.mark.parametrize("question", KEEPS)
async def test_a_yes_never_deletes_the_task_the_question_keeps(make_client: MakeClient, question: str) -> None:
    client, body = await yes_to(make_client, TASKS, "clean up my list", question, sweep("delete_task", TASKS))

    # Taxes, which it asks to delete, goes; what it keeps, and Yoga where it is not named, stays.
    assert await statuses(client) == {"Gym": "pending", "Yoga": "pending"}, body["assistant_message"]


ALL_OF_THEM = [
    # a keep word amid a clause keeps nothing it names (found by a review)
    "Should I delete Gym, Taxes and Yoga to keep things tidy?",
    "¿Quieres que borre Gym, Taxes y Yoga para dejar la lista limpia?",
    "Je supprime Gym, Taxes et Yoga pour garder la liste propre ?",
    "Quer que eu apague Gym, Taxes e Yoga para deixar a lista limpa?",
    "Ska jag ta bort Gym, Taxes och Yoga och låta resten vara?",
    "Should I delete Gym, Taxes and Yoga?",
    "Should I delete Gym, Taxes, and the Yoga task?",
    "Should I delete “Gym”, “Taxes” and “Yoga”?",
    "Soll ich Gym, Taxes und Yoga löschen?",
    "¿Borro Gym, Taxes y Yoga?",
    "Je supprime Gym, Taxes et Yoga ?",
    "Zal ik Gym, Taxes en Yoga verwijderen?",
    "Ska jag ta bort Gym, Taxes och Yoga?",
    "Kya main Gym, Taxes aur Yoga delete kar doon?",
]


@pytest.mark.parametrize("question", ALL_OF_THEM)
async def test_a_yes_still_changes_every_task_the_question_lists(make_client: MakeClient, question: str) -> None:
    client, body = await yes_to(make_client, TASKS, "clean up my list", question, sweep("delete_task", TASKS))

    assert await statuses(client) == {}, body["assistant_message"]


# (the tasks, the question, the tool, the tasks it asks about): a keep word that keeps nothing (found by
# a second review): a clause of its own, a title, a relative clause, "dejar … como completada"
NOTHING_KEPT = [
    (TASKS, "Should I delete Gym and Yoga before you leave?", "delete_task", ("Gym", "Yoga")),
    (TASKS, "Should I mark Gym and Yoga done before you leave?", "complete_task", ("Gym", "Yoga")),
    (
        ("Gym", "Yoga", "Sick leave", "Taxes"),
        "Should I delete Gym, Yoga and Sick leave?",
        "delete_task",
        ("Gym", "Yoga", "Sick leave"),
    ),
    (TASKS, "Should I delete Gym and Yoga, which you no longer need to keep?", "delete_task", ("Gym", "Yoga")),
    (TASKS, "¿Borro Gym y Yoga, que ya no quieres conservar?", "delete_task", ("Gym", "Yoga")),
    (TASKS, "Je supprime Gym et Yoga, que tu ne veux pas garder ?", "delete_task", ("Gym", "Yoga")),
    (TASKS, "Vuoi che elimini Gym e Yoga, che non vuoi tenere?", "delete_task", ("Gym", "Yoga")),
    (TASKS, "Ska jag ta bort Gym och Yoga som du inte vill behålla?", "delete_task", ("Gym", "Yoga")),
    (TASKS, "¿Dejo Gym y Yoga como completadas?", "complete_task", ("Gym", "Yoga")),
    (TASKS, "Quer que eu deixe Gym e Yoga como concluídas?", "complete_task", ("Gym", "Yoga")),
]


@pytest.mark.parametrize(("tasks", "question", "tool", "asked"), NOTHING_KEPT)
async def test_a_keep_word_that_keeps_nothing_takes_nothing_from_the_yes(
    make_client: MakeClient, tasks: tuple[str, ...], question: str, tool: str, asked: tuple[str, ...]
) -> None:
    client, body = await yes_to(make_client, tasks, "tidy my list", question, sweep(tool, asked))

    left = await statuses(client)
    changed = {t for t in asked if t not in left or left[t] == "completed"}
    assert changed == set(asked), body["assistant_message"]


LASSEN = ("Haare schneiden lassen", "Taxes", "Gym")


async def test_a_title_that_ends_in_a_word_for_having_it_done_is_no_keep(make_client: MakeClient) -> None:
    # German "lassen" after a verb has a thing done ("Haare schneiden lassen"): it keeps nothing.
    question = "Soll ich Haare schneiden lassen und Taxes löschen?"
    client, body = await yes_to(make_client, LASSEN, "aufräumen", question, sweep("delete_task", LASSEN[:2]))

    assert await statuses(client) == {"Gym": "pending"}, body["assistant_message"]


async def test_a_title_with_an_and_in_it_is_still_named(make_client: MakeClient) -> None:
    tasks = ("Salt and pepper", "Gym")
    client, body = await yes_to(
        make_client, tasks, "clean up", "Should I delete Salt and pepper?", sweep("delete_task", ("Salt and pepper",))
    )

    assert await statuses(client) == {"Gym": "pending"}, body["assistant_message"]
