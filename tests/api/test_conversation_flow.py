"""A conversation that flows (issue 48), through HTTP with a real database and a scripted model.

A request over the whole list ("clear it all", "alles erledigt") is one decision: one question that
says what it will change (its count and a few titles), and its yes does all of it, whatever the size
of the list and the per-turn caps. A yes to the assistant's own question ("Should I delete “Gym”?"),
or one of the options it listed ("2", "Q10"), grounds exactly the change it asked about, never
another. Exact titles win however short ("Item 2", "🧺"); the task just added is found by the user's
reference to it, never by elimination; a chat template's control token is never a reply.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.fake_llm import NONSENSE_CHECK, ScriptedLLM, calls, completion, declares

ERRANDS = tuple(f"Errand {n}" for n in range(1, 31))


@pytest.mark.parametrize(
    ("message", "yes", "tool"),
    [
        ("wipe everything off my list, i'm starting over", "yes", "delete_task"),
        ("bitte alles löschen, ich fange neu an", "ja", "delete_task"),
        ("borra todas mis tareas", "sí", "delete_task"),
        ("vide toute ma liste s'il te plaît", "oui", "delete_task"),
        ("cancella tutto per favore", "sì", "delete_task"),
        ("gooi alles weg", "ja", "delete_task"),
        ("apaga tudo da lista", "sim", "delete_task"),
        ("sab kuch delete kar do", "haan", "delete_task"),
        ("mark every single one as done", "yep", "complete_task"),
        ("hak alles af", "ja graag", "complete_task"),
        ("marca todas como hechas", "dale", "complete_task"),
    ],
)
async def test_a_request_over_a_list_of_thirty_asks_once_and_its_yes_does_all(
    make_client: MakeClient, message: str, yes: str, tool: str
) -> None:
    # The model goes through the list in two steps of fifteen, then answers in words.
    first, second = ERRANDS[:15], ERRANDS[15:]
    llm = ScriptedLLM(
        calls(*[(tool, {"task_id": t}) for t in first]),
        calls(*[(tool, {"task_id": t}) for t in second]),
        completion("All done!"),
    )
    client = await make_client(llm)
    await seed_tasks(client, *ERRANDS)

    asked = (await chat(client, message)).json()

    assert set((await statuses(client)).values()) == {"pending"}  # nothing changed before the yes
    question = asked["confirmation"]
    assert question is not None, asked["assistant_message"]
    assert len(question["actions"]) == 30 and {a["name"] for a in question["actions"]} == {tool}
    assert "30" in question["question"] and "Errand 1" in question["question"]
    assert len(question["question"]) < 200  # its count and a few titles, not thirty lines
    assert "All done" not in asked["assistant_message"]

    done = (await chat(client, yes, conversation_id=asked["conversation_id"])).json()

    left = await statuses(client)
    assert left == ({} if tool == "delete_task" else dict.fromkeys(ERRANDS, "completed")), done["assistant_message"]
    assert done["confirmation"] is None
    assert len(done["assistant_message"].splitlines()) == 1  # said in one line


async def test_a_model_deleting_every_task_of_an_unread_message_is_asked_about_once(make_client: MakeClient) -> None:
    # No word file reads Swedish: the step that covers the whole list is what makes it one question.
    titles = ("Tvätta", "Gym", "Handla", "Ring mamma", "Betala hyran", "Städa")
    llm = ScriptedLLM(calls(*[("delete_task", {"task_id": t}) for t in titles]), completion("Klart!"))
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    asked = (await chat(client, "töm hela listan tack")).json()
    assert asked["confirmation"] is not None and len(asked["confirmation"]["actions"]) == 6
    assert set((await statuses(client)).values()) == {"pending"}

    await chat(client, "yes", conversation_id=asked["conversation_id"])
    assert await statuses(client) == {}


async def test_a_model_deleting_some_tasks_of_an_unread_message_is_still_refused(make_client: MakeClient) -> None:
    # Two of three tasks: not the whole list, and no words name them: nothing is run or asked.
    llm = ScriptedLLM(
        calls(("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Tvätta"})), completion("En lugn vecka.")
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Tvätta", "Handla")

    body = (await chat(client, "hur ser veckan ut")).json()

    assert body["confirmation"] is None
    assert set((await statuses(client)).values()) == {"pending"}


@pytest.mark.parametrize(
    ("question", "yes", "call", "after"),
    [
        ("Do you want me to delete “Gym”?", "yes please", ("delete_task", {"task_id": "Gym"}), {"Gym": None}),
        ("Soll ich „Gym“ löschen?", "ja, mach", ("delete_task", {"task_id": "Gym"}), {"Gym": None}),
        (
            "¿Quieres que marque «Taxes» como hecha?",
            "sii porfa",
            ("complete_task", {"task_id": "Taxes"}),
            {"Taxes": "completed"},
        ),
        (
            "Tu veux que je supprime « Laundry » ?",
            "oui vas-y",
            ("delete_task", {"task_id": "Laundry"}),
            {"Laundry": None},
        ),
        (
            "Vuoi che segni Taxes come fatta?",
            "sì grazie",
            ("complete_task", {"task_id": "Taxes"}),
            {"Taxes": "completed"},
        ),
        ("Zal ik Gym verwijderen?", "ja graag", ("delete_task", {"task_id": "Gym"}), {"Gym": None}),
        ("Quer que eu apague “Gym”?", "quero sim", ("delete_task", {"task_id": "Gym"}), {"Gym": None}),
        ("Kya main Gym delete kar doon?", "haan ji", ("delete_task", {"task_id": "Gym"}), {"Gym": None}),
        (
            "Should I add “Call the bank” to your list?",
            "yup go ahead",
            ("add_task", {"title": "Call the bank"}),
            {"Call the bank": "pending"},
        ),
    ],
)
async def test_a_yes_to_the_models_own_question_makes_that_change(
    make_client: MakeClient, question: str, yes: str, call: tuple[str, dict[str, Any]], after: dict[str, str | None]
) -> None:
    llm = ScriptedLLM(completion(question), calls(call), completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes", "Laundry")

    first = (await chat(client, "gym is pointless now, taxes are sorted and laundry can wait")).json()
    assert first["assistant_message"].endswith(question), first["assistant_message"]
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()

    expected = dict.fromkeys(("Gym", "Taxes", "Laundry"), "pending") | after
    assert await statuses(client) == {t: s for t, s in expected.items() if s is not None}, body["assistant_message"]
    assert body["confirmation"] is None  # the user already said yes: not asked again


async def test_a_yes_grounds_only_what_the_question_named(make_client: MakeClient) -> None:
    # The model asked about Gym; after the yes it deletes Gym and Taxes: Taxes is not run.
    llm = ScriptedLLM(
        completion("Should I delete “Gym”?"),
        calls(("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Taxes"})),
        completion("Done."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes", "Laundry")

    first = (await chat(client, "gym is pointless now")).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert await statuses(client) == {"Taxes": "pending", "Laundry": "pending"}


async def test_a_yes_to_a_question_about_another_kind_of_change_grounds_nothing(make_client: MakeClient) -> None:
    # The model asked whether to complete Gym; after the yes it deletes it: not what was asked.
    llm = ScriptedLLM(
        completion("Should I mark “Gym” as done?"),
        calls(("delete_task", {"task_id": "Gym"})),
        completion("Done."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    first = (await chat(client, "went to the gym today")).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert (await statuses(client))["Gym"] == "pending"


async def test_an_exact_title_wins_over_a_position_in_the_list(make_client: MakeClient) -> None:
    # "Item 2" is a title here, not "the second item of the list shown last".
    titles = ("Item 1", "Item 2", "Item 10", "Item 12")
    llm = ScriptedLLM(calls(("list_tasks", {})), calls(("delete_task", {"task_id": "Item 2"})))
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    first = (await chat(client, "show my list")).json()
    body = (await chat(client, "delete Item 2", conversation_id=first["conversation_id"])).json()

    assert set(await statuses(client)) == {"Item 1", "Item 10", "Item 12"}, body["assistant_message"]
    assert body["confirmation"] is None


# -- an answer to the model's own choice, short and emoji titles, the task just added ---------------
@pytest.mark.parametrize(
    ("question", "answer", "chosen"),
    [
        ("You have several Q tasks: 1) Q1, 2) Q10, 3) Q2. Which one?", "2", "Q10"),
        ("Tu as plusieurs tâches Q : 1) Q1, 2) Q10, 3) Q2. Laquelle ?", "la 2", "Q10"),
        ("Kaunsa wala? Q1, Q10 ya Q2?", "Q10", "Q10"),
        ("Welke bedoel je? 1. 🧺  2. 🧺 handdoeken", "1", "🧺"),
    ],
)
async def test_a_choice_in_the_models_question_is_answered_by_number_or_title(
    make_client: MakeClient, question: str, answer: str, chosen: str
) -> None:
    titles = ("Q1", "Q10", "Q2", "🧺", "🧺 handdoeken")
    llm = ScriptedLLM(completion(question), calls(("complete_task", {"task_id": chosen})), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    first = (await chat(client, "mark the Q one done")).json()
    body = (await chat(client, answer, conversation_id=first["conversation_id"])).json()

    done = [t for t, s in (await statuses(client)).items() if s == "completed"]
    assert done == [chosen], body["assistant_message"]
    assert body["confirmation"] is None


async def test_a_choice_grounds_only_the_option_picked(make_client: MakeClient) -> None:
    # The user picked 2 (Q10); the model completes Q1: not what was chosen, so it does not run.
    llm = ScriptedLLM(
        completion("Which one? 1) Q1, 2) Q10"),
        calls(("complete_task", {"task_id": "Q1"})),
        completion("Which one did you mean?"),  # asked again for words, once its change was refused
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Q1", "Q10")

    first = (await chat(client, "mark the Q one done")).json()
    await chat(client, "2", conversation_id=first["conversation_id"])

    assert set((await statuses(client)).values()) == {"pending"}


@pytest.mark.parametrize("message", ["mark 🧺 as done", "marca 🧺 como hecha", "🧺 ist erledigt, hak es ab"])
async def test_an_emoji_title_named_exactly_wins_over_near_ones(make_client: MakeClient, message: str) -> None:
    llm = ScriptedLLM(calls(("complete_task", {"task_id": "🧺"})), completion("Done."))
    client = await make_client(llm)
    await seed_tasks(client, "🧺", "🧺 towels", "🎂 Mia")

    body = (await chat(client, message)).json()

    assert (await statuses(client))["🧺"] == "completed", body["assistant_message"]
    assert body["confirmation"] is None


@pytest.mark.parametrize(
    "reference",
    ["delete the one I just added", "borra lo último q he puesto", "cancella quella che ho appena aggiunto"],
)
async def test_the_task_just_added_is_changed_when_the_user_points_to_it(
    make_client: MakeClient, reference: str
) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Call the bank"})), calls(("delete_task", {"task_id": "Call the bank"}))
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    first = (await chat(client, "add call the bank")).json()
    body = (await chat(client, reference, conversation_id=first["conversation_id"])).json()

    assert set(await statuses(client)) == {"Gym", "Taxes"}, body["assistant_message"]
    assert body["confirmation"] is None


async def test_words_naming_no_task_do_not_hand_the_last_task_to_a_delete(make_client: MakeClient) -> None:
    # "the report" is no task; the model deletes the task added last: not what the words name, asked.
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Call the bank"})), calls(("delete_task", {"task_id": "Call the bank"}))
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym")

    first = (await chat(client, "add call the bank")).json()
    body = (await chat(client, "delete the report", conversation_id=first["conversation_id"])).json()

    assert set(await statuses(client)) == {"Gym", "Call the bank"}, body["assistant_message"]


@pytest.mark.parametrize("words", ["<|im_end|>", "<end_of_turn>", "<|eot_id|>"])
async def test_a_control_token_is_never_the_reply(make_client: MakeClient, words: str) -> None:
    llm = ScriptedLLM(default=completion(words), checker=declares())
    client = await make_client(llm)

    body = (await chat(client, "hi there")).json()

    assert "<" not in body["assistant_message"] and body["assistant_message"].startswith("Glad to help.")


async def test_a_yes_grounds_only_the_sentence_that_asked(make_client: MakeClient) -> None:
    # The question names Gym; the sentence beside it names Yoga. After the yes the model deletes both.
    llm = ScriptedLLM(
        completion("Yoga is due tomorrow, by the way. Should I delete “Gym”?"),
        calls(("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Yoga"})),
        completion("Done."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Yoga", "Taxes")

    first = (await chat(client, "gym is pointless now")).json()
    assert first["assistant_message"].endswith("Should I delete “Gym”?"), first["assistant_message"]
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == {"Yoga", "Taxes"}


async def test_a_yes_about_one_task_never_lets_a_model_delete_the_whole_list(make_client: MakeClient) -> None:
    # Two tasks; the model asked about Gym and, after the yes, deletes both: its calls name every task,
    # but the user said yes to one.
    llm = ScriptedLLM(
        completion("Should I delete “Gym”?"),
        calls(("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Yoga"})),
        completion("Done."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Yoga")

    first = (await chat(client, "gym is pointless now")).json()
    await chat(client, "yes", conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == {"Yoga"}


async def test_a_question_beside_a_sentence_no_list_reads_is_not_shown_unchecked(make_client: MakeClient) -> None:
    # A claim in a language no file reads, then a question: the check cannot be read, so nothing of
    # the words shows. The question may be asked in the catalog's own words (its yes deletes Gym),
    # never the claim beside it.
    llm = ScriptedLLM(completion("全部削除しました。 Do you want me to delete “Gym” too?"), checker=NONSENSE_CHECK)
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Yoga")

    body = (await chat(client, "hi there")).json()

    assert "全部" not in body["assistant_message"] and "too" not in body["assistant_message"]
    assert body["confirmation"] is None or body["assistant_message"] == body["confirmation"]["question"]
    assert set(await statuses(client)) == {"Gym", "Yoga"}


async def test_a_no_to_the_models_question_grounds_nothing(make_client: MakeClient) -> None:
    # "no" is in the question ("Answer yes or no."), but a no is never a choice.
    llm = ScriptedLLM(
        completion("Should I delete “Gym”? Answer yes or no."),
        calls(("delete_task", {"task_id": "Gym"})),
        completion("Alright, I'll leave it."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Yoga")

    first = (await chat(client, "gym is pointless now")).json()
    await chat(client, "no", conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == {"Gym", "Yoga"}


async def test_a_choice_grounds_the_change_the_user_asked_not_another_the_question_named(
    make_client: MakeClient,
) -> None:
    # The user asked to complete a Q-task; the question also offers a delete. Picking "2" grounds the
    # completion of Q10, never a delete of it.
    llm = ScriptedLLM(
        completion("Which one should I mark done: 1) Q1, 2) Q10? Or should I delete the old one?"),
        calls(("delete_task", {"task_id": "Q10"})),
        completion("Done."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Q1", "Q10", "Taxes")

    first = (await chat(client, "mark the Q task done")).json()
    await chat(client, "2", conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == {"Q1", "Q10", "Taxes"}


@pytest.mark.parametrize(
    ("question", "yes"),
    [
        ("Should I delete Gym and Yoga, but not Taxes?", "yes"),
        ("¿Borro Gym y Yoga, pero no Taxes?", "sí"),
        ("Soll ich Gym und Yoga löschen, aber nicht Taxes?", "ja"),
        ("Je supprime Gym et Yoga, mais pas Taxes ?", "oui"),
        ("Zal ik Gym en Yoga verwijderen, maar niet Taxes?", "ja"),
    ],
)
async def test_a_yes_grounds_nothing_the_question_says_no_to(make_client: MakeClient, question: str, yes: str) -> None:
    # The question's clause that says no ("but not Taxes") is no item of its delete: after the yes,
    # the model's delete of Taxes too is not run.
    llm = ScriptedLLM(
        completion(question),
        calls(*[("delete_task", {"task_id": t}) for t in ("Gym", "Yoga", "Taxes")]),
        completion("Done."),
        checker=declares(),
    )
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Yoga", "Taxes")

    first = (await chat(client, "clean up my list")).json()
    assert first["assistant_message"].endswith(question), first["assistant_message"]
    await chat(client, yes, conversation_id=first["conversation_id"])

    assert set(await statuses(client)) == {"Taxes"}
