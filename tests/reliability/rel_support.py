"""Helpers of the reliability suite (imported as `reliability.rel_support`; `tests` is on the path)."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime
from typing import Any

import httpx
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine
from support.api import auth

Figures = defaultdict[str, Counter[str]]
"""section -> counter name -> count; see specs/reliability.md."""

IDLE_IN_TRANSACTION = sa.text(
    "SELECT count(*) FILTER (WHERE state LIKE 'idle in transaction%' AND xact_start <= :since) AS idle_tx, "
    "count(*) AS sessions "
    "FROM pg_stat_activity WHERE datname = current_database() AND application_name = :app"
)


async def db_now(engine: AsyncEngine) -> datetime:
    async with engine.connect() as conn:
        now: datetime = (await conn.execute(sa.text("SELECT clock_timestamp()"))).scalar_one()
    return now


async def app_sessions(
    engine: AsyncEngine, app_name: str = "taskchat", *, since: datetime | None = None
) -> tuple[int, int]:
    """(sessions idle in a transaction begun at or before `since` (default: now), all sessions) of the app."""
    async with engine.connect() as conn:
        if since is None:
            since = (await conn.execute(sa.text("SELECT clock_timestamp()"))).scalar_one()
        row = (await conn.execute(IDLE_IN_TRANSACTION, {"app": app_name, "since": since})).one()
    return int(row.idle_tx), int(row.sessions)


async def stored_turn(client: httpx.AsyncClient, user: str = "alice") -> list[dict[str, Any]]:
    """The messages of the user's only conversation (what a client would reload after a failure)."""
    conversations = (await client.get(f"/api/{user}/conversations", headers=auth(user))).json()
    assert len(conversations) == 1, conversations
    response = await client.get(f"/api/{user}/conversations/{conversations[0]['id']}/messages", headers=auth(user))
    assert response.status_code == 200, response.text
    return list(response.json())


def assert_error_shape(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error", "detail"}, body
    assert isinstance(body["error"], str) and body["error"].isupper()
    assert isinstance(body["detail"], str) and body["detail"]
    if code is not None:
        assert body["error"] == code, body
    return dict(body)
