"""Helpers every API test uses: settings, tokens, and thin wrappers around the endpoints."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any, Protocol

import httpx
from fastapi import FastAPI

from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.core.security import create_token
from support.fake_llm import ScriptedLLM
from support.pgbouncer import POOLED

TEST_SECRET = "tZ4q8Lm2Xv9Rk1Wp7Nc3Hy6Bd0Gs5Fj-uE_aQoTiVeKx"  # random-looking: production accepts it
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
USER = "alice"


class AppClient(httpx.AsyncClient):
    """A client of `app` in-process (ASGITransport), which keeps the app for what a test reads from
    its state (the engine, the sessionmaker, the services)."""

    def __init__(self, app: FastAPI) -> None:
        super().__init__(transport=httpx.ASGITransport(app=app), base_url="http://taskchat.test")
        self.app = app


class MakeClient(Protocol):
    """The `make_client` fixture (tests/conftest.py): `await make_client(llm)` is a client of the app
    on the test database with `llm` as its model, its lifespan running until the test ends.

    `offline=True` (no `llm`) uses the built-in offline model (no key configured); `clock` is the
    app's clock (default: `FixedClock(NOW)`); every other keyword is a Settings field, as
    `make_settings` takes it (`database_url=` reaches the test database another way: a proxy).
    """

    async def __call__(
        self, llm: ScriptedLLM | None = None, *, offline: bool = False, clock: Clock | None = None, **settings: Any
    ) -> AppClient: ...


def make_settings(database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "environment": "test",
        "database_url": database_url,
        "jwt_secret": TEST_SECRET,
        "llm_api_key": "test-key",
        "llm_base_url": "http://llm.test/v1",
        "llm_model": "test/scripted-model",
        "llm_provider": "openrouter",  # the scripted model speaks as OpenRouter does; detection has its own tests
        "rate_limit_per_minute": 10_000,
        "log_json": False,
        "db_pooler": "transaction" if database_url in POOLED else "none",
        **overrides,
    }
    return Settings(_env_file=None, **values)


@cache
def _signing_settings() -> Settings:
    # Built once: a Settings reads the environment for each of its fields (~5 ms), and every request
    # of every test signs a token.
    return Settings(_env_file=None, jwt_secret=TEST_SECRET)


def token_for(user: str = USER, *, minutes: int = 60, zoneinfo: str | None = None) -> str:
    now = datetime.now(UTC).timestamp()
    return create_token(settings=_signing_settings(), user_id=user, minutes=minutes, now=now, zoneinfo=zoneinfo)


# An MCP client's first request (JSON-RPC `initialize`), as a raw HTTP client sends it to /mcp.
INIT_MCP = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def auth(user: str = USER) -> dict[str, str]:
    return {"Authorization": f"Bearer {token_for(user)}"}


async def chat(client: httpx.AsyncClient, message: str, *, user: str = USER, **body: Any) -> httpx.Response:
    return await client.post(f"/api/{user}/chat", json={"message": message, **body}, headers=auth(user))


async def tasks_of(client: httpx.AsyncClient, user: str = USER, status: str = "all") -> list[dict[str, Any]]:
    response = await client.get(f"/api/{user}/tasks", params={"status": status}, headers=auth(user))
    assert response.status_code == 200, response.text
    return list(response.json())


async def statuses(client: httpx.AsyncClient, user: str = USER) -> dict[str, str]:
    """Each task's status by its title."""
    return {t["title"]: t["status"] for t in await tasks_of(client, user)}


async def seed_tasks(client: AppClient, *titles: str, user: str = USER, **fields: Any) -> None:
    """Tasks written straight through the repository, so no scripted model answer is spent on them."""
    from backend.app.db.repositories.tasks import TaskRepository
    from backend.app.db.session import unit_of_work

    async with unit_of_work(client.app.state.sessionmaker) as session:
        repo = TaskRepository(session, user)
        for title in titles:
            await repo.add(
                title=title,
                description=fields.get("description"),
                priority=fields.get("priority", "medium"),
                due_date=fields.get("due_date"),
                tags=list(fields.get("tags", [])),
            )
