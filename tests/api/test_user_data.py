"""A user's data (issue 25): all of it as JSON, all of it erased in one transaction, and
conversations forgotten past CONVERSATION_RETENTION_DAYS. Another user's rows are never touched."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel
from support.api import NOW, MakeClient, auth, chat, make_settings, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.core.clock import FixedClock
from backend.app.services.user_data import export as user_data
from backend.app.services.user_data.maintenance import prune_once

pytestmark = pytest.mark.through_pgbouncer


def _adding(body: dict[str, Any]) -> Any:
    last = body["messages"][-1]
    if last["role"] == "tool":
        return completion("Added.")
    return calls(("add_task", {"title": last["content"].removeprefix("add ")}))


async def _rows(client: Any, user: str) -> dict[str, int]:
    """How many rows of each table carry `user`'s id."""
    found: dict[str, int] = {}
    async with client.app.state.engine.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            if "user_id" in table.c:
                query = sa.select(sa.func.count()).select_from(table).where(table.c.user_id == user)
                found[table.name] = int((await conn.execute(query)).scalar_one())
    return found


async def _both_users(make_client: MakeClient, **settings: Any) -> Any:
    client = await make_client(ScriptedLLM(default=_adding), **settings)
    for user in ("alice", "bob"):
        await seed_tasks(client, "Taxes", "Gym", user=user)
        await chat(client, "add milk", user=user)
        gym = next(t for t in await tasks_of(client, user) if t["title"] == "Gym")
        assert (await client.delete(f"/api/{user}/tasks/{gym['id']}", headers=auth(user))).status_code == 204
    return client


async def test_an_export_holds_every_row_of_the_users_own_data_and_nobody_elses(make_client: MakeClient) -> None:
    client = await _both_users(make_client)

    response = await client.get("/api/alice/export", headers=auth("alice"))

    assert response.status_code == 200, response.text
    assert response.headers["content-disposition"] == 'attachment; filename="taskchat-export.json"'
    data = response.json()
    assert sorted(t["title"] for t in data["tasks"]) == ["Taxes", "milk"]
    assert [d["title"] for d in data["deleted_tasks"]] == ["Gym"]
    assert len(data["conversations"]) == 1 and [m["role"] for m in data["messages"]] == ["user", "assistant"]
    assert {e["tool_name"] for e in data["tool_executions"]} >= {"add_task", "delete_task"}
    every = [
        row for key in ("tasks", "deleted_tasks", "conversations", "messages", "tool_executions") for row in data[key]
    ]
    assert every and {row["user_id"] for row in every} == {"alice"}
    assert (await client.get("/api/bob/export", headers=auth("alice"))).status_code == 403


async def test_erase_deletes_every_row_of_the_user_in_every_table_and_says_how_many(make_client: MakeClient) -> None:
    client = await _both_users(make_client)
    before, bobs = await _rows(client, "alice"), await _rows(client, "bob")

    response = await client.delete("/api/alice/data", headers=auth("alice"))

    assert response.status_code == 200, response.text
    erased = response.json()["erased"]
    assert {k: v for k, v in erased.items() if v} == {k: v for k, v in before.items() if v}
    assert sum(erased.values()) >= 8  # tasks, a deleted task, a conversation, messages, executions...
    assert set((await _rows(client, "alice")).values()) == {0}
    assert await _rows(client, "bob") == bobs  # untouched
    assert await tasks_of(client, "alice") == []
    assert (await client.delete("/api/bob/data", headers=auth("alice"))).status_code == 403


async def test_erase_is_all_or_nothing(make_client: MakeClient, monkeypatch: pytest.MonkeyPatch) -> None:
    client = await _both_users(make_client)
    before = await _rows(client, "alice")

    def fail(*_args: Any, **_kwargs: Any) -> None:  # after every delete, before the commit
        raise RuntimeError("the audit line could not be written")

    monkeypatch.setattr(user_data.log, "info", fail)
    with pytest.raises(RuntimeError):
        await client.delete("/api/alice/data", headers=auth("alice"))

    assert await _rows(client, "alice") == before


async def test_conversations_past_retention_are_forgotten_and_tasks_kept(
    make_client: MakeClient, database: str
) -> None:
    client = await make_client(ScriptedLLM(default=_adding))
    old = (await chat(client, "add milk")).json()["conversation_id"]
    await chat(client, "add eggs")  # another conversation, touched just now
    async with client.app.state.engine.begin() as conn:  # the first one was last touched 40 days ago
        stamp = sa.text("UPDATE conversations SET updated_at = :at WHERE id = :id")
        await conn.execute(stamp, {"at": NOW - timedelta(days=40), "id": old})
    sessionmaker = client.app.state.sessionmaker

    kept = await prune_once(sessionmaker, make_settings(database), clock=FixedClock(NOW))  # off by default
    assert kept is not None and not any("CONVERSATION" in k for k in kept)
    assert len((await client.get("/api/alice/conversations", headers=auth())).json()) == 2

    settings = make_settings(database, conversation_retention_days=30)
    removed = await prune_once(sessionmaker, settings, clock=FixedClock(NOW))

    assert removed is not None and removed["conversation rows past CONVERSATION_RETENTION_DAYS"] >= 4
    conversations = (await client.get("/api/alice/conversations", headers=auth())).json()
    assert len(conversations) == 1
    messages = await client.get(f"/api/alice/conversations/{conversations[0]['id']}/messages", headers=auth())
    assert [m["content"] for m in messages.json() if m["role"] == "user"] == ["add eggs"]
    assert sorted(t["title"] for t in await tasks_of(client)) == ["eggs", "milk"]  # tasks are the user's to delete
