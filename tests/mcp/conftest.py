"""An MCP-capable live server: the test app (its lifespan already running) served by uvicorn on a free
loopback port, because the official MCP client speaks real HTTP (streamable HTTP, SSE)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import httpx2
import pytest
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from support.api import token_for


@dataclass
class Live:
    url: str
    client: httpx.AsyncClient  # the same app in-process, for the REST helpers


@pytest.fixture
async def live(make_client) -> AsyncIterator[Live]:  # type: ignore[no-untyped-def]
    client = await make_client(offline=True)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # lifespan="off": make_client already runs the app's lifespan (and with it the MCP session manager).
    config = uvicorn.Config(client.app, lifespan="off", log_level="warning", timeout_graceful_shutdown=2)  # type: ignore[attr-defined]
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    assert server.started, "uvicorn did not start"
    yield Live(url=f"http://127.0.0.1:{port}", client=client)
    server.should_exit = True
    await asyncio.wait_for(task, 10)


@pytest.fixture
def mcp_session():  # type: ignore[no-untyped-def]
    """`async with mcp_session(url, user) as session:` (a fixture: tests/mcp cannot be imported as `mcp`)."""
    return open_mcp_session


@asynccontextmanager
async def open_mcp_session(
    url: str, user: str = "alice", *, request_id: str | None = None
) -> AsyncIterator[ClientSession]:
    """The official SDK client over streamable HTTP, authenticated as `user`."""
    headers = {"Authorization": f"Bearer {token_for(user)}"}
    if request_id:
        headers["X-Request-ID"] = request_id
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session
