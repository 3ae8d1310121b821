"""The user's clock (issue 50): "today" is the user's, read in their IANA time zone, which comes from
the chat body's `time_zone`, the `X-Time-Zone` header, the token's `zoneinfo` claim, the zone they
stored, then DEFAULT_TIME_ZONE (CONTRACT.md, "Time zones, times and repeats"). Users at UTC-11,
UTC+14 and in a zone with daylight saving, each a minute either side of their local midnight and
across the change itself, on a frozen clock: the same message gives each the right local date."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from support.api import USER, MakeClient, auth, chat, tasks_of, token_for
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.core.clock import FixedClock
from backend.app.core.config import Settings

STREAM = "text/event-stream"
PAGO_PAGO, KIRITIMATI, LOS_ANGELES = "Pacific/Pago_Pago", "Pacific/Kiritimati", "America/Los_Angeles"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# (zone, the instant, the user's date then): a minute either side of local midnight, and in Los
# Angeles around both changes of 2026 (clocks forward on 8 March at 02:00, back on 1 November at 02:00).
MOMENTS = [
    (PAGO_PAGO, at("2026-12-05T10:59"), date(2026, 12, 4)),  # 23:59 at UTC-11; UTC is the 5th
    (PAGO_PAGO, at("2026-12-05T11:00"), date(2026, 12, 5)),  # 00:00
    (KIRITIMATI, at("2026-12-04T09:59"), date(2026, 12, 4)),  # 23:59 at UTC+14
    (KIRITIMATI, at("2026-12-04T10:00"), date(2026, 12, 5)),  # 00:00; UTC is still the 4th
    (LOS_ANGELES, at("2026-03-08T07:59"), date(2026, 3, 7)),  # 23:59 PST, the night before the change
    (LOS_ANGELES, at("2026-03-08T08:00"), date(2026, 3, 8)),  # 00:00 PST of the day clocks go forward
    (LOS_ANGELES, at("2026-03-08T10:30"), date(2026, 3, 8)),  # 03:30 PDT, just after the change
    (LOS_ANGELES, at("2026-03-09T06:59"), date(2026, 3, 8)),  # 23:59 PDT: a day of 23 hours
    (LOS_ANGELES, at("2026-03-09T07:00"), date(2026, 3, 9)),  # 00:00 PDT
    (LOS_ANGELES, at("2026-11-01T08:30"), date(2026, 11, 1)),  # 01:30 PDT, the first of the repeated hour
    (LOS_ANGELES, at("2026-11-01T09:30"), date(2026, 11, 1)),  # 01:30 PST, the second
    (LOS_ANGELES, at("2026-11-02T07:59"), date(2026, 11, 1)),  # 23:59 PST: a day of 25 hours
]
IDS = [f"{zone}@{moment:%m-%dT%H:%M}Z" for zone, moment, _ in MOMENTS]


def system_text(llm: ScriptedLLM, index: int = 0) -> str:
    return str(llm.requests[index]["messages"][0]["content"])


@pytest.mark.parametrize(("zone", "moment", "local"), MOMENTS, ids=IDS)
async def test_today_is_the_users_date_in_their_zone(
    make_client: MakeClient, zone: str, moment: datetime, local: date
) -> None:
    """The model is told the user's date and zone; the date it gives for "today" is kept (not taken
    for a past date, not dropped as a date nobody said), and stored as the user's today."""
    llm = ScriptedLLM(calls(("add_task", {"title": "Pay rent", "due_date": local.isoformat()})))
    client = await make_client(llm, clock=FixedClock(moment))

    body = (await chat(client, "add pay rent today", time_zone=zone)).json()

    assert f"Today's date: {local.isoformat()} ({local:%A}), in the user's time zone {zone}." in system_text(llm)
    assert body["action_metadata"]["success"] is True, body["assistant_message"]
    assert body["execution_metadata"]["time_zone"] == zone
    assert [(t["title"], t["due_date"]) for t in await tasks_of(client)] == [("Pay rent", local.isoformat())]


@pytest.mark.parametrize(("zone", "moment", "local"), MOMENTS, ids=IDS)
async def test_the_offline_model_reads_tomorrow_from_the_users_today(
    make_client: MakeClient, zone: str, moment: datetime, local: date
) -> None:
    client = await make_client(offline=True, clock=FixedClock(moment))

    response = await client.post(
        f"/api/{USER}/chat", json={"message": "add water the plants tomorrow"}, headers={**auth(), "X-Time-Zone": zone}
    )

    assert response.status_code == 200, response.text
    tasks = await tasks_of(client)
    assert [t["due_date"] for t in tasks] == [(local + timedelta(days=1)).isoformat()], tasks


async def test_the_same_instant_is_a_different_day_for_each_user(make_client: MakeClient) -> None:
    """03:00 UTC on 5 December: the 4th in Pago Pago and Los Angeles, the 5th in London and Kiritimati."""
    client = await make_client(offline=True, clock=FixedClock(at("2026-12-05T03:00")))
    expected = {
        PAGO_PAGO: "2026-12-04",
        LOS_ANGELES: "2026-12-04",
        "Europe/London": "2026-12-05",
        KIRITIMATI: "2026-12-05",
    }

    for n, zone in enumerate(expected):
        user = f"user{n}"
        response = await chat(client, "add pay rent today", user=user, time_zone=zone)
        assert response.status_code == 200, response.text
        assert [t["due_date"] for t in await tasks_of(client, user)] == [expected[zone]], zone


# -- where the zone comes from ---------------------------------------------------------------------


async def prompt_zone(client: Any, llm: ScriptedLLM, *, headers: dict[str, str], **body: Any) -> str:
    llm.push(completion("Hello!"))
    response = await client.post(f"/api/{USER}/chat", json={"message": "hi", **body}, headers=headers)
    assert response.status_code == 200, response.text
    return system_text(llm, -1).split("in the user's time zone ")[1].split(".\n")[0]


async def test_the_zone_comes_from_body_then_header_then_claim_then_stored_then_default(
    make_client: MakeClient,
) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm, default_time_zone="Europe/Lisbon")
    claimed = {"Authorization": f"Bearer {token_for(zoneinfo='Asia/Tokyo')}"}

    assert await prompt_zone(client, llm, headers=auth()) == "Europe/Lisbon"  # DEFAULT_TIME_ZONE
    stored = await client.put(f"/api/{USER}/preferences", json={"time_zone": "Europe/Berlin"}, headers=auth())
    assert stored.status_code == 200 and stored.json() == {
        "time_zone": "Europe/Berlin",
        "effective_time_zone": "Europe/Berlin",
    }
    assert await prompt_zone(client, llm, headers=auth()) == "Europe/Berlin"
    assert await prompt_zone(client, llm, headers=claimed) == "Asia/Tokyo"
    assert await prompt_zone(client, llm, headers={**claimed, "X-Time-Zone": "America/Chicago"}) == "America/Chicago"
    both = {**claimed, "X-Time-Zone": "America/Chicago"}
    assert await prompt_zone(client, llm, headers=both, time_zone="Australia/Perth") == "Australia/Perth"


async def test_an_unknown_zone_is_a_422_wherever_it_is_given(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("Hello!"))
    client = await make_client(llm)
    url = f"/api/{USER}/chat"
    for bad in ("Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime", "Europe/", "x" * 70, "Europe/Paris\x00"):
        given = [
            client.post(url, json={"message": "hi", "time_zone": bad}, headers=auth()),
            client.post(url, json={"message": "hi"}, headers={**auth(), "X-Time-Zone": bad}),
            client.put(f"/api/{USER}/preferences", json={"time_zone": bad}, headers=auth()),
            client.post(f"/api/{USER}/tasks", json={"title": "x"}, headers={**auth(), "X-Time-Zone": bad}),
            client.post(
                url, json={"message": "hi", "time_zone": bad}, headers={**auth(), "Accept": "text/event-stream"}
            ),
        ]
        for request in given:
            try:
                response = await request
            except Exception:  # a header with a NUL cannot even be sent: nothing to check
                assert "\x00" in bad
                continue
            assert response.status_code == 422, (bad, response.text)
            assert response.json()["error"] in ("INVALID_TIME_ZONE", "VALIDATION_ERROR"), response.text
    assert llm.requests == []  # no turn ran on a zone it could not read
    assert await tasks_of(client) == []
    # A token's claim that names no zone is a 422 too (the contract: "an unknown name is 422"), unless the
    # request names its zone ahead of it; storing a zone is not refused for it.
    bad_claim = {"Authorization": f"Bearer {token_for(zoneinfo='GMT+2')}"}
    claimed = await client.post(url, json={"message": "hi"}, headers=bad_claim)
    assert claimed.status_code == 422 and "zoneinfo" in claimed.json()["detail"]
    named = await client.post(url, json={"message": "hi", "time_zone": "Europe/Oslo"}, headers=bad_claim)
    assert named.status_code == 200 and "in the user's time zone Europe/Oslo." in str(
        llm.requests[-1]["messages"][0]["content"]
    )
    stored = await client.put(f"/api/{USER}/preferences", json={"time_zone": "Asia/Tokyo"}, headers=bad_claim)
    assert stored.status_code == 200 and stored.json()["time_zone"] == "Asia/Tokyo"
    for local_file in ("localtime", "posixrules", "right/UTC"):  # files ZoneInfo reads, no IANA names
        assert (
            await client.post(url, json={"message": "hi", "time_zone": local_file}, headers=auth())
        ).status_code == 422


async def test_a_request_with_a_zone_does_not_read_the_stored_one(make_client: MakeClient) -> None:
    """A stored zone that can no longer be read (a name tzdata dropped) does not fail requests that say theirs."""
    import sqlalchemy as sa

    llm = ScriptedLLM(default=completion("Hello!"))
    client = await make_client(llm)
    app: Any = client.app
    async with app.state.sessionmaker() as session:
        await session.execute(
            sa.text("INSERT INTO user_preferences (user_id, time_zone, updated_at) VALUES (:u, 'Gone/Zone', :t)"),
            {"u": USER, "t": datetime.now(UTC)},
        )
        await session.commit()

    assert (await chat(client, "hi", time_zone="Europe/Paris")).status_code == 200
    assert (await chat(client, "hi")).status_code == 422  # the stored name is said to be no zone


def test_default_time_zone_must_be_an_iana_name() -> None:
    assert Settings(_env_file=None, default_time_zone="Asia/Kolkata").default_time_zone == "Asia/Kolkata"
    with pytest.raises(ValueError, match="IANA"):
        Settings(_env_file=None, default_time_zone="Mars/Base")


# -- REST ----------------------------------------------------------------------------------------------


async def test_rest_due_dates_are_checked_against_the_users_today(make_client: MakeClient) -> None:
    """02:00 UTC on 5 December is 18:00 on the 4th in Los Angeles: the 4th is today there (201) and
    yesterday in UTC (422); in Kiritimati it is 16:00 on the 5th, so the 4th is past there."""
    client = await make_client(ScriptedLLM(), clock=FixedClock(at("2026-12-05T02:00")))
    url, fourth = f"/api/{USER}/tasks", {"title": "Pay rent", "due_date": "2026-12-04"}

    in_utc = await client.post(url, json=fourth, headers=auth())
    in_la = await client.post(url, json=fourth, headers={**auth(), "X-Time-Zone": LOS_ANGELES})
    in_kiritimati = await client.post(url, json=fourth, headers={**auth(), "X-Time-Zone": KIRITIMATI})

    assert in_utc.status_code == 422 and "2026-12-05" in in_utc.json()["detail"]
    assert in_la.status_code == 201, in_la.text
    assert in_kiritimati.status_code == 422 and "2026-12-05" in in_kiritimati.json()["detail"]
    task_id = in_la.json()["id"]
    moved = await client.patch(f"{url}/{task_id}", json={"due_date": "2026-12-04"}, headers=auth())
    assert moved.status_code == 422  # PATCH reads the same clock: in UTC the 4th is past
    claimed = {"Authorization": f"Bearer {token_for(zoneinfo=LOS_ANGELES)}"}
    assert (await client.patch(f"{url}/{task_id}", json={"due_date": "2026-12-04"}, headers=claimed)).status_code == 200


@pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)
async def test_the_stored_zone_is_read_returned_exported_and_erased(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())
    url = f"/api/{USER}/preferences"

    assert (await client.get(url, headers=auth())).json() == {"time_zone": None, "effective_time_zone": "UTC"}
    assert (await client.put(url, json={"time_zone": "Asia/Kolkata"}, headers=auth())).status_code == 200
    assert (await client.get(url, headers=auth())).json() == {
        "time_zone": "Asia/Kolkata",
        "effective_time_zone": "Asia/Kolkata",
    }
    shown = await client.get(url, headers={**auth(), "X-Time-Zone": KIRITIMATI})
    assert shown.json() == {"time_zone": "Asia/Kolkata", "effective_time_zone": KIRITIMATI}
    exported = (await client.get(f"/api/{USER}/export", headers=auth())).json()
    assert [p["time_zone"] for p in exported["preferences"]] == ["Asia/Kolkata"]
    assert (await client.get(url, headers=auth("bob"))).status_code == 403
    assert (await client.get("/api/bob/preferences", headers=auth("bob"))).json()["time_zone"] is None

    assert (await client.put(url, json={"time_zone": None}, headers=auth())).json()["time_zone"] is None
    assert (await client.put(url, json={"time_zone": "Asia/Kolkata"}, headers=auth())).status_code == 200
    erased = (await client.delete(f"/api/{USER}/data", headers=auth())).json()["erased"]
    assert erased["user_preferences"] == 1
    assert (await client.get(url, headers=auth())).json()["time_zone"] is None


async def test_overdue_is_the_users_in_listings_and_the_rest_filter(make_client: MakeClient) -> None:
    """02:00 UTC on 5 December: a task due on the 4th is overdue in UTC and Kiritimati, not yet in Los
    Angeles, where it is still the 4th (18:00)."""
    from support.api import seed_tasks

    llm = ScriptedLLM()
    client = await make_client(llm, clock=FixedClock(at("2026-12-05T02:00")))
    await seed_tasks(client, "Pay rent", due_date=date(2026, 12, 4))
    await seed_tasks(client, "Gym", due_date=date(2026, 12, 5))

    async def overdue(zone: str) -> list[str]:
        response = await client.get(f"/api/{USER}/tasks?overdue=true", headers={**auth(), "X-Time-Zone": zone})
        assert response.status_code == 200, response.text
        return [t["title"] for t in response.json()]

    assert await overdue("UTC") == ["Pay rent"] and await overdue(KIRITIMATI) == ["Pay rent"]
    assert await overdue(LOS_ANGELES) == []
    assert len(await tasks_of(client)) == 2  # without the filter, every task
    listing = calls(("list_tasks", {"status": "all"}))
    llm.push(listing, completion("Here they are."))
    in_utc = (await chat(client, "show my tasks", time_zone="UTC")).json()["assistant_message"]
    llm.push(listing, completion("Here they are."))
    in_la = (await chat(client, "show my tasks", time_zone=LOS_ANGELES)).json()["assistant_message"]
    assert "Pay rent (pending, due 2026-12-04, overdue)" in in_utc, in_utc
    assert "overdue" not in in_la, in_la
