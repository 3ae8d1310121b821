"""A database that takes connections and statements and never answers (a stuck server, a stalled
network, where Postgres's own statement_timeout cannot reach the app) is an outage like a refused
one: every request gets a 503 `DATABASE_UNAVAILABLE` with `Retry-After` within seconds (asyncpg
alone would wait 60 s for a connection, then answer 500; forever for a statement), and once the
database answers again requests succeed with no restart."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from support.api import USER, MakeClient, auth, chat, seed_tasks
from support.fake_llm import ScriptedLLM, completion
from support.tcp_proxy import TcpProxy, silent_server

# DB_CONNECT_TIMEOUT_S is 5 s, DB_STATEMENT_TIMEOUT_MS 5,000 (the client waits 1 s more): a few seconds.
WITHIN_S = 7.5


def _port(url: str, port: int) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}@127.0.0.1:{port}" if parts.username else f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


async def _timed(request: Any) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = await request
    return response, time.monotonic() - started


def _is_outage(response: httpx.Response) -> bool:
    return (
        response.status_code == 503
        and response.json() == {"error": "DATABASE_UNAVAILABLE", "detail": response.json()["detail"]}
        and int(response.headers["Retry-After"]) >= 1
    )


async def test_a_database_that_never_answers_a_connection_is_a_503_within_seconds(
    make_client: MakeClient, database: str
) -> None:
    async with silent_server() as port:
        client = await make_client(ScriptedLLM(default=completion("Hi.")), database_url=_port(database, port))

        *answers, (ready, _) = await asyncio.gather(
            _timed(client.get(f"/api/{USER}/tasks", headers=auth())),
            _timed(chat(client, "add buy milk")),
            _timed(client.post(f"/api/{USER}/tasks", json={"title": "Buy milk"}, headers=auth())),
            _timed(client.get("/ready")),
        )

    for response, took in answers:
        assert _is_outage(response), (response.status_code, response.text)
        assert took < WITHIN_S, took
    assert ready.status_code == 503 and ready.json()["error"] == "NOT_READY"


async def test_a_database_that_stops_answering_is_a_503_and_answers_again_after(
    make_client: MakeClient, database: str
) -> None:
    """Through a proxy to the test Postgres that stops forwarding (the pool's connections stay open
    and silent; new ones are taken and never answered) and then forwards again."""
    target = urlsplit(database)
    proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 5432)
    await proxy.start()
    try:
        client = await make_client(ScriptedLLM(default=completion("Hi.")), database_url=_port(database, proxy.port))
        await seed_tasks(client, "Taxes")
        # Several requests at once: the pool keeps several connections, which the frozen requests take.
        before = await asyncio.gather(*(client.get(f"/api/{USER}/tasks", headers=auth()) for _ in range(5)))

        proxy.freeze()
        frozen = await asyncio.gather(
            _timed(client.get(f"/api/{USER}/tasks", headers=auth())),
            _timed(chat(client, "hello")),
            _timed(client.get(f"/api/{USER}/conversations", headers=auth())),  # through the ORM's session
            _timed(client.get(f"/api/{USER}/tasks", headers=auth())),
        )
        proxy.thaw()
        after = [await client.get(f"/api/{USER}/tasks", headers=auth()), await chat(client, "hello")]
    finally:
        await proxy.stop()

    assert [r.status_code for r in before] == [200] * 5 and [t["title"] for t in before[0].json()] == ["Taxes"]
    for response, took in frozen:
        assert _is_outage(response), (response.status_code, response.text)
        assert took < WITHIN_S, took
    assert [r.status_code for r in after] == [200, 200], [r.text[:200] for r in after]
    assert [t["title"] for t in after[0].json()] == ["Taxes"]
