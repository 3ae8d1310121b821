"""A delete or completion the message does not ask for, beside a command it does, is asked about.

"if yoga is done, delete gym", "delete gym, I might finish yoga tomorrow", "wenn Yoga erledigt ist,
lösch Gym": the words beside the delete are a condition, a plan or a remark, and name Yoga. A model
that also completes Yoga made a change nobody asked for; until 2026-12-07 it ran (row C12 held it by
the words no other action took). It is asked about now (row C22), as a completion on a message that
asks for nothing is (C13); the command the message does ask for is unaffected, and a completion the
message asks for in words the reader reads runs as before. Harness: tests/support/review2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import BASE, COM, DEL, A, C, D, run_case

# The model completes (or deletes) a task the message names only in a condition, a plan or a remark,
# beside the command it does ask for.
BESIDE: list[Any] = [
    pytest.param("if yoga is done, delete gym", C("Yoga"), id="en-if"),
    pytest.param("once yoga is done, delete gym", C("Yoga"), id="en-once"),
    pytest.param("delete gym, I might finish yoga tomorrow", C("Yoga"), id="en-might"),
    pytest.param("add milk, I'll deal with taxes later", [*A("Milk"), *D("Taxes")], id="en-later-delete"),
    pytest.param("delete gym. yoga was fun today", C("Yoga"), id="en-remark"),
    pytest.param("si yoga est fait, supprime gym", C("Yoga"), id="fr-si"),
    pytest.param("wenn Yoga erledigt ist, lösch Gym", C("Yoga"), id="de-wenn"),
    pytest.param("lösch Gym, Yoga mach ich vielleicht morgen", C("Yoga"), id="de-vielleicht"),
    pytest.param("se yoga è fatto, cancella gym", C("Yoga"), id="it-se"),
    pytest.param("si yoga está hecho, borra gym", C("Yoga"), id="es-si"),
    pytest.param("borra gym, el yoga lo termino yo luego", C("Yoga"), id="es-yo-luego"),
    pytest.param("als yoga klaar is, verwijder gym", C("Yoga"), id="nl-als"),
    pytest.param("om yoga är klar, ta bort gym", C("Yoga"), id="sv-om"),
    pytest.param("se o yoga estiver feito, apaga gym", C("Yoga"), id="pt-se"),
    pytest.param("agar yoga ho gaya hai to gym delete kar do", C("Yoga"), id="ur-agar"),
]


@pytest.mark.parametrize(("message", "extra"), BESIDE)
async def test_a_change_only_words_beside_a_command_name_is_not_made(
    make_client: MakeClient, message: str, extra: Any
) -> None:
    # The model makes its extra change alone (the command it was asked for aside): nothing may change.
    await run_case(make_client, [(message, extra)], BASE, {"Gym": DEL, "+": ("Milk",)})


# The message asks for both changes in words the reader reads: both run, at once. An add coordinated
# with a condition is its reminder: it runs too.
BOTH: list[Any] = [
    pytest.param("if yoga is done, add stretching", A("Stretching"), {"+Stretching"}),
    pytest.param("once yoga is done, add stretching and call mom", A("Stretching"), {"+Stretching"}),
    pytest.param("si yoga est fait, ajoute étirements", A("Étirements"), {"+Étirements"}),
    pytest.param("om yoga är klar, lägg till stretching", A("Stretching"), {"+Stretching"}),
    pytest.param("delete gym and mark yoga as done", [*D("Gym"), *C("Yoga")], {"Gym: deleted", "Yoga: completed"}),
    pytest.param("add milk and delete taxes", [*A("Milk"), *D("Taxes")], {"+Milk", "Taxes: deleted"}),
    pytest.param("lösch Gym und hak Yoga ab", [*D("Gym"), *C("Yoga")], {"Gym: deleted", "Yoga: completed"}),
    pytest.param("borra gym y marca yoga como hecha", [*D("Gym"), *C("Yoga")], {"Gym: deleted", "Yoga: completed"}),
    pytest.param("ajoute du lait et supprime taxes", [*A("Lait"), *D("Taxes")], {"+Lait", "Taxes: deleted"}),
]


@pytest.mark.parametrize(("message", "calls", "want"), BOTH)
async def test_changes_the_message_asks_for_run(make_client: MakeClient, message: str, calls: Any, want: Any) -> None:
    verbs = {"deleted": DEL, "completed": COM}
    asked: dict[str, Any] = {e.split(": ")[0]: verbs[e.split(": ")[1]] for e in want if not e.startswith("+")}
    asked["+"] = tuple(e[1:] for e in want if e.startswith("+"))
    await run_case(make_client, [(message, calls)], BASE, asked, want)


@pytest.mark.parametrize(
    ("message", "yes", "want"),
    [
        # the whole message is a condition: the model's completion is asked about, its yes completes
        ("if yoga is done, delete gym", "yes", {"Yoga: completed"}),
        # the delete is read (and forced on the model, which left it out); the completion beside it is asked
        ("wenn Yoga erledigt ist, lösch Gym", "ja", {"Yoga: completed", "Gym: deleted"}),
    ],
)
async def test_the_question_about_it_can_be_answered(
    make_client: MakeClient, message: str, yes: str, want: set[str]
) -> None:
    await run_case(make_client, [(message, C("Yoga")), (yes, "Ok.")], BASE, {"Yoga": COM, "Gym": DEL}, want)
