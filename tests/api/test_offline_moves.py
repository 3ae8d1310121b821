"""No key configured: the offline model moves a task to another day in each language, the task named by
the words before the day, not by the day (a task titled after a weekday is left alone)."""

from __future__ import annotations

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of

MOVES = [
    ("move gym to friday", "Gym"),
    ("push the dentist to next monday", "Dentist"),
    ("verschiebe Gym auf Freitag", "Gym"),
    ("déplace gym à vendredi", "Gym"),
    ("sposta palestra a venerdì", "Palestra"),
    ("verplaats gym naar vrijdag", "Gym"),
    ("mude academia para sexta", "Academia"),
    ("flytta gym till fredag", "Gym"),
    ("change the due date of taxes to friday", "Taxes"),
]


@pytest.mark.parametrize(("message", "title"), MOVES)
async def test_the_offline_model_moves_the_task_the_words_name_not_the_days_one(
    make_client: MakeClient, message: str, title: str
) -> None:
    client = await make_client(offline=True)
    # "Friday review" shares the day's name: a reference holding "friday" could be read as it.
    await seed_tasks(client, title, "Friday review", "Vrijdag borrel", "Freitag Team", "Venerdì cena")

    body = (await chat(client, message)).json()

    due = {t["title"]: t["due_date"] for t in await tasks_of(client)}
    assert due[title] is not None, body["assistant_message"]
    assert [t for t, d in due.items() if d is not None] == [title], body["assistant_message"]
