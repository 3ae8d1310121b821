"""A colon after an add's verb opens a list of titles: a clause of it whose verb stands where no
command does is a title ("list mein daal do: sabzi, purana sofa hatana", "add these: milk, deleting
old photos"), so a pasted list is read whole and a title the model leaves out is said as not done.
A command in it stays a command ("add these: milk, eggs, and delete gym"): the words cannot tell it
from a title, and read as one (tried, and withdrawn after review) the user's command was refused.
Nor does a colon of a time open a list ("add dentist at 10:30, ...")."""

from __future__ import annotations

import pytest

from backend.app.calls.tools import Tool
from backend.app.language.reading.intent import classify


@pytest.mark.parametrize(
    ("message", "titles"),
    [
        ("list mein daal do: sabzi, purana sofa hatana, form complete karna, dawai lani", 4),
        ("ye sab add kar do: atta, purani files mitana, nani ko phone karna", 3),
        ("add these: milk, deleting old photos, calling mom, finishing the tax return", 4),
        ("note down: groceries, removing the old shelf, completing the passport form", 3),
    ],
)
def test_a_clause_after_an_adds_colon_with_its_verb_out_of_a_commands_place_is_a_title(
    message: str, titles: int
) -> None:
    found = classify(message)
    assert found.kind == "command", found
    assert [a.tools[0] for a in found.actions] == [Tool.ADD] * titles, found.actions


@pytest.mark.parametrize(
    ("message", "tools"),
    [
        ("add these: milk, eggs, and delete gym", [Tool.ADD, Tool.ADD, Tool.DELETE]),
        ("füge hinzu: Milch, Eier und lösche Gym", [Tool.ADD, Tool.ADD, Tool.DELETE]),
        ("agrega: leche, huevos y borra gym", [Tool.ADD, Tool.ADD, Tool.DELETE]),
        ("add these: milk, eggs, then mark yoga done", [Tool.ADD, Tool.ADD, Tool.COMPLETE]),
        ("add these: milk, eggs, and move gym to friday", [Tool.ADD, Tool.ADD, Tool.UPDATE]),
        ("time to clean up: delete gym, remove yoga", [Tool.DELETE, Tool.DELETE]),
        ("delete these: gym, mark yoga done", [Tool.DELETE, Tool.COMPLETE]),
        ("add these: milk, eggs. delete gym", [Tool.ADD, Tool.ADD, Tool.DELETE]),
    ],
)
def test_a_command_in_the_list_stays_a_command(message: str, tools: list[Tool]) -> None:
    assert [a.tools[0] for a in classify(message).actions] == tools


@pytest.mark.parametrize(
    "message",
    [
        "add dentist at 10:30, deleting old photos",  # a time's colon opens no list
        "add these: milk, eggs, I deleted gym yesterday",  # a report is no title
        "agrega: leche, huevos, ya borré gym",
        "add these: milk, eggs, don't add bread",  # nor a no
    ],
)
def test_nothing_else_after_the_colon_is_a_title(message: str) -> None:
    found = classify(message)
    assert all(a.tools == (Tool.ADD,) for a in found.actions)
    assert not any(w in a.text for a in found.actions for w in ("deleting", "deleted", "borre", "bread")), found
