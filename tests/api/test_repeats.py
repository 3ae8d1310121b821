"""Due times and repeating tasks (issue 50): a due time is an instant with the zone it was said in, shown
in that zone; a repeat is an RFC 5545 RRULE stepped in the task's local time (09:30 stays 09:30 across a
change of daylight saving); completing an occurrence moves the task to its next one, once however the
completion is retried (the same Idempotency-Key, a stale If-Match, the same chat turn replayed), and
undo moves it back. Through the REST routes, the chat route with a scripted model, and the export."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from support.api import USER, MakeClient, auth, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.core.clock import FixedClock

BOTH = pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)
LA = "America/Los_Angeles"
TASKS = f"/api/{USER}/tasks"
WEEKLY_TUESDAY = "FREQ=WEEKLY;BYDAY=TU"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def in_zone(zone: str) -> dict[str, str]:
    return {**auth(), "X-Time-Zone": zone}


async def create(client: Any, zone: str = LA, **fields: Any) -> dict[str, Any]:
    response = await client.post(TASKS, json={"title": "Take the bins out", **fields}, headers=in_zone(zone))
    assert response.status_code == 201, response.text
    return dict(response.json())


async def undo(client: Any, key: str) -> Any:
    """An undo with its own key: on a frozen clock, two undos without one are one double-click."""
    return await client.post(f"/api/{USER}/undo", headers={**auth(), "Idempotency-Key": key})


async def complete(client: Any, task: dict[str, Any], **headers: str) -> Any:
    return await client.patch(f"{TASKS}/{task['id']}", json={"status": "completed"}, headers={**auth(), **headers})


async def test_a_due_time_is_stored_as_an_instant_and_shown_in_its_zone(make_client: MakeClient) -> None:
    """18:00 on 4 December in Los Angeles (02:00 UTC on the 5th): "tomorrow 15:00" is the 5th there."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2026-12-05T02:00")))

    local = await create(client, due_at="2026-12-05T15:00")
    offset = await create(client, zone="Pacific/Kiritimati", due_at="2026-12-05T23:30:00Z")

    assert (local["due_at"], local["due_date"], local["time_zone"]) == ("2026-12-05T15:00:00-08:00", "2026-12-05", LA)
    assert (offset["due_at"], offset["due_date"]) == ("2026-12-06T13:30:00+14:00", "2026-12-06")
    listed = {t["id"]: t for t in await tasks_of(client)}  # read back in UTC: the task keeps its own zone
    assert listed[local["id"]]["due_at"] == "2026-12-05T15:00:00-08:00"
    past = await client.post(TASKS, json={"title": "x", "due_at": "2026-12-04T09:00"}, headers=in_zone("Asia/Tokyo"))
    assert past.status_code == 422 and "due_at" in past.json()["detail"]  # it is the 5th, 11:00, in Tokyo
    moved = await client.patch(f"{TASKS}/{local['id']}", json={"due_date": "2026-12-09"}, headers=in_zone(LA))
    assert moved.json()["due_at"] == "2026-12-09T15:00:00-08:00"  # a new day keeps the time of day
    cleared = await client.patch(f"{TASKS}/{local['id']}", json={"due_at": None}, headers=auth())
    assert (cleared.json()["due_at"], cleared.json()["due_date"]) == (None, "2026-12-09")


@BOTH
async def test_a_weekly_repeat_keeps_its_local_time_across_daylight_saving_and_undo_puts_it_back(
    make_client: MakeClient,
) -> None:
    """Tuesday 3 March 2026, 09:30 PST (17:30 UTC); clocks go forward on Sunday the 8th; done, it comes
    back on Tuesday the 10th at 09:30 PDT (16:30 UTC), then the 17th."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2026-03-03T18:00")))
    task = await create(client, due_at="2026-03-03T09:30", recurrence="rrule:freq=weekly;byday=tu")
    assert task["recurrence"] == f"{WEEKLY_TUESDAY};BYHOUR=9;BYMINUTE=30"  # the rule holds the due time's time

    first = await complete(client, task)

    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["status"], body["due_date"], body["due_at"]) == ("pending", "2026-03-10", "2026-03-10T09:30:00-07:00")
    second = (await complete(client, task)).json()
    assert second["due_at"] == "2026-03-17T09:30:00-07:00"
    undone = await undo(client, "u1")
    assert undone.status_code == 200 and undone.json()["undone"][0]["fields"] == ["due_at", "due_date"]
    assert (await tasks_of(client))[0]["due_at"] == "2026-03-10T09:30:00-07:00"
    await undo(client, "u2")
    back = (await tasks_of(client))[0]
    assert (back["status"], back["due_at"]) == ("pending", "2026-03-03T09:30:00-08:00")


@BOTH
async def test_a_retried_completion_moves_the_task_once(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2026-12-01T12:00")))
    task = await create(client, due_date="2026-12-01", recurrence=WEEKLY_TUESDAY)
    etag = (await client.get(f"{TASKS}/{task['id']}", headers=auth())).headers["ETag"]

    first = await complete(client, task, **{"Idempotency-Key": "done-1", "If-Match": etag})
    again = await complete(client, task, **{"Idempotency-Key": "done-1", "If-Match": etag})
    stale = await complete(client, task, **{"If-Match": etag})

    assert first.status_code == 200 and first.json()["due_date"] == "2026-12-08"
    assert again.status_code == 200 and again.headers["Idempotency-Replayed"] == "true"
    assert again.json() == first.json() and again.headers["ETag"] == first.headers["ETag"]
    assert stale.status_code == 412
    assert [t["due_date"] for t in await tasks_of(client)] == ["2026-12-08"]
    other = await client.patch(
        f"{TASKS}/{task['id']}", json={"priority": "high"}, headers={**auth(), "Idempotency-Key": "done-1"}
    )
    assert other.status_code == 422  # the same key with another body


async def test_repeats_start_at_their_first_occurrence_and_end_with_until(make_client: MakeClient) -> None:
    """On Saturday 5 December: "on the 1st of each month" starts on 1 January; a rule past its UNTIL
    completes the task instead of moving it; a chore done three weeks late comes back next week, not
    three times overdue."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2026-12-05T12:00")))

    monthly = await create(client, zone="Europe/Paris", recurrence="FREQ=MONTHLY;BYMONTHDAY=1")
    assert monthly["due_date"] == "2027-01-01"
    assert (await complete(client, monthly)).json()["due_date"] == "2027-02-01"
    ending = await create(client, due_date="2026-12-05", recurrence="FREQ=DAILY;UNTIL=20261205T235959")
    done = (await complete(client, ending)).json()
    assert (done["status"], done["due_date"]) == ("completed", "2026-12-05")
    late = await create(client, due_date="2026-12-08", recurrence=WEEKLY_TUESDAY)
    client.app.state.clock.moment = at("2027-01-01T12:00")  # a Friday, three weeks on
    assert (await complete(client, late)).json()["due_date"] == "2027-01-05"
    for bad in ("FREQ=HOURLY", "FREQ=WEEKLY;COUNT=3", "every tuesday", "FREQ=WEEKLY;BYDAY=XX"):
        refused = await client.post(TASKS, json={"title": "x", "recurrence": bad}, headers=auth())
        assert refused.status_code == 422, (bad, refused.text)


async def test_stopping_a_repeat_is_an_undoable_change(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2026-12-01T12:00")))
    task = await create(client, due_date="2026-12-01", recurrence=WEEKLY_TUESDAY)

    stopped = await client.patch(f"{TASKS}/{task['id']}", json={"recurrence": None}, headers=auth())

    assert stopped.json()["recurrence"] is None
    assert (await complete(client, task)).json()["status"] == "completed"  # no longer moves
    await undo(client, "u1")
    await undo(client, "u2")
    assert (await tasks_of(client))[0]["recurrence"] == WEEKLY_TUESDAY
    exported = (await client.get(f"/api/{USER}/export", headers=auth())).json()
    assert exported["tasks"][0]["recurrence"] == WEEKLY_TUESDAY and "due_at" in exported["tasks"][0]


@BOTH
async def test_a_chat_completion_moves_the_task_once_and_says_when_it_comes_next(make_client: MakeClient) -> None:
    """The model adds a weekly task at a time and completes it; the replies say the time, the repeat and
    the next occurrence, in the user's language; the same turn replayed moves it no further."""
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Bins", "due_at": "2026-12-08T07:00", "recurrence": WEEKLY_TUESDAY})),
        calls(("complete_task", {"task_id": "Bins"})),
        completion("Erledigt."),
    )
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T12:00")))

    added = (await chat(client, "add bins every tuesday at 7am", time_zone="Europe/Berlin")).json()
    headers = {**auth(), "Idempotency-Key": "bins-done"}
    body = {"message": "Mülltonnen rausgestellt, bitte als erledigt markieren: Bins", "time_zone": "Europe/Berlin"}
    done = await client.post(f"/api/{USER}/chat", json=body, headers=headers)
    replayed = await client.post(f"/api/{USER}/chat", json=body, headers=headers)

    assert added["assistant_message"] == "Added: “Bins” (due 2026-12-08 07:00, repeats).", added
    assert done.status_code == 200, done.text
    assert "nächstes Mal 2026-12-15 07:00" in done.json()["assistant_message"], done.json()["assistant_message"]
    assert replayed.json() == done.json() and replayed.headers["Idempotency-Replayed"] == "true"
    task = (await tasks_of(client))[0]
    assert (task["status"], task["due_at"]) == ("pending", "2026-12-15T07:00:00+01:00")


@pytest.mark.parametrize(
    ("message", "done", "reply"),
    [
        ("add take the bins out every tuesday at 7am", "mark take the bins out as done", "next 2026-12-15 07:00"),
        (
            "füge Müll rausbringen jeden Dienstag um 7 Uhr hinzu",
            "Müll rausbringen ist erledigt",
            "nächstes Mal 2026-12-15",
        ),
        ("ajoute sortir les poubelles chaque mardi à 7h", "marque sortir les poubelles comme terminée", "2026-12-15"),
    ],
)
async def test_the_offline_model_reads_a_repeat_and_a_time_and_moves_the_task_when_done(
    make_client: MakeClient, message: str, done: str, reply: str
) -> None:
    """No key configured: the built-in model reads the time and the repeat in the user's language."""
    client = await make_client(offline=True, clock=FixedClock(at("2026-12-05T12:00")))

    await client.post(f"/api/{USER}/chat", json={"message": message}, headers=in_zone(LA))
    task = (await tasks_of(client))[0]
    assert (task["recurrence"], task["due_at"]) == (
        f"{WEEKLY_TUESDAY};BYHOUR=7;BYMINUTE=0",
        "2026-12-08T07:00:00-08:00",
    )
    completed = await client.post(f"/api/{USER}/chat", json={"message": done}, headers=in_zone(LA))

    assert reply in completed.json()["assistant_message"], completed.json()
    task = (await tasks_of(client))[0]
    assert (task["status"], task["due_at"]) == ("pending", "2026-12-15T07:00:00-08:00")


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("add gym", set()),
        ("add gym every monday", {"recurrence"}),
        ("add gym at 7pm", {"due_at"}),
        ("füge Training jeden Montag um 19 Uhr hinzu", {"recurrence", "due_at"}),
        ("añade gimnasio", set()),
    ],
)
async def test_a_repeat_or_a_time_nobody_said_is_not_stored(
    make_client: MakeClient, message: str, kept: set[str]
) -> None:
    """A model that fills in a repeat or a due time the user's words do not give (rows V1-V6 of the
    decision table, as for a priority or a due date): the task is added without it, and the record says so."""
    invented = {"due_at": "2026-12-07T19:00", "recurrence": "FREQ=DAILY"}
    title = message.split()[1]
    llm = ScriptedLLM(calls(("add_task", {"title": title, **invented})), completion("Done."))
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T12:00")))

    body = (await chat(client, message)).json()

    task = (await tasks_of(client))[0]
    assert {k for k in invented if task[k] is not None} == kept, (task, body["assistant_message"])
    dropped = {d["argument"] for d in body["tool_calls"][0]["result"].get("dropped") or []}
    assert dropped == set(invented) - kept


async def test_rules_that_would_hang_loop_or_overflow_are_refused_not_run(make_client: MakeClient) -> None:
    """A repeat that never moves or never occurs, and a due time past what any zone can hold, are a 422
    with what to fix; never a hung worker or a 500."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2026-12-05T12:00")))
    for rule in (
        "FREQ=DAILY;INTERVAL=0",
        "FREQ=DAILY;INTERVAL=-1",
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=DAILY;BYHOUR=9,17",
    ):
        refused = await client.post(TASKS, json={"title": "x", "recurrence": rule}, headers=auth())
        assert refused.status_code == 422, (rule, refused.text)
    for when in ("9999-12-31T23:00", "9999-12-31T20:00Z"):
        refused = await client.post(TASKS, json={"title": "x", "due_at": when}, headers=in_zone("Asia/Tokyo"))
        assert refused.status_code == 422, (when, refused.text)
    assert await tasks_of(client) == []
    dated = await create(client, due_date="2026-12-05", recurrence="FREQ=DAILY;BYHOUR=9")  # a day alone: no time
    assert (dated["recurrence"], (await complete(client, dated)).json()["due_date"]) == ("FREQ=DAILY", "2026-12-06")


async def test_a_time_the_clocks_skip_comes_back_at_its_own_time_the_next_day(make_client: MakeClient) -> None:
    """Daily at 02:30 in New York, where on 14 March 2027 the clocks go from 02:00 to 03:00: that day it
    is due at 03:30 (02:30 does not exist), and the next day at 02:30 again, not at 03:30 for ever."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2027-03-13T12:00")))
    task = await create(client, zone="America/New_York", due_at="2027-03-13T02:30", recurrence="FREQ=DAILY")

    gap_day = (await complete(client, task)).json()
    after = (await complete(client, task)).json()

    assert gap_day["due_at"] == "2027-03-14T03:30:00-04:00"
    assert after["due_at"] == "2027-03-15T02:30:00-04:00"


async def test_until_and_short_months_are_read_as_people_mean_them(make_client: MakeClient) -> None:
    """ "The 31st of every month" falls on 30 April; an UNTIL given in UTC (RFC 5545's form) or as a date
    alone (the end of that day) is accepted, and the last occurrence still comes."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2027-03-31T12:00")))
    monthly = await create(client, due_date="2027-03-31", recurrence="FREQ=MONTHLY")
    assert (await complete(client, monthly)).json()["due_date"] == "2027-04-30"
    assert (await complete(client, monthly)).json()["due_date"] == "2027-05-31"
    daily = await create(client, due_at="2027-04-01T09:00", recurrence="FREQ=DAILY;UNTIL=20270402")
    assert daily["recurrence"] == "FREQ=DAILY;UNTIL=20270402T235959;BYHOUR=9;BYMINUTE=0"
    assert (await complete(client, daily)).json()["due_date"] == "2027-04-02"
    assert (await complete(client, daily)).json()["status"] == "completed"
    utc = await create(client, due_date="2027-04-01", recurrence="FREQ=WEEKLY;UNTIL=20271231T235959Z")
    assert utc["recurrence"] == "FREQ=WEEKLY;UNTIL=20271231T235959"


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("stop repeating the bins", "Updated: “Bins” (repeat cleared)."),
        ("the bins are a one-off from now on", "Updated: “Bins” (repeat cleared)."),
        ("Bins ya no se repite, por favor", "Actualizada: “Bins” (sin repetición)."),
    ],
)
async def test_a_model_stops_a_repeat_and_the_reply_says_so(make_client: MakeClient, message: str, reply: str) -> None:
    llm = ScriptedLLM(calls(("update_task", {"task_id": "Bins", "recurrence": None})), completion("Done."))
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T12:00")))
    await create(client, title="Bins", due_date="2026-12-08", recurrence=WEEKLY_TUESDAY)

    body = (await chat(client, message)).json()

    assert reply in body["assistant_message"], body["assistant_message"]
    assert (await tasks_of(client))[0]["recurrence"] is None


async def test_a_repeat_set_in_the_skipped_hour_holds_the_time_the_user_gave(make_client: MakeClient) -> None:
    """Daily from 02:30 on the very day New York skips 02:00-03:00 (14 March 2027): the rule holds 02:30,
    the hour the user said, not the 03:30 the stored instant reads as that day."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2027-03-14T05:00")))
    task = await create(client, zone="America/New_York", due_at="2027-03-14T02:30", recurrence="FREQ=DAILY")

    assert task["recurrence"] == "FREQ=DAILY;BYHOUR=2;BYMINUTE=30"
    assert (await complete(client, task)).json()["due_at"] == "2027-03-15T02:30:00-04:00"
    evening = await create(client, zone="America/New_York", due_at="2027-03-15T20:00")  # 01:00 UTC the next day
    far = await client.patch(f"{TASKS}/{evening['id']}", json={"due_date": "9999-12-31"}, headers=auth())
    assert far.status_code == 200 and (far.json()["due_date"], far.json()["due_at"]) == ("9999-12-31", None)


async def test_an_edit_names_only_what_it_stored_and_a_moved_repeat_says_when_next(make_client: MakeClient) -> None:
    """A due time and a repeat the user's words do not give are dropped, and the reply does not call
    them cleared; update_task completing a repeating task says when it comes next."""
    invented = {"task_id": "Gym", "title": "Gym class", "due_at": "2026-12-07T19:00", "recurrence": "FREQ=WEEKLY"}
    llm = ScriptedLLM(
        calls(("update_task", invented)),
        completion("Done."),
        calls(("update_task", {"task_id": "Bins", "status": "completed"})),
        completion("Done."),
    )
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T12:00")))
    await create(client, title="Gym")
    await create(client, title="Bins", due_date="2026-12-08", recurrence=WEEKLY_TUESDAY)

    renamed = (await chat(client, "rename gym to gym class")).json()["assistant_message"]
    moved = (await chat(client, "mark bins as done")).json()["assistant_message"]

    assert renamed == "Updated: “Gym class” (title Gym class).", renamed
    assert "next 2026-12-15" in moved, moved


@pytest.mark.parametrize(
    ("message", "given", "repaired"),
    [
        ("add dentist tomorrow at 2pm", {"due_at": "2026-12-05T14:00"}, True),  # the time on the wrong day
        ("añade dentista mañana a las 14:00", {"due_at": "2026-12-06T12:00"}, True),  # the wrong time
        ("füge Zahnarzt morgen um 14 Uhr hinzu", {"due_at": "2026-12-06T14:00"}, False),
        ("füge Zahnarzt morgen um 14 Uhr hinzu", {"due_at": "2026-12-06T22:00:00Z"}, False),  # 14:00 in LA, as UTC
    ],
)
async def test_an_add_is_due_when_the_user_said_whatever_day_or_time_the_model_gave(
    make_client: MakeClient, message: str, given: dict[str, str], repaired: bool
) -> None:
    """A day and time the user said are what the task is due at (row V2 of the decision table, as for
    a due date alone): a model's other day or time is repaired and the record says so; the same time
    written with an offset is the user's and is kept as it came."""
    title = message.split()[1]
    llm = ScriptedLLM(calls(("add_task", {"title": title, **given})), completion("Done."))
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T18:00")))  # 10:00 on the 5th in LA

    body = (await chat(client, message, time_zone=LA)).json()

    task = (await tasks_of(client))[0]
    assert (task["due_at"], task["due_date"]) == ("2026-12-06T14:00:00-08:00", "2026-12-06"), body
    notes = body["tool_calls"][0]["result"]["data"].get("repaired") or []
    assert bool(notes) is repaired and all(n.startswith("due_at") for n in notes), notes


@pytest.mark.parametrize(
    ("message", "given", "due_at", "repaired"),
    [
        ("add dentist tomorrow at 2", {"due_at": "2026-12-06T14:00"}, "2026-12-06T14:00:00-08:00", False),
        ("add dentist tomorrow at 2", {"due_at": "2026-12-05T14:00"}, "2026-12-06T14:00:00-08:00", True),
        ("añade cena mañana a las 9", {"due_at": "2026-12-06T21:00"}, "2026-12-06T21:00:00-08:00", False),
        ("füge Training morgen um 7 hinzu", {"due_at": "2026-12-07T19:00"}, "2026-12-06T19:00:00-08:00", True),
        ("add dentist tomorrow at 2pm", {"due_at": "2026-12-06T02:00"}, "2026-12-06T14:00:00-08:00", True),
    ],
)
async def test_a_bare_hour_is_the_models_morning_or_afternoon_on_the_users_day(
    make_client: MakeClient, message: str, given: dict[str, str], due_at: str, repaired: bool
) -> None:
    """ "at 2" says the hour on a twelve-hour clock, not which half of the day: a model that reads it
    as the afternoon keeps its time, and only its day is taken from the words. An hour the words
    place ("2pm", "14:00") is theirs."""
    title = message.split()[1]
    llm = ScriptedLLM(calls(("add_task", {"title": title, **given})), completion("Done."))
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T18:00")))  # 10:00 on the 5th in LA

    body = (await chat(client, message, time_zone=LA)).json()

    assert (await tasks_of(client))[0]["due_at"] == due_at, body
    assert bool(body["tool_calls"][0]["result"]["data"].get("repaired")) is repaired


@pytest.mark.parametrize(
    ("message", "given", "due_date", "repaired"),
    [
        ("add dentist tomorrow at 2pm", {"title": "dentist", "due_date": "2026-12-05"}, "2026-12-06", True),
        ("add look at 2 houses", {"title": "look at 2 houses"}, None, False),  # "at 2" here is no time
        (
            "adicionar lavar as 3 camisas amanhã",
            {"title": "lavar as 3 camisas", "due_date": "2026-12-06"},
            "2026-12-06",
            False,
        ),
    ],
)
async def test_a_time_the_words_alone_give_is_not_added(
    make_client: MakeClient, message: str, given: dict[str, str], due_date: str | None, repaired: bool
) -> None:
    """The reader takes "at 2" for a time wherever it stands ("look at 2 houses"): a model that gives
    no due time keeps none; only a day the words say mends the model's (the first: its day, no time)."""
    llm = ScriptedLLM(calls(("add_task", given)), completion("Done."))
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T18:00")))  # 10:00 on the 5th in LA

    body = (await chat(client, message, time_zone=LA)).json()

    task = (await tasks_of(client))[0]
    assert (task["due_at"], task["due_date"]) == (None, due_date), body
    assert bool(body["tool_calls"][0]["result"]["data"].get("repaired")) is repaired
