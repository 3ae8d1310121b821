"""An app served for real: uvicorn on a loopback address, for clients that speak real HTTP (the MCP
SDK's client, HAProxy) rather than through ASGITransport."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import uvicorn

from support.api import AppClient
from support.fake_llm import ScriptedLLM


@dataclass
class Live:
    url: str
    client: AppClient  # the same app in-process, for the REST helpers


class LiveWith(Protocol):
    """The `live_with` fixture (tests/api/conftest.py): `await live_with(llm, **settings)` is the app
    (MakeClient's, with these Settings fields) served on loopback; `llm=None`: the offline model."""

    async def __call__(self, llm: ScriptedLLM | None, **settings: Any) -> Live: ...


def bound_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


@asynccontextmanager
async def serve(client: AppClient, *, sock: socket.socket | None = None, app: Any = None) -> AsyncIterator[Live]:
    """`client`'s app (or `app`, wrapping it) served by uvicorn on `sock` (default: a free loopback port)
    until the block ends. The app's lifespan is already running (make_client runs it)."""
    sock = sock or bound_socket()
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app or client.app,
        lifespan="off",
        log_level="warning",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield Live(url=f"http://{host}:{port}", client=client)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
