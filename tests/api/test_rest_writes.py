"""REST writes beside chat (issue 16): POST, PATCH and DELETE on /api/{user_id}/tasks go through the
same tools as a chat turn, so the same validation, owner scoping, audit records (source `rest`), undo
and metrics; with Idempotency-Key on create and ETag / If-Match on change and delete."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from support.api import NOW, AppClient, MakeClient, auth, chat, tasks_of

pytestmark = pytest.mark.through_pgbouncer

TODAY = NOW.date().isoformat()
NEXT_WEEK = "2026-11-30"


async def create(client: httpx.AsyncClient, user: str = "alice", key: str | None = None, **body: Any) -> httpx.Response:
    headers = {**auth(user), **({"Idempotency-Key": key} if key else {})}
    return await client.post(f"/api/{user}/tasks", json=body, headers=headers)


async def patch(
    client: httpx.AsyncClient, task_id: str, *, if_match: str | None = None, user: str = "alice", **body: Any
) -> httpx.Response:
    headers = {**auth(user), **({"If-Match": if_match} if if_match else {})}
    return await client.patch(f"/api/{user}/tasks/{task_id}", json=body, headers=headers)


async def delete(
    client: httpx.AsyncClient, task_id: str, *, if_match: str | None = None, user: str = "alice"
) -> httpx.Response:
    headers = {**auth(user), **({"If-Match": if_match} if if_match else {})}
    return await client.delete(f"/api/{user}/tasks/{task_id}", headers=headers)


async def audit(client: AppClient, database: str) -> list[dict[str, Any]]:
    engine = client.app.state.engine
    query = "SELECT tool_name, success, source, tool_call_id, conversation_id FROM tool_executions ORDER BY created_at"
    async with engine.connect() as conn:
        return [dict(r) for r in (await conn.execute(sa.text(query))).mappings()]


@pytest.fixture
async def client(make_client: MakeClient) -> AppClient:
    return await make_client(offline=True)


async def test_create_returns_201_with_the_task_its_etag_and_location(client: AppClient, database: str) -> None:
    response = await create(client, title="Buy milk", due_date=NEXT_WEEK, priority="high", tags=["shopping"])

    assert response.status_code == 201, response.text
    task = response.json()
    assert (task["title"], task["due_date"], task["priority"], task["tags"]) == (
        "Buy milk",
        NEXT_WEEK,
        "high",
        ["shopping"],
    )
    assert task["status"] == "pending" and task["version"] == 1
    assert response.headers["ETag"] == '"1"'
    assert response.headers["Location"] == f"/api/alice/tasks/{task['id']}"
    fetched = await client.get(response.headers["Location"], headers=auth())
    assert fetched.json() == task and fetched.headers["ETag"] == '"1"'
    assert [t["id"] for t in await tasks_of(client)] == [task["id"]]
    [row] = await audit(client, database)
    assert (row["tool_name"], row["success"], row["source"], row["conversation_id"]) == ("add_task", True, "rest", None)
    metrics = (await client.get("/metrics")).text
    assert 'taskchat_tool_results_total{source="rest",status="success",tool="add_task"} 1.0' in metrics


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"title": ""}, "title"),
        ({}, "title"),
        ({"title": "Old", "due_date": "2020-01-01"}, "in the past"),
        ({"title": "X", "priority": "urgent"}, "priority"),
        ({"title": "X", "owner": "bob"}, "owner"),
        ({"title": "X", "tags": ["x" * 51]}, "tags"),
    ],
)
async def test_create_refuses_what_the_tool_refuses_with_a_clear_422(
    client: AppClient, body: dict[str, Any], says: str
) -> None:
    response = await create(client, **body)
    assert response.status_code == 422, response.text
    assert response.json()["error"] == "VALIDATION_ERROR" and says in response.json()["detail"]
    assert await tasks_of(client) == []


async def test_a_retried_create_with_the_same_key_creates_one_task(client: AppClient) -> None:
    first = await create(client, key="k-1", title="Renew passport")
    again = await create(client, key="k-1", title="Renew passport")
    other_body = await create(client, key="k-1", title="Something else")
    racing = await asyncio.gather(*(create(client, key="k-2", title="Call the bank") for _ in range(6)))

    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotency-Replayed"] == "true" and again.json() == first.json()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert other_body.status_code == 422 and other_body.json()["error"] == "IDEMPOTENCY_KEY_REUSED"
    assert Counter(r.status_code for r in racing) <= Counter({201: 6, 409: 5}) and racing[0].status_code in (201, 409)
    assert sorted(t["title"] for t in await tasks_of(client)) == ["Call the bank", "Renew passport"]


async def test_a_refused_create_releases_its_key(client: AppClient) -> None:
    refused = await create(client, key="k-3", title="Old", due_date="2020-01-01")
    fixed = await create(client, key="k-3", title="Old", due_date=NEXT_WEEK)  # another body: the key was released
    assert refused.status_code == 422 and fixed.status_code == 201


async def test_patch_changes_only_what_it_sends_and_clears_with_null_and_empty(client: AppClient) -> None:
    task = (await create(client, title="Taxes", description="forms", due_date=NEXT_WEEK, tags=["money"])).json()

    renamed = await patch(client, task["id"], title="File taxes", priority="high")
    assert renamed.status_code == 200, renamed.text
    body = renamed.json()
    assert (body["title"], body["priority"], body["description"], body["due_date"], body["tags"]) == (
        "File taxes",
        "high",
        "forms",
        NEXT_WEEK,
        ["money"],
    )
    assert renamed.headers["ETag"] == '"2"' and body["version"] == 2

    cleared = (await patch(client, task["id"], due_date=None, description=None, tags=[])).json()
    assert (cleared["due_date"], cleared["description"], cleared["tags"]) == (None, None, [])

    done = (await patch(client, task["id"], status="completed")).json()
    reopened = (await patch(client, task["id"], status="pending")).json()
    assert (done["status"], reopened["status"]) == ("completed", "pending")


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({}, "VALIDATION_ERROR"),  # nothing to change
        ({"title": ""}, "VALIDATION_ERROR"),
        ({"due_date": "2020-01-01"}, "VALIDATION_ERROR"),
        ({"status": "deleted"}, "VALIDATION_ERROR"),
        ({"task_id": "someone else's", "title": "x"}, "VALIDATION_ERROR"),  # the path names the task
    ],
)
async def test_patch_refuses_bad_fields(client: AppClient, body: dict[str, Any], error: str) -> None:
    task = (await create(client, title="Gym")).json()
    response = await client.patch(f"/api/alice/tasks/{task['id']}", json=body, headers=auth())
    assert response.status_code == 422 and response.json()["error"] == error, response.text
    assert (await tasks_of(client))[0]["version"] == 1


async def test_if_match_changes_only_the_version_read(client: AppClient) -> None:
    created = await create(client, title="Laundry")
    task_id, read = created.json()["id"], created.headers["ETag"]

    moved_on = await patch(client, task_id, if_match=read, priority="low")
    assert moved_on.status_code == 200 and moved_on.headers["ETag"] == '"2"'

    stale = await patch(client, task_id, if_match=read, title="Stale write")
    assert stale.status_code == 412 and stale.json()["error"] == "PRECONDITION_FAILED"
    assert "version 2" in stale.json()["detail"]
    for bad in ('W/"2"', "2", '"two"', '"99999999999999999999999999"'):
        refused = await patch(client, task_id, if_match=bad, title="Odd tag")
        assert refused.status_code == 412, bad
    assert (await patch(client, task_id, if_match="*", title="Any version")).status_code == 200
    stale_delete = await delete(client, task_id, if_match=read)
    assert stale_delete.status_code == 412
    [task] = await tasks_of(client)
    assert (task["title"], task["priority"], task["version"]) == ("Any version", "low", 3)


async def test_two_writers_with_the_same_etag_one_wins_the_other_gets_412(client: AppClient) -> None:
    created = await create(client, title="Bread")
    task_id, read = created.json()["id"], created.headers["ETag"]

    results = await asyncio.gather(
        patch(client, task_id, if_match=read, title="Rye bread"),
        patch(client, task_id, if_match=read, title="White bread"),
    )

    assert sorted(r.status_code for r in results) == [200, 412]
    winner = next(r for r in results if r.status_code == 200).json()["title"]
    assert (await tasks_of(client))[0]["title"] == winner


async def test_delete_is_soft_and_undone_with_the_same_id(client: AppClient, database: str) -> None:
    task = (await create(client, title="Old invoices")).json()

    gone = await delete(client, task["id"])
    assert gone.status_code == 204 and gone.content == b""
    assert await tasks_of(client) == []
    assert (await delete(client, task["id"])).status_code == 404

    undone = await client.post("/api/alice/undo", headers=auth())
    assert undone.status_code == 200 and undone.json()["undone"][0]["action"] == "restored"
    [back] = await tasks_of(client)
    assert back["id"] == task["id"] and back["title"] == "Old invoices"
    assert [r["source"] for r in await audit(client, database)] == ["rest", "rest", "rest", "rest"]


async def test_a_rest_change_is_undone_from_chat(client: AppClient) -> None:
    task = (await create(client, title="Water plants")).json()
    await patch(client, task["id"], title="Water the plants", priority="high")

    body = (await chat(client, "undo")).json()

    assert body["tool_calls"][0]["name"] == "undo_last_change" and body["tool_calls"][0]["result"]["success"]
    [back] = await tasks_of(client)
    assert (back["title"], back["priority"]) == ("Water plants", "medium")


async def test_another_users_task_is_404_and_untouched(client: AppClient) -> None:
    task = (await create(client, title="Alice's secret")).json()

    assert (await patch(client, task["id"], user="bob", title="pwned")).status_code == 404
    assert (await delete(client, task["id"], user="bob")).status_code == 404
    assert (await client.get(f"/api/bob/tasks/{task['id']}", headers=auth("bob"))).status_code == 404
    assert (
        await client.patch(f"/api/alice/tasks/{task['id']}", json={"title": "x"}, headers=auth("bob"))
    ).status_code == 403
    assert (await client.get("/api/alice/tasks/not-a-uuid", headers=auth())).status_code == 422
    [kept] = await tasks_of(client)
    assert (kept["title"], kept["version"]) == ("Alice's secret", 1)


async def test_a_tool_this_deployment_denies_is_403_over_rest_too(make_client: MakeClient) -> None:
    client = await make_client(offline=True, tools_deny=["delete_task"])
    task = (await create(client, title="Keep me")).json()

    response = await delete(client, task["id"])

    assert response.status_code == 403 and "delete_task" in response.json()["detail"]
    assert [t["title"] for t in await tasks_of(client)] == ["Keep me"]


async def test_every_refused_write_is_recorded_as_refused(client: AppClient, database: str) -> None:
    """A write refused with a 4xx leaves an audit row that says so: not a success, the refusal's
    code, and no change (no task, no before or after) that undo or a reader could take for one."""
    task = (await create(client, title="Gym")).json()
    missing = "00000000-0000-4000-8000-000000000000"
    refused = [
        await create(client, title="Old", due_date="2020-01-01"),  # a due date in the past
        await patch(client, task["id"], if_match='"7"', title="Stale"),  # another version
        await patch(client, missing, title="Nobody"),  # no such task
        await delete(client, missing),
        await delete(client, task["id"], if_match='"9"'),
    ]
    assert [r.status_code for r in refused] == [422, 412, 404, 404, 412]
    nothing = await client.post("/api/bob/undo", headers=auth("bob"))  # bob has changed nothing
    assert nothing.status_code == 409

    engine = client.app.state.engine
    query = "SELECT tool_name, success, result, task_id, before, after FROM tool_executions ORDER BY created_at"
    async with engine.connect() as conn:
        rows = [dict(r) for r in (await conn.execute(sa.text(query))).mappings()]
    failed = [r for r in rows if not r["success"]]  # the test clock stands still: no order among them
    assert Counter(r["tool_name"] for r in failed) == Counter(
        add_task=1, update_task=2, delete_task=2, undo_last_change=1
    )
    for row in failed:
        result = row["result"] if isinstance(row["result"], dict) else json.loads(row["result"])
        assert result["success"] is False and result["code"], row
        assert (row["task_id"], row["before"], row["after"]) == (None, None, None), row
    assert [(t["title"], t["version"]) for t in await tasks_of(client)] == [("Gym", 1)]  # nothing refused changed it
