"""The database going away under load and coming back (a TCP proxy in front of the test Postgres,
stopped and started): every request is answered, a 503 with `Retry-After` in the error JSON while
it is gone, never a 500; `/ready` says so and `/health` (liveness) stays cheap and up; once it is
back, requests succeed again with no restart."""

from __future__ import annotations

import asyncio
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

import httpx
from reliability.rel_support import Figures, assert_error_shape
from support.api import USER, MakeClient, auth, chat, seed_tasks
from support.fake_llm import ScriptedLLM, completion
from support.tcp_proxy import TcpProxy


def _through(url: str, port: int) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}@127.0.0.1:{port}" if parts.username else f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


async def _load(client: httpx.AsyncClient, seen: list[httpx.Response], stop: asyncio.Event) -> None:
    while not stop.is_set():
        seen.append(await client.get(f"/api/{USER}/tasks", headers=auth()))
        seen.append(await chat(client, "hello"))
        await asyncio.sleep(0.01)


async def test_a_database_stopped_and_started_under_load_is_503_then_recovers(
    make_client: MakeClient, database: str, figures: Figures
) -> None:
    target = urlsplit(database)
    proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 5432)
    await proxy.start()
    client = await make_client(ScriptedLLM(default=completion("Hi.")), database_url=_through(database, proxy.port))
    await seed_tasks(client, "Taxes")
    before: list[httpx.Response] = []
    during: list[httpx.Response] = []
    after: list[httpx.Response] = []
    try:
        for seen in (before, during):
            stop = asyncio.Event()
            workers = [asyncio.create_task(_load(client, seen, stop)) for _ in range(4)]
            if seen is during:
                await proxy.stop()  # under load: connections in use are cut, new ones refused
            await asyncio.sleep(0.8)
            if seen is during:
                ready, health = await client.get("/ready"), await client.get("/health")
            stop.set()
            await asyncio.gather(*workers)
        await proxy.start()
        for _ in range(20):  # the pool's dead connections are found and replaced, then all is well
            response = await client.get(f"/api/{USER}/tasks", headers=auth())
            after.append(response)
            if response.status_code == 200 and len(after) > 1 and after[-2].status_code == 200:
                break
        recovered = await client.get("/ready")
    finally:
        await proxy.stop()

    statuses = Counter(r.status_code for r in before + during + after)
    figures["outage"]["requests"] += sum(statuses.values())
    figures["outage"]["server_errors"] += statuses[500]
    assert statuses[500] == 0, statuses
    assert {r.status_code for r in before} == {200}, Counter(r.status_code for r in before)
    outage = [r for r in during if r.status_code == 503]
    assert outage, Counter(r.status_code for r in during)
    assert {r.status_code for r in during} <= {200, 503}, Counter(r.status_code for r in during)
    for response in outage:
        assert_error_shape(response, 503, "DATABASE_UNAVAILABLE")
        assert int(response.headers["Retry-After"]) >= 1
    assert ready.status_code == 503 and ready.json()["error"] == "NOT_READY"
    assert health.status_code == 200
    assert [r.status_code for r in after[-2:]] == [200, 200], [r.status_code for r in after]
    assert recovered.status_code == 200, recovered.text
