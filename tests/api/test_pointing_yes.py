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

from collections.abc import Callable
from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks
from support.asking import left
from support.fake_llm import ScriptedLLM, calls, completion, declares, tool_call

THREE = ("Gym", "Taxes", "Call mom")


def _model(request: str, question: str, tool: str, titles: list[str], *, ghost: bool) -> Callable[..., Any]:
    """Answers `request` with `question`; the next message with its calls of `tool` on `titles`, or
    (`ghost`) with a claim, making those calls only when the tool is forced on it."""
    step = calls(*[(tool, {"task_id": t}) for t in titles])

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return completion("Done.")
        if next(m["content"] for m in reversed(messages) if m["role"] == "user") == request:
            return completion(question)
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            forced = choice["function"]["name"]
            return completion(tool_calls=[tool_call(forced, {"task_id": t}) for t in titles])
        return completion("Done! I took care of it.") if ghost else step

    return answer


async def _after_yes(
    make_client: MakeClient, request: str, question: str, yes: str, step: Any, ghost: bool = False
) -> Any:
    tool, titles = step
    client = await make_client(
        ScriptedLLM(default=_model(request, question, tool, titles, ghost=ghost), checker=declares())
    )
    await seed_tasks(client, *THREE)
    first = (await chat(client, request)).json()
    body = (await chat(client, yes, conversation_id=first["conversation_id"])).json()
    return client, body


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
    ("gym c'est fait", "Voulez-vous que je le marque comme fait ?", "oui", ("complete_task", ["Gym"]), {"Gym"}),
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
    assert await left(client) == dict.fromkeys(THREE, "pending"), body["assistant_message"]
    (title,) = changed
    assert body["confirmation"] is not None and title in body["assistant_message"], body["assistant_message"]
    body = (await chat(client, "yes", conversation_id=body["conversation_id"])).json()
    assert await left(client) == _expected(step[0], changed), body["assistant_message"]


@pytest.mark.parametrize("ghost", [False, True], ids=["calls", "claims"])
@pytest.mark.parametrize(("request_", "question", "yes", "step"), NOT_KNOWN)
async def test_a_yes_to_a_question_that_points_at_nothing_known_changes_nothing(
    make_client: MakeClient, request_: str, question: str, yes: str, step: Any, ghost: bool
) -> None:
    client, body = await _after_yes(make_client, request_, question, yes, step, ghost)

    assert await left(client) == dict.fromkeys(THREE, "pending"), body["assistant_message"]
    assert "Done" not in body["assistant_message"]


async def test_a_question_about_the_others_never_changes_the_task_the_user_keeps(make_client: MakeClient) -> None:
    step = ("delete_task", ["Gym", "Taxes", "Call mom"])
    client, body = await _after_yes(make_client, "keep gym", "Should I delete the others?", "yes", step, False)

    assert (await left(client)).get("Gym") == "pending", body["assistant_message"]


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


@pytest.mark.parametrize("ghost", [False, True], ids=["calls", "claims"])
@pytest.mark.parametrize(("request_", "question", "yes", "step", "kept"), NEVER)
async def test_a_yes_never_changes_what_it_does_not_point_to(
    make_client: MakeClient, request_: str, question: str, yes: str, step: Any, kept: set[str], ghost: bool
) -> None:
    client, body = await _after_yes(make_client, request_, question, yes, step, ghost)

    assert {t: s for t, s in (await left(client)).items() if t in kept} == dict.fromkeys(kept, "pending"), body[
        "assistant_message"
    ]


# A plain offer of one change (a quoted title, nothing but the offer's words), a yes, and a model
# that only claims: the change is forced once (row A12). Any other question forces nothing.
OFFERS = [
    ("gym is done", "Should I mark “Gym” as done?", "yes", "complete_task", "en"),
    ("I'm done with gym", "Do you want me to delete “Gym”?", "yes please", "delete_task", "en"),
    ("gym ya no va", "¿Quieres que elimine “Gym”?", "sí", "delete_task", "es"),
    ("Gym ist fertig", "Soll ich „Gym“ als erledigt markieren?", "ja", "complete_task", "de"),
    ("gym c'est fait", "Voulez-vous que je supprime « Gym » ?", "oui", "delete_task", "fr"),
]
NO_OFFERS = [
    "Should I remind you to delete “Gym” tomorrow?",
    "Do you want to keep “Gym” instead of deleting it?",
    "Should I delete “Gym”, or would you rather keep it?",
    "Should I ask you before I delete “Gym”?",
    "Do you want me to explain how to delete “Gym”?",
    "¿Quieres mantener “Gym” en vez de borrarla?",
]


@pytest.mark.parametrize(("request_", "question", "yes", "tool", "lang"), OFFERS)
async def test_a_yes_to_a_plain_offer_answered_with_a_claim_makes_the_change(
    make_client: MakeClient, request_: str, question: str, yes: str, tool: str, lang: str
) -> None:
    client, body = await _after_yes(make_client, request_, question, yes, (tool, ["Gym"]), True)

    assert await left(client) == _expected(tool, {"Gym"}), body["assistant_message"]
    assert [d["rule"] for d in body["execution_metadata"]["guard"]["decisions"]][:2] == ["A12", "C3"]


@pytest.mark.parametrize("question", NO_OFFERS)
async def test_a_yes_to_any_other_question_answered_with_a_claim_forces_nothing(
    make_client: MakeClient, question: str
) -> None:
    client, body = await _after_yes(make_client, "hmm, gym", question, "yes", ("delete_task", ["Gym"]), True)

    assert await left(client) == dict.fromkeys(THREE, "pending"), body["assistant_message"]
    assert "A12" not in [d.get("rule") for d in body["execution_metadata"]["guard"]["decisions"]]


async def test_a_plain_offer_is_forced_once(make_client: MakeClient) -> None:
    def claims_only(body: dict[str, Any]) -> dict[str, Any]:
        user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        return completion("Should I delete “Gym”?" if user == "hmm, gym" else "Done!")

    llm = ScriptedLLM(default=claims_only, checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *THREE)
    first = (await chat(client, "hmm, gym")).json()
    body = (await chat(client, "yes", conversation_id=first["conversation_id"])).json()

    assert await left(client) == dict.fromkeys(THREE, "pending")
    forced = [d for d in body["execution_metadata"]["guard"]["decisions"] if d["decision"] == "forced"]
    assert len(forced) == 1, body["execution_metadata"]["guard"]
