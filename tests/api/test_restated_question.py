"""A model's question that cannot be shown is asked in the catalog's words (issue 48), through HTTP
with a real database and a scripted model whose reply check cannot be read.

The user says something that asks for no change ("the dentist moved me to next month anyway"), the
model asks back in its own words ("Want me to delete “Dentist”?"), and the check that would let
those words be shown answers nonsense. The question is not lost to the help text: when it asks
about one delete or completion of one quoted title, exactly one of the user's tasks, the backend
asks it as its own pending question ("Do you want me to delete “Dentist”? Answer yes or no."), and
the user's yes runs that change with no model call. Any other question (two titles, two changes, a
title that is no task, a finished task, twins, no quote) is not restated: the help is said as before.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import USER, MakeClient, auth, chat, seed_tasks, statuses, tasks_of
from support.asking import after, asking_model
from support.fake_llm import NONSENSE_CHECK, ScriptedLLM, calls, completion, declares
from support.live import serve
from support.sse import parse, streamed

from backend.app.language.catalog import texts
from backend.app.services.reply.wording import action_phrase

TASKS = ("Dentist", "Pay rent", "Yoga", "Gym")

# (language, the user's message, the model's question, the user's yes, the tool, the task)
RESTATED = [
    (
        "en",
        "the dentist moved me to next month anyway",
        'Oof, that dentist saga continues! Should I remove "Dentist" from your list?',
        "sure",
        "delete_task",
        "Dentist",
    ),
    (
        "en",
        "rent is sorted for this month",
        "Landlord appeased, splendid! Want me to mark 'Pay rent' as done?",
        "yep",
        "complete_task",
        "Pay rent",
    ),
    (
        "de",
        "yoga fällt diese woche sowieso aus",
        "Schade, Entspannung adé. Soll ich „Yoga“ von deiner Liste löschen?",
        "ja bitte",
        "delete_task",
        "Yoga",
    ),
    (
        "fr",
        "la salle de sport a fermé définitivement",
        "Quelle tristesse pour tes abdos ! Tu veux que je supprime « Gym » ?",
        "oui",
        "delete_task",
        "Gym",
    ),
    (
        "es",
        "ya pagué el alquiler esta mañana",
        "¡Uf, menuda odisea con el casero! ¿Quieres que marque «Pay rent» como hecha?",
        "sí",
        "complete_task",
        "Pay rent",
    ),
    (
        "it",
        "il dentista mi ha cancellato l'appuntamento",
        "Che seccatura, povero molare! Vuoi che elimini «Dentist» dalla lista?",
        "sì",
        "delete_task",
        "Dentist",
    ),
    (
        "nl",
        "yoga gaat deze maand niet door",
        "Balen, geen zonnegroet dus. Zal ik 'Yoga' verwijderen?",
        "ja",
        "delete_task",
        "Yoga",
    ),
    (
        "pt",
        "a academia fechou de vez",
        "Que pena, adeus esteira! Quer que eu apague «Gym» da lista?",
        "sim",
        "delete_task",
        "Gym",
    ),
    (
        "sv",
        "tandläkaren ställde in tiden",
        "Tråkigt med borren! Ska jag ta bort ”Dentist” från listan?",
        "ja",
        "delete_task",
        "Dentist",
    ),
    (
        "sv",
        "äntligen betald",
        "Skönt, hyresvärden blir glad! Vill du att jag bockar av ”Pay rent”?",
        "ja",
        "complete_task",
        "Pay rent",
    ),
]


def _client_model(message: str, question: str, then: dict[str, Any], *, honest: bool = False) -> ScriptedLLM:
    return ScriptedLLM(default=asking_model(message, question, then), checker=declares() if honest else NONSENSE_CHECK)


@pytest.mark.parametrize(("lang", "message", "question", "yes", "tool", "title"), RESTATED)
async def test_the_models_question_is_asked_in_the_catalogs_words_and_its_yes_makes_the_change(
    make_client: MakeClient, lang: str, message: str, question: str, yes: str, tool: str, title: str
) -> None:
    llm = _client_model(message, question, calls((tool, {"task_id": title})))
    client = await make_client(llm)
    await seed_tasks(client, *TASKS)

    first = (await chat(client, message)).json()
    asked = first["confirmation"]
    t = texts(lang)
    assert asked is not None and asked["kind"] == "confirm", first["assistant_message"]
    assert first["assistant_message"] == asked["question"]
    assert asked["question"] == t(
        "Do you want me to {actions}? Answer yes or no.", actions=action_phrase(t, tool, title)
    )
    ids = {x["title"]: x["id"] for x in await tasks_of(client)}
    assert asked["actions"] == [{"name": tool, "arguments": {"task_id": ids[title]}}]
    assert first["execution_metadata"]["reply"]["replaced"] == [
        {"reason": "unverified", "claims": [], "model_reply": question}
    ]
    assert await statuses(client) == dict.fromkeys(TASKS, "pending")

    asked_model = len(llm.requests)
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()
    assert len(llm.requests) == asked_model  # the yes runs the stored call, no model
    assert await statuses(client) == after(TASKS, tool, title), body["assistant_message"]


async def test_a_no_to_the_restated_question_changes_nothing(make_client: MakeClient) -> None:
    message, question = "gym membership ran out", 'Membership kaput, alas! Should I delete "Gym"?'
    client = await make_client(_client_model(message, question, calls(("delete_task", {"task_id": "Gym"}))))
    await seed_tasks(client, *TASKS)
    first = (await chat(client, message)).json()
    assert first["confirmation"] is not None

    body = (await chat(client, "no", conversation_id=first["conversation_id"])).json()
    assert body["assistant_message"] == "Okay, I won't: nothing was changed."
    assert await statuses(client) == dict.fromkeys(TASKS, "pending")


NOT_RESTATED = [
    ('Renovations, what a saga! Should I delete "Gym" or "Yoga"?', ()),  # two titles: a choice, not one change
    ('Renovations, what a saga! Should I delete "Gym", or mark "Yoga" as done?', ()),  # two changes
    ('Renovations, what a saga! Want me to delete "Swimming" from your list?', ()),  # no task of that title
    ('Renovations, what a saga! Should I mark "Yoga" as done?', ("Yoga",)),  # already done
    ('Renovations, what a saga! Should I delete "Gym"?', ("twin",)),  # two tasks titled Gym
    ("Renovations, what a saga! Should I delete Gym?", ()),  # no quote: the words do not say where the title is
    ('Renovations, what a saga! Is "Gym" still on your list?', ()),  # asks no change
    ('Renovations, what a saga! I could delete "Gym" for you.', ()),  # says, does not ask
    ('Renovations, what a saga! Should I not delete "Gym"?', ()),  # negated
    ('Renovations, what a saga! Do you want to keep "Gym" or delete it?', ()),  # a choice
    ('Renovations, what a saga! Should I delete "Gym"? Just kidding, it stays on your list!', ()),  # taken back
    ('Renovations, what a saga! Should I delete everything except "Gym"?', ()),  # the opposite of "Gym"
    ('Renovations, what a saga! Should I delete the "Gym" tag?', ()),  # the quote is not the verb's object
    ('Renovations, what a saga! Like "Gym", should I remove Yoga as well?', ()),  # another task's quote
    ('Renovations, what a saga! Should I delete "Gym" and everything else?', ()),  # more than one task
    ('Renovations, what a saga! Should I delete "Gym" or just postpone it?', ()),  # an alternative
    ('Renovations, what a saga! Should I delete ＂Gym＂ and keep "Yoga" as is?', ()),  # fullwidth quotes
    ('Renovations, what a saga! Should I keep it instead of deleting "Gym"?', ()),  # offers the opposite
    ('Renovations, what a saga! Should Anna delete "Gym"?', ()),  # someone else
    ('Renovations, what a saga! Should I delete "Gym" tomorrow?', ()),  # another time
    ('Renovations, what a saga! Did you delete "Gym"?', ()),  # the past
    ('Renovations, what a saga! Should I have deleted "Gym"?', ()),
    ('Renovations, what a saga! Is "Yoga" complete?', ()),  # a state
    ("Schade, Entspannung adé. Soll ich Yoga statt „Gym“ löschen?", ()),  # another task, the verb last
    ('Uff, dumbbells ki chhutti. Kya main "Gym" delete karne ke bajaye rakh loon?', ()),
    ("Schade, Entspannung adé. Soll ich „Gym“ nicht löschen?", ()),
    ("Quelle tristesse ! Tu veux que je supprime tout sauf « Gym » ?", ()),
    ("¡Uf, menuda odisea! ¿No quieres que elimine «Gym»?", ()),
    ('Uff, dumbbells ki chhutti. Kya main "Gym" delete na karoon?', ()),
]


@pytest.mark.parametrize(("question", "setup"), NOT_RESTATED)
async def test_any_other_question_is_not_restated(
    make_client: MakeClient, question: str, setup: tuple[str, ...]
) -> None:
    message = "the gym is closed for renovation"
    client = await make_client(_client_model(message, question, calls(("delete_task", {"task_id": "Gym"}))))
    await seed_tasks(client, *TASKS)
    if "twin" in setup:
        await seed_tasks(client, "Gym")
    for task in await tasks_of(client):
        if task["title"] in setup:
            done = await client.patch(f"/api/{USER}/tasks/{task['id']}", json={"status": "completed"}, headers=auth())
            assert done.status_code == 200, done.text
    before = await statuses(client)

    first = (await chat(client, message)).json()
    assert first["execution_metadata"]["reply"]["words"] == "withheld", first["assistant_message"]
    assert first["confirmation"] is None, first["assistant_message"]
    assert first["assistant_message"].startswith("I keep your to-do list"), first["assistant_message"]
    assert await statuses(client) == before


async def test_words_that_can_be_shown_are_shown_not_restated(make_client: MakeClient) -> None:
    message, question = "gym membership ran out", 'Membership kaput, alas! Should I delete "Gym"?'
    client = await make_client(_client_model(message, question, completion("ok"), honest=True))
    await seed_tasks(client, *TASKS)
    first = (await chat(client, message)).json()
    assert first["assistant_message"] == question and first["confirmation"] is None


async def test_a_claim_beside_the_question_is_not_restated(make_client: MakeClient) -> None:
    message, question = "gym membership ran out", 'I deleted "Yoga". Should I delete "Gym" too?'
    client = await make_client(_client_model(message, question, completion("ok")))
    await seed_tasks(client, *TASKS)
    first = (await chat(client, message)).json()
    assert first["confirmation"] is None, first["assistant_message"]
    assert await statuses(client) == dict.fromkeys(TASKS, "pending")


async def test_in_model_mode_and_streamed_the_restated_question_is_the_reply(make_client: MakeClient) -> None:
    message, question = "yoga fällt sowieso aus", "Schade, Entspannung adé. Soll ich „Yoga“ löschen?"
    client = await make_client(_client_model(message, question, completion("ok")), response_mode="model")
    await seed_tasks(client, *TASKS)
    body = (await chat(client, message)).json()
    assert (
        body["assistant_message"]
        == body["confirmation"]["question"]
        == texts("de")(
            "Do you want me to {actions}? Answer yes or no.", actions=texts("de")("delete “{title}”", title="Yoga")
        )
    )
    async with serve(client) as live:
        events = parse((await streamed(live, message)).text)
    shown = [data for kind, data in events if kind == "confirmation"]
    assert len(shown) == 1 and shown[0]["question"] == body["confirmation"]["question"], events
    assert await statuses(client) == dict.fromkeys(TASKS, "pending")


@pytest.mark.parametrize(
    "message",
    [
        "delete yoga",  # a command: its own actions are what the turn says
        "don't delete the gym, it is only closed for a week",  # says no
    ],
)
async def test_beside_a_command_or_a_no_the_models_question_is_not_restated(
    make_client: MakeClient, message: str
) -> None:
    question = 'Renovations, what a saga! Should I delete "Gym"?'
    client = await make_client(_client_model(message, question, completion("ok")))
    await seed_tasks(client, *TASKS)
    first = (await chat(client, message)).json()
    assert first["confirmation"] is None, first["assistant_message"]
    assert "Gym" not in first["assistant_message"], first["assistant_message"]
    assert await statuses(client) == dict.fromkeys(TASKS, "pending")
