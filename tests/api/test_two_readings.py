"""A verb of two tools ("tacha gym": crossed off as done, or struck out as gone) never deletes unasked.

The reader reads such a verb as a completion and a delete alike (a word file's
`verbs."complete_task|delete_task"`). A model that completes the task does what the user may well
mean, at once; one that deletes it chose the reading that takes the task away: the delete is asked
about (row C21), and a yes runs it. Where another command of the message asks for a delete in a verb
of one tool, that command's delete is not held back.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import BASE, COM, DEL, C, D, asked_for, run_case

# (language, the message, the user's yes) in every language with such a verb
SAID = [
    ("en", "strike off gym", "yes"),
    ("en", "please strike gym off the list", "yes please"),
    ("en", "strike through gym", "yes"),
    ("de", "streich Gym durch", "ja"),
    ("de", "kannst du Gym durchstreichen?", "ja bitte"),
    ("es", "tacha gym", "sí"),
    ("es", "tachar gym por favor", "sí, por favor"),
    ("fr", "raye gym", "oui"),
    ("fr", "tu peux rayer gym", "oui"),
    ("it", "depenna gym", "sì"),
    ("it", "depennare gym, grazie", "sì grazie"),
    ("nl", "streep gym door", "ja"),
    ("nl", "gym doorstrepen", "ja hoor"),
    ("pt", "risca gym", "sim"),
    ("pt", "pode riscar gym", "sim, pode"),
    ("sv", "stryk över gym", "ja"),
    ("sv", "kan du stryka över gym", "ja tack"),
]


@pytest.mark.parametrize(("lang", "message", "yes"), SAID, ids=[f"{s[0]}-{s[1]}" for s in SAID])
async def test_a_delete_on_a_verb_of_two_tools_is_asked(
    make_client: MakeClient, lang: str, message: str, yes: str
) -> None:
    # The harness fails on any change the user did not ask for: here, none.
    await run_case(make_client, [(message, D("Gym"))], BASE, {})


@pytest.mark.parametrize(("lang", "message", "yes"), SAID, ids=[f"{s[0]}-{s[1]}" for s in SAID])
async def test_the_yes_to_that_question_deletes(make_client: MakeClient, lang: str, message: str, yes: str) -> None:
    await run_case(make_client, [(message, D("Gym")), (yes, "Ok.")], BASE, {"Gym": DEL}, {"Gym: deleted"})


@pytest.mark.parametrize(("lang", "message", "yes"), SAID, ids=[f"{s[0]}-{s[1]}" for s in SAID])
async def test_a_completion_on_a_verb_of_two_tools_runs(
    make_client: MakeClient, lang: str, message: str, yes: str
) -> None:
    await run_case(make_client, [(message, C("Gym"))], BASE, {"Gym": COM}, {"Gym: completed"})


CONTROLS: list[Any] = [
    pytest.param("delete gym", D("Gym"), {"Gym: deleted"}, id="en-plain-delete"),
    pytest.param("borra gym", D("Gym"), {"Gym: deleted"}, id="es-plain-delete"),
    pytest.param("lösch Gym", D("Gym"), {"Gym: deleted"}, id="de-plain-delete"),
    pytest.param(
        "tacha gym y borra taxes", [*C("Gym"), *D("Taxes")], {"Gym: completed", "Taxes: deleted"}, id="es-both"
    ),
    pytest.param(
        "raye gym et supprime taxes", [*C("Gym"), *D("Taxes")], {"Gym: completed", "Taxes: deleted"}, id="fr-both"
    ),
]


@pytest.mark.parametrize(("message", "calls", "want"), CONTROLS)
async def test_a_delete_in_a_verb_of_one_tool_still_runs(
    make_client: MakeClient, message: str, calls: Any, want: set[str]
) -> None:
    await run_case(make_client, [(message, calls)], BASE, asked_for(want), want)


# Beside a delete in a verb of one tool, the two-way verb's task is not that delete's: asked, never run.
MIXED: list[Any] = [
    pytest.param("delete gym, strike off taxes", id="en"),
    pytest.param("strike off taxes and remove gym", id="en-after"),
    pytest.param("lösch Gym und streich Taxes durch", id="de"),
    pytest.param("borra gym y tacha taxes", id="es"),
    pytest.param("supprime gym et raye taxes", id="fr"),
    pytest.param("verwijder gym en streep taxes door", id="nl"),
]


@pytest.mark.parametrize("message", MIXED)
async def test_a_two_way_verb_beside_a_plain_delete_deletes_nothing_unasked(
    make_client: MakeClient, message: str
) -> None:
    await run_case(make_client, [(message, D("Gym", "Taxes"))], BASE, {"Gym": DEL}, None)


@pytest.mark.parametrize("message", MIXED)
async def test_beside_it_the_plain_delete_runs_and_the_completion_too(make_client: MakeClient, message: str) -> None:
    want = {"Gym: deleted", "Taxes: completed"}
    await run_case(make_client, [(message, [*D("Gym"), *C("Taxes")])], BASE, {"Gym": DEL, "Taxes": COM}, want)
