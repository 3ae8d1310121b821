"""GET /mcp (issue 25): the event stream a stateless server never writes to is closed after
MCP_STREAM_IDLE_S, and a user holds at most MCP_STREAMS_PER_USER of them in a worker."""

from __future__ import annotations

import asyncio
import time

from support.api import MakeClient, auth
from support.fake_llm import ScriptedLLM

STREAM = {"Accept": "text/event-stream"}


async def test_an_event_stream_is_closed_after_the_idle_time(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(), mcp_stream_idle_s=0.3)
    started = time.monotonic()
    response = await asyncio.wait_for(client.get("/mcp", headers={**auth(), **STREAM}), 10)
    assert response.status_code == 200, response.text
    assert 0.25 <= time.monotonic() - started < 5


async def test_a_user_holds_at_most_the_cap_of_event_streams_and_others_are_not_held_up(
    make_client: MakeClient,
) -> None:
    client = await make_client(ScriptedLLM(), mcp_stream_idle_s=3.0, mcp_streams_per_user=2)
    held = [asyncio.create_task(client.get("/mcp", headers={**auth(), **STREAM})) for _ in range(2)]
    # Both open: the test transport hands a stream's headers over only when it closes, so nothing
    # says when a stream is held; a second under load (two test workers on one database) was not
    # always enough at 0.2 s, and the streams stay open for three.
    await asyncio.sleep(1.0)

    third = await asyncio.wait_for(client.get("/mcp", headers={**auth(), **STREAM}), 5)
    bobs = asyncio.create_task(client.get("/mcp", headers={**auth("bob"), **STREAM}))

    assert third.status_code == 429 and third.json()["error"] == "RATE_LIMITED"
    assert int(third.headers["Retry-After"]) >= 1
    assert [r.status_code for r in await asyncio.gather(*held)] == [200, 200]
    assert (await bobs).status_code == 200  # another user's cap is their own
    again = await asyncio.wait_for(client.get("/mcp", headers={**auth(), **STREAM}), 10)  # the slots are free
    assert again.status_code == 200
