"""A no says no to its own change only (`Intent.says_no_to`; row T4 of the decision table).

"don't delete gym, complete it" completed nothing and answered "Nothing was changed.": what the no
named was content for every change, so the completion's "it" named no task (found on 2026-12-06).
Where the words beside a no name no task and nothing says no to the change asked, the no's words
say what "it" is. What a no names is still never the target of its own change (said with any of
its verbs: "never delete or complete gym"), nor of a change the other words name themselves
("don't delete gym, complete taxes"; "don't delete gym, I only finished taxes, mark it done").
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.compliant import calls_on, compliant

TITLES = ("Gym", "Taxes", "Yoga")
DONE = "complete_task"
Call = tuple[str, dict[str, Any]]


# (message, the change asked, the tasks it is asked of): a no to another change names them
ASKED = [
    ("don't delete gym, complete it", DONE, {"Gym"}),
    ("don't delete gym, complete it first", DONE, {"Gym"}),  # "first": when, no place in a list
    ("no borres gym, márcalo como hecho primero", DONE, {"Gym"}),
    ("please don't remove gym, just tick it off", DONE, {"Gym"}),
    ("do not delete gym. mark it complete instead", DONE, {"Gym"}),
    ("don't complete gym, delete it", "delete_task", {"Gym"}),
    ("no borres gym, márcalo como hecho", DONE, {"Gym"}),
    ("no borres gym y taxes, márcalas como hechas", DONE, {"Gym", "Taxes"}),
    ("lösch Gym nicht, sondern hak es ab", DONE, {"Gym"}),
    ("ne supprime pas gym, marque-le comme fait", DONE, {"Gym"}),
    ("ne supprime pas gym et taxes, marque-les comme faites", DONE, {"Gym", "Taxes"}),
    ("non cancellare gym, segnalo come fatto", DONE, {"Gym"}),
    ("non cancellare gym e taxes, segnale come fatte", DONE, {"Gym", "Taxes"}),
    ("não apague gym, marque-o como feito", DONE, {"Gym"}),
    ("não apague gym e taxes, marque-as como feitas", DONE, {"Gym", "Taxes"}),
    ("verwijder gym niet, vink het af", DONE, {"Gym"}),
    ("ta inte bort gym, bocka av den", DONE, {"Gym"}),
    ("gym delete mat karo, usay complete kar do", DONE, {"Gym"}),
    # what an exception leaves out of a change of every task is left out of that change only
    ("delete everything except gym, and complete it", DONE, {"Gym"}),
]


@pytest.mark.parametrize(("message", "tool", "asked"), ASKED)
async def test_a_change_of_what_a_no_to_another_change_names_runs(
    make_client: MakeClient, message: str, tool: str, asked: set[str]
) -> None:
    llm, _ = compliant([calls_on(tool, *sorted(asked))], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    done = "completed" if tool == DONE else None
    assert all(left.get(t) == done for t in asked), (left, body["assistant_message"])
    assert all(left[t] == "pending" for t in set(TITLES) - asked), (left, body["assistant_message"])
    assert body["confirmation"] is None, body["assistant_message"]


@pytest.mark.parametrize(
    "message",
    [
        "don't delete gym, complete it",
        "no borres gym, márcalo como hecho",
        "verwijder gym niet, vink het af",
        "ta inte bort gym, bocka av den",
    ],
)
async def test_a_model_that_only_claims_is_made_to_do_it(make_client: MakeClient, message: str) -> None:
    llm, model = compliant([calls_on(DONE, "Gym")], TITLES, ghost="Done, it's completed!", after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert model.forced_calls == [DONE], body["assistant_message"]
    assert await statuses(client) == {"Gym": "completed", "Taxes": "pending", "Yoga": "pending"}
    assert "Gym" in body["assistant_message"]


# (message, the model's calls, what is changed after it): a no still holds for its own change (said
# with another verb too), and "it" is what the words beside the no name, where they name a task
HOLDS = [
    # a model that deletes instead: the delete is refused, the completion asked for is forced
    ("don't delete gym, complete it", calls_on("delete_task", "Gym"), {"Gym": "completed"}),
    ("no borres gym, márcalo como hecho", calls_on("delete_task", "Gym"), {"Gym": "completed"}),
    ("don't delete gym, delete it", calls_on("delete_task", "Gym"), {}),
    ("don't delete gym, complete taxes", calls_on(DONE, "Gym", "Taxes"), {"Taxes": "completed"}),
    ("don't delete gym and taxes, mark yoga done", calls_on(DONE, "Gym", "Taxes", "Yoga"), {"Yoga": "completed"}),
    ("ne supprime pas gym, marque taxes comme fait", calls_on(DONE, "Gym", "Taxes"), {"Taxes": "completed"}),
    ("lösch Gym nicht, hak Taxes ab", calls_on(DONE, "Gym", "Taxes"), {"Taxes": "completed"}),
    # found by review: a no of two verbs, a no of each verb, "it" that the words beside the no name
    ("never delete or complete gym. complete it", calls_on(DONE, "Gym"), {}),
    ("Gym nicht löschen und nicht abhaken. Hak es ab", calls_on(DONE, "Gym"), {}),
    (
        "don't delete gym or mark it done. yoga is done, mark it done",
        calls_on(DONE, "Gym", "Yoga"),
        {"Yoga": "completed"},
    ),
    (
        "Gym bitte nicht löschen und nicht abhaken. Yoga ist fertig, hak sie ab",
        calls_on(DONE, "Gym", "Yoga"),
        {"Yoga": "completed"},
    ),
    ("don't delete gym. I only finished taxes, mark it done", calls_on(DONE, "Gym", "Taxes"), {"Taxes": "completed"}),
    ("lösch Gym nicht. Taxes ist erledigt, hak sie ab", calls_on(DONE, "Gym", "Taxes"), {"Taxes": "completed"}),
    ("no borres gym, ya terminé taxes, márcala como hecha", calls_on(DONE, "Gym", "Taxes"), {"Taxes": "completed"}),
]


@pytest.mark.parametrize(
    "message",
    ["don't delete gym, complete #2", "don't delete gym, complete task 2", "don't delete gym, complete the first one"],
)
async def test_a_place_in_a_list_is_never_what_a_no_names(make_client: MakeClient, message: str) -> None:
    # found by review: "#2" named no task, so the no's Gym became the target (and was asked about)
    llm, _ = compliant([calls_on(DONE, "Taxes")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert (await statuses(client))["Gym"] == "pending", body["assistant_message"]
    assert "Gym" not in body["assistant_message"], body["assistant_message"]


@pytest.mark.parametrize(("message", "step", "changed"), HOLDS)
async def test_a_no_still_holds_for_its_own_change(
    make_client: MakeClient, message: str, step: list[Call], changed: dict[str, str]
) -> None:
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert await statuses(client) == {**dict.fromkeys(TITLES, "pending"), **changed}, body["assistant_message"]


def test_a_no_that_goes_on_past_what_is_read_of_it_says_no_to_every_change() -> None:
    # Each verb after a no costs a read of the rest of its clause: a clause of 4,000 characters with
    # a verb every few words cost 240 ms (the reader bench, 2026-12-07). Past six verbs, or a next
    # verb 200 characters on, the no is read as one to every change: the safer reading.
    from backend.app.language.reading.intent import classify

    two = classify("never delete or complete gym")
    many = classify(" ".join(["don't delete gym"] + ["or complete it"] * 8))
    far = classify("don't delete gym " + "because " * 40 + "or complete it")

    assert set(two.declined_tools[0][1]) == {"delete_task", "complete_task"} and not two.says_no_to("update_task")
    assert many.declined and many.says_no_to("update_task")
    assert far.says_no_to("update_task") and far.says_no_to("add_task")


# A no that ends with its verb, then the rest of its list of verbs after a comma, with an "or":
# one no ("never delete, complete or move gym"), not a no and a command to complete "or move gym"
# (found on 2026-12-07: a model that completed Gym on it was run).
LISTED = [
    "never delete, complete or move gym",
    "please don't delete, complete or reschedule gym",
    "never remove, tick off or move gym",
    "nunca borres, completes o muevas gym",
    "não apague, complete ou mova gym",
    "non cancellare, completare o spostare gym",
    # where the no follows the verb, and a separable verb's particle after the no
    "verwijder niet, vink af of verplaats gym",
    "verwijder nooit, vink af of verplaats gym",
    "ta inte bort, bocka av eller flytta gym",
    "ta aldrig bort, bocka av eller flytta gym",
    "stryk inte, bocka av eller flytta gym",
    "lösch nicht, hak ab oder verschieb Gym",
    "lösche niemals, hake ab oder verschiebe Gym",
]


@pytest.mark.parametrize("message", LISTED)
async def test_a_list_of_verbs_after_a_no_is_all_of_it_no(make_client: MakeClient, message: str) -> None:
    from backend.app.language.reading.intent import classify

    assert classify(message).actions == ()
    llm, _ = compliant([calls_on(DONE, "Gym")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert await statuses(client) == dict.fromkeys(TITLES, "pending"), body["assistant_message"]


def test_a_command_after_a_bare_no_is_still_a_command() -> None:
    from backend.app.language.reading.intent import classify

    for message in (
        "don't delete, just complete it",
        "don't delete gym, complete or move it",
        "verwijder gym niet, vink af of verplaats taxes",
        "ta inte bort gym, bocka av eller flytta taxes",
        "lösch nicht, sondern hak ab oder verschieb Gym",
        "verwijder niet, vink gym af",
    ):
        assert classify(message).kind == "command", message


# A word of no that closes a clause after a title with a number ("el item 3 no", "Item 3 nicht"):
# the number is the title's, no word of its own; it was not read, and a model that deleted Item 3
# on it was run (found by a review on 2026-12-07). Not in French, where "pas" after a number is steps
# (`closing_not_after_number = false`): "supprime gym, l'item 3 non" is not read so.
NUMBERED = ("Gym", "Item 2", "Item 3", "Item 4")


@pytest.mark.parametrize(
    "message",
    [
        "borra gym, el item 3 no",
        "borra gym y el item 3 no",
        "lösch Gym, Item 3 nicht",
        "verwijder gym, item 3 niet",
        "ta bort gym, item 3 inte",
        "cancella gym, l'item 3 no",
        "apague gym, o item 3 não",
        "gym delete karo, item 3 nahi",
    ],
)
async def test_a_closing_no_after_a_numbered_title_keeps_it(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([calls_on("delete_task", "Gym", "Item 3")], NUMBERED, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *NUMBERED)

    body = (await chat(client, message)).json()

    assert await statuses(client) == dict.fromkeys(NUMBERED[1:], "pending"), body["assistant_message"]
