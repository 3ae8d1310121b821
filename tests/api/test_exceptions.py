"""What a change of the whole list leaves out is never changed (the reader's `exception` words,
language/reading/exceptions.py; rows T4 and T15 of the decision table).

"delete all except gym" with a model that deletes every task deleted Gym at once: the words "all
except gym" named it (pre-existing, found by review on 2026-12-06), and "delete everything but gym"
read a delete *of* gym ("but" split the clause, "gym" became an item). The model's own "Should I
delete everything except Gym?" had a yes delete Gym too. What an exception names is now the
message's (or the question's) no: content, never a target. The rest of the list is asked about
once, and its yes does the rest.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses, tasks_of
from support.compliant import compliant
from support.fake_llm import ScriptedLLM, calls, completion, declares

TITLES = ("Gym", "Taxes", "Yoga")
Call = tuple[str, dict[str, Any]]


def _every(tool: str) -> list[Call]:
    return [(tool, {"task_id": t}) for t in TITLES]


async def _yes_if_asked(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    """The reply to a yes where the turn asked the user first (a change of every task is asked about once)."""
    if body.get("confirmation") is None:
        return body
    reply: dict[str, Any] = (await chat(client, "yes", conversation_id=body["conversation_id"])).json()
    return reply


@pytest.mark.parametrize(
    ("message", "tool", "kept"),
    [
        ("clear out everything except for gym", "delete_task", {"Gym"}),
        ("remove all my tasks other than gym", "delete_task", {"Gym"}),
        ("please delete every task except the gym one", "delete_task", {"Gym"}),
        ("delete all of them but Gym", "delete_task", {"Gym"}),
        ("delete all, except gym", "delete_task", {"Gym"}),
        ("except gym, delete everything", "delete_task", {"Gym"}),
        ("delete everything but gym and yoga", "delete_task", {"Gym", "Yoga"}),
        ("tick off all of them except gym and yoga", "complete_task", {"Gym", "Yoga"}),
        ("elimina todas excepto gym", "delete_task", {"Gym"}),
        ("quita todo menos gym y yoga", "delete_task", {"Gym", "Yoga"}),
        ("lösch alle außer Gym", "delete_task", {"Gym"}),
        ("bitte alles außer Gym und Yoga löschen", "delete_task", {"Gym", "Yoga"}),
        ("supprime toutes les tâches sauf gym", "delete_task", {"Gym"}),
        ("cancella tutte le attività eccetto gym", "delete_task", {"Gym"}),
        ("verwijder alle taken behalve gym", "delete_task", {"Gym"}),
        ("exclui todas as tarefas exceto gym", "delete_task", {"Gym"}),
        ("ta bort alla uppgifter förutom gym", "delete_task", {"Gym"}),
        ("gym ke ilawa sab delete kar do", "delete_task", {"Gym"}),
        ("gym aur yoga ke siwa sab delete kar do", "delete_task", {"Gym", "Yoga"}),
        # found by review: an exception word after what it leaves out, a typo, contracted forms
        ("alles löschen, Gym ausgenommen", "delete_task", {"Gym"}),
        ("cancella tutto, gym escluso", "delete_task", {"Gym"}),
        ("delete everything exept gym", "delete_task", {"Gym"}),
        ("delete all tasks besides gym", "delete_task", {"Gym"}),
        ("gym ko chhod ke sab delete karo", "delete_task", {"Gym"}),
        ("borra todo aparte del gym", "delete_task", {"Gym"}),
        ("borra todas a excepción del gym", "delete_task", {"Gym"}),
        # found by the second review: a quoted title, more words between "all" and "but"
        ('delete all but "Gym"', "delete_task", {"Gym"}),
        ("mark all done but “Gym”", "complete_task", {"Gym"}),
        ("delete all the tasks on my list but gym", "delete_task", {"Gym"}),
        # found by the fifth review: "but" before a relative clause, a reason; "fora", "fuera de"
        ("delete everything but gym which is due tomorrow", "delete_task", {"Gym"}),
        ("delete everything but gym because it is important", "delete_task", {"Gym"}),
        ("delete everything but gym also yoga", "delete_task", {"Gym", "Yoga"}),
        ("apague tudo fora o gym", "delete_task", {"Gym"}),
        ("borra todo fuera de gym", "delete_task", {"Gym"}),
        ("borra todas las tareas de mi lista menos gym", "delete_task", {"Gym"}),
        # an exception word that leaves out only right after a set, after a comma (2026-12-07)
        ("borra todo, menos gym", "delete_task", {"Gym"}),
        ("quita todas las tareas, salvo gym y yoga", "delete_task", {"Gym", "Yoga"}),
        ("lösch alles, bis auf Gym", "delete_task", {"Gym"}),
        ("delete everything, besides gym", "delete_task", {"Gym"}),
        ("marca todo como hecho, menos gym", "complete_task", {"Gym"}),
    ],
)
async def test_what_a_change_of_every_task_leaves_out_is_never_changed(
    make_client: MakeClient, message: str, tool: str, kept: set[str]
) -> None:
    llm, _ = compliant([_every(tool)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert all(left.get(t) == "pending" for t in kept), (left, body["assistant_message"])
    on_kept = [c for c in body["tool_calls"] if c["arguments"]["task_id"] in kept]
    assert on_kept and not any(c["result"]["success"] for c in on_kept), body["tool_calls"]


@pytest.mark.parametrize(
    ("message", "yes"),
    [
        ("delete everything except gym", "yes"),
        ("borra todo salvo gym", "sí"),
        ("lösche alle Aufgaben bis auf Gym", "ja"),
        ("apaga tudo menos o gym", "sim"),
    ],
)
async def test_the_yes_to_the_rest_changes_only_the_rest(make_client: MakeClient, message: str, yes: str) -> None:
    llm, _ = compliant([_every("delete_task")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, message)).json()
    assert set(await statuses(client)) == set(TITLES), first["assistant_message"]
    await chat(client, yes, conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == {"Gym"}


@pytest.mark.parametrize(
    ("question", "yes", "kept"),
    [
        ("Should I delete everything except Gym?", "yes please", {"Gym"}),
        ("Do you want me to remove all your tasks, except Gym and Yoga?", "yes", {"Gym", "Yoga"}),
        ("Should I delete everything, but not Taxes?", "sure", {"Taxes"}),
        ("¿Quieres que borre todas menos Gym?", "sí", {"Gym"}),
        ("Soll ich alles außer Gym löschen?", "ja", {"Gym"}),
        ("Soll ich alles außer Gym und Yoga löschen?", "ja, bitte", {"Gym", "Yoga"}),
        ("Je supprime tout sauf Gym ?", "oui", {"Gym"}),
        ("Zal ik alles behalve Gym verwijderen?", "ja", {"Gym"}),
        ("Vuoi che cancelli tutto tranne Gym?", "sì", {"Gym"}),
        ("Soll ich alles löschen außer Gym?", "ja", {"Gym"}),  # the verb before the exception
        ("Zal ik alles verwijderen behalve Gym?", "ja", {"Gym"}),
        ("Should I delete all tasks but “Gym”?", "yes", {"Gym"}),
        # after a comma (2026-12-07: their yes deleted what they leave out)
        ("¿Borro todo, menos Gym?", "sí", {"Gym"}),
        ("¿Borro todas las tareas, salvo Gym y Yoga?", "sí", {"Gym", "Yoga"}),
        ("Soll ich alles löschen, bis auf Gym?", "ja", {"Gym"}),
        ("Should I delete everything, besides Gym?", "yes", {"Gym"}),
    ],
)
async def test_a_yes_to_the_models_question_leaves_out_what_it_leaves_out(
    make_client: MakeClient, question: str, yes: str, kept: set[str]
) -> None:
    llm = ScriptedLLM(completion(question), calls(*_every("delete_task")), completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, "clean up my list")).json()
    assert first["assistant_message"].endswith(question), first["assistant_message"]
    await chat(client, yes, conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == kept


@pytest.mark.parametrize(
    ("message", "step", "added"),
    [
        # an add keeps its words: they are a title
        (
            "add pack everything except the charger",
            [("add_task", {"title": "pack everything except the charger"})],
            "pack everything except the charger",
        ),
        (
            "add milk, eggs except organic",
            [("add_task", {"title": "milk"}), ("add_task", {"title": "eggs except organic"})],
            "eggs except organic",
        ),
        # a command after "but" is a command, not what the change of every task leaves out
        ("delete them all but add milk first", [("add_task", {"title": "milk"}), *_every("delete_task")], "milk"),
        (
            "alles außer Gym löschen und Milch hinzufügen",
            [*_every("delete_task"), ("add_task", {"title": "Milch"})],
            "Milch",
        ),
    ],
)
async def test_the_commands_beside_an_exception_still_run(
    make_client: MakeClient, message: str, step: list[Call], added: str
) -> None:
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert added in await statuses(client), (body["assistant_message"], body["tool_calls"])


async def test_a_title_that_opens_with_an_exception_word_is_a_title(make_client: MakeClient) -> None:
    llm, _ = compliant([[("delete_task", {"task_id": "Apart from home"})]], ("Apart from home", "Gym"))
    client = await make_client(llm)
    await seed_tasks(client, "Apart from home", "Gym")

    await chat(client, "delete apart from home")

    assert set(await statuses(client)) == {"Gym"}


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which should I delete? 1) everything except Gym 2) only Taxes", "1"),
        ("¿Qué borro?\n1. todo menos Gym\n2. solo Taxes", "1"),
    ],
)
async def test_an_option_that_leaves_out_leaves_it_out(make_client: MakeClient, question: str, answer: str) -> None:
    llm = ScriptedLLM(completion(question), calls(*_every("delete_task")), completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, "delete some tasks")).json()
    await chat(client, answer, conversation_id=first["conversation_id"])

    assert "Gym" in await statuses(client)


@pytest.mark.parametrize(
    ("message", "step", "done"),
    [
        # an exception ends with its sentence
        (
            "Delete everything except gym. Taxes and yoga, mark them done.",
            [("delete_task", {"task_id": "Milk"}), ("complete_task", {"task_id": "Taxes"})],
            "Taxes",
        ),
        (
            "Lösch alles außer Gym. Taxes als erledigt markieren.",
            [("delete_task", {"task_id": "Milk"}), ("complete_task", {"task_id": "Taxes"})],
            "Taxes",
        ),
        # "apart from that" leaves nothing out
        (
            "Borra gym. Salvo eso, taxes, márcala como hecha.",
            [("delete_task", {"task_id": "Gym"}), ("complete_task", {"task_id": "Taxes"})],
            "Taxes",
        ),
        (
            "Delete gym. Other than that, mark taxes done.",
            [("delete_task", {"task_id": "Gym"}), ("complete_task", {"task_id": "Taxes"})],
            "Taxes",
        ),
        # a title with an exception word, after "the", "my"
        (
            "mark the save for retirement task done",
            [("complete_task", {"task_id": "Save for retirement"})],
            "Save for retirement",
        ),
        (
            "complete my Other than that note",
            [("complete_task", {"task_id": "Other than that note"})],
            "Other than that note",
        ),
        ("mark the task save for car done", [("complete_task", {"task_id": "Save for car"})], "Save for car"),
        # an exception in a report leaves nothing out of the command after it
        ("all good except gym, mark it done", [("complete_task", {"task_id": "Gym"})], "Gym"),
        ("todo listo menos gym, márcala como hecha", [("complete_task", {"task_id": "Gym"})], "Gym"),
        ("I got through everything but gym today, just mark it done", [("complete_task", {"task_id": "Gym"})], "Gym"),
    ],
)
async def test_what_leaves_nothing_out_changes_what_was_asked(
    make_client: MakeClient, message: str, step: list[Call], done: str
) -> None:
    titles = (*TITLES, "Milk", "Save for retirement", "Other than that note", "Save for car")
    llm, _ = compliant([step], titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = await _yes_if_asked(client, (await chat(client, message)).json())

    assert (await statuses(client)).get(done) == "completed", (body["assistant_message"], body["tool_calls"])


@pytest.mark.parametrize(
    ("message", "step", "gone"),
    [
        # found by the fourth review: "but … too" adds, and "fora do prazo" is "overdue"
        ("delete all the done ones, but gym as well", [("delete_task", {"task_id": "Gym"})], {"Gym"}),
        ("mark everything done but yoga is done too", [("complete_task", {"task_id": "Yoga"})], {"Yoga"}),
        ("apaga todas as tarefas fora do prazo", [("delete_task", {"task_id": "Prazo do IRS"})], {"Prazo do IRS"}),
        (
            "gym ke alawa yoga bhi delete kar do",
            [("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Yoga"})],
            {"Gym", "Yoga"},
        ),  # "besides gym, yoga too"
        (
            "delete gym but also yoga",
            [("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Yoga"})],
            {"Gym", "Yoga"},
        ),
    ],
)
async def test_besides_is_no_exception(make_client: MakeClient, message: str, step: list[Call], gone: set[str]) -> None:
    titles = (*TITLES, "Prazo do IRS")
    llm, _ = compliant([step], titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    await _yes_if_asked(client, (await chat(client, message)).json())

    left = await statuses(client)
    assert not any(left.get(t) == "pending" for t in gone), left


async def test_an_option_whose_title_holds_an_exception_word_is_that_title(make_client: MakeClient) -> None:
    question = "Which one should I delete? 1) Save for car 2) Gym"
    llm = ScriptedLLM(
        completion(question),
        calls(("delete_task", {"task_id": "Save for car"})),
        completion("Done."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Save for car", "Gym")

    first = (await chat(client, "delete one of them")).json()
    await chat(client, "1", conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == {"Gym"}


@pytest.mark.parametrize(
    "message",
    [
        "set everything to high except gym to low",
        "setze alles auf hohe Priorität außer Gym auf niedrige",
        "mets tout en priorité haute sauf gym en basse",
        "set all to high but gym to low",
        "set everything to high priority, but gym to low",
    ],
)
async def test_an_exception_with_a_value_of_its_own_is_another_change(make_client: MakeClient, message: str) -> None:
    # found by the second and third reviews: "except gym to low" is Gym's own change, not what the
    # edit leaves out
    step = [
        *[("update_task", {"task_id": t, "priority": "high"}) for t in ("Taxes", "Yoga")],
        ("update_task", {"task_id": "Gym", "priority": "low"}),
    ]
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = await _yes_if_asked(client, (await chat(client, message)).json())

    priorities = {t["title"]: t["priority"] for t in await tasks_of(client)}
    assert priorities == {"Gym": "low", "Taxes": "high", "Yoga": "high"}, body["assistant_message"]


@pytest.mark.parametrize(
    ("message", "titles", "kept"),
    [
        ("delete everything but the gym bag", ("Gym bag", "Taxes", "Yoga"), "Gym bag"),
        ("delete everything but gym please", TITLES, "Gym"),
        ("delete all of them but the gym task", TITLES, "Gym"),
        ("delete everything except gym today", TITLES, "Gym"),
    ],
)
async def test_the_common_phrasings_leave_out(
    make_client: MakeClient, message: str, titles: tuple[str, ...], kept: str
) -> None:
    llm, _ = compliant([[("delete_task", {"task_id": t}) for t in titles]], titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = await _yes_if_asked(client, (await chat(client, message)).json())

    assert set(await statuses(client)) == {kept}, body["assistant_message"]


async def test_a_question_that_reports_first_still_grounds_its_change(make_client: MakeClient) -> None:
    question = "Everything else is done except Gym, should I mark it as done?"
    llm = ScriptedLLM(
        completion(question), calls(("complete_task", {"task_id": "Gym"})), completion("Done."), checker=declares()
    )
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, "how am I doing?")).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert (await statuses(client))["Gym"] == "completed"


async def test_a_value_after_the_exception_is_the_whole_changes(make_client: MakeClient) -> None:
    # "move everything except gym to friday": friday is the move's, and Gym stays where it is
    step = [("update_task", {"task_id": t, "due_date": "2026-12-11"}) for t in TITLES]
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    await _yes_if_asked(client, (await chat(client, "move everything except gym to friday")).json())

    due = {t["title"]: t["due_date"] for t in await tasks_of(client)}
    assert due["Gym"] is None, due


@pytest.mark.parametrize(
    ("question", "answer", "step"),
    [
        ("Which tasks should I delete?", "everything except Gym", _every("delete_task")),
        ("¿Cuáles borro?", "todo menos gym", _every("delete_task")),
        (
            "Which tasks should I set to high priority?",
            "all tasks except gym",
            [("update_task", {"task_id": t, "priority": "high"}) for t in TITLES],
        ),
    ],
)
async def test_an_answer_that_leaves_out_never_changes_it(
    make_client: MakeClient, question: str, answer: str, step: list[Call]
) -> None:
    # found by the fifth review: the answer alone, "everything except Gym", leaves Gym out of the
    # change its question asked about (a "keep" question reads the other way: its delete is refused)
    llm = ScriptedLLM(completion(question), calls(*step), completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, "clean up my list")).json()
    await _yes_if_asked(client, (await chat(client, answer, conversation_id=first["conversation_id"])).json())

    gym = next(t for t in await tasks_of(client) if t["title"] == "Gym")
    assert gym["status"] == "pending" and gym["priority"] == "medium", gym
