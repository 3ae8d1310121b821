"""Misreadings of a no beside a numbered title, and of an exception word after a comma.

Written by a blind review (2026-12-07) of two fixes: a closing no after a numbered title
("borra gym, el item 3 no": negation.py `_closes`) and an after-all exception word after a comma
("borra todo, menos gym": exceptions.py `after_all`, `_left_out`). What the fixes first broke holds
now (the groups not marked xfail); the xfails are older gaps in the same shapes, open before the
fixes too, each with what happens.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.compliant import calls_on, compliant
from support.fake_llm import ScriptedLLM, calls, completion, declares

DELETE, DONE = "delete_task", "complete_task"
TITLES = ("Gym", "Taxes", "Yoga")
NUMBERED = ("Gym", "Item 2", "Item 3", "Item 4")
Call = tuple[str, dict[str, Any]]


# --- 1. A closing no after a numbered title (negation.py `_closes`) ----------------------------------


# Found by the review, held now: denial. A number of up to three digits no longer counts as a word before a
# closing no, and French `not` holds "pas", which is also "steps": "marcher 100 pas" (walk 100 steps) is read
# as "not marcher 100", and a model that deletes (or completes) that task is refused, silently: the reply
# lists only Gym. French writes 10000 as "10 000", two numbers of up to three digits, so even the docstring's
# own "marcher 10000 pas stays a title" fails as a French user types it.
@pytest.mark.parametrize(
    ("message", "title", "tool"),
    [
        ("supprime gym, marcher 100 pas", "Marcher 100 pas", DELETE),
        ("supprime gym et marcher 10 000 pas", "Marcher 10 000 pas", DELETE),
        ("supprime gym et les 500 pas", "Les 500 pas", DELETE),
        ("marque gym comme fait, faire 500 pas", "Faire 500 pas", DONE),
    ],
)
async def test_a_count_of_steps_is_no_word_of_no(make_client: MakeClient, message: str, title: str, tool: str) -> None:
    titles = ("Gym", title, "Taxes")
    llm, _ = compliant([calls_on(tool, "Gym", title)], titles, after_tools="Fait.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    done = "completed" if tool == DONE else None
    assert left.get("Gym") == done and left.get(title) == done, (left, body["assistant_message"])
    assert left["Taxes"] == "pending"


# Older: a closing no after a numbered title is still not read where the title's number has four
# digits (a year), letters or signs beside it ("Q3", "3b", "#3", "Nr. 3", "nº 3", "n°3", "3.1",
# "Item-3"), a third word before the no ("número", "todavía", "aún"), or the number stands alone
# ("aber 3 nicht", "Item 3 und 4 nicht": `0 < len(named)`). Held since 2026-12-07 where the words
# of the item say more than its title, a word of no among them ("Steuer 2024 nicht", "el item #3
# no": test_item_says_more.py): the model's delete of that task is asked about. Open (the xfails):
# the model's delete runs at once.
_OPEN_NO = pytest.mark.xfail(
    strict=True,
    reason=(
        "a closing no is read after one or two words and a title's number of up to three digits "
        "only, and a no beside 'Nr. 3' or a number alone is no item's (older)"
    ),
)


@pytest.mark.parametrize(
    ("message", "titles", "kept"),
    [
        ("lösch Gym, Steuer 2024 nicht", ("Gym", "Steuer 2024", "Taxes"), "Steuer 2024"),
        ("verwijder gym, taak 2024 niet", ("Gym", "Taak 2024", "Taxes"), "Taak 2024"),
        ("lösch Gym, Item 1000 nicht", ("Gym", "Item 1000", "Taxes"), "Item 1000"),
        ("lösch Gym, Bericht Q3 nicht", ("Gym", "Bericht Q3", "Taxes"), "Bericht Q3"),
        ("borra gym, el item 3b no", ("Gym", "Item 3b", "Taxes"), "Item 3b"),
        ("lösch Gym, Item 3.1 nicht", ("Gym", "Item 3.1", "Taxes"), "Item 3.1"),
        ("lösch Gym, Item-3 nicht", ("Gym", "Item-3", "Taxes"), "Item-3"),
        pytest.param(
            "lösch Gym, Aufgabe Nr. 3 nicht", ("Gym", "Aufgabe Nr. 3", "Taxes"), "Aufgabe Nr. 3", marks=_OPEN_NO
        ),
        ("borra gym, el item #3 no", NUMBERED, "Item 3"),
        ("borra gym, el item nº 3 no", NUMBERED, "Item 3"),
        ("supprime gym, l'item n°3 non", NUMBERED, "Item 3"),
        ("borra gym, el item número 3 no", NUMBERED, "Item 3"),
        ("borra gym, el item 3 todavía no", NUMBERED, "Item 3"),
        ("borra gym, el item 3 aún no", NUMBERED, "Item 3"),
        pytest.param("lösch Gym und Item 4, aber 3 nicht", NUMBERED, "Item 3", marks=_OPEN_NO),
        pytest.param("lösch Gym, Item 3 und 4 nicht", NUMBERED, "Item 4", marks=_OPEN_NO),
    ],
)
async def test_a_numbered_title_a_closing_no_keeps_is_never_changed(
    make_client: MakeClient, message: str, titles: tuple[str, ...], kept: str
) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym", kept)], titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert left.get(kept) == "pending", (left, body["assistant_message"])


# Older, open: denial, same shape: a third word before the no ("aber") makes the whole message a no, and
# nothing is deleted, Gym neither ("Es wurde nichts geändert").
@pytest.mark.xfail(strict=True, reason="'das Item 3 aber nicht' makes the whole message a no (older denial)")
async def test_a_no_with_aber_after_a_numbered_title_still_deletes_what_was_asked(make_client: MakeClient) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym")], NUMBERED, after_tools="Erledigt.")
    client = await make_client(llm)
    await seed_tasks(client, *NUMBERED)

    body = (await chat(client, "lösch Gym, das Item 3 aber nicht")).json()

    assert await statuses(client) == dict.fromkeys(NUMBERED[1:], "pending"), body["assistant_message"]


# --- 2. An after-all exception word after a comma (exceptions.py) ---------------------------------------


def _on(tool: str, *titles: str) -> list[Call]:
    return [(tool, {"task_id": t}) for t in titles]


# Found by the review, held now: denials. `_left_out` now returns (head, end) with head > 0 (the comma the
# splitter kept), so `Reading.leaves_out` sets `open` (start > 0) as if words stood before the exception
# ("alles außer Gym, ..."), and in a language whose verb comes last the words before the next verb are left
# out of that verb's change: "und Gym abhaken" says no to completing Gym, "und Milch hinzufügen" to adding
# Milch. Before the change Gym was completed and Milch added at once; now the completion is refused without a
# word, and the add is asked about.
@pytest.mark.parametrize(
    ("message", "step", "expected"),
    [
        (
            "lösch alles, bis auf Gym, und Gym abhaken",
            [*_on(DELETE, "Taxes", "Yoga"), *_on(DONE, "Gym")],
            {"Gym": "completed"},
        ),
        (
            "lösch alles, bis auf Gym, und Milch hinzufügen",
            [*_on(DELETE, "Taxes", "Yoga"), ("add_task", {"title": "Milch"})],
            {"Gym": "pending", "Milch": "pending"},
        ),
    ],
)
async def test_a_command_after_a_comma_exception_in_a_verb_last_language_runs(
    make_client: MakeClient, message: str, step: list[Call], expected: dict[str, str]
) -> None:
    llm, _ = compliant([step], TITLES, after_tools="Erledigt.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert all(left.get(t) == s for t, s in expected.items()), (left, body["assistant_message"])


# Found by the review, held now: denial, the model's question: the same `opened` in question.py; the yes runs
# the deletes and drops the completion of Gym the question asked about.
async def test_a_yes_to_a_question_with_a_comma_exception_and_a_verb_last_command_does_both(
    make_client: MakeClient,
) -> None:
    question = "Soll ich alles löschen, bis auf Gym, und Gym abhaken?"
    step = [*_on(DELETE, "Taxes", "Yoga"), *_on(DONE, "Gym")]
    llm = ScriptedLLM(completion(question), calls(*step), completion("Erledigt."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, "räum meine Liste auf")).json()
    await chat(client, "ja", conversation_id=first["conversation_id"])

    assert await statuses(client) == {"Gym": "completed"}


# Found by the review, held now: needless question (comma forms), OLDER (comma-less form): the alternative
# after the exception ("o solo Taxes") is read as more of what the exception leaves out, so the answer "solo
# Taxes" is asked about again ("Do you want me to delete “Taxes”?", in English in a Spanish conversation).
# Before the change the comma forms deleted Taxes at once.
@pytest.mark.xfail(
    strict=True,
    reason=(
        "an alternative after an exception ('o solo Taxes') is read as more of what it leaves out: "
        "the answer is asked about again (older without the comma)"
    ),
)
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("¿Borro todo, menos Gym, o solo Taxes?", "solo Taxes"),
        ("Should I delete everything, besides Gym, or only Taxes?", "only taxes"),
        ("¿Borro todo menos Gym, o solo Taxes?", "solo Taxes"),  # older
    ],
)
async def test_the_alternative_after_an_exception_is_no_part_of_it(
    make_client: MakeClient, question: str, answer: str
) -> None:
    llm = ScriptedLLM(completion(question), calls(*_on(DELETE, "Taxes")), completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, "clean up my list")).json()
    body = (await chat(client, answer, conversation_id=first["conversation_id"])).json()

    assert await statuses(client) == {"Gym": "pending", "Yoga": "pending"}, body["assistant_message"]
    assert body["confirmation"] is None, body["assistant_message"]


# Found by the review, held now: (reply text): the comma the splitter keeps stays in a clause that leaves
# nothing out, and the reply quotes it: 'Not done: “, besides that”.', 'Sin hacer: “, menos mal”.'
@pytest.mark.parametrize("message", ["delete everything, besides that, delete yoga", "borra todo, menos mal"])
async def test_a_kept_comma_is_never_quoted_back(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([_on(DELETE, *TITLES)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert "“," not in body["assistant_message"], body["assistant_message"]


# Older: an after-all word after a comma is still not read where the words between the set and the
# comma are more than six, hold a number ("de 2024") or a parenthesis, where a filler or a German
# relative clause stands between them and the comma (commas inside: "alle Aufgaben, die erledigt
# sind, bis auf Gym"), or where a dash or a semicolon stands for the comma. Held since 2026-12-07 where
# "menos gym" is read as an item of the delete: it says more than the title, so the delete of Gym is
# asked about (test_item_says_more.py). Open (the xfails): the model that deletes every task deletes
# Gym at once ("Eliminada: “Gym”.") and asks only about the rest.
_OPEN_EXCEPTION = pytest.mark.xfail(
    strict=True,
    reason=(
        "an after-all word after a comma is read only right after the set: not past a filler, a "
        "relative clause or a semicolon (older)"
    ),
)


@pytest.mark.parametrize(
    "message",
    [
        pytest.param("borra todo, por favor, menos gym", marks=_OPEN_EXCEPTION),
        pytest.param("borra todo, eh, menos gym", marks=_OPEN_EXCEPTION),
        "borra todas las tareas de 2024, menos gym",
        "borra todo lo que hay en mi lista de hoy, menos gym",
        "borra todo (todo), menos gym",
        "borra todo - menos gym",
        pytest.param("borra todo; menos gym", marks=_OPEN_EXCEPTION),
        pytest.param("lösch alles – bis auf Gym", marks=_OPEN_EXCEPTION),
        pytest.param("lösch alle Aufgaben, die erledigt sind, bis auf Gym", marks=_OPEN_EXCEPTION),
    ],
)
async def test_what_a_comma_exception_leaves_out_is_never_changed(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([_on(DELETE, *TITLES)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert (await statuses(client)).get("Gym") == "pending", body["assistant_message"]


# Older, open: unasked changes, the model's question: the same shapes.
@pytest.mark.xfail(strict=True, reason="the same shapes in the model's question (older)")
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("¿Borro todo, por ahora, menos Gym?", "sí"),
        ("¿Borro todas las tareas que tienes en tu lista de hoy, menos Gym?", "sí"),
        ("¿Borro todas las tareas de 2024, menos Gym?", "sí"),
        ("Soll ich alles löschen, was erledigt ist, bis auf Gym?", "ja"),
        ("Soll ich alle Aufgaben, die erledigt sind, löschen, bis auf Gym?", "ja"),
    ],
)
async def test_a_yes_to_a_comma_exception_of_the_model_leaves_out_what_it_leaves_out(
    make_client: MakeClient, question: str, answer: str
) -> None:
    left, body = await _answered(make_client, question, answer)

    assert left.get("Gym") == "pending", body["assistant_message"]


async def _answered(
    make_client: MakeClient, question: str, answer: str, *, then: str | None = None
) -> tuple[dict[str, str], dict[str, Any]]:
    """ "clean up my list", the model's `question` back, the user's `answer` (and `then` to a question
    the backend asks after it), a model that deletes every task: each task's status, and the reply."""
    llm = ScriptedLLM(completion(question), calls(*_on(DELETE, *TITLES)), completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    first = (await chat(client, "clean up my list")).json()
    body = (await chat(client, answer, conversation_id=first["conversation_id"])).json()
    if then is not None and body["confirmation"] is not None:
        body = (await chat(client, then, conversation_id=first["conversation_id"])).json()
    return await statuses(client), body


# A numbered option of the model's with an exception after its comma: the option was cut at the comma
# ("1. todo, menos Gym" read "todo"), and the answer "1" deleted Gym. Held since the option keeps
# what follows its comma where an exception word does (services/turn/context.py `_numbered`).
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("¿Qué borro?\n1. todo, menos Gym\n2. solo Taxes", "1"),
        ("Which should I delete? 1) everything, besides Gym 2) only Taxes", "1"),
        ("Was soll ich löschen? 1) alles, außer Gym 2) nur Taxes", "1"),
        ("Que dois-je supprimer ? 1) tout, sauf Gym 2) seulement Taxes", "1"),
    ],
)
async def test_an_option_that_leaves_out_after_its_comma_leaves_it_out(
    make_client: MakeClient, question: str, answer: str
) -> None:
    left, body = await _answered(make_client, question, answer, then="yes")  # the rest, asked once: its yes

    assert left.get("Gym") == "pending", body["assistant_message"]
