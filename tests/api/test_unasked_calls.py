"""A model's own changes on a message that asks for none (a weak model's habit): a delete or complete
waits for the user's yes, never after a "don't"; an add or an edit acts only on what the user named."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def state(client: Any) -> list[tuple[str, str]]:
    return sorted((t["title"], t["status"]) for t in await tasks_of(client))


@pytest.mark.parametrize(
    ("message", "call"),
    [
        ("did I already finish the taxes?", ("complete_task", {"task_id": "Taxes"})),
        ("hi there", ("delete_task", {"task_id": "Gym"})),
        ("I finished the taxes", ("complete_task", {"task_id": "Taxes"})),
        ("should I delete the gym task?", ("delete_task", {"task_id": "Gym"})),
        ("¿ya terminé los taxes?", ("complete_task", {"task_id": "Taxes"})),
    ],
)
async def test_an_unasked_delete_or_complete_waits_for_a_yes(make_client, message: str, call: Any) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(calls(call), completion("Sure."))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes", "Gym")
    before = await state(client)

    asked = (await chat(client, message)).json()

    assert await state(client) == before
    verb = "complete" if call[0] == "complete_task" else "delete"
    assert asked["confirmation"]["question"] == f"Do you want me to {verb} “{call[1]['task_id']}”? Answer yes or no."
    assert asked["action_metadata"]["actions"] is None and asked["action_metadata"]["success"] is False
    decisions = asked["execution_metadata"]["guard"]["decisions"]
    assert (decisions[0]["decision"], decisions[0]["reason"]) == ("refused", "not_asked")

    yes = (await chat(client, "yes", conversation_id=asked["conversation_id"])).json()

    assert yes["tool_calls"][0]["result"]["success"] is True
    assert await state(client) != before


async def test_after_a_dont_the_model_is_refused_and_nothing_is_asked(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "Gym"})), completion("OK."))
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    body = (await chat(client, "don't delete gym")).json()

    assert await state(client) == [("Gym", "pending")]
    assert body["confirmation"] is None
    assert "Not done: delete “Gym” (your message asked for no change)." in body["assistant_message"]


async def test_an_add_on_a_question_is_not_run_and_one_on_other_wording_needs_the_users_words(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Awesome"})),
        completion("You added nothing this morning."),
        calls(("add_task", {"title": "Pottery class"})),
        completion("Added."),
        calls(("add_task", {"title": "dentist appointment"})),
        completion("Added."),
    )
    client = await make_client(llm)

    asked = (await chat(client, "what did I add this morning?")).json()  # a question: no change at all
    junk = (await chat(client, "I should not forget the dentist appointment")).json()  # read as nothing
    named = (await chat(client, "I should not forget the dentist appointment")).json()

    assert asked["tool_calls"][0]["result"]["code"] == "NOT_REQUESTED"
    assert asked["assistant_message"] == (
        "You added nothing this morning.\nNot done: add “Awesome” (your message asked for no change)."
    )  # the model's answer to the question, and the change it tried, not done
    assert junk["tool_calls"][0]["result"]["code"] == "NOT_GROUNDED"  # not the user's words
    assert "Added" not in junk["assistant_message"] and "Pottery" in junk["assistant_message"]
    assert named["tool_calls"][0]["result"]["success"] is True
    assert [t["title"] for t in await tasks_of(client)] == ["dentist appointment"]


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("ajoute du lait à ma liste", "A list of tasks"),
        ("añade pan", "The task's title as the user said it (matched fuzzily) or its UUID."),
        ("füge Eier hinzu", "Aufgabe"),
    ],
)
async def test_an_asked_add_with_a_title_the_user_never_said_is_not_done(make_client, message: str, title: str) -> None:  # type: ignore[no-untyped-def]
    """SmolLM2's habit: the right tool, a title from the tool's description or nowhere. In wording the
    message parser reads, the title the user said is used instead (tests/api/test_weak_model_repairs.py)."""
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": title})), completion("Done!")))

    body = (await chat(client, message)).json()

    assert body["tool_calls"][0]["result"]["code"] == "NOT_GROUNDED"
    assert await tasks_of(client) == []
    assert "Done" not in body["assistant_message"] and "Added" not in body["assistant_message"]


async def test_an_asked_add_may_take_its_title_from_the_conversation(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Water the plants"})),  # one call each: the reply comes from the result
        completion("Sure, adding it again."),  # a claim, no call: the add is forced, as a model would comply
        calls(("add_task", {"title": "Water the plants", "due_date": "2026-11-30"})),
    )
    client = await make_client(llm)

    first = (await chat(client, "add water the plants")).json()
    again = (await chat(client, "add it again for next monday", conversation_id=first["conversation_id"])).json()

    assert again["tool_calls"][0]["result"]["success"] is True, again["assistant_message"]
    assert again["execution_metadata"]["guard"]["outcome"] == "retried"
    assert [t["title"] for t in await tasks_of(client)] == ["Water the plants", "Water the plants"]
