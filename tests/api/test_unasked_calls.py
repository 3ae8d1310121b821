"""A model's own changes on a message that asks for none (a weak model's habit): a delete or complete
waits for the user's yes, never after a "don't"; an add or an edit acts only on what the user named."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def state(client: Any) -> list[tuple[str, str]]:
    return sorted((t["title"], t["status"]) for t in await tasks_of(client))


@pytest.mark.parametrize(
    ("message", "call", "question"),
    [
        ("I finished the taxes", ("complete_task", {"task_id": "Taxes"}), None),
        ("should I delete the gym task?", ("delete_task", {"task_id": "Gym"}), None),
        (
            "ayer terminé los taxes",
            ("complete_task", {"task_id": "Taxes"}),
            "¿Puedo completar “Taxes”? Responde sí o no.",
        ),
    ],
)
async def test_an_unasked_delete_or_complete_of_a_named_task_waits_for_a_yes(
    make_client: MakeClient, message: str, call: Any, question: str | None
) -> None:
    llm = ScriptedLLM(calls(call), completion("Sure."))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes", "Gym")
    before = await state(client)

    asked = (await chat(client, message)).json()

    assert await state(client) == before
    assert asked["tool_calls"][0]["result"]["code"] == "NEEDS_CONFIRMATION"  # looked up, nothing changed
    verb = "complete" if call[0] == "complete_task" else "delete"
    question = question or f"Do you want me to {verb} “{call[1]['task_id']}”? Answer yes or no."
    assert asked["confirmation"]["question"] == question
    assert asked["assistant_message"] == question  # the question alone: no model words beside it
    assert asked["action_metadata"]["actions"] is None and asked["action_metadata"]["success"] is False
    decisions = asked["execution_metadata"]["guard"]["decisions"]
    assert (decisions[0]["decision"], decisions[0]["reason"]) == ("asks", "not_asked")
    yes_button, no_button = asked["confirmation"]["answers"]
    assert (yes_button["confirm"], no_button["confirm"]) == (asked["confirmation"]["id"], None)

    yes = (await chat(client, yes_button["message"], conversation_id=asked["conversation_id"])).json()

    assert yes["tool_calls"][0]["result"]["success"] is True
    assert await state(client) != before


@pytest.mark.parametrize(
    ("message", "call"),
    [
        ("hi there", ("delete_task", {"task_id": "Gym"})),  # small talk asks for nothing
        ("thank you so much", ("add_task", {"title": "thank you so much"})),
        ("don't delete gym", ("delete_task", {"task_id": "Gym"})),  # they said no
        ("what did I add this morning?", ("add_task", {"title": "Awesome"})),  # a question: no add at all
    ],
)
async def test_a_change_nobody_asked_for_is_refused_and_the_message_still_gets_an_answer(
    make_client: MakeClient, message: str, call: Any
) -> None:
    llm = ScriptedLLM(calls(call), completion("Done! Anything else?"), completion("Happy to help."))
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    body = (await chat(client, message)).json()

    assert await state(client) == [("Gym", "pending")]
    assert body["confirmation"] is None  # nothing asked: the user never asked for it
    assert body["tool_calls"][0]["result"]["code"] in ("NOT_REQUESTED", "NOT_GROUNDED")  # refused, or named nothing
    # Asked again with no tools, the model's answer is its reply; the refused call is no line of it.
    assert "tools" not in llm.requests[1]
    assert "Not done" not in body["assistant_message"]
    assert body["action_metadata"] is None
    decisions = [(d["decision"], d["reason"]) for d in body["execution_metadata"]["guard"]["decisions"]]
    assert ("asked_again", "not_asked") in decisions
    # "Done! Anything else?" claims a change on a turn that changed nothing: never shown.
    assert "Done" not in body["assistant_message"]


async def test_the_answer_after_a_refused_change_is_checked_like_any_other(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("update_task", {"task_id": "Taxes", "priority": "high"})), completion("Not yet: Taxes is still open.")
    )
    client = await make_client(llm)
    await seed_tasks(client, "Taxes")

    body = (await chat(client, "did I finish taxes yesterday?")).json()

    # A question of how Taxes stands: its state from the database, then the model's checked words.
    assert body["assistant_message"] == "“Taxes”: pending.\nNot yet: Taxes is still open."
    assert body["execution_metadata"]["reply"]["words"] == "verified"
    assert len(llm.checks) == 1 and "Not yet: Taxes is still open." in llm.checks[0]["messages"][-1]["content"]


async def test_on_other_wording_an_add_needs_the_users_words_and_never_the_whole_message(
    make_client: MakeClient,
) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Pottery class"})),
        completion("I can't add that."),
        calls(("add_task", {"title": "dentist appointment"})),
        calls(("add_task", {"title": "dentist appointment"})),
        completion("Okay."),
    )
    client = await make_client(llm)

    junk = (await chat(client, "the dentist appointment on friday")).json()  # read as nothing
    named = (await chat(client, "the dentist appointment on friday, tomorrow too")).json()
    whole = (await chat(client, "dentist appointment")).json()  # the whole message: nothing asks for a task

    assert junk["execution_metadata"]["intent"]["kind"] == "chat"
    assert junk["tool_calls"][0]["result"]["code"] == "NOT_GROUNDED"  # not the user's words
    assert "Pottery" not in junk["assistant_message"]
    assert named["tool_calls"][0]["result"]["success"] is True
    assert whole["tool_calls"][0]["result"]["code"] == "NOT_REQUESTED"
    assert [t["title"] for t in await tasks_of(client)] == ["dentist appointment"]


@pytest.mark.parametrize(
    ("message", "title", "said"),
    [
        ("ajoute du lait à ma liste", "A list of tasks", "lait"),
        ("añade pan", "The task's title as the user said it (matched fuzzily) or its UUID.", "pan"),
        ("füge Eier hinzu", "Aufgabe", "Eier"),
    ],
)
async def test_an_asked_add_with_a_title_the_user_never_said_takes_theirs_in_any_language(
    make_client: MakeClient, message: str, title: str, said: str
) -> None:
    """SmolLM2's habit: the right tool, a title from the tool's description or nowhere. The title the
    user said, read in their language, is added instead (tests/api/test_weak_model_repairs.py)."""
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": title})), completion("Done!")))

    body = (await chat(client, message)).json()

    result = body["tool_calls"][0]["result"]
    assert result["success"] is True and result["data"]["repaired"][0].startswith(f"title '{title}' is not in")
    assert [t["title"] for t in await tasks_of(client)] == [said]
    assert "Done!" not in body["assistant_message"]


async def test_an_asked_add_whose_title_the_user_never_said_and_no_reading_gives_is_not_done(
    make_client: MakeClient,
) -> None:
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": "A list of tasks"})), completion("Done!")))

    body = (await chat(client, "add to my list")).json()

    assert body["tool_calls"][0]["result"]["code"] == "NOT_GROUNDED"
    assert await tasks_of(client) == []
    assert "Done" not in body["assistant_message"] and "Added" not in body["assistant_message"]


async def test_an_asked_add_may_take_its_title_from_the_conversation(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Water the plants"})),  # one call each: the reply comes from the result
        completion("Added it again!"),  # a claim, no call: the add is forced, as a model would comply
        calls(("add_task", {"title": "Water the plants", "due_date": "2026-11-30"})),
    )
    client = await make_client(llm)

    first = (await chat(client, "add water the plants")).json()
    again = (await chat(client, "add it again for next monday", conversation_id=first["conversation_id"])).json()

    assert again["tool_calls"][0]["result"]["success"] is True, again["assistant_message"]
    assert again["execution_metadata"]["guard"]["outcome"] == "retried"
    assert [t["title"] for t in await tasks_of(client)] == ["Water the plants", "Water the plants"]


async def test_a_forced_add_of_the_whole_message_asks_about_the_one_title_it_quotes(make_client: MakeClient) -> None:
    # Czech, which no file reads: the model only claims an add; forced, it passes the whole message as
    # the title. The message quotes one title: that is what the user is asked about, not the message.
    from support.fake_llm import declares, tool_call

    message = "zapiš mi „zavolat mechanikovi“ na pondělí"
    llm = ScriptedLLM(
        completion("Hotovo, přidáno!"),
        completion(tool_calls=[tool_call("add_task", {"title": message})]),
        completion("?"),
        checker=declares(("add", "zavolat mechanikovi")),
    )
    client = await make_client(llm)

    body = (await chat(client, message)).json()

    assert await tasks_of(client) == []
    assert body["confirmation"] is not None, body["execution_metadata"]["guard"]
    assert [a["arguments"]["title"] for a in body["confirmation"]["actions"]] == ["zavolat mechanikovi"]
    assert "Hotovo" not in body["assistant_message"]
    yes = (await chat(client, "yes", conversation_id=body["conversation_id"])).json()
    assert yes["tool_calls"][-1]["result"]["success"] is True
    assert [t["title"] for t in await tasks_of(client)] == ["zavolat mechanikovi"]


async def test_a_forced_add_of_the_whole_message_with_no_quote_is_still_refused(make_client: MakeClient) -> None:
    from support.fake_llm import declares, tool_call

    message = "díky moc, to je super"
    llm = ScriptedLLM(
        completion("Hotovo, přidáno!"),
        completion(tool_calls=[tool_call("add_task", {"title": message})]),
        completion("Rádo se stalo."),
        checker=declares(("add", "")),
    )
    client = await make_client(llm)

    body = (await chat(client, message)).json()

    assert await tasks_of(client) == [] and body["confirmation"] is None
    assert "Hotovo" not in body["assistant_message"]


# A message in a language with no word file whose words for a task sit inside the title of a task the
# same step adds: the model made them a title, so they are content, not a request to change that task.
CONTENT_IN_AN_ADD = [
    # (message, the add's title, the destructive call, its target)
    (
        "dodaj: zrezygnować ze Spotify i skasować konto",
        "zrezygnować ze Spotify i skasować konto",
        "delete_task",
        "Spotify",
    ),
    ("lägg till: ringa banken om att Lån är avbetalt", "ringa banken om att Lån är avbetalt", "complete_task", "Lån"),
    ("ekle: komşuya Fatura ödendi diye haber ver", "komşuya Fatura ödendi diye haber ver", "complete_task", "Fatura"),
    ("добавь: позвонить в банк и закрыть Кредит", "позвонить в банк и закрыть Кредит", "delete_task", "Кредит"),
    (
        "ajoute : rappeler à Paul de terminer Vaisselle ce soir",
        "rappeler à Paul de terminer Vaisselle ce soir",
        "complete_task",
        "Vaisselle",
    ),
    (
        'füge "Garage: Altöl entsorgen und Reifen löschen" hinzu',
        "Garage: Altöl entsorgen und Reifen löschen",
        "delete_task",
        "Reifen",
    ),
]


@pytest.mark.parametrize(("message", "title", "tool", "target"), CONTENT_IN_AN_ADD)
async def test_a_task_named_only_inside_an_added_title_is_not_asked_about(
    make_client: MakeClient, message: str, title: str, tool: str, target: str
) -> None:
    body, pending = await _add_and_change(make_client, message, title, tool, target)

    assert body.get("confirmation") is None, body["assistant_message"]
    assert {target, "Yoga", title} <= pending
    refused = body["tool_calls"][1]["result"]
    assert refused["success"] is False and refused["code"] == "NOT_REQUESTED", refused


@pytest.mark.parametrize(
    ("message", "title", "tool", "target"),
    [
        # the target named outside the added title too: a question, as before
        ('dodaj "zadzwonić do Netflix" i usuń Netflix', "zadzwonić do Netflix", "delete_task", "Netflix"),
        # a title that is only the target's own name holds nothing more: not taken for content
        ("usuń Netflix", "Netflix", "delete_task", "Netflix"),
        # a title that is the whole message is the model's dump of it, not a title the user gave
        ("anulować Netflix i usunąć konto", "anulować Netflix i usunąć konto", "delete_task", "Netflix"),
    ],
)
async def test_a_task_named_beside_an_added_title_is_still_asked_about(
    make_client: MakeClient, message: str, title: str, tool: str, target: str
) -> None:
    body, pending = await _add_and_change(make_client, message, title, tool, target)

    assert body.get("confirmation") is not None, body["assistant_message"]
    assert target in pending


async def _add_and_change(
    make_client: MakeClient, message: str, title: str, tool: str, target: str
) -> tuple[dict[str, Any], set[str]]:
    """A model that adds `title` and calls `tool` on `target` in one step: the response, and the
    titles pending after it."""
    llm = ScriptedLLM(calls(("add_task", {"title": title}), (tool, {"task_id": target})), completion("Done."))
    client = await make_client(llm)
    await seed_tasks(client, target, "Yoga")
    body = (await chat(client, message)).json()
    return body, {t["title"] for t in await tasks_of(client, status="pending")}
