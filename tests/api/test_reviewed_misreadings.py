"""Inputs that broke relaxations of the guard tried for issue 48 (reviewed and withdrawn on
2026-12-06), pinned through HTTP with a real database: the model makes a wrong call, and the task
the user did not ask about is not changed (asked about at most).

Each relaxation looked right on its own cases: a request frame anywhere in a clause ("… can you
mark gym as done"), a clause read in its own language when two languages read commands in it, a
model's symbol ("🎂") matching the titles holding it. Each let one of these through.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion, declares

CASES: list[tuple[tuple[str, ...], str, tuple[str, dict[str, Any]], str]] = [
    # (tasks, message, the model's call, the task that must stay as it was)
    # A frame word before a verb inside a question, someone else's act, or what the user must do.
    (("Gym", "Taxes"), "why would you delete gym?", ("delete_task", {"task_id": "Gym"}), "Gym"),
    (("Gym", "Taxes"), "what would you delete first?", ("delete_task", {"task_id": "Gym"}), "Gym"),
    (("Gym", "Taxes"), "Juan puede borrar gym", ("delete_task", {"task_id": "Gym"}), "Gym"),
    (("Gym", "Taxes"), "perché puoi cancellare gym?", ("delete_task", {"task_id": "Gym"}), "Gym"),
    (("Gym", "Taxes"), "Paul dit que tu peux supprimer gym", ("delete_task", {"task_id": "Gym"}), "Gym"),
    (("Report", "Gym"), "today I need to finish the report", ("complete_task", {"task_id": "Report"}), "Report"),
    (("Report", "Gym"), "amanhã preciso terminar o relatório", ("complete_task", {"task_id": "Report"}), "Report"),
    # An English verb before a German or Dutch title ending in a verb: the command is the English one.
    (("Alte Fotos", "Gym"), "add die alten Fotos löschen", ("delete_task", {"task_id": "Alte Fotos"}), "Alte Fotos"),
    (
        ("Oude foto's", "Gym"),
        "add de oude foto's verwijderen",
        ("delete_task", {"task_id": "Oude foto's"}),
        "Oude foto's",
    ),
    # A symbol the model sends is no title: never the task that happens to hold it.
    (("Gym", "Cancel Netflix ❌"), "delete Gym ❌", ("delete_task", {"task_id": "❌"}), "Cancel Netflix ❌"),
    (("Pay $50", "Gym"), "delete gym, it cost me $30", ("delete_task", {"task_id": "$"}), "Pay $50"),
    (
        ("Call mom", "✅ Weekly review"),
        "mark Call mom as done ✅",
        ("complete_task", {"task_id": "✅"}),
        "✅ Weekly review",
    ),
    (("🇦🇺 Visa", "Gym"), "delete the 🇺🇦 task", ("delete_task", {"task_id": "🇺🇦"}), "🇦🇺 Visa"),
    (("C++ homework", "Gym"), "delete gym +", ("delete_task", {"task_id": "+"}), "C++ homework"),
]


@pytest.mark.parametrize(("tasks", "message", "call", "kept"), CASES)
async def test_a_wrong_call_on_a_task_the_user_did_not_ask_about_never_runs(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, call: tuple[str, dict[str, Any]], kept: str
) -> None:
    llm = ScriptedLLM(calls(call), default=completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *tasks)

    body = (await chat(client, message)).json()

    left = {t["title"]: t["status"] for t in await tasks_of(client)}
    assert left.get(kept) == "pending", body["assistant_message"]
