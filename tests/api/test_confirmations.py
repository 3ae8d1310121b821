"""Confirmations (issue 14): a turn that should not act without a yes asks, and the next message answers.

A yes (any covered language, or `"confirm": id`) runs exactly the stored calls with no LLM call; a no
cancels; anything else cancels and is a new message; an expired or answered one is not run again."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from support.api import NOW, USER, MakeClient, auth, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.core.clock import FixedClock
from backend.app.db.repositories.confirmations import ConfirmationRepository

pytestmark = pytest.mark.through_pgbouncer  # the same tests through PgBouncer in transaction mode

FOUR = ("Taxes", "Bread", "Gym", "Laundry")


async def over_the_cap(make_client: MakeClient, **settings: Any) -> tuple[Any, ScriptedLLM, dict[str, Any]]:
    llm = ScriptedLLM(calls(*[("delete_task", {"task_id": t}) for t in FOUR]))
    client = await make_client(llm, max_destructive_calls_per_turn=2, **settings)
    await seed_tasks(client, *FOUR)
    body = (await chat(client, "delete taxes, bread, gym and laundry")).json()
    assert body["confirmation"] is not None, body["assistant_message"]
    return client, llm, body


async def chat_with_key(client: Any, message: str, key: str, **body: Any) -> Any:
    headers = {**auth(), "Idempotency-Key": key}
    return await client.post(f"/api/{USER}/chat", json={"message": message, **body}, headers=headers)


async def titles(client: Any) -> list[str]:
    return sorted(t["title"] for t in await tasks_of(client))


@pytest.mark.parametrize(
    ("yes", "reply"),
    [
        ("yes", "Deleted: “Gym”.\nDeleted: “Laundry”."),
        ("Yes please!", "Deleted: “Gym”.\nDeleted: “Laundry”."),
        ("ok", "Deleted: “Gym”.\nDeleted: “Laundry”."),
        # The reply speaks the language of the message that answers: a user may switch.
        ("sí", "Eliminada: “Gym”.\nEliminada: “Laundry”."),
        ("oui", "Supprimée : “Gym”.\nSupprimée : “Laundry”."),
        ("ja", "Gelöscht: „Gym“.\nGelöscht: „Laundry“."),
        ("sim", "Excluída: “Gym”.\nExcluída: “Laundry”."),
        ("haan", "Delete ho gaya: “Gym”.\nDelete ho gaya: “Laundry”."),
    ],
)
async def test_a_yes_runs_exactly_the_stored_calls_without_the_model(
    make_client: MakeClient, yes: str, reply: str
) -> None:
    client, llm, asked = await over_the_cap(make_client)
    requests = len(llm.requests)

    body = (await chat(client, yes, conversation_id=asked["conversation_id"])).json()

    assert len(llm.requests) == requests  # no LLM call
    assert await titles(client) == []
    assert body["assistant_message"] == reply
    assert body["execution_metadata"]["llm_calls"] == 0
    assert body["execution_metadata"]["confirmation_answer"]["verdict"] == "run"
    assert body["confirmation"] is None


async def test_confirm_by_id_and_a_retry_with_the_same_key_runs_once(make_client: MakeClient) -> None:
    client, _, asked = await over_the_cap(make_client)
    conversation, confirmation = asked["conversation_id"], asked["confirmation"]["id"]

    first = await chat_with_key(client, "do it", "yes-1", conversation_id=conversation, confirm=confirmation)
    again = await chat_with_key(client, "do it", "yes-1", conversation_id=conversation, confirm=confirmation)

    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotency-Replayed"] == "true" and again.json() == first.json()
    assert await titles(client) == []
    late = await chat(client, "do it", conversation_id=conversation, confirm=confirmation)
    assert late.status_code == 409 and late.json()["error"] == "CONFIRMATION_NOT_PENDING"


@pytest.mark.parametrize(
    ("no", "reply"),
    [
        ("no", "Okay, I won't: nothing was changed."),
        ("nope", "Okay, I won't: nothing was changed."),
        ("cancel", "Okay, I won't: nothing was changed."),
        ("non", "D'accord, je ne le fais pas : rien n'a été modifié."),
        ("nein", "Okay, mache ich nicht: Es wurde nichts geändert."),
        ("não", "Tudo bem, não vou fazer: nada foi alterado."),
        ("nahi", "Theek hai, nahin karta: kuch bhi tabdeel nahin hua."),
    ],
)
async def test_a_no_cancels_and_changes_nothing(make_client: MakeClient, no: str, reply: str) -> None:
    client, llm, asked = await over_the_cap(make_client)
    requests = len(llm.requests)

    body = (await chat(client, no, conversation_id=asked["conversation_id"])).json()

    assert len(llm.requests) == requests
    assert await titles(client) == ["Gym", "Laundry"]
    assert body["assistant_message"] == reply
    yes = await chat(client, "yes", conversation_id=asked["conversation_id"], confirm=asked["confirmation"]["id"])
    assert yes.status_code == 409


async def test_anything_else_cancels_it_and_is_a_new_message(make_client: MakeClient) -> None:
    client, llm, asked = await over_the_cap(make_client)
    llm.push(calls(("add_task", {"title": "Milk"})))

    body = (await chat(client, "add milk", conversation_id=asked["conversation_id"])).json()

    assert body["tool_calls"][0]["name"] == "add_task"
    assert await titles(client) == ["Gym", "Laundry", "Milk"]
    llm.push(completion("Yes to what?"))  # the question is gone: a later yes is a message to the model
    after = (await chat(client, "yes", conversation_id=asked["conversation_id"])).json()
    assert after["assistant_message"] == "Yes to what?" and await titles(client) == ["Gym", "Laundry", "Milk"]


async def test_an_expired_question_is_not_answered(make_client: MakeClient) -> None:
    clock = FixedClock(NOW)
    client, llm, asked = await over_the_cap(make_client, clock=clock, confirmation_ttl_minutes=5)
    clock.moment = NOW + timedelta(minutes=6)
    llm.push(completion("Yes to what?"))

    body = (await chat(client, "yes", conversation_id=asked["conversation_id"])).json()

    assert body["assistant_message"] == "Yes to what?"
    assert await titles(client) == ["Gym", "Laundry"]
    by_id = await chat(client, "yes", conversation_id=asked["conversation_id"], confirm=asked["confirmation"]["id"])
    assert by_id.status_code == 409


async def test_a_yes_after_the_question_expired_never_runs_what_it_asked(make_client: MakeClient) -> None:
    """The backend's own question is answered only while it is pending: once expired, the model's
    deletes after a yes are not grounded by its words (they are no question the model asked)."""
    clock = FixedClock(NOW)
    client, llm, asked = await over_the_cap(make_client, clock=clock, confirmation_ttl_minutes=5)
    clock.moment = NOW + timedelta(minutes=6)
    llm.push(calls(("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Laundry"})))
    llm.push(completion("Which ones?"))

    await chat(client, "yes", conversation_id=asked["conversation_id"])

    assert await titles(client) == ["Gym", "Laundry"]


async def test_confirmed_calls_are_audited_and_undoable(make_client: MakeClient) -> None:
    client, _, asked = await over_the_cap(make_client)
    await chat(client, "yes", conversation_id=asked["conversation_id"])

    undone = await client.post(f"/api/{USER}/undo", headers=auth())

    assert undone.status_code == 200 and {u["title"] for u in undone.json()["undone"]} == {"Gym", "Laundry"}
    assert await titles(client) == ["Gym", "Laundry"]


# -- twins --------------------------------------------------------------------------------------------


async def twins(make_client: MakeClient) -> tuple[Any, ScriptedLLM, dict[str, Any]]:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "finish report"})))
    client = await make_client(llm)
    await seed_tasks(client, "Finish report", due_date=date(2026, 11, 27), priority="high")
    await seed_tasks(client, "Finish report", due_date=date(2026, 12, 2))
    body = (await chat(client, "delete finish report")).json()
    return client, llm, body


async def test_twins_are_told_apart_and_numbered(make_client: MakeClient) -> None:
    client, _, body = await twins(make_client)

    error = body["tool_calls"][0]["result"]["error"]
    assert error.startswith("Multiple tasks match 'finish report'. Please be more specific: 1. Finish report (")
    assert "due 2026-11-27, high priority" in error and "due 2026-12-02, medium priority" in error
    added = (await tasks_of(client))[0]["created_at"][:10]  # both were added today
    assert body["confirmation"]["question"] == (
        "Multiple tasks match 'finish report'.\nWhich one should I delete?\n"
        f"1. Finish report (due 2026-11-27, high priority, added {added})\n"
        f"2. Finish report (due 2026-12-02, medium priority, added {added})\nAnswer with its number."
    )
    assert body["assistant_message"] == body["confirmation"]["question"]  # the options once, no "Couldn't"
    assert body["confirmation"]["kind"] == "choose"
    assert [a["label"] for a in body["confirmation"]["answers"]] == ["1", "2", "None of them"]
    assert body["action_metadata"]["message"] == "Asked first: delete “finish report”"  # as the model named it
    assert [a["arguments"]["task_id"] for a in body["confirmation"]["actions"]] == [
        c["id"] for c in body["tool_calls"][0]["result"]["data"]["choices"]
    ]


@pytest.mark.parametrize(
    ("answer", "left_due"),
    [
        ("2", "2026-11-27"),
        ("the first one", "2026-12-02"),
        ("#1", "2026-12-02"),
        ("la segunda", "2026-11-27"),
        ("the one due friday", "2026-12-02"),
        ("the high priority one", "2026-12-02"),
        # By the due date, in the forms people use (the twins are due Fri 27 Nov and Wed 2 Dec; today is
        # Sun 22 Nov): the day of the month, the month and day, the weekday, the first or last due.
        ("the 27th", "2026-12-02"),
        ("el 2", "2026-11-27"),
        ("die am 27.", "2026-12-02"),
        ("27 de noviembre", "2026-12-02"),
        ("December 2nd", "2026-11-27"),
        ("le 2 décembre", "2026-11-27"),
        ("quella del 27 novembre", "2026-12-02"),
        ("die vom Mittwoch", "2026-11-27"),
        ("the earliest", "2026-12-02"),
        ("la más lejana", "2026-11-27"),
        ("de vroegste", "2026-12-02"),
        ("a mais próxima", "2026-12-02"),
        ("den på onsdag", "2026-11-27"),
        ("12月2日の方", "2026-11-27"),
        # Relative to today, as the commands' reader reads them (language/reading/when.py `day_in`).
        ("the one in 5 days", "2026-12-02"),
        ("la de dentro de 10 días", "2026-11-27"),
    ],
)
async def test_twins_answered_by_number_position_or_detail(make_client: MakeClient, answer: str, left_due: str) -> None:
    client, llm, asked = await twins(make_client)
    requests = len(llm.requests)

    body = (await chat(client, answer, conversation_id=asked["conversation_id"])).json()

    assert len(llm.requests) == requests, body["assistant_message"]
    [left] = await tasks_of(client)
    assert left["due_date"] == left_due
    # "Deleted: “Finish report”." in the answer's language ("Gelöscht: „Finish report“.")
    assert body["assistant_message"].rstrip(".”“").endswith("Finish report"), body["assistant_message"]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
async def test_a_question_is_answered_on_sqlite_too(make_client: MakeClient) -> None:
    """SQLite hands timestamps back without a zone; the question's expiry must still compare (was a 500)."""
    client, _, asked = await over_the_cap(make_client)

    answered = await chat(client, "yes", conversation_id=asked["conversation_id"])

    assert answered.status_code == 200, answered.text
    assert await titles(client) == []


async def test_a_failure_reading_the_answer_is_recorded_beside_the_stored_message(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The message that answers the question is stored by the turn's start; when reading the pending
    question then fails, the error is recorded beside it, as any failure of a turn is: never a
    stored message with nothing after it."""
    client, _llm, asked = await over_the_cap(make_client)

    async def unreachable(*_args: Any, **_kwargs: Any) -> Any:
        raise sa.exc.OperationalError("SELECT", {}, ConnectionError("the database went away"))

    monkeypatch.setattr(ConfirmationRepository, "get", unreachable)
    failed = await chat(client, "yes", conversation_id=asked["conversation_id"])
    monkeypatch.undo()

    assert failed.status_code >= 500 and failed.json()["error"], failed.text
    path = f"/api/{USER}/conversations/{asked['conversation_id']}/messages"
    messages = (await client.get(path, headers=auth())).json()
    assert [(m["role"], m["content"], m["is_error"]) for m in messages[-2:]] == [
        ("user", "yes", False),
        ("assistant", messages[-1]["content"], True),
    ]
    assert await titles(client) == ["Gym", "Laundry"]  # what the question asked about was not run


# -- a pointer that points at nothing: the user picks among their newest pending tasks ------------

POINTERS = [
    ("mark the task as done", "complete_task", "the task"),
    ("delete it please", "delete_task", "it"),
    ("marca esa tarea como hecha", "complete_task", "esa tarea"),
    ("lösch die Aufgabe", "delete_task", "die aufgabe"),
    ("supprime ça", "delete_task", "ça"),
    ("completa quella", "complete_task", "quella"),
    ("verwijder het", "delete_task", "het"),
    ("apaga isso", "delete_task", "isso"),
]


async def pointer(make_client: MakeClient, message: str, tool: str, reference: str) -> tuple[Any, dict[str, Any]]:
    llm = ScriptedLLM(calls((tool, {"task_id": reference})), completion("Done!"))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes", "Bread", "Gym")
    body = (await chat(client, message)).json()
    return client, body


@pytest.mark.parametrize(("message", "tool", "reference"), POINTERS, ids=[p[0] for p in POINTERS])
async def test_a_pointer_that_points_at_nothing_offers_the_pending_tasks(
    make_client: MakeClient, message: str, tool: str, reference: str
) -> None:
    client, body = await pointer(make_client, message, tool, reference)

    asked = body["confirmation"]
    assert asked is not None and asked["kind"] == "choose", body["assistant_message"]
    titles = {t["id"]: t["title"] for t in await tasks_of(client)}
    offered = [titles[a["arguments"]["task_id"]] for a in asked["actions"]]
    assert sorted(offered) == ["Bread", "Gym", "Taxes"]
    assert {a["name"] for a in asked["actions"]} == {tool}
    lines = asked["question"].splitlines()
    assert lines[1:4] == [f"{i}. {title}" for i, title in enumerate(offered, start=1)], lines
    assert "'" not in lines[0] and reference not in lines[0]  # no "Multiple tasks match 'it'"
    assert [a["label"] for a in asked["answers"]][:3] == ["1", "2", "3"]
    assert body["assistant_message"] == asked["question"]
    assert {t["status"] for t in await tasks_of(client)} == {"pending"}


@pytest.mark.parametrize("answer", ["gym", "Gym", "3"])
async def test_a_choice_is_answered_by_its_title_or_its_number(make_client: MakeClient, answer: str) -> None:
    client, asked = await pointer(make_client, "mark the task as done", "complete_task", "the task")
    titles = {t["id"]: t["title"] for t in await tasks_of(client)}
    offered = [titles[a["arguments"]["task_id"]] for a in asked["confirmation"]["actions"]]
    picked = "Gym" if not answer.isdigit() else offered[int(answer) - 1]

    body = (await chat(client, answer, conversation_id=asked["conversation_id"])).json()

    statuses = {t["title"]: t["status"] for t in await tasks_of(client)}
    assert statuses == {t: "completed" if t == picked else "pending" for t in ("Taxes", "Bread", "Gym")}, body


async def test_short_titles_are_picked_by_their_whole_title(make_client: MakeClient) -> None:
    # "A2" is no word of three letters, and "A1", "A10" share its letters: the whole title picks it.
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "it"})))
    client = await make_client(llm)
    await seed_tasks(client, "A1", "A2", "A10")
    asked = (await chat(client, "delete it")).json()
    assert asked["confirmation"]["kind"] == "choose", asked["assistant_message"]

    await chat(client, "a2", conversation_id=asked["conversation_id"])

    assert sorted(t["title"] for t in await tasks_of(client)) == ["A1", "A10"]


async def test_a_single_choice_is_answered_by_a_yes(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("complete_task", {"task_id": "the task"})))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes")
    asked = (await chat(client, "mark the task as done")).json()
    assert asked["confirmation"]["kind"] == "choose", asked["assistant_message"]

    await chat(client, "yes", conversation_id=asked["conversation_id"])

    assert [(t["title"], t["status"]) for t in await tasks_of(client)] == [("Taxes", "completed")]


async def test_a_title_that_names_no_task_is_said_so_not_offered_choices(make_client: MakeClient) -> None:
    # The user named a task that is not there; the model passes "the task": no list of other tasks.
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "the task"})), completion("Done!"))
    client = await make_client(llm)
    await seed_tasks(client, "Taxes", "Bread")

    body = (await chat(client, "delete the dentist task")).json()

    assert body["confirmation"] is None, body["confirmation"]
    assert sorted(t["title"] for t in await tasks_of(client)) == ["Bread", "Taxes"]


async def test_a_number_answers_by_position_even_where_a_task_is_titled_so(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "it"})))
    client = await make_client(llm)
    await seed_tasks(client, "1", "Gym")
    asked = (await chat(client, "delete it")).json()
    titles = {t["id"]: t["title"] for t in await tasks_of(client)}
    offered = [titles[a["arguments"]["task_id"]] for a in asked["confirmation"]["actions"]]

    await chat(client, "1", conversation_id=asked["conversation_id"])

    assert sorted(t["title"] for t in await tasks_of(client)) == sorted(set(offered) - {offered[0]})


async def test_deletions_over_the_cap_beside_a_choice_say_why_they_were_not_done(make_client: MakeClient) -> None:
    # The twin question is the turn's one question; the deletes over the cap are not "which task?".
    deletes = [("delete_task", {"task_id": t}) for t in ("report", "gym", "yoga")]
    client = await make_client(ScriptedLLM(calls(*deletes), completion("Done.")), max_destructive_calls_per_turn=1)
    await seed_tasks(client, "Report", "Report", "Gym", "Yoga")

    body = (await chat(client, "delete report, gym and yoga")).json()

    assert body["confirmation"]["kind"] == "choose"
    assert "which task do you mean" not in body["assistant_message"], body["assistant_message"]
    assert "Not done: delete “gym” (too many actions in one message; send it again)." in body["assistant_message"]
    assert sorted(t["title"] for t in await tasks_of(client)) == ["Gym", "Report", "Report", "Yoga"]


async def one_over_the_cap(make_client: MakeClient) -> tuple[Any, ScriptedLLM, dict[str, Any]]:
    """Three deletes over a cap of two: the third, Gym, is asked about."""
    llm = ScriptedLLM(calls(*[("delete_task", {"task_id": t}) for t in FOUR[:3]]))
    client = await make_client(llm, max_destructive_calls_per_turn=2)
    await seed_tasks(client, *FOUR)
    body = (await chat(client, "delete taxes, bread and gym")).json()
    assert body["confirmation"]["actions"][0]["name"] == "delete_task", body["assistant_message"]
    assert await titles(client) == ["Gym", "Laundry"]
    return client, llm, body


@pytest.mark.parametrize(
    "other",
    [
        "delete laundry",  # another task
        "delete it",  # the change said again: read by the model, not run as a yes (see below)
        "yes, delete it tomorrow",
        "not yet, delete it",
        "delete it?",
        'delete "2025"',
        "complete it",
        "don't delete it",
    ],
)
async def test_only_a_yes_runs_the_stored_call(make_client: MakeClient, other: str) -> None:
    """Anything but a yes is a new message, however like the change it reads. A yes said as the
    change again ("yes, delete it") was read as a yes for a while and withdrawn after review: on a
    question over two tasks "delete gym" deleted both, "delete "2025"" deleted the task asked about,
    "not yet, delete it" and "bórralo luego" ran at once."""
    client, llm, asked = await one_over_the_cap(make_client)
    llm.push(completion("Okay."))

    body = (await chat(client, other, conversation_id=asked["conversation_id"])).json()

    assert body["execution_metadata"].get("confirmation_answer", {}).get("verdict") != "run", body
    assert await titles(client) == ["Gym", "Laundry"]


async def test_naming_one_of_two_tasks_asked_is_no_yes_to_both(make_client: MakeClient) -> None:
    client, llm, asked = await over_the_cap(make_client)
    llm.push(completion("Okay."))

    await chat(client, "delete gym, not laundry", conversation_id=asked["conversation_id"])

    assert await titles(client) == ["Gym", "Laundry"]


@pytest.mark.parametrize(
    ("yes", "said"),
    [
        ("yes", "Couldn't delete “Gym”: it was renamed after the question was asked; nothing was done."),
        ("ja, bitte", "Ich konnte „Gym“ nicht löschen: sie wurde nach der Frage umbenannt; es wurde nichts gemacht."),
    ],
)
async def test_a_yes_never_runs_on_a_task_renamed_since_it_was_asked(
    make_client: MakeClient, yes: str, said: str
) -> None:
    """The yes was given to "delete “Gym”": renamed since (here through the API, as from another
    conversation), the task is not deleted, and the reply says why in the answer's language."""
    client, llm, asked = await one_over_the_cap(make_client)
    gym = next(t for t in await tasks_of(client) if t["title"] == "Gym")
    renamed = await client.patch(f"/api/{USER}/tasks/{gym['id']}", json={"title": "Tax return"}, headers=auth())
    assert renamed.status_code == 200, renamed.text
    requests = len(llm.requests)

    body = (await chat(client, yes, conversation_id=asked["conversation_id"])).json()

    assert len(llm.requests) == requests
    assert await titles(client) == ["Laundry", "Tax return"]
    assert body["assistant_message"] == said
    assert body["tool_calls"][0]["result"]["success"] is False


async def test_a_yes_still_runs_on_a_task_changed_otherwise_or_recased_since(make_client: MakeClient) -> None:
    client, _, asked = await one_over_the_cap(make_client)
    gym = next(t for t in await tasks_of(client) if t["title"] == "Gym")
    changed = await client.patch(
        f"/api/{USER}/tasks/{gym['id']}", json={"priority": "high", "title": "gym "}, headers=auth()
    )
    assert changed.status_code == 200, changed.text

    await chat(client, "yes", conversation_id=asked["conversation_id"])

    assert await titles(client) == ["Laundry"]


@pytest.mark.parametrize("later", ["sí, luego", "ja, danach", "oui, ensuite", "yes, instead", "ja, zo direct"])
async def test_a_yes_that_says_later_runs_nothing_now(make_client: MakeClient, later: str) -> None:
    client, llm, asked = await one_over_the_cap(make_client)
    llm.push(completion("Okay."))

    body = (await chat(client, later, conversation_id=asked["conversation_id"])).json()

    assert body["execution_metadata"].get("confirmation_answer", {}).get("verdict") != "run", body
    assert await titles(client) == ["Gym", "Laundry"]
