"""A model's question of which task, that cannot be shown, is asked as the backend's own choice (issue 48).

"marque le Q comme fait" with tasks Q1, Q10, Q2, Q3: the model asks back "Tu as plusieurs tâches Q : 1)
Q1, 2) Q10, 3) Q2, 4) Q3. Laquelle ?" and, its reply check answering nonsense, those words could not
be shown: the user was told "Not done … please ask again", and their "la 2" answered nothing the
backend knew (flow-fr-short_title-1, flow-nl-short_title-1, flow-ur-short_title-1). Where a command
for one change of a task is not made, its own words name no one task, and the model's words (a
question, no claim) name two or more of the user's tasks, the backend asks which, listing those
tasks by their titles in the order the model gave them; the answer runs the change with no model.
"""

from __future__ import annotations

import re

import pytest
from support.api import USER, MakeClient, auth, chat, seed_tasks, statuses, tasks_of
from support.asking import after, asking_model
from support.fake_llm import NONSENSE_CHECK, ScriptedLLM, calls, completion, declares

# (the tasks, the user's command, the model's question back, the user's answer, the tool, the task it means)
CHOICES = [
    (
        ("Q1", "Q10", "Q2", "Q3"),
        "marque le Q comme fait",
        "Tu as plusieurs tâches Q : 1) Q1, 2) Q10, 3) Q2, 4) Q3. Laquelle ?",
        "la 2",
        "complete_task",
        "Q10",
    ),
    (
        ("🧺", "🧺 handdoeken", "🧺 lakens"),
        "de was is klaar, vink maar af",
        "Welke bedoel je? 1. 🧺  2. 🧺 handdoeken  3. 🧺 lakens",
        "1",
        "complete_task",
        "🧺",
    ),
    (("A1", "A2", "A10"), "A wala task delete kar do", "Kaunsa wala? A1, A2 ya A10?", "A10", "delete_task", "A10"),
    (
        ("Call mom", "Call dad", "Gym"),
        "delete the phone one",
        "Which call do you mean, Call dad or Call mom?",
        "2",
        "delete_task",
        "Call mom",
    ),
    (
        ("Zahnarzt Montag", "Zahnarzt Freitag", "Gym"),
        "lösch den Termin",
        "Welchen Termin meinst du: „Zahnarzt Montag“ oder „Zahnarzt Freitag“?",
        "den zweiten",
        "delete_task",
        "Zahnarzt Freitag",
    ),
    (
        ("Informe Q1", "Informe Q2", "Gym"),
        "marca el informe como hecho",
        "¿Cuál de los dos? Informe Q1 o Informe Q2",
        "el primero",
        "complete_task",
        "Informe Q1",
    ),
    (
        ("Bollette luce", "Bollette gas"),
        "spunta la bolletta",
        "Quale bolletta? Bollette gas o Bollette luce?",
        "1",
        "complete_task",
        "Bollette gas",
    ),
]


def _model(message: str, question: str, *, honest: bool = False) -> ScriptedLLM:
    """Answers `message`, and anything after it, with `question` (forced or not)."""
    return ScriptedLLM(
        default=asking_model(message, question, completion(question)), checker=declares() if honest else NONSENSE_CHECK
    )


@pytest.mark.parametrize(("tasks", "message", "question", "reply", "tool", "meant"), CHOICES)
async def test_the_models_question_of_which_task_is_asked_as_a_choice_and_its_answer_makes_the_change(
    make_client: MakeClient,
    tasks: tuple[str, ...],
    message: str,
    question: str,
    reply: str,
    tool: str,
    meant: str,
) -> None:
    llm = _model(message, question)
    client = await make_client(llm)
    await seed_tasks(client, *tasks)

    first = (await chat(client, message)).json()
    asked = first["confirmation"]
    assert asked is not None and asked["kind"] == "choose", first["assistant_message"]
    ids = {x["id"]: x["title"] for x in await tasks_of(client)}
    offered = [ids[a["arguments"]["task_id"]] for a in asked["actions"]]
    named = sorted((t for t in tasks if t in question), key=lambda t: _first(question, t))
    assert offered == named and {a["name"] for a in asked["actions"]} == {tool}, asked
    assert first["assistant_message"].endswith(asked["question"]), first["assistant_message"]
    assert "ask again" not in first["assistant_message"].casefold(), first["assistant_message"]
    assert await statuses(client) == dict.fromkeys(tasks, "pending")

    requests = len(llm.requests)
    body = (await chat(client, reply, conversation_id=first["conversation_id"])).json()
    assert len(llm.requests) == requests  # the answer runs the stored call, no model
    assert await statuses(client) == after(tasks, tool, meant), body["assistant_message"]


def _first(text: str, title: str) -> int:
    """Where `title` first stands whole in `text` (not inside a longer title: "Q1" of "Q10")."""
    return next(m.start() for m in re.finditer(re.escape(title), text) if not text[m.end() : m.end() + 1].isalnum())


# (the tasks, the command, the model's words): nothing is asked, as before.
NOT_ASKED = [
    (("Yoga", "Gym", "Taxes"), "delete yoga", "Which one, Gym or Taxes?"),  # the command names one task
    (("Q1", "Q10"), "marque le Q comme fait", "Laquelle ?"),  # the words name no task
    (("Q1", "Q10"), "marque le Q comme fait", "Tu parles de Q10 ?"),  # one task: no choice
    (("Q1", "Q10"), "marque le Q comme fait", "J'ai coché Q1. Et Q10 ?"),  # a claim beside it
    (("Q1", "Q10"), "marque le Q comme fait", "Tu as Q1 et Q10."),  # no question
    (("Gym", "Taxes", "Yoga"), "delete everything except yoga", "Gym or Taxes?"),  # over every task
    (("Gym", "Taxes"), "what's on my list?", "Gym or Taxes?"),  # no command
    (("Gym", "Taxes"), "don't delete anything yet", "Gym or Taxes?"),  # says no
    # found by a review (2026-12-07)
    (("Q1", "Q10", "Gym"), "move the Q one to friday", "Which one, Q1 or Q10?"),  # an edit: its values are lost
    (("Q1", "Q10", "Gym"), "rename the Q one to Quarterly", "Q1 or Q10?"),
    (("Q1", "Q10", "Gym"), "delete the Q one", "Gym and Q1 stay, right? Or Q10?"),  # the asking sentence names one
    (("Q1", "Q10", "Gym"), "delete the Q ones", "Do you mean Q1 and Q10?"),  # both, not one of them
    (("Q1", "Q10", "Gym"), "tick off the Q tasks", "Both Q1 and Q10?"),
    (("Q1", "Q10", "Gym"), "delete the Q one", "Q1 and Q10 are both due Friday. Which do you want to keep?"),
]


@pytest.mark.parametrize(("tasks", "message", "words"), NOT_ASKED)
async def test_no_choice_is_asked_where_the_words_or_the_command_do_not_call_for_one(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, words: str
) -> None:
    client = await make_client(_model(message, words))
    await seed_tasks(client, *tasks)

    body = (await chat(client, message)).json()

    assert body["confirmation"] is None or body["confirmation"]["kind"] != "choose", body["assistant_message"]
    assert await statuses(client) == dict.fromkeys(tasks, "pending")


async def test_a_command_naming_a_finished_task_is_no_choice_among_others(make_client: MakeClient) -> None:
    # "complete Q1" with Q1 done names one task: the model's "Did you mean Q10 or Q2?" is no choice to ask.
    client = await make_client(_model("complete Q1", "Q1 is already done. Did you mean Q10 or Q2?"))
    await seed_tasks(client, "Q1", "Q10", "Q2")
    q1 = next(x["id"] for x in await tasks_of(client) if x["title"] == "Q1")
    done = await client.patch(f"/api/{USER}/tasks/{q1}", json={"status": "completed"}, headers=auth())
    assert done.status_code == 200, done.text

    body = (await chat(client, "complete Q1")).json()

    assert body["confirmation"] is None, body["assistant_message"]


async def test_only_the_tasks_of_the_sentence_that_asks_are_offered(make_client: MakeClient) -> None:
    # "Gym is due Friday too." is said in passing: the choice is between the two the question names.
    client = await make_client(_model("delete the Q one", "Gym is due Friday too. Which Q: Q1 or Q10?"))
    await seed_tasks(client, "Gym", "Q1", "Q10")

    body = (await chat(client, "delete the Q one")).json()

    ids = {x["id"]: x["title"] for x in await tasks_of(client)}
    asked = body["confirmation"]
    assert asked is not None and [ids[a["arguments"]["task_id"]] for a in asked["actions"]] == ["Q1", "Q10"], body


async def test_words_that_can_be_shown_are_shown_and_no_choice_is_added(make_client: MakeClient) -> None:
    question = "Tu as plusieurs tâches Q : 1) Q1, 2) Q10. Laquelle ?"
    client = await make_client(_model("marque le Q comme fait", question, honest=True))
    await seed_tasks(client, "Q1", "Q10")

    body = (await chat(client, "marque le Q comme fait")).json()

    assert question in body["assistant_message"] and body["confirmation"] is None, body


async def test_after_a_change_was_made_no_choice_is_asked(make_client: MakeClient) -> None:
    # The model deleted Gym, then asks which Q: the turn changed something, so its words say what it is.
    steps = iter([calls(("delete_task", {"task_id": "Gym"}))])

    def model(body: dict[str, object]) -> dict[str, object]:
        return next(steps, completion("Et lequel des Q : Q1 ou Q10 ?"))

    client = await make_client(ScriptedLLM(default=model, checker=NONSENSE_CHECK))
    await seed_tasks(client, "Gym", "Q1", "Q10")

    body = (await chat(client, "supprime gym et coche le Q")).json()

    assert body["confirmation"] is None or body["confirmation"]["kind"] != "choose", body["assistant_message"]
    assert await statuses(client) == {"Q1": "pending", "Q10": "pending"}
