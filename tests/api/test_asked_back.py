"""A model that asks before it changes (issue 48), through HTTP with a real database and a scripted model.

"delete gym" answered with the model's own "Are you sure you want to delete “Gym”?": the question is
shown, nothing changes, and the user's yes makes the change. The "Not done: “delete gym”. Please ask
again." line stays beside the question: four attempts to leave it out where the question is about
that very change were each broken by a review (a question implying the change was done, one about
another task, one offering something else instead), so free words never stand in for it. A
whole-list request the model confirms with "all" is done whole by the yes; a yes never lets a model
change more than its question asked: not a task it named to keep, not the whole list because a
number stood beside a word for a task.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.asking import TWELVE, asking_model
from support.fake_llm import NONSENSE_CHECK, ScriptedLLM, calls, completion, declares
from support.live import serve
from support.sse import parse, reply_after_last_reset, streamed

from backend.app.language.catalog import texts

CONFIRMED_IN_WORDS = [
    ("delete gym", "Are you sure you want to delete “Gym”?", "yes", "delete_task", "en"),
    ("pls remove gym", "Just to double-check: remove Gym?", "yep go ahead", "delete_task", "en"),
    ("lösch gym", "Soll ich „Gym“ wirklich löschen?", "ja, mach", "delete_task", "de"),
    ("supprime gym", "Tu es sûr de vouloir que je supprime « Gym » ?", "oui", "delete_task", "fr"),
    ("borra gym", "¿Seguro que quieres que borre Gym?", "sí", "delete_task", "es"),
    ("cancella gym per favore", "Vuoi davvero che elimini Gym?", "sì", "delete_task", "it"),
    ("verwijder gym", "Weet je zeker dat ik Gym moet verwijderen?", "ja", "delete_task", "nl"),
    ("apaga o gym", "Tem certeza que quer que eu apague o Gym?", "sim", "delete_task", "pt"),
    ("mark gym as done", "Should I mark “Gym” as done?", "yes please", "complete_task", "en"),
    ("marca gym como hecha", "¿Quieres que marque Gym como hecha?", "dale", "complete_task", "es"),
]


@pytest.mark.parametrize(("message", "question", "yes", "tool", "lang"), CONFIRMED_IN_WORDS)
async def test_the_models_question_about_the_change_is_shown_and_its_yes_makes_it(
    make_client: MakeClient, message: str, question: str, yes: str, tool: str, lang: str
) -> None:
    llm = ScriptedLLM(default=asking_model(message, question, calls((tool, {"task_id": "Gym"}))), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    first = (await chat(client, message)).json()

    # Said not done, without "Please ask again" talking over the question the user is to answer.
    not_done = texts(lang)("Not done: “{request}”.", request=message)
    assert first["assistant_message"].splitlines() == [not_done, question]
    assert [n["reason"] for n in first["execution_metadata"]["reply"]["not_done"]] == ["not_attempted"]
    assert await statuses(client) == {"Gym": "pending", "Taxes": "pending"}
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()
    after = {"Taxes": "pending"} | ({"Gym": "completed"} if tool == "complete_task" else {})
    assert await statuses(client) == after, body["assistant_message"]


# (a request over every task, the model's question back about that change, the language)
WHOLE_ASKED_BACK = [
    ("delete everything", "Do you want me to delete the 3 tasks on your list?", "en"),
    ("clear out my whole list", "Are you sure you want me to remove all 3 tasks?", "en"),
    ("borra todo", "¿Quieres que borre las 3 tareas de tu lista?", "es"),
    ("lösch alles", "Soll ich wirklich alle 3 Aufgaben löschen?", "de"),
    ("supprime tout", "Tu veux vraiment que je supprime tes 3 tâches ?", "fr"),
    ("verwijder alles", "Weet je zeker dat ik alle 3 taken moet verwijderen?", "nl"),
]


@pytest.mark.parametrize(("message", "question", "lang"), WHOLE_ASKED_BACK)
async def test_a_question_back_about_a_change_of_every_task_is_not_talked_over(
    make_client: MakeClient, message: str, question: str, lang: str
) -> None:
    # The question names no word of the request ("everything", "todo"): it asks about that very change
    # all the same, so the request is said not done without "Please ask again".
    client = await make_client(ScriptedLLM(default=completion(question), checker=declares()))
    await seed_tasks(client, "Gym", "Taxes", "Call mom")

    body = (await chat(client, message)).json()

    assert body["assistant_message"].splitlines() == [texts(lang)("Not done: “{request}”.", request=message), question]
    assert await statuses(client) == dict.fromkeys(("Gym", "Taxes", "Call mom"), "pending")


@pytest.mark.parametrize("message", ["delete everything", "borra todo", "lösch alles"])
async def test_a_question_about_another_change_of_every_task_leaves_ask_again(
    make_client: MakeClient, message: str
) -> None:
    llm = ScriptedLLM(default=completion("Should I mark the 3 tasks as done?"), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes", "Call mom")

    body = (await chat(client, message)).json()

    lang = {"delete everything": "en", "borra todo": "es", "lösch alles": "de"}[message]
    assert texts(lang)("Not done: “{request}”. Please ask again.", request=message) in body["assistant_message"]


@pytest.mark.parametrize(
    "words", ["Anything else?", "How was the gym?", "Hmm, which list do you mean?", "Should I add “Milk” instead?"]
)
async def test_beside_a_question_about_something_else_the_user_is_told_to_ask_again(
    make_client: MakeClient, words: str
) -> None:
    client = await make_client(ScriptedLLM(default=completion(words), checker=declares()))
    await seed_tasks(client, "Gym")

    body = (await chat(client, "delete gym")).json()

    assert "Not done: “delete gym”. Please ask again." in body["assistant_message"].splitlines()


async def test_only_the_action_the_question_asks_about_loses_its_ask_again(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(default=completion("Should I delete “Gym”?"), checker=declares()))
    await seed_tasks(client, "Gym")

    body = (await chat(client, "delete gym and add milk")).json()

    lines = body["assistant_message"].splitlines()
    assert "Not done: “delete gym”." in lines and lines[-1] == "Should I delete “Gym”?", lines
    assert [line for line in lines if "milk" in line and line.endswith("Please ask again.")], lines


async def test_a_question_about_one_task_still_says_the_other_was_not_done(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("Should I delete “Gym”?"), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    body = (await chat(client, "delete gym and taxes")).json()

    lines = body["assistant_message"].splitlines()
    assert lines[-1] == "Should I delete “Gym”?"
    assert [line for line in lines[:-1] if "taxes" in line.lower() and line.startswith("Not done")], lines


async def test_words_that_ask_nothing_still_leave_the_not_done_line(make_client: MakeClient) -> None:
    # "Anything else?" asks about no change of the request: the delete not done is said.
    llm = ScriptedLLM(default=completion("Anything else?"), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    body = (await chat(client, "delete gym")).json()

    assert body["assistant_message"] != "Anything else?"
    assert body["execution_metadata"]["reply"]["not_done"], body["assistant_message"]
    assert await statuses(client) == {"Gym": "pending"}


async def test_in_model_mode_and_streamed_the_question_ends_the_reply(make_client: MakeClient) -> None:
    question = "Soll ich „Gym“ wirklich löschen?"
    llm = ScriptedLLM(default=completion(question), checker=declares())
    client = await make_client(llm, response_mode="model")
    await seed_tasks(client, "Gym")

    body = (await chat(client, "lösch gym")).json()
    assert body["assistant_message"].startswith(question) and body["execution_metadata"]["reply"]["not_done"]
    async with serve(client) as live:
        events = parse((await streamed(live, "lösch gym")).text)
    assert reply_after_last_reset(events) == body["assistant_message"]
    assert await statuses(client) == {"Gym": "pending"}


WHOLE_LIST = [
    ("borra todo, toda la lista", "¿Quieres que borre todas las 12 tareas de tu lista?", "sí, dale"),
    ("clear my whole list", "Do you want me to delete all 12 tasks on your list?", "yes"),
    ("lösch alles", "Soll ich alle 12 Aufgaben löschen?", "ja"),
    ("supprime tout", "Tu veux vraiment que je supprime toutes tes tâches ?", "oui"),
    ("verwijder alles", "Zal ik alle 12 taken verwijderen?", "ja graag"),
    ("apaga tudo", "Posso apagar todas as tarefas?", "pode sim"),
]


@pytest.mark.parametrize(("message", "question", "yes"), WHOLE_LIST)
@pytest.mark.parametrize("checker", ["honest", "nonsense"])
async def test_a_whole_list_request_the_model_confirms_in_its_words_is_done_whole_by_the_yes(
    make_client: MakeClient, message: str, question: str, yes: str, checker: str
) -> None:
    sweep = calls(*[("delete_task", {"task_id": t}) for t in TWELVE])
    check = declares() if checker == "honest" else NONSENSE_CHECK
    llm = ScriptedLLM(default=asking_model(message, question, sweep), checker=check)
    client = await make_client(llm)
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, message)).json()
    assert first["assistant_message"].endswith(question)
    assert await statuses(client) == dict.fromkeys(TWELVE, "pending")
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()

    assert await statuses(client) == {}, body["assistant_message"]


THREE = ("Gym", "Taxes", "Call mom")


@pytest.mark.parametrize(
    ("tasks", "message", "question"),
    [
        (THREE, "delete gym", "Should I delete “Gym”, one of your 3 tasks?"),  # about Gym
        (THREE, "delete gym", "Should I delete Gym, one of your 3 tasks?"),
        (THREE, "lösch gym", "Soll ich „Gym“ löschen (eine deiner 3 Aufgaben)?"),
        (THREE, "gym is pointless now", "Should I delete the 3 pm task, Gym?"),  # a time, not a count
        (("Gym", "Taxes"), "gym is pointless now", "Should I delete the 2 hour task “Gym”?"),
        (("3 tasks for Bob", "Gym", "Taxes"), "bob is done", "Should I delete “3 tasks for Bob”?"),  # a title
        (("3 tasks for Bob", "Gym", "Taxes"), "bob is done", "Should I delete 3 tasks for Bob?"),
        (tuple(f"Item {n}" for n in range(1, 11)), "item 10 is obsolete", "Should I delete “Item 10”?"),
        (tuple(f"Item {n}" for n in range(1, 11)), "item 10 is obsolete", "Should I delete the 3 finished tasks?"),
        (tuple(f"Item {n}" for n in range(1, 11)), "item 10 is obsolete", "Delete it? 10 tasks would be left."),
    ],
)
async def test_a_yes_to_a_question_about_some_tasks_never_sweeps_the_list(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, question: str
) -> None:
    sweep = calls(*[("delete_task", {"task_id": t}) for t in tasks])
    llm = ScriptedLLM(default=asking_model(message, question, sweep), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *tasks)

    first = (await chat(client, message)).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert len(await statuses(client)) >= len(tasks) - 1


@pytest.mark.parametrize(
    ("message", "question", "yes"),
    [
        ("delete gym and taxes", "Want me to leave Taxes alone?", "yes"),
        ("delete all my tasks", "Should I keep Taxes?", "yes"),
        ("delete gym", "Should I keep Gym?", "yes"),
        ("delete gym", "Are you sure? This cannot be undone.", "yes"),
        ("delete gym", "Did you go to the gym today?", "yes"),
        ("lösch gym", "Soll ich Gym lieber behalten?", "ja"),
        ("borra gym", "¿Prefieres conservar Gym?", "sí"),
        ("supprime gym", "Tu préfères garder Gym ?", "oui"),
        ("verwijder gym", "Wil je Gym liever houden?", "ja"),
        ("ta bort gym", "Vill du hellre behålla Gym?", "ja"),
    ],
)
async def test_a_yes_to_a_question_that_asks_no_change_changes_nothing(
    make_client: MakeClient, message: str, question: str, yes: str
) -> None:
    # The lists read no change in the question: its yes grounds nothing, whatever the model then does.
    sweep = calls(*[("delete_task", {"task_id": t}) for t in THREE])
    llm = ScriptedLLM(default=asking_model(message, question, sweep), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *THREE)

    first = (await chat(client, message)).json()
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()

    assert await statuses(client) == dict.fromkeys(THREE, "pending"), body["assistant_message"]


@pytest.mark.parametrize(
    ("tasks", "message", "question"),
    [
        (("Gym",), "delete gym", "How was the gym?"),  # asks no change
        (("Gym",), "delete gym", "Should I mark “Gym” as done instead?"),  # another change
        (("Gym report", "Gym bag", "Taxes"), "delete the gym report", "Should I delete “Gym bag”?"),  # another task
        (THREE, "delete everything", "Should I delete “Gym”?"),  # one task of all
        (THREE, "delete everything", "Should I delete all the completed tasks?"),
        (("Gym", "Gym bag"), "delete gym", "Should I delete “Gym bag” too?"),  # another task
        (("Gym", "Gym bag"), "delete gym", "Should I delete Gym bag?"),
        (("Gym", "Gym bag"), "delete gym and gym bag", "Should I delete Gym bag?"),
        (("Gym", "Gym-Tasche"), "lösch gym", "Soll ich Gym-Tasche löschen?"),
        (THREE, "delete it and delete gym", "Should I delete “Gym”?"),  # "it" is not asked
        # the question implies the action was done, or asks about another task beside it
        (THREE, "delete gym", "Should I also delete Taxes now that Gym is gone?"),
        (THREE, "delete gym", "With Gym taken care of, should I also delete Taxes?"),
        (THREE, "delete gym", "Should I delete Taxes too, like Gym?"),
        (THREE, "delete gym", "Should I delete Taxes instead of Gym?"),
        (THREE, "delete gym", "Besides Gym, should I delete Taxes?"),
        (THREE, "delete gym", "Should I delete all tasks with gym in the title?"),
        (("Gym", "Steuern"), "lösch gym", "Gym ist weg – soll ich auch Steuern löschen?"),
        (("Gym", "Impuestos"), "borra gym", "¿Borro también Impuestos, como Gym?"),
        (("Gym", "Impôts"), "supprime gym", "Je supprime aussi Impôts, comme Gym ?"),
        (("Gym", "Yoga"), "complete gym", "Should I complete Yoga as well, like Gym?"),
        (THREE, "verwijder gym en taxes", "Zal ik Gym verwijderen?"),
        (THREE, "ta bort gym och taxes", "Ska jag ta bort Gym?"),
    ],
)
async def test_a_question_not_about_the_change_leaves_its_not_done_line(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, question: str
) -> None:
    llm = ScriptedLLM(default=completion(question), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *tasks)

    body = (await chat(client, message)).json()

    assert body["execution_metadata"]["reply"]["not_done"], body["assistant_message"]
    assert await statuses(client) == dict.fromkeys(tasks, "pending")


async def test_the_models_which_one_is_answered_by_a_title(make_client: MakeClient) -> None:
    # The model lists, then asks which one; the user's answer names one: that one goes.
    def model(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        if user == "old invoices":
            return completion("Done.") if messages[-1]["role"] == "tool" else calls(("delete_task", {"task_id": user}))
        if messages[-1]["role"] == "tool":
            return completion("Which one: “Old invoices” or “Invoice template”?")
        return calls(("list_tasks", {}))

    client = await make_client(ScriptedLLM(default=model, checker=declares()))
    await seed_tasks(client, "Old invoices", "Invoice template", "Taxes")

    first = (await chat(client, "delete the invoice stuff")).json()
    assert first["assistant_message"].endswith("Which one: “Old invoices” or “Invoice template”?")
    await chat(client, "old invoices", conversation_id=first["conversation_id"])

    assert await statuses(client) == {"Invoice template": "pending", "Taxes": "pending"}
