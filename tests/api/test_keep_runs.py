"""Beside a keep that names one other task, the commands run: "delete gym, keep taxes" deletes Gym.

Since 2026-12-07 a keep that names its task ("keep taxes") says no to that task and leaves the commands
beside it to a question, because what a keep's other words point to cannot always be told ("behalte
sie", "keep them", "leave that be": tests/api/test_review_keep.py). The plain case cost a yes. Now,
where each keep's words are all of one of the user's tasks' titles, and that task is not the change's
target, the change the commands name runs (row T19); where they are anything else (a pointer, two
tasks, a task and more, no task), where the message also asks, reports or says no, where the model
names a task the commands do not, the change is asked about or refused as before.
"""

from __future__ import annotations

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses, tasks_of
from support.compliant import calls_on, compliant

TITLES = ("Gym", "Taxes", "Yoga", "Call mom", "Pay rent")
DELETE, COMPLETE = "delete_task", "complete_task"

# (message, the tool the model calls, the tasks it names, the tasks left changed)
RUNS = [
    ("delete gym, keep taxes", DELETE, ("Gym",), {"Gym"}),
    ("delete gym but keep taxes please", DELETE, ("Gym",), {"Gym"}),
    ("Delete Gym and keep Taxes.", DELETE, ("Gym",), {"Gym"}),
    ("remove call mom, keep pay rent", DELETE, ("Call mom",), {"Call mom"}),
    ("please delete yoga but keep the taxes one", DELETE, ("Yoga",), {"Yoga"}),
    ("delete gym and yoga, keep taxes", DELETE, ("Gym", "Yoga"), {"Gym", "Yoga"}),
    ("can you delete gym and keep taxes?", DELETE, ("Gym",), {"Gym"}),
    ("delete gym and yoga, keep gym", DELETE, ("Yoga",), {"Yoga"}),
    ("lösche Gym und behalte Taxes", DELETE, ("Gym",), {"Gym"}),
    ("lösch Yoga, aber behalte Call mom", DELETE, ("Yoga",), {"Yoga"}),
    ("efface gym mais garde taxes", DELETE, ("Gym",), {"Gym"}),
    ("supprime yoga, garde pay rent", DELETE, ("Yoga",), {"Yoga"}),
    ("cancella gym, tieni taxes", DELETE, ("Gym",), {"Gym"}),
    ("verwijder gym, hou taxes", DELETE, ("Gym",), {"Gym"}),
    ("ta bort yoga, behåll taxes", DELETE, ("Yoga",), {"Yoga"}),
    ("mark gym done, keep taxes", COMPLETE, ("Gym",), {"Gym"}),
    ("delete gym, keep taxes for next year", DELETE, ("Gym",), {"Gym"}),
    ("delete gym, keep taxes and yoga", DELETE, ("Gym",), {"Gym"}),  # "and yoga": the keep's too
    ("lösch Gym, behalte Taxes und Yoga", DELETE, ("Gym",), {"Gym"}),
    ("supprime gym, garde taxes et yoga", DELETE, ("Gym",), {"Gym"}),
    ("delete gym and yoga, keep taxes and gym", DELETE, ("Yoga",), {"Yoga"}),
    ('delete "Gym", keep "Taxes"', DELETE, ("Gym",), {"Gym"}),  # a quoted keep took every command back
    ("lösch 'Gym', behalte 'Taxes'", DELETE, ("Gym",), {"Gym"}),
]


@pytest.mark.parametrize(("message", "tool", "named", "changed"), RUNS)
async def test_beside_a_keep_of_one_other_task_the_commands_run(
    make_client: MakeClient, message: str, tool: str, named: tuple[str, ...], changed: set[str]
) -> None:
    llm, _ = compliant([calls_on(tool, *named)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    now = await statuses(client)
    gone_or_done = {t for t in TITLES if now.get(t) != "pending"}
    assert gone_or_done == changed, body["assistant_message"]
    assert body["confirmation"] is None, body["assistant_message"]


# The model deletes the kept task too: that never runs; the command's own change does.
@pytest.mark.parametrize(
    "message",
    [
        "delete gym, keep taxes",
        "lösche Gym und behalte Taxes",
        "efface gym mais garde taxes",
        "delete gym, keep yoga and taxes",
        "lösch Gym, behalte Yoga und Taxes",
        # "but" without a comma: the keep was a part of the delete's own words, and Taxes was deleted
        "elimina gym ma tieni taxes",
        "verwijder gym maar houd taxes",
        "ta bort gym men behåll taxes",
    ],
)
async def test_the_kept_task_is_never_changed(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym", "Taxes")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    now = await statuses(client)
    assert now.get("Taxes") == "pending", body["assistant_message"]
    assert "Gym" not in now, body["assistant_message"]


# Nothing runs on the first turn: the keep's words are not one other task's whole title, the message
# asks, reports or takes back, or the model's change is not the one the commands name.
STAYS = [
    ("delete gym and yoga, keep them", DELETE, ("Gym", "Yoga")),
    ("lösch Gym und Yoga, behalte sie", DELETE, ("Gym", "Yoga")),
    ("delete gym, leave that be", DELETE, ("Gym",)),
    ("verwijder gym en yoga, hou ze allemaal", DELETE, ("Gym", "Yoga")),
    ("delete gym, keep taxes, and yoga", DELETE, ("Gym",)),  # ", and": not the keep's
    ("mark gym done, keep taxes open", COMPLETE, ("Gym",)),  # "open": more than a title
    ("delete gym, keep the receipts", DELETE, ("Gym",)),
    ("delete gym, keep gym", DELETE, ("Gym",)),
    ('delete "Gym", keep "Gym"', DELETE, ("Gym",)),
    ('delete "Gym" and "Yoga", keep them', DELETE, ("Gym", "Yoga")),
    ("should I delete gym and keep taxes?", DELETE, ("Gym",)),
    ("I deleted gym, keep taxes", DELETE, ("Gym",)),
    ("delete gym, keep taxes, wait no", DELETE, ("Gym",)),
    ("delete gym, keep taxes. actually, never mind", DELETE, ("Gym",)),
    ("don't delete gym, keep taxes", DELETE, ("Gym",)),
    ("delete gym, keep taxes", DELETE, ("Yoga",)),
    ("delete gym, keep taxes", COMPLETE, ("Gym",)),
    ("delete it, keep taxes", DELETE, ("Gym",)),
    ("delete gym, keep taxes, thanks!", DELETE, ("Gym",)),  # anything beside: asked
    ("delete gym, sorry, keep taxes", DELETE, ("Gym",)),
    ("delete gym, I mean, keep taxes", DELETE, ("Gym",)),
    ("delete gym, keep taxes, I'm done with yoga", DELETE, ("Gym", "Yoga")),
    ("complete gym, delete yoga, keep taxes", DELETE, ("Gym",)),
    ("setz Yoga auf hoch, lösch Gym, behalte Taxes", DELETE, ("Yoga",)),
]


@pytest.mark.parametrize(("message", "tool", "named"), STAYS)
async def test_otherwise_nothing_changes_unasked(
    make_client: MakeClient, message: str, tool: str, named: tuple[str, ...]
) -> None:
    llm, _ = compliant([calls_on(tool, *named)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert await statuses(client) == dict.fromkeys(TITLES, "pending"), body["assistant_message"]


# Beside adds and edits alone a keep takes nothing back: it says what not to change. (A second review
# found these refused once "ma", "maar", "men" cut before a keep, as English "…, keep …" always was.)
BESIDE_OTHERS = [
    ("add milk but keep the receipt", [("add_task", {"title": "milk"})], {"milk"}),
    ("aggiungi latte ma tieni conto del budget", [("add_task", {"title": "latte"})], {"latte"}),
    ("lägg till mjölk men behåll kvittot", [("add_task", {"title": "mjölk"})], {"mjölk"}),
    ("voeg melk toe maar houd er rekening mee", [("add_task", {"title": "melk"})], {"melk"}),
    (
        "añade leche, conserva de atún y pan",
        [("add_task", {"title": t}) for t in ("leche", "conserva de atún", "pan")],
        {"leche", "conserva de atún", "pan"},
    ),
    ("move gym to friday, keep the priority", [("update_task", {"task_id": "Gym", "due_date": "2026-11-27"})], set()),
    (
        "sposta gym a venerdì ma tieni la priorità alta",
        [("update_task", {"task_id": "Gym", "due_date": "2026-11-27"})],
        set(),
    ),
    (
        "verplaats gym naar vrijdag maar hou de prioriteit",
        [("update_task", {"task_id": "Gym", "due_date": "2026-11-27"})],
        set(),
    ),
    ("flytta gym till fredag men behåll tiden", [("update_task", {"task_id": "Gym", "due_date": "2026-11-27"})], set()),
]


@pytest.mark.parametrize(("message", "calls", "added"), BESIDE_OTHERS)
async def test_beside_adds_and_edits_a_keep_takes_nothing_back(
    make_client: MakeClient, message: str, calls: list[tuple[str, dict[str, str]]], added: set[str]
) -> None:
    llm, _ = compliant([calls], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    tasks = {t["title"]: t for t in await tasks_of(client)}
    assert added <= set(tasks), body["assistant_message"]
    if not added:
        assert tasks["Gym"]["due_date"] == "2026-11-27", body["assistant_message"]
    assert body["confirmation"] is None, body["assistant_message"]
