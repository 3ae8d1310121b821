"""What the user's words name, and what the guard does when they name a task only in part or not at
all (found by the second held-out set, tests/heldout/fresh): a change is run on the task the user's
own reference resolves to, asked about when their words name it only in part or the message asks
something, and a change the guard does not run is never dropped unsaid while the words name its task.
Through the API, with a compliant scripted model."""

from __future__ import annotations

from typing import Any

from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import compliant
from support.fake_llm import ScriptedLLM, completion, declares, tool_call

TITLES = ("Dentist appointment", "Car insurance", "Pay rent", "Laundry")


async def _client(make_client: MakeClient, llm: Any) -> Any:
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)
    return client


def _codes(body: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(c["name"], c["result"].get("code")) for c in body["tool_calls"]]


async def test_a_command_naming_part_of_a_title_acts_on_the_task_the_users_reference_resolves_to(
    make_client: MakeClient,
) -> None:
    llm, _ = compliant([("update_task", {"task_id": "Dentist appointment", "due_date": "2026-11-27"})], TITLES)
    client = await _client(make_client, llm)

    body = (await chat(client, "push the dentist to friday")).json()

    assert _codes(body) == [("update_task", None)], body["assistant_message"]
    dates = {t["title"]: t["due_date"] for t in await tasks_of(client)}
    assert dates["Dentist appointment"] == "2026-11-27"


async def test_a_commanded_edit_of_a_task_the_words_do_not_name_is_asked_about_not_run(make_client: MakeClient) -> None:
    # "the car insurance thing" is the user's; the model moved the dentist instead. The question is
    # about the task the user's words name (docs/guard.md, row T12), never the model's pick.
    llm, _ = compliant([("update_task", {"task_id": "Dentist appointment", "due_date": "2026-12-01"})], TITLES)
    client = await _client(make_client, llm)
    before = await tasks_of(client)

    body = (await chat(client, "can u push the car insurance thing to dec 1st")).json()

    assert await tasks_of(client) == before
    assert _codes(body) == [("update_task", "NEEDS_CONFIRMATION")]
    assert body["confirmation"]["question"] == "Do you want me to update “Car insurance”? Answer yes or no."


async def test_an_edit_on_an_unread_message_asking_something_is_asked_about_not_run(make_client: MakeClient) -> None:
    llm, _ = compliant([("update_task", {"task_id": "Car insurance", "priority": "high"})], TITLES)
    client = await _client(make_client, llm)
    before = await tasks_of(client)

    # Read as nothing (no verb the reader knows), and a question: the model's edit is a guess.
    body = (await chat(client, "is it worth looking at the car insurance again this year?")).json()

    assert await tasks_of(client) == before
    assert _codes(body) == [("update_task", "NEEDS_CONFIRMATION")]
    assert body["confirmation"]["actions"][0]["arguments"]["priority"] == "high"
    yes = (await chat(client, "yes", conversation_id=body["conversation_id"])).json()
    assert yes["assistant_message"] == "Updated: “Car insurance” (priority high)."


async def test_a_change_the_guard_does_not_run_on_a_task_named_in_part_is_asked_about_never_dropped(
    make_client: MakeClient,
) -> None:
    # The reader reads the delete, not the second clause; the model does both. The edit's task is
    # named in part ("the insurance"): it is asked about, where it used to vanish from the reply.
    llm, _ = compliant(
        [("delete_task", {"task_id": "Laundry"}), ("update_task", {"task_id": "Car insurance", "priority": "high"})],
        TITLES,
    )
    client = await _client(make_client, llm)

    body = (await chat(client, "delete the laundry, and the insurance, make that one urgent")).json()

    titles = {t["title"]: t for t in await tasks_of(client)}
    assert "Laundry" not in titles and titles["Car insurance"]["priority"] == "medium"
    assert ("update_task", "NEEDS_CONFIRMATION") in _codes(body)
    assert "update “Car insurance”" in body["confirmation"]["question"]


async def test_an_edit_of_another_task_does_not_stand_in_for_a_delete(make_client: MakeClient) -> None:
    # The model edits the insurance instead of deleting the rent: the delete is forced, not trusted away.
    llm, model = compliant([("update_task", {"task_id": "Car insurance", "priority": "high"})], TITLES)
    client = await _client(make_client, llm)

    body = (await chat(client, "delete pay rent")).json()

    assert model.forced_calls == ["delete_task"], body["execution_metadata"]["guard"]
    assert "Pay rent" not in [t["title"] for t in await tasks_of(client)]


async def test_a_claim_the_lists_read_without_its_kind_is_checked_and_that_change_asked_about(
    make_client: MakeClient,
) -> None:
    # Read as nothing; the model only claims. Its check says the claim is a delete of Laundry: that tool
    # is forced, and the task it names asked about, not deleted on the model's word.
    ghost = completion("Done, Laundry is off your list!")
    checker = declares(("delete", "Laundry"))
    llm = ScriptedLLM(
        ghost,
        completion(tool_calls=[tool_call("delete_task", {"task_id": "Laundry"})]),
        completion("Do you want me to delete it?"),
        checker=checker,
    )
    client = await _client(make_client, llm)
    before = await tasks_of(client)

    body = (await chat(client, "honestly the laundry one can go, not doing it this week")).json()

    assert await tasks_of(client) == before
    assert body["confirmation"]["question"] == "Do you want me to delete “Laundry”? Answer yes or no."
    forced = [r.get("tool_choice") for r in llm.requests if isinstance(r.get("tool_choice"), dict)]
    assert {"type": "function", "function": {"name": "delete_task"}} in forced


async def test_a_forced_change_whose_reference_names_nothing_asks_about_the_task_the_message_names_in_part(
    make_client: MakeClient,
) -> None:
    # A language no file reads: the message is read as nothing, the model only claims, and forced to
    # act it passes the whole message as the reference. The one task the message names in part
    # ("паспорт" of "Паспорт продлить") is asked about, not dropped and not changed.
    titles = ("Паспорт продлить", "Стоматолог")
    ghost = completion("Готово, паспорт теперь срочный.")
    message = "сделай паспорт поважнее, пожалуйста"
    llm = ScriptedLLM(
        ghost,
        completion(tool_calls=[tool_call("update_task", {"task_id": message, "priority": "high"})]),
        completion("?"),
        checker=declares(("update", "Паспорт продлить")),
    )
    client = await make_client(llm)
    await seed_tasks(client, *titles)
    before = await tasks_of(client)

    body = (await chat(client, message)).json()

    assert await tasks_of(client) == before
    assert _codes(body)[-1] == ("update_task", "NEEDS_CONFIRMATION"), body["execution_metadata"]["guard"]
    assert "Паспорт продлить" in body["confirmation"]["question"]


async def test_a_change_naming_nothing_beside_another_asks_about_the_task_only_it_can_mean(
    make_client: MakeClient,
) -> None:
    # Read as nothing (Russian): the delete names no task, the edit names "Страховка". The delete is
    # asked about the other task the message names, never about the edit's. (No word file reads the
    # message: the edit's values are not ones the lists can check, and it stands whole, row V6.)
    titles = ("Холодильник помыть", "Страховка", "Стоматолог")
    llm = ScriptedLLM(
        completion(
            tool_calls=[
                tool_call("delete_task", {"task_id": "21648537900"}),
                tool_call("update_task", {"task_id": "Страховка", "priority": "high"}),
            ]
        ),
        completion("?"),
    )
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = (await chat(client, "холодильник помыть удали, а страховка пусть будет срочной")).json()

    rows = {t["title"]: t for t in await tasks_of(client)}
    assert set(rows) == set(titles) and rows["Страховка"]["priority"] == "high"
    assert _codes(body) == [("delete_task", "NEEDS_CONFIRMATION"), ("update_task", None)], body["assistant_message"]
    assert "Холодильник помыть" in body["confirmation"]["question"]


async def test_a_wrong_target_on_a_message_only_asked_about_becomes_a_question_about_the_task_the_words_name(
    make_client: MakeClient,
) -> None:
    # Czech, which no word file reads: the message is only asked about. The model adds the quoted
    # title (a title of the user's own) and completes the wrong task; the task the words name in part
    # ("prádlo" of "Vyprat prádlo") is asked about in its place, the wrong one neither run nor asked.
    titles = ("Vyprat prádlo", "Dárek pro Evu", "Zaplatit nájem")
    llm = ScriptedLLM(
        completion(
            tool_calls=[
                tool_call("add_task", {"title": "Objednat dort"}),
                tool_call("complete_task", {"task_id": "Dárek pro Evu"}),
            ]
        ),
        completion("Hotovo."),
    )
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = (await chat(client, "přidej „objednat dort“ a prádlo odškrtni")).json()

    rows = {t["title"]: t["status"] for t in await tasks_of(client)}
    assert rows["Dárek pro Evu"] == "pending" and rows["Vyprat prádlo"] == "pending"
    assert body["confirmation"] is not None, body["assistant_message"]
    asked = [a["arguments"]["task_id"] for a in body["confirmation"]["actions"] if a["name"] == "complete_task"]
    ids = {t["title"]: t["id"] for t in await tasks_of(client)}
    assert asked == [ids["Vyprat prádlo"]], body["confirmation"]
    assert "Dárek pro Evu" not in body["assistant_message"]


async def test_a_wrong_target_is_not_replaced_by_a_task_another_call_of_the_turn_names(make_client: MakeClient) -> None:
    # The only task the words name is the one the edit acts on: the wrong delete asks about nothing.
    titles = ("Vyprat prádlo", "Dárek pro Evu")
    llm = ScriptedLLM(
        completion(
            tool_calls=[
                tool_call("update_task", {"task_id": "Vyprat prádlo", "priority": "high"}),
                tool_call("delete_task", {"task_id": "Dárek pro Evu"}),
            ]
        ),
        completion("Hotovo."),
    )
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = (await chat(client, "prádlo je teď důležité, to druhé pryč")).json()

    rows = {t["title"] for t in await tasks_of(client)}
    assert rows == set(titles)
    asked = [a["name"] for a in (body["confirmation"] or {}).get("actions", [])]
    assert "delete_task" not in asked, body["confirmation"]
