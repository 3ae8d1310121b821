"""A yes to a model's question that points ("Do you want me to mark it as done?"), through HTTP with
a real database and a scripted model (issue 48: the conversation grounds a yes).

The question's words name no task: what "it" is, is the one task, by title, that the model's other
sentences and the user's request before it name together, without their nos. Where they name
several tasks or none, "it" is nothing the backend can know, and the yes changes nothing ("which
task do you mean?"). The change of that task is asked about once more, in the catalog's words
naming it: the backend chose which task "it" is (row T9). A model that answers a yes
to a plain offer ("Should I delete “Gym”?") with a claim and no call has the change forced on it
(row A12); any other question is no offer.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, statuses
from support.asking import sweep, yes_to
from support.fake_llm import completion

THREE = ("Gym", "Taxes", "Call mom")
CLAIM = "Done! I took care of it."  # a model that only claims, and makes its calls when forced


async def _after_yes(
    make_client: MakeClient, request: str, question: str, yes: str, step: Any, claims: bool = False
) -> Any:
    """The request over THREE, the model's question, the yes, and the model's `step` (tool, titles)."""
    tool, titles = step
    then = sweep(tool, tuple(titles))
    return await yes_to(make_client, THREE, request, question, then, yes=yes, claims=CLAIM if claims else None)


def _expected(tool: str, changed: set[str]) -> dict[str, str]:
    after = "completed" if tool == "complete_task" else None
    expected = {t: after if t in changed else "pending" for t in THREE}
    return {t: s for t, s in expected.items() if s is not None}


# (request, the model's question, the yes, the model's step after it, the tasks "it" is)
POINTING = [
    ("gym is done", "Do you want me to mark it as done?", "yes", ("complete_task", ["Gym"]), {"Gym"}),
    ("I'm done with gym", "Shall I delete it?", "sure", ("delete_task", ["Gym"]), {"Gym"}),
    (
        "finally finished my taxes!!",
        "Congrats! Want me to tick that one off?",
        "yep",
        ("complete_task", ["Taxes"]),
        {"Taxes"},
    ),
    # the model's sentences beside the question say it, without their nos
    ("clean up", "Taxes is past its date. Should I delete it?", "yes", ("delete_task", ["Gym", "Taxes"]), {"Taxes"}),
    (
        "clean up gym",
        "I won't delete Gym. Do you want me to mark it as done?",
        "yes please",
        ("complete_task", ["Gym"]),
        {"Gym"},
    ),
    (
        "don't delete gym, I finished taxes",
        "Okay, I won't delete Gym. Shall I mark it as done?",
        "yes",
        ("complete_task", ["Gym", "Taxes"]),
        {"Taxes"},
    ),
    ("Gym ist fertig", "Soll ich es als erledigt markieren?", "ja", ("complete_task", ["Gym"]), {"Gym"}),
    (
        "Call mom hab ich erledigt",
        "Super! Soll ich die abhaken?",
        "ja bitte",
        ("complete_task", ["Call mom"]),
        {"Call mom"},
    ),
    ("ya terminé gym", "¿Quieres que la marque como hecha?", "sí", ("complete_task", ["Gym"]), {"Gym"}),
    ("gym ya no me sirve", "¿Quieres que lo elimine?", "sí, por favor", ("delete_task", ["Gym"]), {"Gym"}),
    ("j'ai fini gym", "Voulez-vous que je la marque comme terminée ?", "oui", ("complete_task", ["Gym"]), {"Gym"}),
    ("ho finito gym", "Vuoi che la segni come fatta?", "sì", ("complete_task", ["Gym"]), {"Gym"}),
    ("terminei o gym", "Quer que eu a marque como feita?", "sim", ("complete_task", ["Gym"]), {"Gym"}),
    ("gym is klaar", "Zal ik hem afvinken?", "ja", ("complete_task", ["Gym"]), {"Gym"}),
    ("taxes är klart", "Ska jag bocka av den?", "ja", ("complete_task", ["Taxes"]), {"Taxes"}),
    ("gym ho gaya", "Kya main isay complete kar doon?", "haan", ("complete_task", ["Gym"]), {"Gym"}),
    # the request without its nos; a sentence beside the question naming nothing says nothing
    (
        "don't delete gym, taxes is done",
        "Got it, I won't delete anything. Shall I mark it as done?",
        "yes",
        ("complete_task", ["Taxes"]),
        {"Taxes"},
    ),
    ("call mom: done ✅", "Great! Shall I check that off?", "yes", ("complete_task", ["Call mom"]), {"Call mom"}),
    (
        "call mom fatto!",
        "Bene! Vuoi che lo segni come completato?",
        "sì",
        ("complete_task", ["Call mom"]),
        {"Call mom"},
    ),
    ("taxes heb ik gedaan", "Top! Zal ik het afvinken?", "ja graag", ("complete_task", ["Taxes"]), {"Taxes"}),
    ("ya no necesito taxes", "¿La borro?", "sí", ("delete_task", ["Taxes"]), {"Taxes"}),
    ("Taxes ist erledigt", "Soll ich das abhaken?", "ja", ("complete_task", ["Taxes"]), {"Taxes"}),
    # the model speaks of the user's list as "your list", "ta liste"
    (
        "I'm done with gym",
        "It's still there. Want me to take it off your list?",
        "yes",
        ("delete_task", ["Gym"]),
        {"Gym"},
    ),
    ("gym, j'en ai plus besoin", "Je la retire de ta liste ?", "oui", ("delete_task", ["Gym"]), {"Gym"}),
    (
        "gym, je n'en veux plus",
        "Voulez-vous que je le retire de votre liste ?",
        "oui",
        ("delete_task", ["Gym"]),
        {"Gym"},
    ),
    # "ihn": a task whose noun is masculine ("der Kurs")
    ("den Gym-Kurs brauche ich nicht mehr", "Soll ich ihn löschen?", "ja", ("delete_task", ["Gym"]), {"Gym"}),
    (
        "Taxes hab ich heute erledigt",
        "Super! Soll ich ihn abhaken?",
        "ja, gern",
        ("complete_task", ["Taxes"]),
        {"Taxes"},
    ),
]

# "it" is nothing the backend can know: the yes changes nothing
NOT_KNOWN = [
    ("gym stays, taxes can go", "Should I delete it?", "yes", ("delete_task", ["Gym", "Taxes"])),
    ("gym and taxes are done", "Do you want me to mark it as done?", "yes", ("complete_task", ["Gym", "Taxes"])),
    ("done!", "Should I mark it as done?", "yes", ("complete_task", ["Gym"])),
    (
        "all good today",
        "Great. Taxes and Call mom are still open. Want me to close it?",
        "yes",
        ("complete_task", ["Taxes"]),
    ),
    ("thanks", "Should I delete it?", "yes", ("delete_task", ["Gym"])),
    # "it" is Taxes: the model's delete of the request's Gym is not it
    ("clean up gym", "Taxes is past its date. Should I delete it?", "yes", ("delete_task", ["Gym"])),
    ("gym y taxes están hechas", "¿Quieres que la marque como hecha?", "sí", ("complete_task", ["Gym", "Taxes"])),
    # "it" is one task: the request's and the two beside the question are several
    (
        "gym is done",
        "Nice work! You still have Taxes and Call mom. Do you want me to mark it as done?",
        "yes",
        ("complete_task", ["Gym", "Taxes", "Call mom"]),
    ),
]


@pytest.mark.parametrize(("request_", "question", "yes", "step", "changed"), POINTING)
async def test_a_yes_to_a_question_that_points_changes_the_one_task_it_points_to(
    make_client: MakeClient, request_: str, question: str, yes: str, step: Any, changed: set[str]
) -> None:
    client, body = await _after_yes(make_client, request_, question, yes, step)

    # The backend chose which task "it" is: the change is asked about once more, naming it.
    assert await statuses(client) == dict.fromkeys(THREE, "pending"), body["assistant_message"]
    (title,) = changed
    assert body["confirmation"] is not None and title in body["assistant_message"], body["assistant_message"]
    body = (await chat(client, "yes", conversation_id=body["conversation_id"])).json()
    assert await statuses(client) == _expected(step[0], changed), body["assistant_message"]


@pytest.mark.parametrize("claims", [False, True], ids=["calls", "claims"])
@pytest.mark.parametrize(("request_", "question", "yes", "step"), NOT_KNOWN)
async def test_a_yes_to_a_question_that_points_at_nothing_known_changes_nothing(
    make_client: MakeClient, request_: str, question: str, yes: str, step: Any, claims: bool
) -> None:
    client, body = await _after_yes(make_client, request_, question, yes, step, claims)

    assert await statuses(client) == dict.fromkeys(THREE, "pending"), body["assistant_message"]
    assert "Done" not in body["assistant_message"]


async def test_a_question_about_the_others_never_changes_the_task_the_user_keeps(make_client: MakeClient) -> None:
    step = ("delete_task", ["Gym", "Taxes", "Call mom"])
    client, body = await _after_yes(make_client, "keep gym", "Should I delete the others?", "yes", step, False)

    assert (await statuses(client)).get("Gym") == "pending", body["assistant_message"]


# (request, the model's question, the yes, the model's step after it, the tasks that stay as they were)
NEVER = [
    # a no the reader does not read ("no borraré": a future) leaves Gym named beside the request's Taxes
    (
        "no borres gym, ya terminé taxes",
        "Vale, no borraré Gym. ¿Quieres que la marque como hecha?",
        "sí",
        ("complete_task", ["Gym", "Taxes"]),
        {"Gym"},
    ),
    (
        "taxes is done, leave gym",
        "Sure, Gym stays as it is. Shall I check it off?",
        "yes",
        ("complete_task", ["Gym"]),
        {"Gym"},
    ),
    # "it" is no task ("its date", "the tag"): a delete of the task is only asked about
    (
        "gym doesn't need a date anymore",
        "Gym's due date is Friday. Should I remove it?",
        "yes",
        ("delete_task", ["Gym"]),
        {"Gym"},
    ),
    ("fix gym", "Gym has the tag work. Do you want me to delete it?", "yes", ("delete_task", ["Gym"]), {"Gym"}),
    (
        "corrige gym",
        "La note de Gym dit 'lundi'. Voulez-vous que je la supprime ?",
        "oui",
        ("delete_task", ["Gym"]),
        {"Gym"},
    ),
    # a plural pronoun, the other tasks: never the request's task alone
    (
        "borra gym",
        "Taxes y Call mom también están vencidas. ¿Las borro?",
        "sí",
        ("delete_task", ["Taxes", "Call mom"]),
        {"Taxes", "Call mom"},
    ),
    (
        "supprime gym",
        "Taxes et Call mom aussi ? Je les supprime ?",
        "oui",
        ("delete_task", ["Taxes", "Call mom"]),
        {"Taxes", "Call mom"},
    ),
]


@pytest.mark.parametrize("claims", [False, True], ids=["calls", "claims"])
@pytest.mark.parametrize(("request_", "question", "yes", "step", "kept"), NEVER)
async def test_a_yes_never_changes_what_it_does_not_point_to(
    make_client: MakeClient, request_: str, question: str, yes: str, step: Any, kept: set[str], claims: bool
) -> None:
    client, body = await _after_yes(make_client, request_, question, yes, step, claims)

    assert {t: s for t, s in (await statuses(client)).items() if t in kept} == dict.fromkeys(kept, "pending"), body[
        "assistant_message"
    ]


# A plain offer of one change (a quoted title, nothing but the offer's words), a yes, and a model
# that only claims: the change is forced once (row A12). Any other question forces nothing.
OFFERS = [
    ("gym is done", "Should I mark “Gym” as done?", "yes", "complete_task"),
    ("delete gym", "Do you want me to delete “Gym”?", "yes please", "delete_task"),
    ("I'm done with gym", "Do you want me to delete “Gym”?", "yes please", "delete_task"),
    ("gym ya no va", "¿Quieres que elimine “Gym”?", "sí", "delete_task"),
    ("Gym ist fertig", "Soll ich „Gym“ als erledigt markieren?", "ja", "complete_task"),
    ("gym c'est fait", "Voulez-vous que je supprime « Gym » ?", "oui", "delete_task"),
]
NO_OFFERS = [
    "Should I remind you to delete “Gym” tomorrow?",
    "Do you want to keep “Gym” instead of deleting it?",
    "Should I delete “Gym”, or would you rather keep it?",
    "Should I ask you before I delete “Gym”?",
    "Do you want me to explain how to delete “Gym”?",
    "¿Quieres mantener “Gym” en vez de borrarla?",
]


# "model": the backend's lines come after the model's words ("…?\nNot done: “delete gym”."); the
# offer is read in the model's words the turn kept, never in the reply they stand in.
@pytest.mark.parametrize("mode", ["direct", "model"])
@pytest.mark.parametrize(("request_", "question", "yes", "tool"), OFFERS)
async def test_a_yes_to_a_plain_offer_answered_with_a_claim_makes_the_change(
    make_client: MakeClient, request_: str, question: str, yes: str, tool: str, mode: str
) -> None:
    then = sweep(tool, ("Gym",))
    client, body = await yes_to(make_client, THREE, request_, question, then, yes=yes, claims=CLAIM, response_mode=mode)

    assert await statuses(client) == _expected(tool, {"Gym"}), body["assistant_message"]
    rules = [d["rule"] for d in body["execution_metadata"]["guard"]["decisions"] if "rule" in d]
    assert rules[:2] == ["A12", "C3"], body["execution_metadata"]["guard"]


@pytest.mark.parametrize("question", NO_OFFERS)
async def test_a_yes_to_any_other_question_answered_with_a_claim_forces_nothing(
    make_client: MakeClient, question: str
) -> None:
    client, body = await _after_yes(make_client, "hmm, gym", question, "yes", ("delete_task", ["Gym"]), True)

    assert await statuses(client) == dict.fromkeys(THREE, "pending"), body["assistant_message"]
    assert "A12" not in [d.get("rule") for d in body["execution_metadata"]["guard"]["decisions"]]


async def test_a_plain_offer_is_forced_once(make_client: MakeClient) -> None:
    said = completion("Done!")  # a model that claims even when a tool is forced on it
    client, body = await yes_to(make_client, THREE, "hmm, gym", "Should I delete “Gym”?", said, claims="Done!")

    assert await statuses(client) == dict.fromkeys(THREE, "pending")
    forced = [d for d in body["execution_metadata"]["guard"]["decisions"] if d["decision"] == "forced"]
    assert len(forced) == 1, body["execution_metadata"]["guard"]
