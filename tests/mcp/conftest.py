"""An MCP-capable live server: the test app (its lifespan already running) served by uvicorn on a free
loopback port, because the official MCP client speaks real HTTP (streamable HTTP, SSE)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from support.api import MakeClient, token_for
from support.live import Live, serve


@pytest.fixture
async def live(make_client: MakeClient) -> AsyncIterator[Live]:
    async with serve(await make_client(offline=True)) as served:
        yield served


@pytest.fixture
async def two_instances(make_client: MakeClient) -> AsyncIterator[tuple[Live, Live]]:
    """Two separate apps (two processes' worth of state) on one database, as behind a load balancer."""
    async with serve(await make_client(offline=True)) as first, serve(await make_client(offline=True)) as second:
        yield first, second


@pytest.fixture
def mcp_session() -> Callable[..., AbstractAsyncContextManager[ClientSession]]:
    """`async with mcp_session(url, user) as session:` (a fixture: tests/mcp cannot be imported as `mcp`)."""
    return open_mcp_session


@asynccontextmanager
async def open_mcp_session(
    url: str, user: str = "alice", *, request_id: str | None = None, time_zone: str | None = None
) -> AsyncIterator[ClientSession]:
    """The official SDK client over streamable HTTP, authenticated as `user` (in `time_zone`: X-Time-Zone)."""
    headers = {"Authorization": f"Bearer {token_for(user)}"}
    if time_zone:
        headers["X-Time-Zone"] = time_zone
    if request_id:
        headers["X-Request-ID"] = request_id
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session
