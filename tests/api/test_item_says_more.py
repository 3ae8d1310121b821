"""A verbless item of a delete or a completion that says something of its own beside the task's
title ("delete gym, taxes can stay") is not one more item of that change: what it says is not read,
so the change the model makes on that task is asked about, never run (tools/references.py
`_naming`; tools/titles.py `says_more`).

"delete gym, taxes can stay", "lösch Gym, Item 3 bleibt", "delete gym and yoga, taxes is fine" read
the second clause as one more item of the delete: a model that deleted Taxes was run (found on
2026-12-07). A verb no list holds ("can stay", "bleibt", "se queda") cannot be read; that the clause
says more than the title can. An item that says only the title and words that qualify an item
("taxes too", "taxes as well", "the taxes task", "taxes please") stays an item, and runs. Before a
verb that comes last, an item counts so only where the verb's clause names a task itself ("Taxes
bleibt, Gym löschen"); before one that names none, the item says what the change is about ("taxes
ist erledigt, kannst du abhaken")."""

from __future__ import annotations

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.compliant import calls_on, compliant

TITLES = ("Gym", "Taxes", "Yoga", "Item 3")
DELETE, DONE = "delete_task", "complete_task"

# (message, the change, the task the item says more of): never changed
SAYS_MORE = [
    ("delete gym, taxes can stay", DELETE, "Taxes"),
    ("delete gym, taxes stays", DELETE, "Taxes"),
    ("delete gym and yoga, taxes is fine", DELETE, "Taxes"),
    ("remove gym, taxes stays put", DELETE, "Taxes"),
    ("get rid of gym, taxes remains", DELETE, "Taxes"),
    ("delete gym, item 3 is staying", DELETE, "Item 3"),
    ("lösch Gym, Item 3 bleibt", DELETE, "Item 3"),
    ("lösch Gym, Taxes kann bleiben", DELETE, "Taxes"),
    ("borra gym, taxes se queda", DELETE, "Taxes"),
    ("elimina gym, taxes puede quedarse", DELETE, "Taxes"),
    ("supprime gym, taxes reste", DELETE, "Taxes"),
    ("cancella gym, taxes resta", DELETE, "Taxes"),
    ("apaga gym, taxes fica", DELETE, "Taxes"),
    ("verwijder gym, taxes blijft", DELETE, "Taxes"),
    ("ta bort gym, taxes får stanna", DELETE, "Taxes"),
    ("mark gym done, taxes is still open", DONE, "Taxes"),
    ("mark gym as done, taxes still needs work", DONE, "Taxes"),
    ("hak Gym ab, Taxes ist noch offen", DONE, "Taxes"),
    ("marca gym como hecho, taxes sigue pendiente", DONE, "Taxes"),
    # a word that judges the task, or says no, is more than the title
    ("delete gym, taxes is ok", DELETE, "Taxes"),
    ("lösch Gym, Taxes gut so", DELETE, "Taxes"),
    ("verwijder gym, taxes is prima", DELETE, "Taxes"),
    ("delete gym, taxes no", DELETE, "Taxes"),
    # before a verb that comes last, whose own clause names a task
    ("Taxes bleibt, Gym löschen", DELETE, "Taxes"),
    ("Taxes kann bleiben, Gym bitte löschen", DELETE, "Taxes"),
    ("taxes blijft, gym verwijderen", DELETE, "Taxes"),
    ("Taxes ist noch offen, Gym abhaken", DONE, "Taxes"),
]


@pytest.mark.parametrize(("message", "tool", "kept"), SAYS_MORE)
async def test_an_item_that_says_more_than_its_title_is_not_changed(
    make_client: MakeClient, message: str, tool: str, kept: str
) -> None:
    llm, _ = compliant([calls_on(tool, "Gym", kept)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert left.get(kept) == "pending", body["assistant_message"]
    assert ("Gym" not in left) if tool == DELETE else left["Gym"] == "completed", body["assistant_message"]


# (message, the change, the tasks it names): every item runs, nothing is asked
ITEMS = [
    ("delete gym, taxes", DELETE, ("Gym", "Taxes")),
    ("delete gym, taxes too", DELETE, ("Gym", "Taxes")),
    ("delete gym, taxes as well", DELETE, ("Gym", "Taxes")),
    ("delete gym, the taxes task", DELETE, ("Gym", "Taxes")),
    ("delete gym, taxes please", DELETE, ("Gym", "Taxes")),
    ("delete gym, also taxes", DELETE, ("Gym", "Taxes")),
    ("delete gym, taxes, yoga", DELETE, ("Gym", "Taxes", "Yoga")),
    ("delete gym, item 3 too", DELETE, ("Gym", "Item 3")),
    ("lösch Gym, Taxes auch", DELETE, ("Gym", "Taxes")),
    ("lösch Gym, auch Taxes bitte", DELETE, ("Gym", "Taxes")),
    ("borra gym, taxes también", DELETE, ("Gym", "Taxes")),
    ("supprime gym, taxes aussi", DELETE, ("Gym", "Taxes")),
    ("cancella gym, anche taxes", DELETE, ("Gym", "Taxes")),
    ("apaga gym, taxes também", DELETE, ("Gym", "Taxes")),
    ("verwijder gym, taxes ook", DELETE, ("Gym", "Taxes")),
    ("ta bort gym, taxes också", DELETE, ("Gym", "Taxes")),
    ("complete gym, taxes too", DONE, ("Gym", "Taxes")),
    ("mark gym done, taxes today", DONE, ("Gym", "Taxes")),
    ("delete gym, taxes right away", DELETE, ("Gym", "Taxes")),
    ("lösch Gym und Yoga sofort", DELETE, ("Gym", "Yoga")),
    ("borra gym y taxes ahora mismo", DELETE, ("Gym", "Taxes")),
    ("delete gym, same for taxes", DELETE, ("Gym", "Taxes")),
    ("gym delete kar do, taxes bhi", DELETE, ("Gym", "Taxes")),
    ("Taxes, Gym löschen", DELETE, ("Gym", "Taxes")),
    ("Taxes auch, Gym löschen", DELETE, ("Gym", "Taxes")),
    # before a verb that comes last whose clause names nothing: the item says what it is about
    ("taxes ist erledigt, kannst du abhaken", DONE, ("Taxes",)),
    ("taxes is klaar, vink maar af", DONE, ("Taxes",)),
    ("taxes jama kara diya, complete mark kar do", DONE, ("Taxes",)),
]


@pytest.mark.parametrize(("message", "tool", "named"), ITEMS)
async def test_an_item_of_its_title_alone_still_runs(
    make_client: MakeClient, message: str, tool: str, named: tuple[str, ...]
) -> None:
    llm, _ = compliant([calls_on(tool, *named)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    for title in named:
        assert (title not in left) if tool == DELETE else left[title] == "completed", body["assistant_message"]
    assert not body.get("choices"), body["assistant_message"]


# An item whose own words mean the change is asked about too: what they say is not read either way.
@pytest.mark.parametrize(
    "message",
    [
        "lösch Gym und Taxes brauch ich nicht",
        "delete gym, taxes is pointless now",
        "borra gym, taxes ya sobra",
        "delete gym and taxes or not",
    ],
)
async def test_an_item_that_says_more_is_asked_about(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym", "Taxes")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert (await statuses(client)).get("Taxes") == "pending", body["assistant_message"]
    assert "Gym" not in await statuses(client), body["assistant_message"]
    assert "Taxes" in body["assistant_message"].splitlines()[-1], body["assistant_message"]
    assert body["confirmation"] is not None, body["assistant_message"]
