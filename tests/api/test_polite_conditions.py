"""A request said as a condition on the assistant's ability or on what is possible ("if you could
delete gym", "si possible supprime gym", "om det går, ta bort gym", "agar ho sake to gym delete kar
do") is a request: the change runs, as after "could you". Before (2026-12-07), without a comma
after the condition, it was read as a report and the change was asked about first.

What stays a condition: one on a task or the world ("if it rains delete gym", "if yoga is done
delete gym"), and a no inside ("if you can't delete gym, …"). Written before the change; harness:
tests/support/review2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import BASE, DEL, C, D, run_case

RUN = [
    ("en-if-you-could", "if you could delete gym that would be great"),
    ("en-if-you-can", "if you can delete gym please"),
    ("en-if-possible", "if possible remove gym"),
    ("en-if-you-dont-mind", "if you don't mind delete gym"),
    ("en-if-you-would", "if you would delete gym for me"),
    ("es-si-puedes", "si puedes borra gym"),
    ("es-si-es-posible", "si es posible elimina gym"),
    ("de-wenn-du-kannst", "wenn du kannst lösch Gym"),
    ("de-wenn-moeglich", "wenn möglich lösch Gym bitte"),
    ("de-falls-moeglich", "falls möglich Gym löschen"),
    ("fr-si-vous-pouvez", "si vous pouvez supprimez gym"),
    ("fr-si-possible", "si possible efface gym"),
    ("it-se-puoi", "se puoi cancella gym"),
    ("it-se-possibile", "se possibile elimina gym"),
    ("pt-se-puder", "se puder apaga gym"),
    ("pt-se-possivel", "se possível exclua gym"),
    ("nl-als-het-kan", "als het kan verwijder gym"),
    ("nl-indien-mogelijk", "indien mogelijk verwijder gym"),
    ("sv-om-det-gar", "om det går ta bort gym"),
    ("sv-om-du-kan", "om du kan ta bort gym tack"),
    ("ur-agar-mumkin", "agar mumkin ho to gym delete kar do"),
]


@pytest.mark.parametrize("message", [m for _, m in RUN], ids=[i for i, _ in RUN])
async def test_a_request_said_as_a_courtesy_runs(make_client: MakeClient, message: str) -> None:
    await run_case(make_client, [(message, D("Gym"))], BASE, {"Gym": DEL}, {"Gym: deleted"})


# A condition on a task or the world stays one: the model's change of the condition's task is never
# made, the command's is asked about or run as before (never a change nobody asked for).
HELD: list[Any] = [
    pytest.param("if yoga is done delete gym", [*D("Gym"), *C("Yoga")], {"Gym": DEL}, id="en-task"),
    pytest.param("if you can't delete gym, complete yoga", [*C("Yoga"), *D("Gym")], {"Yoga": "complete"}, id="en-cant"),
    pytest.param(
        "si no puedes borrar gym, completa yoga", [*C("Yoga"), *D("Gym")], {"Yoga": "complete"}, id="es-no-puedes"
    ),
    pytest.param(
        "wenn du Gym nicht löschen kannst, hak Yoga ab", [*C("Yoga"), *D("Gym")], {"Yoga": "complete"}, id="de-nicht"
    ),
]


@pytest.mark.parametrize(("message", "calls", "asked"), HELD)
async def test_a_condition_is_no_courtesy(make_client: MakeClient, message: str, calls: Any, asked: Any) -> None:
    await run_case(make_client, [(message, calls)], BASE, asked)
