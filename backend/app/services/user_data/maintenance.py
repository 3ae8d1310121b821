"""Removing what is past retention, by `taskchat prune` and by the service itself.

| table | kept |
|---|---|
| deleted_tasks | UNDO_RETENTION_DAYS after the delete |
| idempotency_keys | IDEMPOTENCY_TTL_HOURS after the request |
| rate_limit_events | the sliding window (60 s) |
| routing_outcomes | each model's last ROUTING_WINDOW per tool policy |
| conversations, messages, tool_executions, pending_confirmations | CONVERSATION_RETENTION_DAYS (0: kept) |
| tasks | until the user deletes them, or erases their data (`DELETE /api/{user_id}/data`) |

The service prunes every PRUNE_INTERVAL_S seconds; with several instances on one Postgres, one at a
time: a transaction-scoped advisory lock, which an instance that does not get it simply skips.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.core.clock import Clock, SystemClock
from backend.app.core.config import Settings
from backend.app.db.repositories import rate_limit, routing
from backend.app.db.repositories.idempotency import purge_expired
from backend.app.db.repositories.tasks import purge_deleted
from backend.app.db.session import create_engine, create_sessionmaker, unit_of_work
from backend.app.services.user_data.export import forget_conversations

log = logging.getLogger(__name__)

# The advisory lock's key: any constant that no other use of advisory locks here shares.
PRUNE_LOCK_KEY = 0x7A5C_C4A7_0001
_LOCK = sa.text("SELECT pg_try_advisory_xact_lock(:key)")


async def prune_once(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, *, clock: Clock | None = None
) -> dict[str, int] | None:
    """Delete what is past retention, in one transaction; None when another instance holds the lock."""
    now = (clock or SystemClock()).now()
    async with unit_of_work(sessionmaker) as session:
        postgres = session.get_bind().dialect.name == "postgresql"
        if postgres and not (await session.execute(_LOCK, {"key": PRUNE_LOCK_KEY})).scalar():
            return None
        removed = {
            "deleted tasks past UNDO_RETENTION_DAYS": await purge_deleted(
                session, older_than=now - timedelta(days=settings.undo_retention_days)
            ),
            "idempotency keys past IDEMPOTENCY_TTL_HOURS": await purge_expired(session, now=now),
            "rate-limit events out of the window": await rate_limit.prune(session, now=now),
            "model outcomes past ROUTING_WINDOW": await routing.prune(session, window=settings.routing_window),
        }
        if settings.conversation_retention_days:
            older_than = now - timedelta(days=settings.conversation_retention_days)
            removed["conversation rows past CONVERSATION_RETENTION_DAYS"] = await forget_conversations(
                session, older_than=older_than
            )
        return removed


async def prune(settings: Settings, *, clock: Clock | None = None) -> dict[str, int]:
    """`taskchat prune`: once, on DATABASE_URL (waits for the lock rather than skipping)."""
    engine = create_engine(settings)
    try:
        for _ in range(50):
            removed = await prune_once(create_sessionmaker(engine), settings, clock=clock)
            if removed is not None:
                return removed
            await asyncio.sleep(0.1)
        raise RuntimeError("another instance kept the prune lock for 5 s")
    finally:
        await engine.dispose()


async def prune_periodically(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, *, clock: Clock | None = None
) -> None:
    """The service's own retention: every PRUNE_INTERVAL_S, until cancelled; a failure is logged and
    the next round tries again."""
    while True:
        await asyncio.sleep(settings.prune_interval_s)
        try:
            removed = await prune_once(sessionmaker, settings, clock=clock)
        except Exception:  # the database may be down for a moment: the next round retries
            log.exception("prune_failed")
            continue
        if removed:
            log.info("pruned", extra={"removed": removed})
