"""A keep closed by a word that says no more of what it keeps ("leave taxes alone", "laat taxes
staan", "låt taxes vara") keeps that task, and the command beside it runs (row T19); so does a keep of
a title that differs from the command's by its number ("delete taxes 2023, keep taxes 2024").

Before (2026-12-07), the Dutch and Swedish forms took the delete back ("Nothing was changed."), the
numbered one too, and the others asked a question nobody needed. What the closing word cannot do:
make a keep of words that are no one task's title ("leave taxes open for now" is still asked
about), or let the kept task change. Harness: tests/support/review2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import BASE, DEL, D, run_case

RUN = [
    ("en-alone", "delete gym, leave taxes alone"),
    ("en-be", "remove gym but let taxes be"),
    ("en-for-now", "delete gym, keep taxes for now"),
    ("en-as-is", "delete gym and leave taxes as is"),
    ("nl-staan", "verwijder gym, laat taxes staan"),
    ("nl-met-rust", "verwijder gym, maar laat taxes met rust"),
    ("nl-voorlopig", "verwijder gym, hou taxes voorlopig"),
    ("sv-vara", "ta bort gym, låt taxes vara"),
    ("sv-sta-kvar", "ta bort gym och låt taxes stå kvar"),
    ("sv-ha-kvar", "ta bort gym, ha taxes kvar"),
    ("de-stehen", "lösch Gym, lass Taxes stehen"),
    ("de-in-ruhe", "lösch Gym, aber lass Taxes in Ruhe"),
    ("de-vorerst", "lösch Gym, behalte Taxes vorerst"),
    ("fr-tranquille", "supprime gym, laisse taxes tranquille"),
    ("fr-pour-l-instant", "supprime gym, garde taxes pour l'instant"),
    ("it-in-pace", "cancella gym, lascia taxes in pace"),
    ("it-per-ora", "cancella gym, tieni taxes per ora"),
]


@pytest.mark.parametrize("message", [m for _, m in RUN], ids=[i for i, _ in RUN])
async def test_a_closed_keep_beside_a_delete_lets_it_run(make_client: MakeClient, message: str) -> None:
    await run_case(make_client, [(message, D("Gym"))], BASE, {"Gym": DEL}, {"Gym: deleted"})


@pytest.mark.parametrize("message", [m for _, m in RUN], ids=[i for i, _ in RUN])
async def test_the_kept_task_never_changes(make_client: MakeClient, message: str) -> None:
    await run_case(make_client, [(message, D("Gym", "Taxes"))], BASE, {"Gym": DEL})


NUMBERED: list[Any] = [
    pytest.param("delete taxes 2023, keep taxes 2024", "Taxes 2023", id="en-2023"),
    pytest.param("lösch Steuer 2023, behalte Steuer 2024", "Steuer 2023", id="de-2023"),
    pytest.param("supprime facture 3, garde facture 4", "Facture 3", id="fr-facture"),
]


@pytest.mark.parametrize(("message", "gone"), NUMBERED)
async def test_a_keep_of_another_number_takes_nothing_back(make_client: MakeClient, message: str, gone: str) -> None:
    kept = gone[:-1] + ("4" if gone.endswith("3") else "")
    titles = (gone, kept, "Gym")
    await run_case(make_client, [(message, D(gone))], titles, {gone: DEL}, {f"{gone}: deleted"})
    await run_case(make_client, [(message, D(gone, kept))], titles, {gone: DEL})


ASKED: list[Any] = [
    # the closing word leaves words that are no one task's title: asked, as before
    pytest.param("delete gym, leave taxes open for now", BASE, id="en-open"),
    # the same title kept and deleted: the keep takes the delete back
    pytest.param("delete gym, actually leave gym alone", BASE, id="en-same-task"),
    pytest.param("verwijder gym, laat gym toch staan", BASE, id="nl-same-task"),
    # what the keep keeps points into the conversation
    pytest.param("ta bort gym, låt den vara", BASE, id="sv-pointer"),
]


@pytest.mark.parametrize(("message", "titles"), ASKED)
async def test_no_closing_word_makes_a_keep_of_more(make_client: MakeClient, message: str, titles: Any) -> None:
    asked = {"Gym": DEL} if "taxes" in message else {}
    await run_case(make_client, [(message, D("Gym"))], titles, asked)


LONGER: list[Any] = [
    pytest.param("delete gym, keep gym class", ("Gym", "Gym class", "Yoga"), "Gym", id="en-gym-class"),
    pytest.param("delete taxes, keep taxes 2024", ("Taxes", "Taxes 2024", "Gym"), "Taxes", id="en-taxes-2024"),
    pytest.param("delete gym, leave gym class alone", ("Gym", "Gym class", "Yoga"), "Gym", id="en-alone"),
    pytest.param("lösch Gym, lass Gym Tasche stehen", ("Gym", "Gym Tasche", "Yoga"), "Gym", id="de-tasche"),
    pytest.param("verwijder gym, hou gym tas", ("Gym", "Gym tas", "Yoga"), "Gym", id="nl-tas"),
    pytest.param("supprime yoga, garde cours de yoga", ("Yoga", "Cours de yoga", "Gym"), "Yoga", id="fr-cours"),
]


@pytest.mark.parametrize(("message", "titles", "gone"), LONGER)
async def test_a_keep_of_a_longer_title_takes_back_no_command_of_the_shorter(
    make_client: MakeClient, message: str, titles: tuple[str, ...], gone: str
) -> None:
    # Before (2026-12-07) the keep took the delete back: "Nothing was changed."
    await run_case(make_client, [(message, D(gone))], titles, {gone: DEL}, {f"{gone}: deleted"})
    # A model that deletes the kept task too changes only what the user asked.
    await run_case(make_client, [(message, D(gone, titles[1]))], titles, {gone: DEL})


@pytest.mark.parametrize(
    ("message", "titles"),
    [
        ("delete gym, actually keep gym", ("Gym", "Gym class")),
        ("delete gym, keep gym class", ("Gym", "Yoga")),  # no such task: its keep is asked about
    ],
)
async def test_a_keep_of_the_same_words_still_takes_the_command_back(
    make_client: MakeClient, message: str, titles: tuple[str, ...]
) -> None:
    asked = {"Gym": DEL} if "class" in message else {}
    await run_case(make_client, [(message, D("Gym"))], titles, asked)
