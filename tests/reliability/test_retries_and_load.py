"""Client retries and bursts: a retried request never creates a second task, even when the retries
race each other across two app instances (workers) sharing one database; and a burst of turns
bigger than the connection pool completes, because no connection is held while the model thinks."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import httpx
import pytest
from reliability.rel_support import Figures, app_sessions
from sqlalchemy.ext.asyncio import AsyncEngine
from support.api import MakeClient, auth, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion
from support.pgbouncer import POOLED

pytestmark = pytest.mark.through_pgbouncer  # the same tests through PgBouncer in transaction mode

KEYS = 10
RETRIES_PER_KEY = 10  # concurrent, split over two workers
REPLAYS_PER_KEY = 3  # sequential, after the first one finished


def _adding_model() -> Any:
    def answer(body: dict[str, Any]) -> Any:
        last = body["messages"][-1]
        if last["role"] == "tool":
            return completion("Added.")
        return calls(("add_task", {"title": last["content"].removeprefix("add ")}))

    return answer


async def _post(client: httpx.AsyncClient, message: str, key: str) -> httpx.Response:
    headers = {**auth(), "Idempotency-Key": key}
    return await client.post("/api/alice/chat", json={"message": message}, headers=headers)


async def test_retry_storm_creates_each_task_once(make_client: MakeClient, figures: Figures) -> None:
    llm = ScriptedLLM(default=_adding_model(), delay_s=0.05)
    workers = [await make_client(llm), await make_client(llm)]

    storm = [_post(workers[i % 2], f"add Errand {k}", f"key-{k}") for k in range(KEYS) for i in range(RETRIES_PER_KEY)]
    responses = await asyncio.gather(*storm)
    replays = [
        await _post(workers[r % 2], f"add Errand {k}", f"key-{k}") for k in range(KEYS) for r in range(REPLAYS_PER_KEY)
    ]

    statuses = Counter(r.status_code for r in [*responses, *replays])
    titles = Counter(t["title"] for t in await tasks_of(workers[0]))
    figures["idempotency"]["keys"] += KEYS
    figures["idempotency"]["requests"] += len(storm) + len(replays)
    figures["idempotency"]["duplicate_tasks"] += sum(n - 1 for n in titles.values())
    figures["idempotency"]["server_errors"] += sum(n for s, n in statuses.items() if s >= 500)
    figures["idempotency"]["model_calls"] += len(llm.requests)
    assert set(statuses) <= {200, 409}, statuses  # 409: that key's first request was still in flight
    assert titles == Counter({f"Errand {k}": 1 for k in range(KEYS)})
    assert len(llm.requests) == KEYS  # one turn ran per key; every other request was refused or replayed
    for k in range(KEYS):
        per_key = [r for r in replays if r.request.headers["Idempotency-Key"] == f"key-{k}"]
        assert all(r.status_code == 200 and r.headers["Idempotency-Replayed"] == "true" for r in per_key)


async def test_retry_after_a_provider_fault_runs_once(make_client: MakeClient, figures: Figures) -> None:
    """The first attempt fails (503, key released); the client's retries then run the turn once."""
    llm = ScriptedLLM(httpx.Response(503), default=_adding_model())
    client = await make_client(llm, llm_max_retries=0)

    first = await _post(client, "add Renew passport", "key-fault")
    retries = await asyncio.gather(*(_post(client, "add Renew passport", "key-fault") for _ in range(5)))
    again = await _post(client, "add Renew passport", "key-fault")

    assert first.status_code == 503
    assert {r.status_code for r in retries} <= {200, 409} and 200 in {r.status_code for r in retries}
    assert again.status_code == 200 and again.headers["Idempotency-Replayed"] == "true"
    titles = [t["title"] for t in await tasks_of(client)]
    figures["idempotency"]["keys"] += 1
    figures["idempotency"]["requests"] += 7
    figures["idempotency"]["duplicate_tasks"] += len(titles) - 1
    assert titles == ["Renew passport"]


async def test_burst_larger_than_the_pool_completes(
    make_client: MakeClient, database: str, probe: AsyncEngine, figures: Figures
) -> None:
    turns, delay = 40, 2.0
    peak: list[int] = []

    async def slow_list(_body: dict[str, Any]) -> dict[str, Any]:
        peak.append((await app_sessions(probe))[1])
        return calls(("list_tasks", {}))

    llm = ScriptedLLM(default=slow_list, delay_s=delay)
    # 5 + 5 connections for 40 simultaneous turns from 8 users.
    client = await make_client(llm, db_pool_size=5, db_max_overflow=5)

    started = time.monotonic()
    responses = await asyncio.gather(*(chat(client, "list my tasks", user=f"user{i % 8}") for i in range(turns)))
    elapsed = time.monotonic() - started

    statuses = Counter(r.status_code for r in responses)
    figures["load"]["turns"] += turns
    figures["load"]["ok"] += statuses[200]
    figures["load"]["server_errors"] += sum(n for s, n in statuses.items() if s >= 500)
    figures["load"]["peak_connections"] = max(figures["load"]["peak_connections"], *peak)
    assert statuses == Counter({200: turns})
    if database not in POOLED:  # through PgBouncer, the server connections are the bouncer's, not the app's
        assert 0 < max(peak) <= 10
    # Holding a connection through each 2 s model call would serialize 40 turns on 10 connections
    # (>= 4 rounds: 8 s). Not holding one, all wait on the model together: about 2 s, far under 6 s
    # even on a loaded machine (a margin wide enough that this is not a timing test).
    assert elapsed < 3 * delay, elapsed
