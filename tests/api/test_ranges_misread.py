"""Misreadings of ranges of numbered titles (tests/api/test_ranges.py): none may change a task.

Written by a blind review (2026-12-07) of a first version that ran the tasks between a range's ends
directly: each group's comment says what that version did wrong ("new": the code before ranges did
not), and what the code before ranges did wrong too. Every case holds now (the tasks between a
range's ends are asked about, never run on the backend's reading alone; a range is a set an
exception leaves out of; a number names what an exception leaves out), but those marked xfail, which
the code before ranges got wrong as well ("lösch Item 1 bis 5, nur 3 nicht" holds since a closing no
reads a title's number).
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.asking import asking_model
from support.compliant import calls_on, compliant
from support.fake_llm import ScriptedLLM, calls, declares

ITEMS = tuple(f"Item {n}" for n in range(1, 11))
TASKS = ("Gym", *ITEMS)


async def _said(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, step: list[Any]
) -> tuple[dict[str, str], dict[str, Any]]:
    """The user's `message` over `tasks`, a model making `step`: each task's status, and the reply."""
    llm, _ = compliant([step], tasks)
    client = await make_client(llm)
    await seed_tasks(client, *tasks)
    body = (await chat(client, message)).json()
    return await statuses(client), body


async def _yes(
    make_client: MakeClient,
    question: str,
    step: list[tuple[str, dict[str, Any]]],
    *,
    yes: str = "yes",
    request: str = "clean up the items",
    tasks: tuple[str, ...] = TASKS,
) -> tuple[dict[str, str], dict[str, Any]]:
    """The user's `request`, the model's `question` back, the user's `yes`, the model's `step`."""
    llm = ScriptedLLM(default=asking_model(request, question, calls(*step)), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *tasks)
    first = (await chat(client, request)).json()
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()
    return await statuses(client), body


# --- 1. A number the user leaves out of a range, said without the title's word ("except 3") -------------
# The change says "a number now names what an exception leaves out", yet only "except item 3" is honoured.
# NEW with the change: "but not 3", ", not 3", "3 ke ilawa" kept Item 3 before (it was not named at all).
# ALSO BEFORE: "except 3", "außer 3", "menos el 3", ... deleted Item 3 before too ("items" + "3" named it).
@pytest.mark.parametrize(
    "message",
    [
        "delete items 1-5 but not 3",  # new
        "delete items 1 to 5, not 3",  # new
        "item 1 se 5 delete karo, 3 ke ilawa",  # new
        "delete items 1-5 except 3",
        "delete items 1-5 minus 3",
        "lösch Item 1 bis 5 außer 3",
        "lösch Item 1 bis 5, nur 3 nicht",
        "borra del item 1 al 5 menos el 3",
        "borra del item 1 al 5 excepto el 3",
        "supprime les items 1 à 5 sauf le 3",
        "cancella gli item dal 1 al 5 tranne il 3",
        "verwijder item 1 t/m 5 behalve 3",
        "apague os itens 1 a 5 exceto o 3",
        "ta bort item 1 till 5 utom 3",
    ],
)
async def test_a_bare_number_left_out_of_a_range_is_never_changed(make_client: MakeClient, message: str) -> None:
    left, body = await _said(make_client, TASKS, message, calls_on("delete_task", *ITEMS[:5]))
    assert "Item 3" in left, body["assistant_message"]


# The same in the model's question: its yes deletes Item 5, which the question leaves out.
# NEW: "but not 5", ", keeping 5". ALSO BEFORE: "except 5" and its translations.
@pytest.mark.parametrize(
    "question",
    [
        "Should I delete Item 1 to Item 10 but not 5?",  # new
        "Should I delete Item 1 to Item 10, keeping 5?",  # new
        "Should I delete Item 1 to Item 10 except 5?",
        "Soll ich Item 1 bis 10 löschen, außer 5?",
        "¿Borro del Item 1 al 10 menos el 5?",
        "Je supprime les items 1 à 10 sauf le 5 ?",
        "Zal ik Item 1 t/m 10 verwijderen, behalve 5?",
    ],
)
async def test_a_yes_never_changes_a_bare_number_the_question_leaves_out(
    make_client: MakeClient, question: str
) -> None:
    left, body = await _yes(make_client, question, calls_on("delete_task", *ITEMS[:5]))
    assert "Item 5" in left, body["assistant_message"]


# --- 2. A time ("at 3-5") read as a range: the word skipped before the range's first number -----------
# NEW: before the change each of these was asked about.
MEETINGS = tuple(f"Meeting {n}" for n in range(1, 7))


@pytest.mark.parametrize(
    ("tasks", "message", "tool", "target"),
    [
        (MEETINGS, "delete the meeting at 3-5", "delete_task", "Meeting 4"),
        (MEETINGS, "cancel the meeting on 3-5", "delete_task", "Meeting 4"),
        (MEETINGS, "lösch das Meeting um 3 bis 5", "delete_task", "Meeting 4"),
        (MEETINGS, "borra la meeting de 3 a 5", "delete_task", "Meeting 4"),
        (MEETINGS, "supprime le meeting de 3 à 5", "delete_task", "Meeting 4"),
        (tuple(f"Class {n}" for n in range(1, 6)), "complete the class at 2 to 4", "complete_task", "Class 3"),
        (tuple(f"Session {n}" for n in range(1, 6)), "mark session at 3-5 done", "complete_task", "Session 4"),
        (TASKS, "vink item 3 tot 17 uur af", "complete_task", "Item 5"),  # "until 5 pm"
    ],
)
async def test_a_time_is_no_range_of_titles(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, tool: str, target: str
) -> None:
    left, body = await _said(make_client, tasks, message, calls_on(tool, target))
    assert left[target] == "pending", body["assistant_message"]


# --- 3. A range inside one title: quoted, or a task's exact title --------------------------------------
# NEW: before the change Item 5 / Pages 15 were asked about.
WITH_RANGED_TITLE = ("Gym", "Item 3 to Item 7", *ITEMS[:8])


@pytest.mark.parametrize(
    ("tasks", "message", "tool", "target"),
    [
        (WITH_RANGED_TITLE, "delete 'Item 3 to Item 7'", "delete_task", "Item 5"),
        (("Gym", "Item 3 bis 7", *ITEMS[:8]), "lösch „Item 3 bis 7“", "delete_task", "Item 5"),
        (("Gym", "Item 3 a 7", *ITEMS[:8]), "borra 'Item 3 a 7'", "delete_task", "Item 5"),
        (("Pages 10-20", "Pages 10", "Pages 15", "Pages 20"), "complete 'Pages 10-20'", "complete_task", "Pages 15"),
        (("Pages 10-20", "Pages 10", "Pages 15", "Pages 20"), "complete Pages 10-20", "complete_task", "Pages 15"),
    ],
)
async def test_a_range_inside_a_title_names_only_that_title(
    make_client: MakeClient, tasks: tuple[str, ...], message: str, tool: str, target: str
) -> None:
    left, body = await _said(make_client, tasks, message, calls_on(tool, target))
    assert left[target] == "pending", body["assistant_message"]


@pytest.mark.parametrize(
    "question", ['Should I delete "Item 3 to Item 7"?', "Should I delete 'Item 3 to Item 7' and Gym?"]
)
async def test_a_yes_to_a_quoted_title_with_a_range_deletes_only_that_title(
    make_client: MakeClient, question: str
) -> None:
    step = calls_on("delete_task", "Gym", "Item 3 to Item 7", "Item 5")
    left, body = await _yes(make_client, question, step, tasks=WITH_RANGED_TITLE)
    assert "Item 5" in left, body["assistant_message"]


# --- 4. Some of a range ("the first of", "2 of", "the even") read as all of it -------------------------
# NEW: before, Items 4-6 were asked about.
@pytest.mark.parametrize(
    "message",
    [
        "delete the first of items 3 to 7",
        "delete 2 of items 3-7",
        "delete the top 2 of items 3 to 7",
        "delete the even items 3-7",  # Item 5 is odd
        "delete items 3-7 except one",
        "borra el primero de los items 3 a 7",
        "apaga o primeiro dos itens 3 a 7",
    ],
)
async def test_some_of_a_range_never_names_all_of_it(make_client: MakeClient, message: str) -> None:
    left, body = await _said(make_client, TASKS, message, calls_on("delete_task", *ITEMS[2:7]))
    assert "Item 5" in left, body["assistant_message"]


@pytest.mark.parametrize(
    "question", ["Should I delete the first of Item 1 to Item 10?", "¿Borro el primero de los items 1 a 10?"]
)
async def test_a_yes_to_one_of_a_range_never_deletes_the_others(make_client: MakeClient, question: str) -> None:
    left, body = await _yes(make_client, question, calls_on("delete_task", *ITEMS[:5]))
    assert {"Item 2", "Item 3", "Item 4", "Item 5"} <= set(left), body["assistant_message"]


# --- 5. A range the user says no to with a "no" after it --------------------------------------------
# NEW for ranges (before: asked about). The reading gap is older: "borra gym, el item 3 no" deletes
# Item 3 with the code before the change too; the range carries it to every task between its ends.
@pytest.mark.parametrize(
    "message",
    [
        "delete gym, items 3 to 7 no",
        "delete gym, but items 3 to 7 no",
        "borra gym, los items 3 a 7 no",
        "borra gym y los items 3 a 7 no",
        "cancella gym, gli item dal 3 al 7 no",
    ],
)
async def test_a_range_followed_by_no_is_never_changed(make_client: MakeClient, message: str) -> None:
    left, body = await _said(make_client, TASKS, message, calls_on("delete_task", "Gym", "Item 5", "Item 6"))
    assert {"Item 5", "Item 6"} <= set(left), body["assistant_message"]


@pytest.mark.parametrize(
    "question",
    ["¿Borro Gym, los items 1 a 10 no?", "¿Borro Gym y los items 1 a 10 no?", "Should I delete Gym, items 1 to 10 no?"],
)
async def test_a_yes_never_deletes_a_range_the_question_says_no_to(make_client: MakeClient, question: str) -> None:
    step = calls_on("delete_task", "Gym", "Item 3", "Item 4")
    left, body = await _yes(make_client, question, step, request="gym can go")
    assert {"Item 3", "Item 4"} <= set(left), body["assistant_message"]


# --- 6. The question keeps a task of its range in other words than "but not"/"except" ----------------
# NEW for ranges ("Item 5 stays", "…keep it": before, Item 5 was asked about); "skipping Item 5" deleted
# Item 5 before too. Older gap: "Should I delete all tasks? Item 5 stays." and "Should I delete Item 4
# and Item 5? Item 5 stays." delete Item 5 with the code before the change too.
@pytest.mark.parametrize(
    "question",
    [
        pytest.param(
            "Should I delete Item 1 to Item 10, skipping Item 5?",
            marks=pytest.mark.xfail(strict=True, reason="'skipping' is no keep the reader reads (before ranges too)"),
        ),
        "Should I delete Item 1 to Item 10? Item 5 stays.",
        "Should I delete Item 1 to Item 10? Item 5 is important, so I'd keep it.",
    ],
)
async def test_a_yes_never_deletes_what_the_question_keeps(make_client: MakeClient, question: str) -> None:
    left, body = await _yes(make_client, question, calls_on("delete_task", *ITEMS[:5]))
    assert "Item 5" in left, body["assistant_message"]


# --- 7. A range narrowed by state ("that are done", "except the open ones") -------------------------
# Item 5 is pending. NEW for ranges (before: asked about); older gap for listed titles: "delete item 4,
# item 5 and item 6 that are done" deletes the pending Item 5 before the change too. The whole list
# ("delete all done tasks") is asked about.
@pytest.mark.parametrize(
    "message",
    [
        "delete items 3-7 that are done",
        "delete finished items 3-7",
        "delete the completed items 3 to 7",
        "delete items 3 to 7, only the done ones",
        "delete items 3 to 7 but only if done",
        "delete items 3-7 except the open ones",
        "lösch die erledigten von Item 3 bis 7",
        "verwijder de afgeronde items 3 t/m 7",
    ],
)
async def test_a_range_narrowed_to_done_tasks_never_deletes_a_pending_one(
    make_client: MakeClient, message: str
) -> None:
    left, body = await _said(make_client, TASKS, message, calls_on("delete_task", "Item 5"))
    assert "Item 5" in left, body["assistant_message"]


# --- 8. Older gaps a range now widens -----------------------------------------------------------------
# A typo of the title's word: "delete test 2" deletes "Text 2" beside "Test 2" before the change too;
# now "delete tests 1-3" deletes a whole other family.
async def test_a_range_never_names_a_near_title_beside_the_exact_one(make_client: MakeClient) -> None:
    tasks = ("Test 1", "Test 2", "Test 3", "Text 1", "Text 2", "Text 3")
    left, body = await _said(make_client, tasks, "delete tests 1-3", calls_on("delete_task", "Text 2"))
    assert "Text 2" in left, body["assistant_message"]


# A yes to a question that offers alternatives: older gap ("…just Gym, or Gym and Item 3?" + yes deletes
# Item 3 before the change); the range carries it to every task between.
@pytest.mark.parametrize(
    "question",
    [
        "Do you want me to delete just Gym, or Gym and Item 1 to Item 10?",
        "Should I delete Gym and Item 1 to Item 10, or just Gym?",
        "¿Borro o completo los items 1 a 10?",
    ],
)
async def test_a_yes_to_alternatives_never_deletes_a_range(make_client: MakeClient, question: str) -> None:
    left, body = await _yes(make_client, question, calls_on("delete_task", "Gym", "Item 3", "Item 4"))
    assert {"Item 3", "Item 4"} <= set(left), body["assistant_message"]


# Dutch "tot" commonly ends before its number ("tot en met" is the inclusive one): Item 7 is not asked
# for plainly. A judgement call: asking about Item 7 is the safe reading.
async def test_dutch_tot_never_deletes_its_end_unasked(make_client: MakeClient) -> None:
    left, body = await _said(make_client, TASKS, "verwijder item 3 tot 7", calls_on("delete_task", *ITEMS[2:7]))
    assert "Item 7" in left or body["confirmation"] is not None, body["assistant_message"]


# A change the range's reading took away: "but" after a range is now read as "except" (exceptions.py
# `_after_all`), so "…but item 2 too" refuses Item 2, which ran before the change (as "delete
# everything but item 2 too" refuses it: the lookahead that keeps "but … too" an addition allows one
# word before "too"). A denial, not an unasked change.
@pytest.mark.xfail(strict=True, reason="'but item 2 too' after a range is read as an exception")
async def test_but_too_after_a_range_adds_a_task(make_client: MakeClient) -> None:
    left, body = await _said(
        make_client, TASKS, "delete items 3-7 but item 2 too", calls_on("delete_task", *ITEMS[1:7])
    )
    assert "Item 2" not in left, body["assistant_message"]
