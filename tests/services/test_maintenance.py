"""Retention (issue 15): nothing grows without bound. `taskchat prune` and the service's own periodic
prune forget expired idempotency keys, rate-limit events out of the window and deleted tasks past
retention; on Postgres one instance at a time (an advisory lock)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from support.api import NOW, MakeClient, auth, chat, make_settings, seed_tasks
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.core.clock import FixedClock
from backend.app.services.user_data.maintenance import PRUNE_LOCK_KEY, prune_once

pytestmark = pytest.mark.through_pgbouncer  # the same tests through PgBouncer in transaction mode


async def count(client: Any, table: str) -> int:
    async with client.app.state.engine.connect() as conn:
        return int((await conn.execute(sa.text(f"SELECT count(*) FROM {table}"))).scalar_one())


async def test_each_table_is_pruned_past_its_retention(make_client: MakeClient, database: str) -> None:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "Gym"})), default=completion("hi"))
    client = await make_client(llm, prune_interval_s=0)
    await seed_tasks(client, "Gym")
    await client.post("/api/alice/chat", json={"message": "delete gym"}, headers={**auth(), "Idempotency-Key": "k"})
    await chat(client, "hello")
    assert (await count(client, "idempotency_keys"), await count(client, "rate_limit_events")) == (1, 2)
    assert await count(client, "deleted_tasks") == 1
    settings = make_settings(database, undo_retention_days=30, idempotency_ttl_hours=24)
    sessionmaker = client.app.state.sessionmaker

    # The app's clock stamps keys and rate events (NOW); deleted tasks carry the real time.
    soon = await prune_once(sessionmaker, settings, clock=FixedClock(NOW + timedelta(minutes=2)))
    later = await prune_once(sessionmaker, settings, clock=FixedClock(datetime.now(UTC) + timedelta(days=31)))

    assert soon == {
        "deleted tasks past UNDO_RETENTION_DAYS": 0,
        "idempotency keys past IDEMPOTENCY_TTL_HOURS": 0,
        "rate-limit events out of the window": 2,
        "model outcomes past ROUTING_WINDOW": 0,
    }
    assert later is not None and later["idempotency keys past IDEMPOTENCY_TTL_HOURS"] == 1
    assert later["deleted tasks past UNDO_RETENTION_DAYS"] == 1
    for table in ("idempotency_keys", "rate_limit_events", "deleted_tasks"):
        assert await count(client, table) == 0, table


async def test_the_service_prunes_by_itself(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(default=completion("hi")), prune_interval_s=0.05)
    async with client.app.state.engine.begin() as conn:
        old = NOW - timedelta(minutes=5)  # the app's clock is NOW
        await conn.execute(
            sa.text("INSERT INTO rate_limit_events VALUES (:id, 'alice', :at)"), {"id": "0" * 32, "at": old}
        )

    for _ in range(100):
        if await count(client, "rate_limit_events") == 0:
            break
        await asyncio.sleep(0.02)

    assert await count(client, "rate_limit_events") == 0


async def test_one_instance_prunes_at_a_time(make_client: MakeClient, database: str) -> None:
    client = await make_client(ScriptedLLM(), prune_interval_s=0)
    sessionmaker = client.app.state.sessionmaker
    async with client.app.state.engine.begin() as holder:
        await holder.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": PRUNE_LOCK_KEY})

        skipped = await prune_once(sessionmaker, make_settings(database))

    done = await prune_once(sessionmaker, make_settings(database))
    assert skipped is None and done is not None
