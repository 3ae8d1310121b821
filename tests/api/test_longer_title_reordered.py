"""Words that hold every word of a longer title, in another order ("delete 2024 taxes" beside tasks
*Taxes* and *Taxes 2024*, "delete the Q3 report" beside *Report* and *Report Q3*), name that longer
task, not the shorter one inside it (row T20), as the title said in order does.

Before (2026-12-07), with a model deleting both, both were deleted. (Each list holds a third task:
deleting every task of a list is a change of the whole list, asked about first, row T16.) Naming the shorter task apart
("delete taxes and 2024 taxes") still changes both. Written before the change; harness:
tests/support/review2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import COM, DEL, C, D, run_case

CASES: list[Any] = [
    pytest.param("delete 2024 taxes", ("Taxes", "Taxes 2024", "Gym"), "Taxes 2024", "Taxes", DEL, id="en-year"),
    pytest.param("delete the Q3 report", ("Report", "Report Q3", "Gym"), "Report Q3", "Report", DEL, id="en-q3"),
    pytest.param(
        "remove sunday call mom",
        ("Call mom", "Call mom sunday", "Gym"),
        "Call mom sunday",
        "Call mom",
        DEL,
        id="en-day",
    ),
    pytest.param(
        "mark 2024 taxes as done", ("Taxes", "Taxes 2024", "Gym"), "Taxes 2024", "Taxes", COM, id="en-complete"
    ),
    pytest.param(
        "borra 2024 impuestos", ("Impuestos", "Impuestos 2024", "Gym"), "Impuestos 2024", "Impuestos", DEL, id="es"
    ),
    pytest.param("lösch den Q3 Bericht", ("Bericht", "Bericht Q3", "Gym"), "Bericht Q3", "Bericht", DEL, id="de"),
    pytest.param("supprime 2024 impôts", ("Impôts", "Impôts 2024", "Gym"), "Impôts 2024", "Impôts", DEL, id="fr"),
    pytest.param(
        "verwijder 2024 belasting", ("Belasting", "Belasting 2024", "Gym"), "Belasting 2024", "Belasting", DEL, id="nl"
    ),
    pytest.param("ta bort 2024 skatt", ("Skatt", "Skatt 2024", "Gym"), "Skatt 2024", "Skatt", DEL, id="sv"),
]


@pytest.mark.parametrize(("message", "titles", "longer", "shorter", "how"), CASES)
async def test_a_longer_title_said_in_another_order_wins(
    make_client: MakeClient, message: str, titles: Any, longer: str, shorter: str, how: str
) -> None:
    calls = (D if how == DEL else C)(longer, shorter)
    done = f"{longer}: {'deleted' if how == DEL else 'completed'}"
    await run_case(make_client, [(message, calls)], titles, {longer: how}, {done})


APART: list[Any] = [
    pytest.param("delete taxes and 2024 taxes", ("Taxes", "Taxes 2024", "Gym"), id="en-both"),
    pytest.param("delete taxes, and also 2024 taxes", ("Taxes", "Taxes 2024", "Gym"), id="en-both-comma"),
]


@pytest.mark.parametrize(("message", "titles"), APART)
async def test_the_shorter_named_apart_changes_too(make_client: MakeClient, message: str, titles: Any) -> None:
    want = {"Taxes: deleted", "Taxes 2024: deleted"}
    await run_case(make_client, [(message, D("Taxes 2024", "Taxes"))], titles, {"Taxes": DEL, "Taxes 2024": DEL}, want)
