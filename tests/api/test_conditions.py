"""What a message supposes is no request: a condition at a clause's head ("if yoga is done, …",
"wenn Yoga erledigt ist, …", "om yoga är klar, …") or a plan, a supposition or a question beside a
command ("delete gym, I might finish yoga tomorrow") names no task for the model to change. Where a
model changes that task anyway, the change is not made; the command beside it stands as it did.

What was said happened stays a report the model may act on: "yoga is done, delete gym", "delete
gym. I've finished yoga", "since yoga is done, delete gym" complete Yoga. A condition with no verb of
its own ("if you can, delete gym") is a courtesy and changes nothing of the command.

Before (2026-12-07), with a model completing Yoga, every case of the first two lists completed it.
Written before the change; harness: tests/support/review2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import BASE, COM, DEL, A, C, D, run_case

# A condition clause, then the command: the model deletes Gym and completes Yoga.
CONDITIONS = [
    ("en-if", "if yoga is done, delete gym"),
    ("en-once", "once yoga is finished, delete gym"),
    ("en-when", "when yoga is done, remove gym"),
    ("en-as-soon-as", "as soon as yoga is complete, delete gym"),
    ("en-if-completed", "If Yoga has been completed, please delete Gym."),
    ("es-si", "si yoga está hecho, borra gym"),
    ("es-cuando", "cuando yoga esté terminado, borra gym"),
    ("de-wenn", "wenn Yoga erledigt ist, lösch Gym"),
    ("de-falls", "falls Yoga fertig ist, lösch Gym"),
    ("de-sobald", "sobald Yoga erledigt ist, lösche Gym"),
    ("fr-si", "si yoga est fait, supprime gym"),
    ("fr-quand", "quand yoga sera fini, supprime gym"),
    ("fr-des-que", "dès que yoga est terminé, supprime gym"),
    ("it-se", "se yoga è fatto, cancella gym"),
    ("it-quando", "quando yoga è finito, cancella gym"),
    ("pt-se", "se yoga estiver feito, apaga gym"),
    ("pt-quando", "quando yoga estiver concluído, apaga gym"),
    ("nl-als", "als yoga klaar is, verwijder gym"),
    ("nl-zodra", "zodra yoga af is, verwijder gym"),
    ("sv-om", "om yoga är klar, ta bort gym"),
    ("sv-nar", "när yoga är klar, ta bort gym"),
]


_CUT = (
    "the folded 'è' is the Italian 'and': the clause is cut before its verb, so 'se yoga' reads as no"
    " condition and 'fatto' names nothing; the completion is grounded on the words beside (row C12)"
)


def _case(case_id: str, message: str) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=_CUT)] if case_id.startswith("it-") else []
    return pytest.param(message, id=case_id, marks=marks)


@pytest.mark.parametrize("message", [_case(i, m) for i, m in CONDITIONS])
async def test_a_condition_names_no_task_to_complete(make_client: MakeClient, message: str) -> None:
    # Gym's delete may run or be asked (the command is conditioned); Yoga never completes.
    await run_case(make_client, [(message, [*D("Gym"), *C("Yoga")])], BASE, {"Gym": DEL})


# A plan, a supposition, advice or a question beside a command: the model acts on its task too.
SUPPOSED: list[Any] = [
    pytest.param("delete gym, I might finish yoga tomorrow", C("Yoga"), id="en-might"),
    pytest.param("delete gym; maybe I'll finish yoga later", C("Yoga"), id="en-maybe"),
    pytest.param("remove gym. I'm thinking of finishing yoga too", C("Yoga"), id="en-thinking"),
    pytest.param("delete gym, should I finish yoga as well?", C("Yoga"), id="en-advice"),
    pytest.param("delete gym, what if I finish yoga first?", C("Yoga"), id="en-what-if"),
    pytest.param("add milk, I was going to delete taxes", D("Taxes"), id="en-going-to-delete"),
    pytest.param(
        "borra gym, quizás termine yoga mañana",
        C("Yoga"),
        id="es-quizas",
        marks=pytest.mark.xfail(
            strict=True,
            reason="the Spanish file reads no subjunctive 'termine'; the French reads it as a verb out of a"
            " command's place (weak), which supposes nothing, so the completion is grounded (row C12)",
        ),
    ),
    pytest.param("borra gym, ¿debería terminar yoga también?", C("Yoga"), id="es-advice"),
    pytest.param("supprime gym, je vais peut-être finir yoga demain", C("Yoga"), id="fr-peut-etre"),
    pytest.param("lösch Gym, vielleicht mache ich Yoga morgen fertig", C("Yoga"), id="de-vielleicht"),
    pytest.param("cancella gym, forse finisco yoga domani", C("Yoga"), id="it-forse"),
    pytest.param("verwijder gym, misschien maak ik yoga morgen af", C("Yoga"), id="nl-misschien"),
    pytest.param("ta bort gym, jag kanske gör klart yoga imorgon", C("Yoga"), id="sv-kanske"),
    pytest.param(
        "apaga gym, talvez eu termine yoga amanhã",
        C("Yoga"),
        id="pt-talvez",
        marks=pytest.mark.xfail(strict=True, reason="as es-quizas: no subjunctive 'termine' in the Portuguese file"),
    ),
    pytest.param("gym delete kar do, shayad yoga kal complete karun", C("Yoga"), id="ur-shayad"),
    pytest.param("add milk, what if I delete taxes?", D("Taxes"), id="en-what-if-delete"),
    pytest.param("add milk, if taxes is done it can go", D("Taxes"), id="en-if-can-go"),
]


@pytest.mark.parametrize(("message", "extra"), SUPPOSED)
async def test_what_a_message_supposes_names_no_task(make_client: MakeClient, message: str, extra: Any) -> None:
    first = A("Milk") if message.startswith("add") else D("Gym")
    asked: dict[str, Any] = {"+": ("Milk",)} if message.startswith("add") else {"Gym": DEL}
    await run_case(make_client, [(message, [*first, *extra])], BASE, asked)


# What the user says happened, or a condition with no verb of its own: the model's changes run.
REPORTED: list[Any] = [
    pytest.param(
        "yoga is done, delete gym", [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}, id="en-is-done"
    ),
    pytest.param(
        "delete gym. I've finished yoga", [*D("Gym"), *C("Yoga")], {"Yoga: completed", "Gym: deleted"}, id="en-finished"
    ),
    pytest.param(
        "since yoga is done, delete gym", [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}, id="en-since"
    ),
    pytest.param(
        "now that yoga is done, delete gym",
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
        id="en-now-that",
    ),
    pytest.param(
        "ya terminé yoga, borra gym", [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}, id="es-termine"
    ),
    pytest.param(
        "j'ai fini yoga, supprime gym",
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
        id="fr-fini",
        marks=pytest.mark.xfail(strict=True, reason="older: 'j'ai' governs the command after it, both are asked"),
    ),
    pytest.param(
        "supprime gym, j'ai fini yoga", [*D("Gym"), *C("Yoga")], {"Yoga: completed", "Gym: deleted"}, id="fr-fini-after"
    ),
    pytest.param(
        "cancella gym, ho finito yoga", [*D("Gym"), *C("Yoga")], {"Yoga: completed", "Gym: deleted"}, id="it-finito"
    ),
    pytest.param(
        "borra gym, acabo de terminar yoga", [*D("Gym"), *C("Yoga")], {"Yoga: completed", "Gym: deleted"}, id="es-acabo"
    ),
    pytest.param(
        "gym delete kar do, maine yoga complete kar liya",
        [*D("Gym"), *C("Yoga")],
        {"Yoga: completed", "Gym: deleted"},
        id="ur-maine",
    ),
    pytest.param(
        "yoga är klar, ta bort gym", [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}, id="sv-klar"
    ),
    pytest.param(
        "yoga ist erledigt, lösch Gym", [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}, id="de-erledigt"
    ),
    pytest.param("if you can, delete gym", D("Gym"), {"Gym: deleted"}, id="en-if-you-can"),
    pytest.param("when you get a chance, mark yoga done", C("Yoga"), {"Yoga: completed"}, id="en-when-chance"),
    pytest.param("once you're done, mark yoga complete", C("Yoga"), {"Yoga: completed"}, id="en-once-youre-done"),
    pytest.param("si tu peux, supprime gym", D("Gym"), {"Gym: deleted"}, id="fr-si-tu-peux"),
    pytest.param("wenn du kannst, lösch Gym", D("Gym"), {"Gym: deleted"}, id="de-wenn-du-kannst"),
    pytest.param("om du kan, ta bort gym", D("Gym"), {"Gym: deleted"}, id="sv-om-du-kan"),
    pytest.param("se puoi, cancella gym", D("Gym"), {"Gym: deleted"}, id="it-se-puoi"),
    pytest.param(
        "complete Once a week plants", C("Once a week plants"), {"Once a week plants: completed"}, id="title-once"
    ),
]


@pytest.mark.parametrize(("message", "calls", "want"), REPORTED)
async def test_what_was_said_to_have_happened_runs(
    make_client: MakeClient, message: str, calls: Any, want: set[str]
) -> None:
    titles = (*BASE, "Once a week plants")
    asked = {t.split(": ")[0]: (DEL if t.endswith("deleted") else COM) for t in want}
    await run_case(make_client, [(message, calls)], titles, asked, want)
