"""A no beside a command names nothing to change (rows C11, C12 and T4 of the decision table): "add
milk, don't delete gym" with a model that adds milk and deletes Gym deletes nothing. The words of a
message that no action took were the target's words for a change of another tool, and the no's
own clause was among them, so the delete ran (found by review, 2026-12-06). The commands beside the
no still run."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import compliant

TITLES = ("Gym", "Taxes")
Call = tuple[str, dict[str, Any]]


def _add(title: str) -> Call:
    return ("add_task", {"title": title})


DELETE_GYM: Call = ("delete_task", {"task_id": "Gym"})
COMPLETE_GYM: Call = ("complete_task", {"task_id": "Gym"})
MOVE_GYM: Call = ("update_task", {"task_id": "Gym", "due_date": "2026-12-11"})
RENAME_GYM: Call = ("update_task", {"task_id": "Gym", "title": "fitness"})
DELETE_TAXES: Call = ("delete_task", {"task_id": "Taxes"})


@pytest.mark.parametrize(
    ("message", "step"),
    [
        ("add milk, do not delete gym", [_add("milk"), DELETE_GYM]),
        ("add milk but don't delete gym", [_add("milk"), DELETE_GYM]),
        ("add milk, don't touch gym", [_add("milk"), DELETE_GYM]),
        ("add milk, don't mark gym done", [_add("milk"), COMPLETE_GYM]),
        ("complete taxes, but don't delete gym", [("complete_task", {"task_id": "Taxes"}), DELETE_GYM]),
        ("añade leche, no borres gym", [_add("leche"), DELETE_GYM]),
        ("agrega leche pero no marques gym como hecha", [_add("leche"), COMPLETE_GYM]),
        ("füge Milch hinzu, lösch Gym nicht", [_add("Milch"), DELETE_GYM]),
        ("ajoute du lait, ne supprime pas gym", [_add("lait"), DELETE_GYM]),
        ("aggiungi latte, non cancellare gym", [_add("latte"), DELETE_GYM]),
        ("voeg melk toe, verwijder gym niet", [_add("melk"), DELETE_GYM]),
        ("adiciona leite, não apaga o gym", [_add("leite"), DELETE_GYM]),
        ("lägg till mjölk, ta inte bort gym", [_add("mjölk"), DELETE_GYM]),
        ("milk add kar do, gym delete mat karna", [_add("milk"), DELETE_GYM]),
        ("add milk, don't move gym to friday", [_add("milk"), MOVE_GYM]),
        ("add milk, don't rename gym to fitness", [_add("milk"), RENAME_GYM]),
        ('add "Milk", don\'t move "Gym" to friday', [_add("Milk"), MOVE_GYM]),  # a quote, as typed
        ('add milk, don\'t delete "Gym"', [_add("milk"), DELETE_GYM]),
    ],
)
async def test_a_change_the_message_says_no_to_never_runs(
    make_client: MakeClient, message: str, step: list[Call]
) -> None:
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    tasks = {t["title"]: t for t in await tasks_of(client)}
    assert "Gym" in tasks and tasks["Gym"]["status"] == "pending" and tasks["Gym"]["due_date"] is None, body
    on_gym = [c for c in body["tool_calls"] if c["arguments"].get("task_id") == "Gym"]
    assert on_gym and not any(c["result"]["success"] for c in on_gym), body["tool_calls"]


@pytest.mark.parametrize(
    ("message", "step", "gone"),
    [
        ("delete gym, don't delete taxes", [DELETE_GYM, DELETE_TAXES], {"Gym"}),
        ("don't delete gym, delete taxes", [DELETE_GYM, DELETE_TAXES], {"Taxes"}),
        (
            "add milk and delete gym, not taxes",
            [_add("milk"), DELETE_GYM, DELETE_TAXES],
            {"Gym"},
        ),
        ("borra gym, pero no taxes", [DELETE_GYM, DELETE_TAXES], {"Gym"}),
        # a no's words are cut out only as whole words, never out of a command's own ("no" of "notes")
        ("delete gym, no, delete the taxes notes", [("delete_task", {"task_id": "Taxes notes"})], {"Taxes notes"}),
        ("delete gym, no wait, delete gym and taxes", [DELETE_GYM, DELETE_TAXES], {"Gym", "Taxes"}),
    ],
)
async def test_the_commands_beside_a_no_still_run(
    make_client: MakeClient, message: str, step: list[Call], gone: set[str]
) -> None:
    titles = (*TITLES, "Taxes notes") if "notes" in message else TITLES
    llm, _ = compliant([step], titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = (await chat(client, message)).json()

    assert set(titles) - {t["title"] for t in await tasks_of(client)} == gone, body["assistant_message"]


async def test_an_add_whose_title_holds_the_words_of_a_no_is_added(make_client: MakeClient) -> None:
    llm, _ = compliant([[_add("piano gym")]], TITLES, after_tools="Hecho.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, "añade piano gym, no gym")).json()

    assert "piano gym" in {t["title"] for t in await tasks_of(client)}, body["assistant_message"]
    assert body["confirmation"] is None
