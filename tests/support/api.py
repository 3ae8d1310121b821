"""Helpers every API test uses: settings, tokens, and thin wrappers around the endpoints."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from backend.app.core.config import Settings
from backend.app.core.security import create_token

TEST_SECRET = "test-secret-0123456789-abcdefghijklmnopqrstuvwxyz"
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
USER = "alice"


def make_settings(database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "environment": "test",
        "database_url": database_url,
        "jwt_secret": TEST_SECRET,
        "llm_api_key": "test-key",
        "llm_base_url": "http://llm.test/v1",
        "llm_model": "test/scripted-model",
        "rate_limit_per_minute": 10_000,
        "log_json": False,
        **overrides,
    }
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def token_for(user: str = USER, *, minutes: int = 60) -> str:
    settings = Settings(_env_file=None, jwt_secret=TEST_SECRET)  # type: ignore[call-arg]
    return create_token(settings=settings, user_id=user, minutes=minutes, now=datetime.now(UTC).timestamp())


def auth(user: str = USER) -> dict[str, str]:
    return {"Authorization": f"Bearer {token_for(user)}"}


async def chat(client: httpx.AsyncClient, message: str, *, user: str = USER, **body: Any) -> httpx.Response:
    return await client.post(f"/api/{user}/chat", json={"message": message, **body}, headers=auth(user))


async def tasks_of(client: httpx.AsyncClient, user: str = USER, status: str = "all") -> list[dict[str, Any]]:
    response = await client.get(f"/api/{user}/tasks", params={"status": status}, headers=auth(user))
    assert response.status_code == 200, response.text
    return list(response.json())
