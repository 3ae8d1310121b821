"""The guard never creates an action nobody asked for (issue 13, part 1), end to end through HTTP.

Every message here asks for no change, or only for an edit: questions of every form, advice,
reports, hypotheticals, other people's requests, negations and retractions, in every covered
language. The model is competent (it answers correctly) and compliant (it does whatever tool is
forced on it, on a task the message mentions): the only way a task changes is the guard forcing.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import compliant
from support.fake_llm import ScriptedLLM

TITLES = ("Taxes", "Bread", "Gym", "Old invoices", "Laundry")
LIST = [("list_tasks", {"status": "all"})]

# (message, the competent model's answer: a text or a list_tasks call)
NOTHING_TO_CHANGE: list[tuple[str, str | list[tuple[str, dict[str, Any]]]]] = [
    # English: yes/no and wh- questions about the tasks' state or history.
    ("did I already finish the taxes?", "Not yet: Taxes is still pending."),
    ("Have I completed the laundry yet?", LIST),
    ("what did I add this morning?", LIST),
    ("When did I add bread?", "You added Bread on Monday."),
    ("which tasks did I delete yesterday?", "I can't see deleted tasks."),
    ("is gym done?", LIST),
    ("was the taxes task removed?", "No, Taxes is still on your list."),
    ("did you just delete gym?", "No, Gym is still there."),
    ("why did you mark bread done?", "I didn't; Bread is still pending."),
    ("how many tasks did I complete this week?", LIST),
    # Advice.
    ("should I delete the old invoices?", "If you no longer need them, you could."),
    ("do you think I should remove gym from my list?", "That's up to you."),
    ("would it be smart to complete laundry before taxes?", "Maybe, taxes take longer."),
    ("is it worth adding a task for the dentist?", "If you tend to forget, yes."),
    # Reports, hypotheticals, other people's requests.
    ("I nearly removed the gym task by mistake", "Good thing you didn't!"),
    ("I meant to delete the old invoices yesterday", "Want me to delete them now?"),
    ("someone asked me to delete the taxes task", "Do you want to?"),
    ("my wife told me to add a gym session", "Should I add it?"),
    ("I finished the taxes!", "Congratulations! Shall I mark Taxes as done?"),
    ("if I delete gym, can I get it back?", "Deleted tasks can't be restored yet."),
    ("I was going to mark bread done but I haven't bought it", "No problem, it stays pending."),
    ("I'm thinking about removing the laundry task", "Just tell me when."),
    # Negations and retractions.
    ("don't delete gym", "Okay, I won't."),
    ("please do not complete the taxes task yet", "Understood."),
    ("delete gym. wait, leave that one", "Okay, I'll leave Gym."),
    ("mark bread done... actually no, never mind", "No change then."),
    ("remove taxes? hmm no, keep it", "Keeping Taxes."),
    # Spanish.
    ("¿ya terminé lo de taxes?", "Todavía no, Taxes sigue pendiente."),
    ("¿debería borrar las old invoices?", "Si ya no las necesitas, sí."),
    ("casi borro la tarea gym por error", "¡Menos mal que no!"),
    ("mi jefe me pidió que borrara la tarea laundry", "¿Quieres que la borre?"),
    ("espera, deja esa", "Vale."),
    ("no borres bread", "De acuerdo."),
    ("¿qué añadí esta mañana?", LIST),
    # French.
    ("est-ce que j'ai déjà terminé taxes ?", "Pas encore."),
    ("je devrais supprimer les old invoices ?", "Si tu n'en as plus besoin."),
    ("j'ai failli supprimer la tâche gym par erreur", "Heureusement !"),
    ("mon chef m'a demandé de supprimer laundry", "Tu veux que je la supprime ?"),
    ("attends, laisse celle-là", "D'accord."),
    ("ne supprime pas bread", "D'accord."),
    ("qu'est-ce que j'ai ajouté ce matin ?", LIST),
    # German.
    ("Habe ich taxes schon erledigt?", "Noch nicht."),
    ("Soll ich die old invoices löschen?", "Wenn du sie nicht mehr brauchst."),
    ("Ich hätte fast die Aufgabe gym gelöscht", "Zum Glück nicht!"),
    ("Mein Chef hat mich gebeten, laundry zu löschen", "Soll ich sie löschen?"),
    ("Warte, lass die", "Okay."),
    ("Lösch bread nicht", "In Ordnung."),
    ("Was habe ich heute Morgen hinzugefügt?", LIST),
    # Portuguese.
    ("eu já terminei taxes?", "Ainda não."),
    ("devo apagar as old invoices?", "Se não precisar mais, sim."),
    ("quase apaguei a tarefa gym sem querer", "Ainda bem que não!"),
    ("meu chefe me pediu para apagar laundry", "Quer que eu apague?"),
    ("espera, deixa essa", "Tudo bem."),
    ("não apague bread", "Certo."),
    ("o que eu adicionei hoje de manhã?", LIST),
    # Italian.
    ("ho già finito taxes?", "Non ancora."),
    ("dovrei cancellare le old invoices?", "Se non ti servono più, sì."),
    ("stavo per cancellare l'attività gym per sbaglio", "Per fortuna no!"),
    ("il mio capo mi ha chiesto di cancellare laundry", "Vuoi che la cancelli?"),
    ("aspetta, lascia stare", "Va bene."),
    ("non cancellare bread", "D'accordo."),
    ("cosa ho aggiunto stamattina?", LIST),
    # Roman Urdu.
    ("kya maine taxes complete kar diya?", "Abhi nahi."),
    ("kya mujhe old invoices delete karni chahiye?", "Agar zaroorat nahi to haan."),
    ("maine galti se gym delete kar diya tha", "Shukar hai nahi hua."),
    ("boss ne kaha tha laundry delete karne ko", "Kya main delete kar doon?"),
    ("ruko, rehne do", "Theek hai."),
    ("bread delete mat karo", "Theek hai."),
    ("maine aaj subah kya add kiya?", LIST),
]


async def seed(client: Any, llm: ScriptedLLM) -> list[tuple[str, str]]:
    await seed_tasks(client, *TITLES)
    return await state(client)


async def state(client: Any) -> list[tuple[str, str]]:
    return sorted((t["title"], t["status"]) for t in await tasks_of(client))


@pytest.mark.parametrize(("message", "answer"), NOTHING_TO_CHANGE, ids=[c[0] for c in NOTHING_TO_CHANGE])
async def test_a_message_that_asks_for_no_change_changes_nothing(
    make_client: MakeClient, message: str, answer: Any
) -> None:
    llm, model = compliant(answer, TITLES)
    client = await make_client(llm)
    before = await seed(client, llm)

    response = await chat(client, message)

    assert response.status_code == 200, response.text
    body = response.json()
    assert await state(client) == before, body["execution_metadata"]["guard"]
    assert model.forced_calls == [], body["execution_metadata"]["intent"]
    decisions = body["execution_metadata"]["guard"]["decisions"]
    assert not [d for d in decisions if d["decision"] == "forced"], decisions
    assert body["execution_metadata"]["intent"]["kind"] != "command" or answer == LIST
    if isinstance(answer, str):
        assert body["assistant_message"] == answer  # the model's correct answer reaches the user


def test_the_table_covers_every_language_and_kind() -> None:
    assert len(NOTHING_TO_CHANGE) >= 60


# -- edits: the model's non-destructive choice stands ---------------------------------------------

EDITS = [
    ("remove the 'urgent' tag from taxes", {"task_id": "Taxes", "tags": []}, "tags", []),
    ("take the high priority off gym", {"task_id": "Gym", "priority": "medium"}, "priority", "medium"),
    (
        "add a note to the laundry task: use cold water",
        {"task_id": "Laundry", "description": "use cold water"},
        "description",
        "use cold water",
    ),
    ("quita la etiqueta 'urgent' de taxes", {"task_id": "Taxes", "tags": []}, "tags", []),
    ("enlève la priorité haute de gym", {"task_id": "Gym", "priority": "medium"}, "priority", "medium"),
    ("entferne das Tag 'urgent' von taxes", {"task_id": "Taxes", "tags": []}, "tags", []),
]


@pytest.mark.parametrize(("message", "arguments", "field", "value"), EDITS, ids=[e[0] for e in EDITS])
async def test_an_edit_the_model_chose_is_never_overridden_by_a_delete(
    make_client: MakeClient, message: str, arguments: dict[str, Any], field: str, value: Any
) -> None:
    llm, model = compliant([("update_task", arguments)], TITLES)
    client = await make_client(llm)
    await seed_tasks(client, *TITLES, tags=["urgent"], priority="high")

    body = (await chat(client, message)).json()

    tasks = {t["title"]: t for t in await tasks_of(client)}
    assert sorted(tasks) == sorted(TITLES)  # nothing deleted
    assert all(t["status"] == "pending" for t in tasks.values())  # nothing completed
    assert tasks[arguments["task_id"]][field] == value
    assert model.forced_calls == []
    assert [c["name"] for c in body["tool_calls"]] == ["update_task"]
    assert body["action_metadata"]["action"] == "update_task" and body["action_metadata"]["success"] is True


async def test_a_read_the_model_chose_is_never_overridden_by_a_delete(make_client: MakeClient) -> None:
    # The message reads as "delete"; the model looked at the list and asked which one instead.
    llm, model = compliant(LIST, TITLES, after_tools="Which one: Old invoices or Taxes?")
    client = await make_client(llm)
    before = await seed(client, llm)

    body = (await chat(client, "delete the invoice stuff")).json()

    assert await state(client) == before
    assert model.forced_calls == []
    assert "Which one: Old invoices or Taxes?" in body["assistant_message"]
    not_done = body["execution_metadata"]["reply"]["not_done"]
    assert [(n["action"], n["reason"]) for n in not_done] == [("delete_task", "model_chose_other")]
    assert [(a["action"], a["status"]) for a in body["action_metadata"]["actions"]] == [
        ("list_tasks", "done"),
        ("delete_task", "not_done"),
    ]


@pytest.mark.parametrize(
    ("message", "tasks", "calls", "kept"),
    [
        # The clause saying no is no item of the delete before it, whatever the model deletes.
        (
            "remove the dentist, not the passport",
            ("Dentist", "Passport"),
            [("delete_task", {"task_id": "Dentist"}), ("delete_task", {"task_id": "Passport"})],
            "Passport",
        ),
        (
            "borra el dentista y el gimnasio, no el pasaporte",
            ("Dentista", "Gimnasio", "Pasaporte"),
            [("delete_task", {"task_id": t}) for t in ("Dentista", "Gimnasio", "Pasaporte")],
            "Pasaporte",
        ),
        (
            "hak den zahnarzt ab, nicht den pass",
            ("Zahnarzt", "Pass verlängern"),
            [("complete_task", {"task_id": "Zahnarzt"}), ("complete_task", {"task_id": "Pass verlängern"})],
            "Pass verlängern",
        ),
    ],
)
async def test_what_a_clause_says_no_to_is_neither_changed_nor_asked_about(
    make_client: MakeClient, message: str, tasks: tuple[str, ...], calls: list[tuple[str, dict[str, Any]]], kept: str
) -> None:
    llm, _ = compliant([calls], tasks)
    client = await make_client(llm)
    await seed_tasks(client, *tasks)

    body = (await chat(client, message)).json()

    rows = {t["title"]: t["status"] for t in await tasks_of(client)}
    assert rows.get(kept) == "pending", (rows, body["assistant_message"])
    asked = (body["confirmation"] or {}).get("question", "")
    assert kept not in asked, asked


RETRACTED = [
    ("complete the dentist task — hmm actually no, I haven't gone yet", "complete_task", "Dentist"),
    ("remove the passport thing. scratch that", "delete_task", "Passport"),
    ("mark the dentist and the passport done. oh wait, never mind", "complete_task", "Passport"),
    ("elimina lo del dentista... espera, no, déjalo así", "delete_task", "Dentista"),
    ("lösch den Zahnarzt – ach, vergiss es", "delete_task", "Zahnarzt"),
    ("supprime le dentiste... non attends, laisse", "delete_task", "Dentiste"),
    ("elimina il dentista, anzi no, lascia stare", "delete_task", "Dentista"),
    ("apaga o dentista... não, espera, deixa", "delete_task", "Dentista"),
    ("verwijder de tandarts... nee wacht, laat maar", "delete_task", "Tandarts"),
    ("dentist delete kar do... nahi ruko, rehne do", "delete_task", "Dentist"),
]


@pytest.mark.parametrize(("message", "tool", "task"), RETRACTED, ids=[r[0] for r in RETRACTED])
async def test_a_retraction_takes_back_the_command_before_it_without_a_question(
    make_client: MakeClient, message: str, tool: str, task: str
) -> None:
    # The model makes the change the user took back: it is refused, not asked about (what a no
    # names is never the target of a question), and nothing changes.
    tasks = (task, "Passport" if task != "Passport" else "Gym", "Laundry")
    llm, _ = compliant([(tool, {"task_id": task})], tasks, after_tools="Okay.")
    client = await make_client(llm)
    await seed_tasks(client, *tasks)

    body = (await chat(client, message)).json()

    assert {t["title"]: t["status"] for t in await tasks_of(client)} == dict.fromkeys(tasks, "pending")
    assert body["confirmation"] is None, body["assistant_message"]
    assert body["execution_metadata"]["intent"]["kind"] == "negated"


@pytest.mark.parametrize(
    ("message", "calls", "after"),
    [
        # The taken-back delete is no words of the user's for the complete that follows it.
        (
            "delete gym... no wait, mark it done instead",
            [("delete_task", {"task_id": "Gym"})],
            {"Gym": "pending", "Laundry": "pending"},
        ),
        (
            "borra gym... no espera, márcalo como hecho",
            [("delete_task", {"task_id": "Gym"})],
            {"Gym": "pending", "Laundry": "pending"},
        ),
        # A quoted title in the clause taken back is what the no names too.
        ('delete "Gym"... wait, no', [("delete_task", {"task_id": "Gym"})], {"Gym": "pending", "Laundry": "pending"}),
        ('don\'t delete "Gym"', [("delete_task", {"task_id": "Gym"})], {"Gym": "pending", "Laundry": "pending"}),
    ],
)
async def test_what_a_retraction_takes_back_grounds_nothing_after_it(
    make_client: MakeClient, message: str, calls: list[tuple[str, dict[str, Any]]], after: dict[str, str]
) -> None:
    llm, _ = compliant([calls], ("Gym", "Laundry"), after_tools="Okay.")
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Laundry")

    body = (await chat(client, message)).json()

    assert {t["title"]: t["status"] for t in await tasks_of(client)} == after, body["assistant_message"]
    assert "Gym" not in ((body["confirmation"] or {}).get("question") or ""), body["confirmation"]
