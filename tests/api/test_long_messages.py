"""A message longer than the reader reads changes nothing, and says so; the model's words longer than
the claim reader reads are shown only as far as it read them (issue 25), end to end through HTTP.

The model is the compliant one: it does what the message's first words say, and complies when a
tool is forced on it. A task changes only if the guard lets a change through.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import chat, seed_tasks, tasks_of
from support.compliant import compliant

from backend.app.services.claims import READABLE
from backend.app.services.intent import READ_CHARS

TITLES = ("Gym", "Taxes", "Bread")
BACKGROUND = {
    "en": "Some background on why I want this, since the week has been long. ",
    "de": "Ein bisschen Hintergrund dazu, warum ich das möchte, die Woche war lang. ",
    "es": "Un poco de contexto sobre por qué lo quiero, la semana ha sido larga. ",
    "fr": "Un peu de contexte sur pourquoi je le veux, la semaine a été longue. ",
}
TOO_LONG_LINE = {
    "en": "too long for me to act on",
    "de": "zu lang",
    "es": "demasiado largo",
    "fr": "trop long",
}


def _long(command: str, language: str) -> str:
    background = BACKGROUND[language]
    return command + " " + background * (READ_CHARS // len(background) + 1)


async def _titles(client: Any) -> list[str]:
    return sorted(t["title"] for t in await tasks_of(client) if t["status"] == "pending")


@pytest.mark.parametrize(
    ("language", "command", "call"),
    [
        ("en", "Delete gym.", ("delete_task", {"task_id": "Gym"})),
        ("de", "Lösche gym.", ("delete_task", {"task_id": "Gym"})),
        ("es", "Marca taxes como hecha.", ("complete_task", {"task_id": "Taxes"})),
        ("fr", "Ajoute acheter du pain.", ("add_task", {"title": "acheter du pain"})),
    ],
)
async def test_a_message_too_long_to_read_changes_nothing_and_says_so(  # type: ignore[no-untyped-def]
    make_client, language: str, command: str, call: tuple[str, dict[str, Any]]
) -> None:
    llm, model = compliant([call], TITLES, after_tools="Done!")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    response = await chat(client, _long(command, language))

    assert response.status_code == 200, response.text
    body = response.json()
    meta = body["execution_metadata"]
    assert await _titles(client) == sorted(TITLES)  # nothing deleted, completed or added
    assert meta["intent"]["kind"] == "too_long"
    assert model.forced_calls == []  # nothing in it is forced either
    assert [(d["decision"], d["reason"]) for d in meta["guard"]["decisions"]] == [("refused", "too_long")]
    assert [n["reason"] for n in meta["reply"]["not_done"]] == ["too_long"]
    assert TOO_LONG_LINE[language] in body["assistant_message"]
    assert "Done!" not in body["assistant_message"]
    assert body["action_metadata"]["success"] is False


async def test_a_long_message_may_still_be_answered_with_a_read(make_client) -> None:  # type: ignore[no-untyped-def]
    llm, _ = compliant([("list_tasks", {"status": "all"})], TITLES, after_tools="You have three tasks.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, _long("What is on my list?", "en"))).json()

    assert body["execution_metadata"]["intent"]["kind"] == "too_long"
    assert [c["name"] for c in body["tool_calls"]] == ["list_tasks"]
    assert body["action_metadata"]["success"] is True
    assert await _titles(client) == sorted(TITLES)


async def test_a_retraction_at_the_end_of_a_long_message_is_never_overruled(make_client) -> None:  # type: ignore[no-untyped-def]
    # The model misses the retraction and deletes; the reader did not read the message, so nothing runs.
    llm, model = compliant([("delete_task", {"task_id": "Gym"})], TITLES)
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, _long("delete gym.", "en") + " Actually no, never mind, keep gym.")).json()

    assert await _titles(client) == sorted(TITLES)
    assert model.forced_calls == []
    assert body["execution_metadata"]["reply"]["not_done"][0]["reason"] == "too_long"


async def test_a_long_answer_is_shown_only_as_far_as_its_claims_were_read(make_client) -> None:  # type: ignore[no-untyped-def]
    sentence = "Here is one more thing worth knowing about how lists work. "
    answer = sentence * (READABLE // len(sentence) + 20) + "I deleted Gym for you."
    llm, _ = compliant(answer, TITLES)
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, "how do lists work here?")).json()

    shown = body["assistant_message"]
    assert "deleted" not in shown and shown.endswith("…")
    assert len(shown) <= READABLE + 2
    assert shown.startswith(sentence.strip())
    decisions = body["execution_metadata"]["guard"]["decisions"]
    assert ("shortened", "too_long") in [(d["decision"], d["reason"]) for d in decisions]
    assert await _titles(client) == sorted(TITLES)


async def test_a_claim_in_the_part_read_is_caught_as_always(make_client) -> None:  # type: ignore[no-untyped-def]
    sentence = "Here is one more thing worth knowing about how lists work. "
    answer = "I deleted Gym for you. " + sentence * (READABLE // len(sentence) + 20)
    llm, _ = compliant(answer, TITLES)
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, "how do lists work here?")).json()

    assert "deleted Gym" not in body["assistant_message"]
    replaced = body["execution_metadata"]["reply"]["replaced"]
    assert replaced and replaced[0]["reason"] in ("ghost_claim", "unbacked_claim")
    assert await _titles(client) == sorted(TITLES)
