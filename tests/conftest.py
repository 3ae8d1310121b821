"""Fixtures: a real database per test (Postgres by default, SQLite where asked), the app through
ASGITransport with its lifespan running, a fixed clock, and a scripted model. Only the LLM is fake."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from support.api import NOW, make_settings
from support.db import POSTGRES_URL, clean, migrate_sqlite, reset_postgres
from support.fake_llm import ScriptedLLM

from backend.app.core.clock import FixedClock
from backend.app.main import create_app


@pytest.fixture(autouse=True)
def _no_real_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only loopback may be reached: the model is always scripted or offline."""
    real = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if (
            isinstance(host, str)
            and not (host.startswith("127.") or host in ("localhost", "::1", ""))
            and self.family in (socket.AF_INET, socket.AF_INET6)
        ):
            raise RuntimeError(f"test tried to reach the network: {address}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="session")
async def _engines(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[dict[str, tuple[str, AsyncEngine]]]:
    await reset_postgres(POSTGRES_URL)
    sqlite_url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'taskchat.db'}"
    await migrate_sqlite(sqlite_url)
    engines = {
        "postgres": (POSTGRES_URL, create_async_engine(POSTGRES_URL)),
        "sqlite": (sqlite_url, create_async_engine(sqlite_url)),
    }
    yield engines
    for _url, engine in engines.values():
        await engine.dispose()


@pytest.fixture
async def database(request: pytest.FixtureRequest, _engines: dict[str, tuple[str, AsyncEngine]]) -> str:
    """The URL of a clean, migrated database: Postgres unless a test parametrizes `database` with 'sqlite'."""
    kind = getattr(request, "param", "postgres")
    url, engine = _engines[kind]
    await clean(engine)
    return url


ClientFactory = Callable[..., Awaitable[httpx.AsyncClient]]


@pytest.fixture
async def make_client(database: str) -> AsyncIterator[ClientFactory]:
    """`await make_client(llm)`: the app on the test database with `llm` as its model.

    `llm=None` with `offline=True` uses the built-in offline model (no key configured).
    """
    stack = AsyncExitStack()

    async def factory(
        llm: ScriptedLLM | None = None, *, offline: bool = False, clock: Any = None, **overrides: Any
    ) -> httpx.AsyncClient:
        if offline:
            overrides.setdefault("llm_api_key", None)
        settings = make_settings(database, **overrides)
        app = create_app(
            settings,
            llm_transport=None if offline or llm is None else llm.transport,
            clock=clock or FixedClock(NOW),
            configure_logs=False,
        )
        await stack.enter_async_context(app.router.lifespan_context(app))
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://taskchat.test")
        await stack.enter_async_context(client)
        client.app = app  # type: ignore[attr-defined]
        return client

    yield factory
    await stack.aclose()
