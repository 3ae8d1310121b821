"""A model that asks before it changes (issue 48), through HTTP with a real database and a scripted model.

"delete gym" answered with the model's own "Are you sure you want to delete “Gym”?": the reply is
that question, not "Not done: “delete gym”. Please ask again." beside it (which the question
contradicts), and the user's yes makes the change. A whole-list request the model confirms in its
own words ("the 12 tasks", "Are you sure?") is done whole by the yes; a yes never lets a model
change more than its question, or the request it followed up, asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import NONSENSE_CHECK, ScriptedLLM, calls, completion, declares
from support.live import serve
from support.sse import parse, reply_after_last_reset, streamed

TWELVE = ("Gym", "Report", *(f"Item {n}" for n in range(1, 11)))


async def _left(client: Any) -> dict[str, str]:
    return {t["title"]: t["status"] for t in await tasks_of(client)}


def _model(request: str, question: str, then: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A model that answers `request` with `question` (forced or not) and anything after it with
    `then`, and the results of its calls with "Done."."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return completion("Done.")
        user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        return completion(question) if user == request else then

    return answer


CONFIRMED_IN_WORDS = [
    ("delete gym", "Are you sure you want to delete “Gym”?", "yes", "delete_task"),
    ("pls remove gym from my list", "Just to double-check: remove Gym?", "yep go ahead", "delete_task"),
    ("lösch gym", "Soll ich „Gym“ wirklich löschen?", "ja, mach", "delete_task"),
    ("supprime gym", "Tu es sûr de vouloir que je supprime « Gym » ?", "oui", "delete_task"),
    ("borra gym", "¿Seguro que quieres que borre Gym?", "sí", "delete_task"),
    ("elimina gym", "Vuoi davvero che elimini Gym?", "sì", "delete_task"),
    ("verwijder gym", "Weet je zeker dat ik Gym moet verwijderen?", "ja", "delete_task"),
    ("apaga o gym", "Tem certeza que quer que eu apague o Gym?", "sim", "delete_task"),
    ("mark gym as done", "Should I mark “Gym” as done?", "yes please", "complete_task"),
    ("marca gym como hecha", "¿Marco Gym como hecha?", "dale", "complete_task"),
]


@pytest.mark.parametrize(("message", "question", "yes", "tool"), CONFIRMED_IN_WORDS)
async def test_the_models_question_about_the_change_is_the_reply_and_its_yes_makes_it(
    make_client: MakeClient, message: str, question: str, yes: str, tool: str
) -> None:
    llm = ScriptedLLM(default=_model(message, question, calls((tool, {"task_id": "Gym"}))), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    first = (await chat(client, message)).json()

    assert first["assistant_message"] == question  # no "Not done … please ask again" beside it
    assert first["action_metadata"]["message"] == question  # the action waits for the answer to it
    assert first["execution_metadata"]["reply"]["not_done"] == []
    assert await _left(client) == {"Gym": "pending", "Taxes": "pending"}
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()
    after = {"Taxes": "pending"} | ({"Gym": "completed"} if tool == "complete_task" else {})
    assert await _left(client) == after, body["assistant_message"]


async def test_a_question_about_one_task_still_says_the_other_was_not_done(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("Should I delete “Gym”?"), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    body = (await chat(client, "delete gym and taxes")).json()

    lines = body["assistant_message"].splitlines()
    assert lines[-1] == "Should I delete “Gym”?"
    assert [line for line in lines[:-1] if "taxes" in line.lower() and line.startswith("Not done")], lines
    assert "gym" not in " ".join(lines[:-1]).lower()


async def test_words_that_ask_nothing_still_leave_the_not_done_line(make_client: MakeClient) -> None:
    # "Anything else?" asks about no change of the request: the delete not done is said.
    llm = ScriptedLLM(default=completion("Anything else?"), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    body = (await chat(client, "delete gym")).json()

    assert body["assistant_message"] != "Anything else?"
    assert body["execution_metadata"]["reply"]["not_done"], body["assistant_message"]
    assert await _left(client) == {"Gym": "pending"}


async def test_in_model_mode_and_streamed_the_question_stands_alone(make_client: MakeClient) -> None:
    question = "Soll ich „Gym“ wirklich löschen?"
    llm = ScriptedLLM(default=completion(question), checker=declares())
    client = await make_client(llm, response_mode="model")
    await seed_tasks(client, "Gym")

    assert (await chat(client, "lösch gym")).json()["assistant_message"] == question
    async with serve(client) as live:
        events = parse((await streamed(live, "lösch gym")).text)
    assert reply_after_last_reset(events) == question


WHOLE_LIST = [
    ("borra todo, toda la lista", "¿Quieres que borre las 12 tareas de tu lista?", "sí, dale"),
    ("clear my whole list", "Do you want me to delete the 12 tasks on your list?", "yes"),
    ("lösch alles", "Soll ich die 12 Aufgaben löschen?", "ja"),
    ("supprime tout", "Tu veux vraiment que je supprime tes 12 tâches ?", "oui"),
    ("verwijder alles", "Zal ik alle 12 taken verwijderen?", "ja graag"),
    ("delete everything", "Are you sure? This cannot be undone.", "yes"),
    ("apaga tudo", "Tem certeza? Não dá para desfazer.", "sim"),
]


# Words no list reads and no check verifies are not shown (the user sees "Not done … ask again"): with
# a check that answers nonsense, only the questions the word lists read are asked.
UNCHECKABLE = {"Are you sure? This cannot be undone.", "Tem certeza? Não dá para desfazer."}
CHECKED = [(*case, "honest") for case in WHOLE_LIST] + [(*c, "nonsense") for c in WHOLE_LIST if c[1] not in UNCHECKABLE]


@pytest.mark.parametrize(("message", "question", "yes", "checker"), CHECKED)
async def test_a_whole_list_request_the_model_confirms_in_its_words_is_done_whole_by_the_yes(
    make_client: MakeClient, message: str, question: str, yes: str, checker: str
) -> None:
    sweep = calls(*[("delete_task", {"task_id": t}) for t in TWELVE])
    check = declares() if checker == "honest" else NONSENSE_CHECK
    llm = ScriptedLLM(default=_model(message, question, sweep), checker=check)
    client = await make_client(llm)
    await seed_tasks(client, *TWELVE)

    first = (await chat(client, message)).json()
    assert await _left(client) == dict.fromkeys(TWELVE, "pending")
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()

    assert await _left(client) == {}, body["assistant_message"]


@pytest.mark.parametrize(
    "question",
    [
        "Should I delete “Item 10”?",  # a title's number is no count of tasks
        "Should I delete the 3 finished tasks?",  # another count than the list's
        "Shall I delete it? 10 tasks would be left.",  # the count is not of the change
    ],
)
async def test_a_yes_to_a_question_about_some_tasks_never_sweeps_the_list(
    make_client: MakeClient, question: str
) -> None:
    ten = tuple(f"Item {n}" for n in range(1, 11))
    sweep = calls(*[("delete_task", {"task_id": t}) for t in ten])
    llm = ScriptedLLM(default=_model("item 10 is obsolete", question, sweep), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *ten)

    first = (await chat(client, "item 10 is obsolete")).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert len(await _left(client)) >= 9


async def test_a_yes_to_are_you_sure_grounds_only_the_request_before_it(make_client: MakeClient) -> None:
    # The request asked to delete Gym; the model asked "Are you sure?"; after the yes it deletes Gym
    # and Taxes: only Gym goes.
    both = calls(("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Taxes"}))
    llm = ScriptedLLM(default=_model("delete gym", "Are you sure? This cannot be undone.", both), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    first = (await chat(client, "delete gym")).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert await _left(client) == {"Taxes": "pending"}


async def test_a_yes_to_are_you_sure_after_a_message_that_asked_nothing_grounds_nothing(
    make_client: MakeClient,
) -> None:
    gym = calls(("delete_task", {"task_id": "Gym"}))
    llm = ScriptedLLM(default=_model("i think the gym is pointless", "Are you sure?", gym), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    first = (await chat(client, "i think the gym is pointless")).json()
    body = (await chat(client, "yes", conversation_id=first["conversation_id"])).json()

    assert await _left(client) == {"Gym": "pending"}, body["assistant_message"]


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
    assert "Not done" not in first["assistant_message"]
    await chat(client, "old invoices", conversation_id=first["conversation_id"])

    assert await _left(client) == {"Invoice template": "pending", "Taxes": "pending"}
