"""A long message is read whole (issue 48): a command in it is done, a retraction or a question at its
end changes nothing unasked, and a pasted list of many tasks is added whole and said in a few lines;
the model's words longer than the claim reader reads are shown only as far as it read them (issue
25), end to end through HTTP.

The model is the compliant one: it does what the message's first words say, and complies when a
tool is forced on it. A task changes only if the guard lets a change through.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import compliant

from backend.app.services.guard.claims import READABLE

TITLES = ("Gym", "Taxes", "Bread")
BACKGROUND = {
    "en": "Some background on why I want this, since the week has been long. ",
    "de": "Ein bisschen Hintergrund dazu, warum ich das möchte, die Woche war lang. ",
    "es": "Un poco de contexto sobre por qué lo quiero, la semana ha sido larga. ",
    "fr": "Un peu de contexte sur pourquoi je le veux, la semaine a été longue. ",
}
LONGEST = 4_000  # MAX_MESSAGE_CHARS's default


def _long(command: str, language: str, *, chars: int = 3_000) -> str:
    background = BACKGROUND[language]
    return command + " " + background * (chars // len(background))


async def _titles(client: Any) -> list[str]:
    return sorted(t["title"] for t in await tasks_of(client) if t["status"] == "pending")


@pytest.mark.parametrize(
    ("language", "command", "call", "after"),
    [
        ("en", "Delete gym.", ("delete_task", {"task_id": "Gym"}), ["Bread", "Taxes"]),
        ("de", "Lösche gym.", ("delete_task", {"task_id": "Gym"}), ["Bread", "Taxes"]),
        ("es", "Marca taxes como hecha.", ("complete_task", {"task_id": "Taxes"}), ["Bread", "Gym"]),
        (
            "fr",
            "Ajoute acheter du pain.",
            ("add_task", {"title": "acheter du pain"}),
            ["Bread", "Gym", "Taxes", "acheter du pain"],
        ),
    ],
)
async def test_a_command_in_a_long_message_is_done(
    make_client: MakeClient, language: str, command: str, call: tuple[str, dict[str, Any]], after: list[str]
) -> None:
    llm, _ = compliant([call], TITLES)
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    response = await chat(client, _long(command, language))

    assert response.status_code == 200, response.text
    body = response.json()
    assert await _titles(client) == after
    assert body["execution_metadata"]["intent"]["kind"] == "command"
    assert body["action_metadata"]["success"] is True


@pytest.mark.parametrize(
    "message",
    [
        _long("delete gym.", "en") + " Actually no, never mind, keep gym.",
        _long("delete gym.", "en") + " Wait, leave it.",
        _long("Lösche gym.", "de") + " Nein, vergiss es.",
        _long("", "en") + " Should I delete gym, do you think?",
    ],
    ids=["never mind", "wait", "vergiss es", "question"],
)
async def test_a_retraction_or_question_at_the_end_of_a_long_message_changes_nothing(
    make_client: MakeClient, message: str
) -> None:
    # The model misses the end of the message and deletes; the reader read it all.
    llm, _ = compliant([("delete_task", {"task_id": "Gym"})], TITLES)
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert await _titles(client) == sorted(TITLES)
    assert body["execution_metadata"]["intent"]["kind"] != "command"
    if not message.endswith("?"):  # taken back: not even asked about
        assert body["execution_metadata"]["intent"]["kind"] == "negated"
        assert body["confirmation"] is None, body["assistant_message"]


PASTES = {
    "bullets": "ok here's my list for the week, add all of these pls\n"
    + "\n".join(f"- errand number {i}" for i in range(1, 26)),
    "numbers": "Add these:\n" + "\n".join(f"{i}. errand number {i}" for i in range(1, 26)),
    "commas": "add " + ", ".join(f"errand number {i}" for i in range(1, 25)) + " and errand number 25",
    "lines": "put these on my list:\n" + "\n".join(f"errand number {i}" for i in range(1, 26)),
}


@pytest.mark.parametrize("shape", sorted(PASTES))
async def test_a_pasted_list_of_25_is_added_whole_and_said_in_a_few_lines(make_client: MakeClient, shape: str) -> None:
    titles = [f"errand number {i}" for i in range(1, 26)]
    llm, _ = compliant([[("add_task", {"title": t}) for t in titles]], (), after_tools="All 25 are on your list.")
    client = await make_client(llm)

    response = await chat(client, PASTES[shape])

    assert response.status_code == 200, response.text
    body = response.json()
    assert await _titles(client) == sorted(titles)
    reply = body["assistant_message"]
    assert len(reply.splitlines()) <= 3, reply
    assert reply.startswith("Added 25 tasks: “errand number 1”") and "“errand number 25”" in reply


async def test_a_message_of_the_longest_allowed_length_is_accepted_and_read(make_client: MakeClient) -> None:
    llm, _ = compliant([("delete_task", {"task_id": "Gym"})], TITLES)
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)
    message = _long("delete gym.", "en", chars=LONGEST)[:LONGEST]

    response = await chat(client, message)

    assert response.status_code == 200, response.text
    assert await _titles(client) == ["Bread", "Taxes"]


async def test_a_long_answer_is_shown_only_as_far_as_its_claims_were_read(make_client: MakeClient) -> None:
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


async def test_a_claim_in_the_part_read_is_caught_as_always(make_client: MakeClient) -> None:
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


@pytest.mark.parametrize(
    "message",
    ["add these:\n- milk\n- eggs", "lägg till:\n- mjölk\n- ägg", "füge hinzu:\n- Milch\n- Eier"],
)
async def test_a_list_heading_is_no_request_left_undone(make_client: MakeClient, message: str) -> None:
    # The model adds the two items; the heading asked for nothing more, so nothing is "not done".
    items = [line[2:] for line in message.splitlines()[1:]]
    llm, _ = compliant([[("add_task", {"title": t}) for t in items]], (), after_tools="Done.")
    client = await make_client(llm)

    body = (await chat(client, message)).json()

    assert sorted(await _titles(client)) == sorted(items)
    assert [a["status"] for a in body["action_metadata"]["actions"]] == ["done", "done"], body["assistant_message"]


@pytest.mark.parametrize(
    ("message", "added", "left_out"),
    [
        (
            "add these: milk, deleting old photos, calling mom, finishing the tax return",
            ["milk", "deleting old photos"],
            ["calling mom", "finishing the tax return"],
        ),
        (
            "list mein daal do: sabzi, purana sofa hatana, form complete karna, dawai lani",
            ["sabzi", "purana sofa hatana"],
            ["form complete karna", "dawai lani"],
        ),
    ],
)
async def test_a_title_of_a_pasted_list_the_model_leaves_out_is_said_not_done(
    make_client: MakeClient, message: str, added: list[str], left_out: list[str]
) -> None:
    # A clause after the add's colon whose verb stands where no command does is a title: the two the
    # model never adds are actions not done, said so, and nothing but the adds happens.
    llm, _ = compliant([[("add_task", {"title": t}) for t in added]], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)

    body = (await chat(client, message)).json()

    assert await _titles(client) == sorted([*TITLES, *added])
    statuses = [a["status"] for a in body["action_metadata"]["actions"]]
    assert statuses.count("done") == 2 and len(statuses) == 4, body["action_metadata"]
    assert all(t in body["assistant_message"] for t in left_out), body["assistant_message"]
