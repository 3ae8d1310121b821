"""A keep that names its task says no to that task, and leaves the commands beside it to a question.

"delete gym, keep taxes", "delete gym but keep taxes", "lösch Gym, behalte Taxes" deleted nothing and
answered with the help text (found on 2026-12-07): each language's retractions hold "keep …", "leave …",
"behalte …", "garde …" whatever follows, so a keep took back every command before it, as "delete gym,
wait, keep it" should. A keep whose words name something besides the conversation ("it", "das") and
the whole list now says no to every change of what it names. The commands beside it run where the
keep's words are all of one other task's title (tests/api/test_keep_runs.py); otherwise they are asked
about (one yes runs them), never run on the reader's word: a review found that what a keep's other
words point to cannot always be told ("delete gym, leave that be", "lösch Gym, behalte sie", "delete
gym and yoga, keep them" are take-backs; tests/api/test_review_keep.py). A command about what the keep
names is taken back ("delete gym, actually keep gym").
"""

from __future__ import annotations

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.compliant import calls_on, compliant

TITLES = ("Gym", "Taxes", "Yoga")
DELETE = "delete_task"

KEEPS = [
    "delete gym, keep taxes",
    "delete gym but keep taxes",
    "delete gym and keep taxes",
    "remove gym, leave taxes",
    "delete gym, keep the taxes task",
    "lösch Gym, behalte Taxes",
    "lösch Gym, aber behalte die Taxes",
    "supprime gym, garde taxes",
    "cancella gym, tieni taxes",
    "verwijder gym, hou taxes",
    "ta bort gym, behåll taxes",
    "gym delete kar do, taxes ko rehne do",
    "delete gym, keep taxes for now",  # a closing word says no more of what is kept (`keep_after`)
    "supprime gym, garde taxes pour l'instant",
    "delete gym, leave taxes alone",
]


@pytest.mark.parametrize("message", KEEPS)
async def test_beside_a_keep_of_one_task_the_commands_run(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert await statuses(client) == {"Taxes": "pending", "Yoga": "pending"}, body["assistant_message"]


# The keep's words are not one other task's whole title: the commands beside it are asked about.
_ASKED = {
    "delete gym, keep the receipts": "yes",
    "lösch Gym, behalte sie": "ja",
    "delete gym, keep taxes open for now": "yes",
}


@pytest.mark.parametrize(("message", "yes"), list(_ASKED.items()))
async def test_beside_any_other_keep_the_commands_are_asked_about(
    make_client: MakeClient, message: str, yes: str
) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, message)).json()
    assert "Gym" in await statuses(client), first["assistant_message"]
    assert first["confirmation"] is not None, first["assistant_message"]
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()

    assert await statuses(client) == {"Taxes": "pending", "Yoga": "pending"}, body["assistant_message"]


@pytest.mark.parametrize("message", KEEPS)
async def test_what_a_keep_names_is_never_changed(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym", "Taxes")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert (await statuses(client)).get("Taxes") == "pending", body["assistant_message"]


@pytest.mark.parametrize(
    "message",
    [
        "delete gym, wait, keep it",
        "delete gym, keep it",
        "delete gym, leave it",
        "delete gym, leave it alone",
        "delete gym, no, keep it for now",
        "delete gym, actually keep everything",
        "lösch Gym, ach behalte es doch",
        "supprime gym, laisse tomber",
        "supprime gym, garde-le",
        "cancella gym, lascialo",
        "verwijder gym, hou het maar",
    ],
)
async def test_a_keep_of_it_still_takes_the_request_back(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert "Gym" in await statuses(client), body["assistant_message"]


@pytest.mark.parametrize(
    ("message", "left"),
    [
        ("delete gym, keep gym", {"Gym", "Taxes", "Yoga"}),
        ("delete gym. actually keep gym", {"Gym", "Taxes", "Yoga"}),
        ("delete the gym, on second thought keep the gym", {"Gym", "Taxes", "Yoga"}),
        ("lösch Gym. Ach, behalte Gym doch", {"Gym", "Taxes", "Yoga"}),
        ("delete gym and yoga, keep gym", {"Gym", "Taxes"}),  # the keep names Gym, all its title
        ("supprime gym et yoga, garde gym", {"Gym", "Taxes"}),
    ],
)
async def test_a_keep_of_what_a_command_names_takes_that_command_back(
    make_client: MakeClient, message: str, left: set[str]
) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym", "Yoga")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert set(await statuses(client)) == left, body["assistant_message"]
