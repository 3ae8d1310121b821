"""A whole-list request the model answers with its own question that counts the tasks (issue 48).

"clear out my whole list" answered "Do you want me to delete the 12 tasks on your list?": the
question has no word for the whole list of its own, only a count. The user's own request, the
message the question answered, asked for every task; a yes to the model's question about that very
change is a yes to it, and the model's calls over the list are made in that turn, with no second
question. What stays safe: the anchor is the user's own words, in the message right before the
question, read as a command of that change over the whole list (not a question, not taken back, not
an earlier message, not another change), and the model's question must ask about that change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import NONSENSE_CHECK, ScriptedLLM, calls, completion, declares

TWELVE = ("Gym", "Report", *(f"Item {n}" for n in range(1, 11)))


async def _left(client: Any) -> dict[str, str]:
    return {t["title"]: t["status"] for t in await tasks_of(client)}


def _model(request: str, question: str, then: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Answers `request` with `question` (forced or not), any later message with `then`, results with "Done."."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return completion("Done.")
        user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        return completion(question) if user == request else then

    return answer


def _sweep(tool: str, titles: tuple[str, ...]) -> dict[str, Any]:
    return calls(*[(tool, {"task_id": t}) for t in titles])


# (request over the whole list, the model's question counting the tasks, a yes): no whole-list word
# in the question itself.
DELETES = [
    ("clear out my whole list please", "Do you want me to delete the 12 tasks on your list?", "yes please"),
    ("get rid of everything on there", "Should I remove these 12 tasks (Gym, Report, Item 1 to Item 10)?", "sure"),
    ("borra todas mis tareas", "¿Seguro que quieres que elimine estas 12 tareas?", "sí"),
    ("lösch bitte alles auf der Liste", "Soll ich die 12 Aufgaben wirklich löschen?", "ja, bitte"),
    ("supprime toutes mes tâches", "Je supprime ces 12 tâches (Gym, Report, Item 1 à Item 10) ?", "oui"),
    ("cancella tutte le attività", "Vuoi che elimini le 12 attività della lista?", "sì"),
    ("verwijder al mijn taken", "Zal ik deze 12 taken verwijderen?", "ja"),
    ("apaga todas as minhas tarefas", "Quer que eu apague as 12 tarefas da sua lista?", "sim"),
    ("ta bort allt på listan", "Ska jag ta bort de 12 uppgifterna?", "ja tack"),
    ("sab tasks delete kar do", "Kya main ye 12 tasks delete kar doon?", "haan"),
]
COMPLETES = [
    ("mark every task as done", "Should I mark the 12 tasks as done?", "yes"),
    ("marca todas como hechas", "¿Marco las 12 tareas como hechas?", "sí, dale"),
    ("hak alles af", "Zal ik de 12 taken afvinken?", "ja"),
    ("markera alla uppgifter som klara", "Vill du att jag markerar 12 uppgifter som klara?", "ja"),
    ("marque tout comme fait", "Je marque les 12 tâches comme faites ?", "oui"),
]


@pytest.mark.parametrize(("message", "question", "yes"), DELETES)
@pytest.mark.parametrize("checker", ["honest", "nonsense"])
async def test_a_yes_to_the_models_count_of_the_whole_list_deletes_it_in_that_turn(
    make_client: MakeClient, message: str, question: str, yes: str, checker: str
) -> None:
    llm = ScriptedLLM(
        default=_model(message, question, _sweep("delete_task", TWELVE)),
        checker=declares() if checker == "honest" else NONSENSE_CHECK,
    )
    client = await make_client(llm)
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, message)).json()
    assert await _left(client) == dict.fromkeys(TWELVE, "pending")
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()

    assert await _left(client) == {}, body["assistant_message"]
    assert body.get("confirmation") is None, body["assistant_message"]


@pytest.mark.parametrize(("message", "question", "yes"), COMPLETES)
async def test_a_yes_to_the_models_count_of_the_whole_list_completes_it(
    make_client: MakeClient, message: str, question: str, yes: str
) -> None:
    llm = ScriptedLLM(default=_model(message, question, _sweep("complete_task", TWELVE)), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, message)).json()
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()

    assert await _left(client) == dict.fromkeys(TWELVE, "completed"), body["assistant_message"]


async def test_fifty_tasks_go_by_one_yes(make_client: MakeClient) -> None:
    fifty = tuple(f"Task {n}" for n in range(1, 51))
    message, question = "delete all my tasks", "Are you sure you want me to delete your 50 tasks?"
    llm = ScriptedLLM(default=_model(message, question, _sweep("delete_task", fifty)), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *fifty)

    first = (await chat(client, message)).json()
    body = (await chat(client, "yes", conversation_id=first["conversation_id"])).json()

    assert await _left(client) == {}, body["assistant_message"]


THREE = ("Gym", "Taxes", "Call mom")


@pytest.mark.parametrize(
    ("message", "question"),
    [
        # the request did not ask for the whole list
        ("delete gym", "Do you want me to delete the 3 tasks on your list?"),
        ("gym is pointless now", "Should I delete your 3 tasks?"),
        # it asked, but as a question, a report, or took it back
        ("should I delete everything?", "Do you want me to delete the 3 tasks on your list?"),
        ("I deleted everything yesterday", "Should I delete the 3 tasks?"),
        ("delete everything... no wait, never mind", "Should I delete the 3 tasks?"),
        ("lösch alles, nein doch nicht", "Soll ich die 3 Aufgaben löschen?"),
        # it asked for another change over the whole list
        ("mark everything as done", "Should I delete the 3 tasks instead?"),
        # the question counts no task, or not the whole list's
        ("delete everything", "Should I delete Gym first?"),
        ("delete everything", "Are you sure? This can't be undone."),
        ("delete everything", "Should I delete the 2 finished tasks?"),
        ("delete all my finished tasks", "Delete the 2 finished ones, Gym and Taxes?"),
        ("borra todo", "¿Borro las 2 tareas terminadas?"),
        ("lösch alles", "Soll ich die 2 erledigten Aufgaben löschen?"),
        ("delete everything", "Should I delete Gym at 3 pm?"),
        ("delete everything", "Should I delete the tasks due 3.5 days from now?"),
        # the question asks no change, or another one
        ("delete everything", "Should I keep the 3 tasks?"),
        ("delete everything", "Should I mark the 3 tasks as done?"),
        ("borra todo", "¿Prefieres conservar las 3 tareas?"),
    ],
)
async def test_the_yes_sweeps_only_on_the_users_own_whole_list_request_for_that_change(
    make_client: MakeClient, message: str, question: str
) -> None:
    llm = ScriptedLLM(default=_model(message, question, _sweep("delete_task", THREE)), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *THREE)

    first = (await chat(client, message)).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    # At most the tasks the question names went (its yes grounds them); never the rest of the list.
    named = {t for t in THREE if t.casefold() in question.casefold()}
    assert {t for t in THREE if t not in named} <= set(await _left(client))


async def test_a_count_that_is_not_the_whole_lists_never_sweeps_it(make_client: MakeClient) -> None:
    # "the 5 finished tasks" of 12: the model then deleting all 12 deletes none it did not name.
    message, question = "delete all the finished tasks", "Do you want me to delete the 5 finished tasks?"
    llm = ScriptedLLM(default=_model(message, question, _sweep("delete_task", TWELVE)), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, message)).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert await _left(client) == dict.fromkeys(TWELVE, "pending")


async def test_an_earlier_whole_list_request_is_not_the_one_the_question_answered(make_client: MakeClient) -> None:
    # "delete everything" two messages back: the question answered "hmm, let me think first".
    script = {
        "delete everything": completion("Are you sure?"),
        "hmm, let me think first": completion("Should I delete the 3 tasks?"),
        "yes": _sweep("delete_task", THREE),
    }

    def model(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return completion("Done.")
        return script[next(m["content"] for m in reversed(messages) if m["role"] == "user")]

    client = await make_client(ScriptedLLM(default=model, checker=declares()))
    await seed_tasks(client, *THREE)

    conversation = (await chat(client, "delete everything")).json()["conversation_id"]
    await chat(client, "hmm, let me think first", conversation_id=conversation)
    await chat(client, "yes", conversation_id=conversation)

    assert await _left(client) == dict.fromkeys(THREE, "pending")
