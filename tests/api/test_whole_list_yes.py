"""A yes to the model's own question never lets its calls go past what the question asked (issue 48).

A question that counts tasks ("Do you want me to delete the 12 tasks on your list?") was once let
sweep the whole list after the user's own "clear my whole list", when its count was the list's size.
A review broke it at once (2026-12-06): a count beside a title ("Should I delete “Pack 3 items”?"),
a count of the list beside the one task asked about ("Should I delete Gym from your 3 tasks?"), two
counts ("Of your 12 tasks, should I delete the 5 finished ones?"), an either-or ("the 12 tasks, or
just the 5 finished ones?"), tasks changed between the question and the yes. A number says nothing
a title cannot; these cases pin that a yes to such a question changes only what it names.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses, tasks_of
from support.asking import TWELVE, asking_model, sweep, yes_to
from support.fake_llm import ScriptedLLM, calls, completion, declares

THREE = ("Gym", "Taxes", "Call mom")


async def test_an_earlier_whole_list_request_is_not_the_one_the_question_answered(make_client: MakeClient) -> None:
    # "delete everything" two messages back: the question answered "hmm, let me think first".
    script = {
        "delete everything": completion("Are you sure?"),
        "hmm, let me think first": completion("Should I delete the 3 tasks?"),
        "yes": sweep("delete_task", THREE),
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

    assert await statuses(client) == dict.fromkeys(THREE, "pending")


# (tasks, the user's request, the model's question): a yes to the question changes only what it names.
NAMED_ONLY = [
    # the request did not ask for the whole list
    (THREE, "delete gym", "Do you want me to delete the 3 tasks on your list?"),
    (THREE, "gym is pointless now", "Should I delete your 3 tasks?"),
    # it asked, but as a question, a report, or took it back
    (THREE, "should I delete everything?", "Do you want me to delete the 3 tasks on your list?"),
    (THREE, "I deleted everything yesterday", "Should I delete the 3 tasks?"),
    (THREE, "delete everything... no wait, never mind", "Should I delete the 3 tasks?"),
    (THREE, "lösch alles, nein doch nicht", "Soll ich die 3 Aufgaben löschen?"),
    # it asked for another change over the whole list
    (THREE, "mark everything as done", "Should I delete the 3 tasks instead?"),
    # the question counts no task, or not the whole list's
    (THREE, "delete everything", "Should I delete Gym first?"),
    (THREE, "delete everything", "Are you sure? This can't be undone."),
    (THREE, "delete everything", "Should I delete the 2 finished tasks?"),
    (THREE, "delete all my finished tasks", "Delete the 2 finished ones, Gym and Taxes?"),
    (THREE, "borra todo", "¿Borro las 2 tareas terminadas?"),
    (THREE, "lösch alles", "Soll ich die 2 erledigten Aufgaben löschen?"),
    (THREE, "delete everything", "Should I delete Gym at 3 pm?"),
    (THREE, "delete everything", "Should I delete the tasks due 3.5 days from now?"),
    # the question asks no change, or another one
    (THREE, "delete everything", "Should I keep the 3 tasks?"),
    (THREE, "delete everything", "Should I mark the 3 tasks as done?"),
    (THREE, "borra todo", "¿Prefieres conservar las 3 tareas?"),
    (TWELVE, "delete all the finished tasks", "Do you want me to delete the 5 finished tasks?"),
    # the review's cases, each once let sweep by the count sweep
    (("Pack 3 items", "Gym", "Taxes"), "delete all the packing stuff", "Should I delete “Pack 3 items”?"),
    (("Buy 3 notes", "Gym", "Taxes"), "delete everything about shopping", "Should I delete Buy 3 notes?"),
    (THREE, "delete everything gym related", "Should I delete Gym from your 3 tasks?"),
    (THREE, "delete everything about the gym", "Should I delete Gym with its 3 reminders?"),
    (THREE, "borra todas las tareas del gimnasio", "¿Borro Gym de tus 3 tareas?"),
    (THREE, "lösch alle Gym-Aufgaben", "Soll ich Gym von deinen 3 Aufgaben löschen?"),
    (THREE, "cancella tutte le attività della palestra", "Elimino Gym dalle tue 3 attività?"),
    (THREE, "supprime toutes les tâches de sport", "Je supprime Gym parmi tes 3 tâches ?"),
    (THREE, "verwijder alle gym taken", "Zal ik Gym uit je 3 taken verwijderen?"),
    (TWELVE, "delete all the finished tasks", "Of your 12 tasks, should I delete the 5 finished ones?"),
    (TWELVE, "delete all the finished tasks", "Should I delete 5 of your 12 tasks, the finished ones?"),
    (TWELVE, "delete all the finished tasks", "Should I delete the 12 tasks, or just the 5 finished ones?"),
    (TWELVE, "delete all my tasks", "Should I delete the first 5 of your 12 tasks?"),
]


@pytest.mark.parametrize(("tasks", "message", "question"), NAMED_ONLY)
async def test_a_yes_to_the_models_question_changes_only_what_it_names(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, question: str
) -> None:
    client, _ = await yes_to(make_client, tasks, message, question, sweep("delete_task", tasks))

    # At most the tasks the question names went (its yes grounds them); never the rest of the list.
    named = {t for t in tasks if t.casefold() in question.casefold()}
    assert {t for t in tasks if t not in named} <= set(await statuses(client))


SWEPT = [
    ("clear out my whole list please", "Do you want me to delete the 12 tasks on your list?", "yes please"),
    ("borra todas mis tareas", "¿Seguro que quieres que elimine estas 12 tareas?", "sí"),
    ("lösch bitte alles auf der Liste", "Soll ich die 12 Aufgaben wirklich löschen?", "ja, bitte"),
    ("verwijder alles", "Zal ik deze 12 taken verwijderen?", "ja"),
    ("ta bort allt på listan", "Ska jag ta bort de 12 uppgifterna?", "ja tack"),
]


@pytest.mark.parametrize(("message", "question", "yes"), SWEPT)
async def test_after_a_yes_the_models_calls_over_the_whole_list_are_asked_in_one_question(
    make_client: MakeClient, message: str, question: str, yes: str
) -> None:
    # The question counted the tasks but named none: its yes runs none of them; the model's calls over
    # every task are asked about in the backend's own question, which names them, and its yes does all.
    llm = ScriptedLLM(default=asking_model(message, question, sweep("delete_task", TWELVE)), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, message)).json()
    asked = (await chat(client, yes, conversation_id=first["conversation_id"])).json()
    assert await statuses(client) == dict.fromkeys(TWELVE, "pending")
    assert asked["confirmation"] is not None and "12" in asked["confirmation"]["question"], asked["assistant_message"]
    assert len(asked["confirmation"]["actions"]) == 12
    await chat(client, yes, conversation_id=first["conversation_id"])

    assert await statuses(client) == {}


async def test_after_a_yes_calls_over_part_of_the_list_are_not_asked_about(make_client: MakeClient) -> None:
    # Two of three tasks, neither named by the question: no change over the whole list, nothing asked.
    message, question = "delete the old stuff", "Should I delete the 2 old tasks?"
    client, body = await yes_to(make_client, THREE, message, question, sweep("delete_task", THREE[:2]))

    assert body["confirmation"] is None and await statuses(client) == dict.fromkeys(THREE, "pending")


@pytest.mark.parametrize(
    ("question", "calls_on"),
    [
        ("Should I delete Gym?", THREE),  # a question about one task: the model deleting all is asked nothing
        ("Should I delete Gym and Taxes?", THREE),
        ("Should I delete Gym from your 3 tasks?", THREE),
        ("Do you want me to delete the 3 tasks on your list?", ("Gym", "gym", "GYM")),  # one task, three ways
    ],
)
async def test_after_a_yes_no_question_comes_of_calls_past_what_it_named(
    make_client: MakeClient, question: str, calls_on: tuple[str, ...]
) -> None:
    message = "delete gym"
    client, body = await yes_to(make_client, THREE, message, question, sweep("delete_task", calls_on))

    assert body["confirmation"] is None, body["assistant_message"]
    named = {t for t in THREE if t.casefold() in question.casefold()}
    assert {t for t in THREE if t not in named} <= set(await statuses(client))


# The question names one task and says which list it is on in words for every task ("from all your
# tasks", "de toda tu lista"): a place, not what the change is about. A yes to it is no sweep (once,
# any whole-list word anywhere in the question let a model deleting every task delete every task).
PLACED = [
    "Should I delete Gym from all your tasks?",
    "Should I delete Gym from your todo list?",
    "Do you want me to remove Gym from all of your lists?",
    "Want me to take Gym off your entire list?",
    "Soll ich Gym aus all deinen Aufgaben löschen?",
    "Soll ich Gym von deiner ganzen Liste löschen?",
    "¿Borro Gym de toda tu lista?",
    "¿Quieres que elimine Gym de todas tus tareas?",
    "Je supprime Gym de toute ta liste ?",
    "Veux-tu que je retire Gym de toutes tes tâches ?",
    "Elimino Gym da tutte le tue attività?",
    "Vuoi che tolga Gym da tutta la lista?",
    "Zal ik Gym uit alle lijsten verwijderen?",
    "Apago Gym de todas as suas tarefas?",
    "Quer que eu apague Gym de toda a lista?",
    "Ska jag ta bort Gym från alla dina uppgifter?",
    "Kya main Gym ko sari list se delete kar doon?",
    "Should I delete Gym from every one of your lists?",
    "Should I delete Gym from all 3 of your lists?",
    "Should I delete “Clear all”?",  # a whole-list word inside a title is the title's
    # a phrase with a word for every task that names none (`not_all`)
    "All right, should I delete Gym?",
    "**All right**, should I delete Gym?",
    "All right 👍 should I delete Gym?",
    "All right so should I delete Gym?",
    "Theek hai all right, kya main Gym delete kar doon?",
    "All right now, should I delete Gym?",
    "All right here's what I found: should I delete Gym?",
    "Should I delete Gym and leave the rest of them all the same?",
    "Should I delete Gym, or are those all good?",
    "Should I delete Gym and leave them all right where they are?",
    "Should I delete Gym and keep these all the same?",
    "Should I delete Gym after all?",
    "First of all, should I delete Gym?",
    "Is that all, should I delete Gym?",
    "Alright, should I delete Gym at all?",
    "Okay, that's all clear. Should I delete Gym, all things considered once and for all?",
    "Alles klar, soll ich Gym löschen?",
    "Soll ich vor allem Gym löschen?",
    "Todo bien, ¿borro Gym de todas formas?",
    "¿Borro Gym de una vez por todas?",
    "Je supprime Gym tout de suite ?",
    "Tout à fait, je supprime Gym ?",
    "Elimino Gym del tutto?",
    "Tutto chiaro, elimino Gym?",
    "Alles goed, zal ik Gym verwijderen?",
    "Tudo bem, quer que eu apague Gym?",
    "Ska jag ta bort Gym trots allt?",
    "Ska jag ta bort Gym en gång för alla?",
    "Kya main Gym sab se pehle delete kar doon?",
]


@pytest.mark.parametrize("question", PLACED)
async def test_a_yes_to_a_question_placing_its_task_in_the_whole_list_changes_only_that_task(
    make_client: MakeClient, question: str
) -> None:
    tasks = ("Clear all", "Taxes", "Call mom") if "Clear all" in question else THREE
    client, _ = await yes_to(make_client, tasks, "gym", question, sweep("delete_task", tasks))

    # Gym may go (where the question is read as a delete of it), never another task.
    assert set(tasks[1:]) <= set(await statuses(client)), question


# The same words where they are what the change is about ("everything on your list", "all your tasks"
# after a particle): the yes does all. A review broke a first version on "check off all your tasks",
# "the tasks on the whole list", "bocka av alla uppgifter" and "sare tasks list se": words that say
# which list count as no task only where the question names a task.
SWEPT_PLACED = [
    ("delete everything", "Should I delete everything on your list?", "yes"),
    ("delete everything", "All right, should I delete all your tasks?", "yes"),
    ("lösch alles", "Alles klar, soll ich alle Aufgaben löschen?", "ja"),
    ("borra todo", "Todo bien, ¿borro todo de una vez por todas?", "sí"),
    ("delete everything", "Should I delete the tasks on the whole list?", "yes"),
    ("borra todo", "¿Borro las tareas de toda la lista?", "sí"),
    ("supprime tout", "Je supprime les tâches de toute la liste ?", "oui"),
    ("ta bort allt", "Ska jag ta bort uppgifterna på hela listan?", "ja"),
    ("sab delete kar do", "Kya main sare tasks list se delete kar doon?", "haan"),
    ("sab delete kar do", "Kya main poori list se tasks delete kar doon?", "haan"),
    ("delete all my tasks", "Do you want me to delete all 3 tasks from your list?", "yes please"),
    ("lösch alles", "Soll ich alles von deiner Liste löschen?", "ja"),
    ("borra todo", "¿Borro todo de tu lista?", "sí"),
    ("supprime tout", "Je supprime tout de ta liste ?", "oui"),
    ("cancella tutto", "Elimino tutto dalla tua lista?", "sì"),
    ("verwijder alles", "Zal ik alles van je lijst verwijderen?", "ja"),
    ("apaga tudo", "Quer que eu apague tudo da sua lista?", "sim"),
    ("ta bort allt", "Ska jag ta bort allt från din lista?", "ja"),
]


@pytest.mark.parametrize(("message", "question", "yes"), SWEPT_PLACED)
async def test_a_yes_to_a_question_about_everything_on_the_list_does_it_all(
    make_client: MakeClient, message: str, question: str, yes: str
) -> None:
    client, body = await yes_to(make_client, THREE, message, question, sweep("delete_task", THREE), yes=yes)

    assert await statuses(client) == {}, (question, body["assistant_message"])


# A question over every finished task ("all your finished tasks"): its yes lets the model's calls
# change the finished ones, never a pending task (once, "all" anywhere in the question let a model
# deleting every task delete the pending ones too).
FINISHED = [
    ("delete all my finished tasks", "Should I delete all your finished tasks?"),
    ("clear out the completed stuff", "Do you want me to delete all the completed tasks?"),
    ("lösch alle erledigten Aufgaben", "Soll ich alle erledigten Aufgaben löschen?"),
    ("borra las tareas terminadas", "¿Borro todas las tareas terminadas?"),
    ("supprime les tâches terminées", "Veux-tu que je supprime toutes les tâches terminées ?"),
    ("cancella le attività completate", "Vuoi che elimini tutte le attività completate?"),
    ("verwijder de afgeronde taken", "Zal ik alle afgeronde taken verwijderen?"),
    ("apague as tarefas concluídas", "Quer que eu apague todas as tarefas concluídas?"),
    ("ta bort det som är klart", "Ska jag ta bort alla klara uppgifter?"),
]


@pytest.mark.parametrize(("message", "question"), FINISHED)
async def test_a_yes_to_a_question_over_the_finished_tasks_never_changes_a_pending_one(
    make_client: MakeClient, message: str, question: str
) -> None:
    done = ("Gym", "Taxes")
    client, _ = await yes_to(make_client, THREE, message, question, sweep("delete_task", THREE), done=done)

    assert "Call mom" in await statuses(client), question


async def test_a_yes_to_completing_everything_still_completes_everything(make_client: MakeClient) -> None:
    # The done state is the change asked about, not which tasks: every task is completed.
    message, question = "mark everything as done", "Should I mark all your tasks as done?"
    client, _ = await yes_to(make_client, THREE, message, question, sweep("complete_task", THREE))

    assert await statuses(client) == dict.fromkeys(THREE, "completed")


@pytest.mark.parametrize(
    ("message", "question", "step", "after"),
    [
        ("mark everything done", "Should I check off all your tasks?", sweep("complete_task", THREE), "completed"),
        ("mark everything done", "Should I tick off all 3 tasks?", sweep("complete_task", THREE), "completed"),
        ("bocka av allt", "Ska jag bocka av alla uppgifter?", sweep("complete_task", THREE), "completed"),
        (
            "make everything high priority",
            "Should I set high priority on all your tasks?",
            calls(*[("update_task", {"task_id": t, "priority": "high"}) for t in THREE]),
            "pending",
        ),
    ],
)
async def test_a_yes_to_a_change_of_all_your_tasks_after_a_particle_does_it_all(
    make_client: MakeClient, message: str, question: str, step: dict[str, Any], after: str
) -> None:
    client, _ = await yes_to(make_client, THREE, message, question, step)

    tasks = await tasks_of(client)
    assert {t["status"] for t in tasks} == {after}, question
    if after == "pending":
        assert {t["priority"] for t in tasks} == {"high"}, question


# The assistant's own question writes the titles it means as they are: a word of it one letter from
# another title ("tes" Test, "list" Lisa, "ta" Taxes) names no other task (a review found each).
LOOK_ALIKES = [
    ("Je supprime Gym de tes tâches ?", "Test"),
    ("Should I delete Gym from your list?", "Lisa"),
    ("Soll ich die Gym-Aufgabe löschen?", "Diet"),
    ("¿Borro Gym de mis tareas?", "Misa"),
    ("Je supprime Gym de toute ta liste ?", "Taxes"),
    ("Ska jag ta bort Gym från min lista?", "Mint"),
    ("Ska jag ta bort Gym?", "Taxes"),
    ("Soll ich Gym von dem Plan löschen?", "Demo"),
]


@pytest.mark.parametrize(("question", "look_alike"), LOOK_ALIKES)
async def test_a_yes_names_no_task_by_a_typo_in_the_question(
    make_client: MakeClient, question: str, look_alike: str
) -> None:
    tasks = ("Gym", look_alike, "Call mom")
    client, _ = await yes_to(make_client, tasks, "gym", question, sweep("delete_task", tasks[:2]))

    assert look_alike in await statuses(client), question


async def test_a_users_typo_of_a_short_title_is_still_asked_about(make_client: MakeClient) -> None:
    # The user's own words keep their typos: "gy" is Gym, asked about (a withdrawn change dropped it unsaid).
    client = await make_client(ScriptedLLM(default=sweep("delete_task", ("Gym",)), checker=declares()))
    await seed_tasks(client, *THREE)

    body = (await chat(client, "no gy today")).json()

    assert "Gym" in body["assistant_message"], body["assistant_message"]


@pytest.mark.parametrize(
    "message",
    [
        "VACÍA mi lista entera porfa, son todo cosas viejas",
        "borra todo, mi lista ya no sirve",
        "limpa minha lista inteira, é tudo coisa velha",
    ],
)
async def test_a_word_for_the_list_is_no_done_state(make_client: MakeClient, message: str) -> None:
    # Spanish and Portuguese "lista" is also "ready": a model that deletes the list over two steps is
    # asked about once, all of it, and the yes does it (a first reading of "all the finished ones" took
    # "mi lista entera" for them, and refused every pending task).
    steps = (sweep("delete_task", TWELVE[:6]), sweep("delete_task", TWELVE[6:]))
    client = await make_client(ScriptedLLM(*steps, default=completion("Listo."), checker=declares()))
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, message)).json()
    assert first["confirmation"] is not None, first["assistant_message"]
    await chat(client, "sí", conversation_id=first["conversation_id"])

    assert await statuses(client) == {}


# Questions about every task that a yes does at once, Gym finished before: a review of the second
# version found each stopped (refused, or asked again) by words that say which tasks a change covers
# ("on all your tasks"), emphasis taken for a title, a done word not about which tasks.
EVERY = [
    "Should I delete the tasks on all your lists, like Gym and Taxes?",
    "Should I delete **all 3 tasks**?",
    "Should I delete *everything* on your list?",
    "Should I delete all your tasks for a complete fresh start?",
    "Should I delete all your tasks and be done with it?",
    "Pronto, quer que eu apague todas as tarefas?",
    "¿Borro todas tus tareas tan pronto como pueda?",
    "Klar, soll ich dann alle Aufgaben löschen?",
    "Haal ik alle taken van je lijst af?",
    "Soll ich alle Aufgaben löschen, auch die erledigten?",
    "Should I delete every task, finished or not?",
    # a third review: a phrase that names no task never where "all" counts tasks
    "Should I delete them all right now?",
    "Should I delete them all right after lunch?",
    "Should I delete your tasks all right now?",
]


@pytest.mark.parametrize("question", EVERY)
async def test_a_yes_to_a_question_about_every_task_does_every_one(make_client: MakeClient, question: str) -> None:
    step = sweep("delete_task", THREE)
    client, body = await yes_to(make_client, THREE, "clear it all", question, step, done=("Gym",))

    assert await statuses(client) == {}, (question, body["assistant_message"])


@pytest.mark.parametrize(
    "question",
    [
        "Should I set high priority on all your tasks, including Gym?",
        "Should I set *all* your tasks to high priority?",
        "Should I set them all the same priority, high?",
        "Should I get them all set to high priority?",
        "Should I set them all the same high priority?",
        "Should I have them all set at high priority?",
        "Should I set your 3 tasks all the same priority, high?",
        "Should I set all the same priority: high?",
    ],
)
async def test_a_yes_to_an_edit_of_every_task_naming_one_edits_all(make_client: MakeClient, question: str) -> None:
    step = calls(*[("update_task", {"task_id": t, "priority": "high"}) for t in THREE])
    client, _ = await yes_to(make_client, THREE, "prioritise", question, step)

    assert {t["priority"] for t in await tasks_of(client)} == {"high"}, question


@pytest.mark.parametrize(
    "question", ["Ska jag ta bort alla ”Gym”?", "Ska jag ta bort alla 'gamla' uppgifter?", "Ska jag ta bort alla *Gym*"]
)
async def test_a_quoted_title_joins_no_words_around_it(make_client: MakeClient, question: str) -> None:
    # Taking the title out of the words must not make "alla … uppgifter" read "alla uppgifter".
    client, _ = await yes_to(make_client, THREE, "gym", question, sweep("delete_task", THREE), yes="ja")

    assert {"Taxes", "Call mom"} <= set(await statuses(client)), question


@pytest.mark.parametrize(
    ("title", "question"),
    [("Buy mlik", "Should I delete “Buy milk”?"), ("Recieve package", "Should I delete Receive package?")],
)
async def test_a_question_that_mends_a_titles_typo_still_names_it(
    make_client: MakeClient, title: str, question: str
) -> None:
    client, _ = await yes_to(make_client, (title, "Gym"), "that one", question, sweep("delete_task", (title,)))

    assert await statuses(client) == {"Gym": "pending"}, question


async def test_a_users_whole_list_request_over_two_steps_is_asked_once(make_client: MakeClient) -> None:
    # "bin fertig damit" (I'm done with it) says nothing of which tasks: all twelve are asked about.
    steps = (sweep("delete_task", TWELVE[:6]), sweep("delete_task", TWELVE[6:]))
    client = await make_client(ScriptedLLM(*steps, default=completion("Erledigt."), checker=declares()))
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, "lösch alle Aufgaben, bin fertig damit")).json()

    assert first["confirmation"] is not None and len(first["confirmation"]["actions"]) == 12, first["assistant_message"]


@pytest.mark.parametrize(
    ("message", "tool", "other"),
    [
        ("remove gym", "delete_task", "Remote"),
        ("mark gym as done", "complete_task", "Market"),
        ("complete gym", "complete_task", "Gym comp"),
        ("finish gym", "complete_task", "Gym with Fin"),
    ],
)
async def test_the_users_verb_names_no_task_by_its_ending(
    make_client: MakeClient, message: str, tool: str, other: str
) -> None:
    # "remove" once named "Remote" (a shared stem, read as a conjugation): a model's extra call on it ran.
    client = await make_client(ScriptedLLM(default=sweep(tool, ("Gym", other)), checker=declares()))
    await seed_tasks(client, "Gym", other, "Taxes")

    await chat(client, message)

    assert (await statuses(client)).get(other) == "pending", message


@pytest.mark.parametrize("title", ["Everything", "Todo"])
async def test_a_quoted_word_for_every_task_is_a_title(make_client: MakeClient, title: str) -> None:
    # Read once as emphasis ("delete "everything"?"): a review deleted every task after a yes to it.
    tasks = (title, "Gym", "Taxes")
    question = f'Should I delete "{title}"?'
    client, _ = await yes_to(make_client, tasks, "that one", question, sweep("delete_task", tasks))

    assert {"Gym", "Taxes"} <= set(await statuses(client))


async def test_a_yes_to_a_question_about_a_titles_own_verb_runs(make_client: MakeClient) -> None:
    # "Should I tick off the cancelled subscription task?" names "Cancel subscription" (review 4).
    question = "Should I tick off the cancelled subscription task?"
    step = sweep("complete_task", ("Cancel subscription",))
    client, _ = await yes_to(make_client, ("Cancel subscription", "Gym"), "I cancelled it", question, step)

    assert await statuses(client) == {"Cancel subscription": "completed", "Gym": "pending"}
