"""A yes said with the change it answers, on a pointer ("yes, delete it", "sí, bórralo", "ja, ta bort
den"), answers the backend's own yes/no question: the asked calls run, once, with no model call.

Before (2026-12-07) it was a new message whose delete of "it" was the backend's pick and asked
again, round and round (tests/api/test_review3.py, kind YES_LOOP). A yes said so in 2026-12 ran on
"delete gym" over two tasks, on 'not yet, delete it', 'bórralo luego' and 'delete it?' and was
withdrawn (55be592); what must still not run is listed below: the yes must head the message and be
all its words but the change, the change must be of the asked tools and name no task of its own, and
nothing may say no, keep, later or ask. Written before the change; harness: tests/support/review2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import BASE, COM, DEL, C, D, run_case

# A message the backend asks about (row C13: it reads no command), the model deleting Gym.
ASKED = "gym should go"

RUN = [
    ("en-delete-it", "yes, delete it"),
    ("en-yes-please", "yes please, remove it"),
    ("en-sure", "sure, go ahead and delete it"),
    ("es-borralo", "sí, bórralo"),
    ("es-eliminala", "sí, elimínala"),
    ("de-loesch-es", "ja, lösch es"),
    ("de-loeschen", "ja bitte, löschen"),
    ("fr-supprime-le", "oui, supprime-le"),
    ("it-cancellalo", "sì, cancellalo"),
    ("pt-apaga", "sim, apaga"),
    ("nl-verwijder-het", "ja, verwijder het"),  # not "… maar": a word of instead (`order`), as in "ja, maar"
    ("sv-ta-bort-den", "ja, ta bort den"),
]


@pytest.mark.parametrize("answer", [m for _, m in RUN], ids=[i for i, _ in RUN])
async def test_a_yes_said_with_the_change_runs_it(make_client: MakeClient, answer: str) -> None:
    turns = [(ASKED, D("Gym")), (answer, D("Gym"))]
    await run_case(make_client, turns, BASE, {"Gym": DEL}, {"Gym: deleted"})


@pytest.mark.parametrize("answer", ["yes, mark it as done", "ja, hak es ab"], ids=["en", "de"])
async def test_a_completion_said_again_runs_it(make_client: MakeClient, answer: str) -> None:
    turns = [("yoga is finished I think", C("Yoga")), (answer, C("Yoga"))]
    await run_case(make_client, turns, BASE, {"Yoga": COM}, {"Yoga: completed"})


# What is no yes to the question: the model's delete of Gym after it is the model's, as before
# (asked again, or run where the user's words name Gym), never the stored call run unasked.
NOT: list[Any] = [
    pytest.param("not yet, delete it", id="en-not-yet"),
    pytest.param("yes, delete it later", id="en-later"),
    pytest.param("yes, delete it tomorrow", id="en-tomorrow"),
    pytest.param("yes, delete it?", id="en-question"),
    pytest.param("yes, delete it？", id="fullwidth-question"),
    pytest.param("yes, delete it\u2047", id="double-question"),
    pytest.param("yes, delete it\ufe56", id="small-question"),
    pytest.param("yes, delete it\u037e", id="greek-question"),
    pytest.param("ja, danach lösch es", id="de-danach"),
    pytest.param("bórralo luego", id="es-luego"),
    pytest.param("sí, bórralo mañana", id="es-manana"),
    pytest.param("yes, complete it", id="en-other-tool"),
    pytest.param("yes, but don't delete it", id="en-no"),
    pytest.param("yes, delete it, keep taxes", id="en-keep"),
    pytest.param("no, delete it", id="en-no-then"),
    pytest.param("hmm, delete it", id="en-no-yes"),
]


@pytest.mark.parametrize("answer", NOT)
async def test_no_other_message_runs_the_asked_change(make_client: MakeClient, answer: str) -> None:
    # The model completes Yoga on the second turn: nothing the question asked may run on its words.
    turns = [(ASKED, D("Gym")), (answer, C("Yoga"))]
    await run_case(make_client, turns, BASE, {})


async def test_a_yes_said_with_more_is_a_new_message(make_client: MakeClient) -> None:
    # "yes, delete it and yoga" names a task of its own: a new message, whose model's pick is its own
    # (here completing Taxes, which nothing asks for).
    turns = [(ASKED, D("Gym")), ("yes, delete it and yoga", C("Taxes"))]
    await run_case(make_client, turns, BASE, {"Gym": DEL, "Yoga": DEL})
