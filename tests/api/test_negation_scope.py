"""A no covers what it is said of (the reader's `additive`, `not` and `copula` words,
language/reading/negation.py; row T4 of the decision table).

"don't mark gym and taxes as done" read "taxes as done" as a command of its own: a model completing
Taxes completed it, and a model that did nothing was told "Not done: taxes as done". "lösch Gym,
aber Taxes nicht" made "Taxes nicht" an item of the delete; "don't delete gym and taxes" asked "Do
you want me to delete Taxes?" (found on 2026-12-06). A no goes on over what "and" joins to it (an
item, or a state its verb would put a task in, never a statement with a copula); a clause that a word
of no closes, in a language whose negation follows what it negates, is a no with the items "and"
joined before it, never the command ("lösch Gym und Taxes nicht" deletes Gym, as before).
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses, tasks_of
from support.asking import sweep, yes_to
from support.compliant import calls_on, compliant
from support.fake_llm import ScriptedLLM, calls, completion, declares

TITLES = ("Gym", "Taxes", "Yoga")
Call = tuple[str, dict[str, Any]]


# (message, the tool it says no to, what the no names, what else it asks to be changed)
SAID_NO = [
    ("don't delete gym and taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("please do not remove gym and taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("no need to delete gym and taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("never delete gym and taxes!", "delete_task", {"Gym", "Taxes"}, set()),
    ("do not mark gym and taxes as done", "complete_task", {"Gym", "Taxes"}, set()),
    ("don't mark gym and taxes done pls", "complete_task", {"Gym", "Taxes"}, set()),
    ("Don't tick off Gym and Taxes", "complete_task", {"Gym", "Taxes"}, set()),
    ("delete yoga but not gym and taxes", "delete_task", {"Gym", "Taxes"}, {"Yoga"}),
    ("complete yoga, but not gym and taxes", "complete_task", {"Gym", "Taxes"}, {"Yoga"}),
    ("no borres gym y taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("no marques gym y taxes como hechas", "complete_task", {"Gym", "Taxes"}, set()),
    ("borra yoga pero no gym y taxes", "delete_task", {"Gym", "Taxes"}, {"Yoga"}),
    # the command stands: "lösch Gym und Taxes nicht" may say "delete Gym, not Taxes" as well as
    # "delete neither" (a version that took the command back lost commands: "verschieb Gym auf
    # Freitag und Taxes nicht", "lösch Yoga und Warum nicht")
    ("lösch Gym und Taxes nicht", "delete_task", {"Taxes"}, {"Gym"}),
    ("lösche bitte Gym und Taxes nicht", "delete_task", {"Taxes"}, {"Gym"}),
    ("hak Gym und Taxes nicht ab", "complete_task", {"Taxes"}, {"Gym"}),
    ("hak Gym ab und Taxes nicht", "complete_task", {"Taxes"}, {"Gym"}),
    ("markiere Gym als erledigt und Taxes nicht", "complete_task", {"Taxes"}, {"Gym"}),
    ("marque gym comme fait et taxes pas", "complete_task", {"Taxes"}, {"Gym"}),
    ("lösch Gym, Yoga und Taxes nicht", "delete_task", {"Taxes"}, {"Gym", "Yoga"}),  # Yoga: a list's item
    # found by the fourth review: a second closed no is no command's; what follows a taken-back command
    ("lösch Gym, Taxes nicht und Yoga nicht", "delete_task", {"Taxes", "Yoga"}, {"Gym"}),
    ("lösch Gym, Taxes nicht & Yoga nicht", "delete_task", {"Taxes", "Yoga"}, {"Gym"}),
    ("lösch Gym und Taxes nicht, Yoga aber schon", "delete_task", {"Taxes"}, {"Gym", "Yoga"}),
    ("please don't delete gym & taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("lösch Yoga, aber Gym und Taxes nicht", "delete_task", {"Gym", "Taxes"}, {"Yoga"}),
    ("lösch Yoga, aber Taxes nicht", "delete_task", {"Taxes"}, {"Yoga"}),
    ("ne supprime pas gym et taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("ne marque pas gym et taxes comme faites", "complete_task", {"Gym", "Taxes"}, set()),
    ("non cancellare gym e taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("non segnare gym e taxes come fatte", "complete_task", {"Gym", "Taxes"}, set()),
    ("não apague gym e taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("ta inte bort gym och taxes", "delete_task", {"Gym", "Taxes"}, set()),
    ("verwijder gym en taxes niet", "delete_task", {"Gym", "Taxes"}, set()),
    ("gym aur taxes delete mat karo", "delete_task", {"Gym", "Taxes"}, set()),
    ("supprime yoga, mais taxes pas", "delete_task", {"Taxes"}, {"Yoga"}),
    ("yoga delete karo aur taxes nahin", "delete_task", {"Taxes"}, {"Yoga"}),
    # Spanish, Italian and Portuguese close an item with their "no" too (a model that only claimed
    # was made to delete Taxes: `closing_not`), and a closed no may end with a polite word
    ("elimina yoga y taxes no", "delete_task", {"Taxes"}, {"Yoga"}),
    ("borra yoga, taxes no", "delete_task", {"Taxes"}, {"Yoga"}),
    ("elimina yoga, pero taxes no", "delete_task", {"Taxes"}, {"Yoga"}),
    ("elimina yoga y taxes todavía no", "delete_task", {"Taxes"}, {"Yoga"}),
    ("completa yoga y taxes no", "complete_task", {"Taxes"}, {"Yoga"}),
    ("cancella yoga e taxes no", "delete_task", {"Taxes"}, {"Yoga"}),
    ("segna yoga come fatto, taxes no", "complete_task", {"Taxes"}, {"Yoga"}),
    ("apaga yoga e taxes não", "delete_task", {"Taxes"}, {"Yoga"}),
    ("conclua yoga e taxes não", "complete_task", {"Taxes"}, {"Yoga"}),
    ("elimina yoga y taxes no por favor", "delete_task", {"Taxes"}, {"Yoga"}),
    ("lösch Gym, Taxes nicht bitte", "delete_task", {"Taxes"}, {"Gym"}),
    # a no inside a verb around its object (read as a command to complete Gym, and forced: found on
    # 2026-12-06)
    ("hak Gym nicht ab", "complete_task", {"Gym"}, set()),
    ("hak Gym bitte nicht ab", "complete_task", {"Gym"}, set()),
    ("markiere Gym nicht als erledigt", "complete_task", {"Gym"}, set()),
    ("vink gym niet af", "complete_task", {"Gym"}, set()),
]


@pytest.mark.parametrize(("message", "tool", "kept", "changed"), SAID_NO)
async def test_a_model_that_changes_what_a_no_names_is_refused(
    make_client: MakeClient, message: str, tool: str, kept: set[str], changed: set[str]
) -> None:
    llm, _ = compliant([calls_on(tool, *sorted(changed | kept))], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert all(left.get(t) == "pending" for t in kept), (left, body["assistant_message"])
    assert body["confirmation"] is None, body["assistant_message"]  # nothing the user said no to is asked about
    done = "completed" if tool == "complete_task" else None
    assert all(left.get(t) == done for t in changed), (left, body["assistant_message"])


def _retried(llm: ScriptedLLM) -> list[Any]:
    """The tool choices the guard's retries put on the model (the reply check aside)."""
    choices = [r.get("tool_choice") for r in llm.requests]
    return [
        c
        for c in choices
        if c not in (None, "auto") and not (isinstance(c, dict) and c["function"]["name"] == "check_reply")
    ]


@pytest.mark.parametrize(("message", "tool", "kept", "changed"), SAID_NO)
async def test_a_model_that_only_claims_is_never_made_to_change_what_a_no_names(
    make_client: MakeClient, message: str, tool: str, kept: set[str], changed: set[str]
) -> None:
    # forced, it names the first task the message mentions that it has not acted on: one the no names
    llm, _ = compliant([calls_on(tool, *sorted(changed))], TITLES, ghost="Done, all of it!", after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert all(left.get(t) == "pending" for t in kept), (left, body["assistant_message"])


@pytest.mark.parametrize(("message", "tool", "kept", "changed"), SAID_NO)
async def test_a_no_forces_nothing_on_a_model_that_obeys_it(
    make_client: MakeClient, message: str, tool: str, kept: set[str], changed: set[str]
) -> None:
    answer = calls(*calls_on(tool, *sorted(changed))) if changed else completion("Okay, I'll leave them.")
    llm = ScriptedLLM(answer, completion("Done."), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert all(left.get(t) == "pending" for t in kept), (left, body["assistant_message"])
    assert _retried(llm) == [], body["assistant_message"]
    assert "taxes" not in body["assistant_message"].casefold()  # no "Not done" of what the user said no to


# (message, the model's calls, the tasks gone or done after it): what a no stands beside still runs
BESIDE = [
    ("don't delete gym, delete taxes", calls_on("delete_task", "Taxes"), {"Taxes"}),
    ("don't delete gym and delete taxes", calls_on("delete_task", "Taxes"), {"Taxes"}),
    ("delete yoga and taxes, not gym", calls_on("delete_task", "Yoga", "Taxes"), {"Yoga", "Taxes"}),
    ("no borres gym, borra taxes", calls_on("delete_task", "Taxes"), {"Taxes"}),
    ("don't mark gym done, mark taxes done", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("mark gym and taxes as done", calls_on("complete_task", "Gym", "Taxes"), {"Gym", "Taxes"}),
    ("lösch Yoga und Taxes", calls_on("delete_task", "Yoga", "Taxes"), {"Yoga", "Taxes"}),
    ("hak Gym und Taxes ab", calls_on("complete_task", "Gym", "Taxes"), {"Gym", "Taxes"}),
    ("marque gym et taxes comme faites", calls_on("complete_task", "Gym", "Taxes"), {"Gym", "Taxes"}),
    ("ta bort gym och taxes", calls_on("delete_task", "Gym", "Taxes"), {"Gym", "Taxes"}),
    ("gym aur taxes delete kar do", calls_on("delete_task", "Gym", "Taxes"), {"Gym", "Taxes"}),
    # found by review: a stated change of another kind than the no's, a clause of its own with "nicht"
    ("don't delete gym and taxes is done", calls_on("complete_task", "Taxes"), {"Taxes"}),
    # ("lösch Gym und Taxes brauch ich nicht": the delete of Taxes is asked, test_item_says_more.py)
    ("lösch Gym und vergiss Yoga nicht", calls_on("delete_task", "Gym"), {"Gym"}),
    ("non mi servono più gym e taxes, cancellali", calls_on("delete_task", "Gym", "Taxes"), {"Gym", "Taxes"}),
    # found by the second review: a statement of its own (a copula) after a no is no part of it
    ("gym isn't done and taxes is done", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("don't mark gym done and taxes is done", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("no marques gym y taxes ya está hecha", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("ne marque pas gym et taxes est finie", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("Gym ist nicht erledigt und Taxes ist erledigt", calls_on("complete_task", "Taxes"), {"Taxes"}),
    # ("delete gym and taxes or not": the delete of Taxes is asked, test_item_says_more.py)
    # found by the third review: a no that is a statement, a command that goes on after a closed no
    ("gym isn't done and taxes done", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("Gym noch nicht erledigt und Taxes erledigt", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("lösch Gym, Taxes nicht und Yoga auch", calls_on("delete_task", "Gym", "Yoga"), {"Gym", "Yoga"}),
    ("lösch Gym, Taxes nicht, und Yoga", calls_on("delete_task", "Gym", "Yoga"), {"Gym", "Yoga"}),
    ("hak Gym ab, Taxes nicht und Yoga auch", calls_on("complete_task", "Gym", "Yoga"), {"Gym", "Yoga"}),
    # found by the sixth review: a phrase with "no" before a state, an item whose clause was finished
    ("no worries and taxes done", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("kein Stress und Taxes erledigt", calls_on("complete_task", "Taxes"), {"Taxes"}),
    ("hak Gym und Yoga ab und Taxes nicht", calls_on("complete_task", "Gym", "Yoga"), {"Gym", "Yoga"}),
    ("lösch Gym und Yoga sofort und Taxes nicht", calls_on("delete_task", "Gym", "Yoga"), {"Gym", "Yoga"}),
]


@pytest.mark.parametrize(("message", "step", "changed"), BESIDE)
async def test_the_commands_beside_a_no_still_run(
    make_client: MakeClient, message: str, step: list[Call], changed: set[str]
) -> None:
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    left = await statuses(client)
    assert all(left.get(t) in (None, "completed") for t in changed), (left, body["assistant_message"])
    assert all(left.get(t) == "pending" for t in set(TITLES) - changed), (left, body["assistant_message"])


async def test_an_add_beside_a_no_still_runs(make_client: MakeClient) -> None:
    llm, _ = compliant([[("add_task", {"title": "milk"})]], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    await chat(client, "don't delete gym and add milk")

    assert await statuses(client) == {**dict.fromkeys(TITLES, "pending"), "milk": "pending"}


@pytest.mark.parametrize(
    ("question", "yes"),
    [
        ("Should I delete Gym and Taxes, but not Yoga and Report?", "yes"),
        ("¿Borro Gym y Taxes, pero no Yoga y Report?", "sí"),
        ("Soll ich Gym und Taxes löschen, aber nicht Yoga und Report?", "ja"),
        ("Je supprime Gym et Taxes, mais pas Yoga et Report ?", "oui"),
    ],
)
async def test_a_yes_leaves_alone_what_the_question_says_no_to(
    make_client: MakeClient, question: str, yes: str
) -> None:
    tasks = (*TITLES, "Report")
    client, _ = await yes_to(make_client, tasks, "clean up my list", question, sweep("delete_task", tasks), yes=yes)

    assert set(await statuses(client)) == {"Yoga", "Report"}


# Titles that end in a word some language negates with ("mat" in Urdu, "stop" in English): a title.
MAT = ("Gym", "Yoga mat", "Bus stop", "Why not", "Just say no", "Warum nicht", "Marcher 10000 pas")


@pytest.mark.parametrize(
    ("message", "step"),
    [
        ("delete gym and the yoga mat", calls_on("delete_task", "Gym", "Yoga mat")),
        ("complete gym and the bus stop", calls_on("complete_task", "Gym", "Bus stop")),
        ("delete the yoga mat and bus stop", calls_on("delete_task", "Yoga mat", "Bus stop")),
        ("delete gym and Why not", calls_on("delete_task", "Gym", "Why not")),
        ("complete gym and just say no", calls_on("complete_task", "Gym", "Just say no")),
        ("delete gym and Warum nicht", calls_on("delete_task", "Gym", "Warum nicht")),
        ("supprime gym et marcher 10000 pas", calls_on("delete_task", "Gym", "Marcher 10000 pas")),
        # found by review: a title inside a verb around its object
        ("hak Warum nicht ab", calls_on("complete_task", "Warum nicht")),
        ("marque marcher 10000 pas comme fait", calls_on("complete_task", "Marcher 10000 pas")),
    ],
)
async def test_a_title_that_ends_with_a_word_of_no_is_a_title(
    make_client: MakeClient, message: str, step: list[Call]
) -> None:
    llm, _ = compliant([step], MAT, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *MAT)

    await chat(client, message)

    left, changed = await statuses(client), {a["task_id"] for _, a in step}
    assert all(left.get(t) in (None, "completed") for t in changed), left
    assert all(left[t] == "pending" for t in set(MAT) - changed), left


async def test_what_follows_a_no_in_an_add_is_added(make_client: MakeClient) -> None:
    step = [("add_task", {"title": t}) for t in ("milk", "no sugar yogurt", "bread")]
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)

    await chat(client, "add milk, no sugar yogurt and bread")

    assert {"milk", "bread"} <= set(await statuses(client))


async def test_an_add_of_a_title_that_ends_with_a_word_of_no_adds_it(make_client: MakeClient) -> None:
    step = [("add_task", {"title": "milk"}), ("add_task", {"title": "yoga mat"})]
    llm, _ = compliant([step], TITLES, after_tools="Done.")
    client = await make_client(llm)

    await chat(client, "add milk and a new yoga mat")

    assert set(await statuses(client)) == {"milk", "yoga mat"}


@pytest.mark.parametrize(
    "question", ["Should I delete Gym and the Yoga mat?", "Do you want me to delete Gym, Yoga mat and Bus stop?"]
)
async def test_a_yes_to_a_question_naming_such_a_title_does_it(make_client: MakeClient, question: str) -> None:
    client, _ = await yes_to(make_client, MAT, "clean up", question, sweep("delete_task", MAT))

    named = {t for t in MAT if t.casefold() in question.casefold()}
    assert set(await statuses(client)) == set(MAT) - named


@pytest.mark.parametrize(
    ("question", "yes"),
    [
        ("Should I delete Gym and Taxes or not?", "yes"),
        ("¿Borro Gym y Taxes o no?", "sí"),
        ("Je supprime Gym et Taxes ou pas ?", "oui"),
        ("Soll ich Gym und Taxes löschen oder nicht?", "ja"),
    ],
)
async def test_a_yes_to_a_question_that_ends_or_not_does_it(make_client: MakeClient, question: str, yes: str) -> None:
    client, _ = await yes_to(make_client, TITLES, "clean up", question, sweep("delete_task", TITLES), yes=yes)

    assert set(await statuses(client)) == {"Yoga"}


async def test_a_yes_moves_what_has_a_value_of_its_own_after_a_no(make_client: MakeClient) -> None:
    question = "Should I move Gym to Friday but not Yoga and Taxes to Monday?"
    step = calls(
        ("update_task", {"task_id": "Gym", "due_date": "2026-11-27"}),
        ("update_task", {"task_id": "Taxes", "due_date": "2026-11-23"}),
    )
    client, _ = await yes_to(make_client, TITLES, "reschedule", question, step)

    due = {t["title"]: t["due_date"] for t in await tasks_of(client)}
    assert due["Gym"] is not None and due["Taxes"] is not None and due["Yoga"] is None, due


@pytest.mark.parametrize(
    "message",
    ["gym isn't done and taxes is", "gym no está hecho y taxes sí", "don't delete gym and taxes is done already"],
)
async def test_what_says_something_of_its_own_after_and_is_no_part_of_the_no(
    make_client: MakeClient, message: str
) -> None:
    # found by the fifth review: a copula or a yes after "and" (Taxes is done, or asked about; never refused)
    llm, _ = compliant([calls_on("complete_task", "Taxes")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    asked = body["confirmation"] is not None and "Taxes" in body["confirmation"]["question"]
    assert asked or (await statuses(client))["Taxes"] == "completed", body["assistant_message"]


@pytest.mark.parametrize(
    ("message", "target"),
    [
        ("don't hesitate to delete gym and taxes", "Taxes"),  # the no of another verb
        ("why don't you delete gym and taxes", "Taxes"),
        ("gym aur nai diary delete kar do", "Gym"),  # "nai" (new) is no no of the verb
    ],
)
async def test_a_no_of_another_word_than_the_verb_reaches_no_further(
    make_client: MakeClient, message: str, target: str
) -> None:
    # found by the fourth and fifth reviews: the task "and" joins is done or asked about, never refused
    llm, _ = compliant([calls_on("delete_task", target)], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    asked = body["confirmation"] is not None and target in body["confirmation"]["question"]
    assert asked or target not in await statuses(client), body["assistant_message"]
