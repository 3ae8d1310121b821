"""A sliding one-minute window per user, in the database so every worker and instance shares it.

Each accepted request is one inserted row; a request is accepted while the user's rows of the last
60 seconds are fewer than the limit. The limit is exact under concurrency, across workers, instances
and PgBouncer's transaction pooling: on Postgres the count and the insert run under a lock on the
user taken for the rest of the request's first transaction (`pg_advisory_xact_lock`, released at its
commit or rollback, so it needs no session), so concurrent requests of one user are counted one after
the other, each seeing the rows the ones before it committed; other users never wait. The lock, the
count and the insert are one call to `rate_limit_take` (migration 0012), one round trip. SQLite
serializes every writer anyway.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import RateLimitEvent

_E = RateLimitEvent.__table__  # type: ignore[attr-defined]
WINDOW = timedelta(seconds=60)

_RECENT = (
    sa.select(sa.func.count().label("n"), sa.func.min(_E.c.at).label("oldest"))
    .where(_E.c.user_id == sa.bindparam("user_id"), _E.c.at > sa.bindparam("since"))
    .cte("recent")
)
# Postgres: the user's lock, the window counted and this request inserted if it fits (migration 0012).
_TAKE = sa.text("SELECT n, oldest, taken FROM rate_limit_take(:user_id, :id, :now, :since, :limit)")
_COUNT = sa.select(_RECENT.c.n, _RECENT.c.oldest)


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    retry_after_s: int = 0


async def take(session: AsyncSession, *, user_id: str, limit: int, now: datetime) -> Verdict:
    """Count this request against the user's last minute: allowed (and recorded), or how long until
    the oldest request of the window leaves it."""
    params = {"id": uuid.uuid4(), "user_id": user_id, "since": now - WINDOW, "now": now, "limit": limit}
    if session.get_bind().dialect.name == "postgresql":
        taken = (await session.execute(_TAKE, params)).one()
        allowed, oldest_seen = bool(taken.taken), taken.oldest
    else:
        counted = (await session.execute(_COUNT, params)).one()
        allowed, oldest_seen = counted.n < limit, counted.oldest
        if allowed:
            await session.execute(sa.insert(_E).values(id=params["id"], user_id=user_id, at=now))
    if allowed:
        return Verdict(True)
    oldest = _aware(oldest_seen) if oldest_seen is not None else now
    return Verdict(False, max(1, int((oldest + WINDOW - now).total_seconds()) + 1))


async def prune(session: AsyncSession, *, now: datetime) -> int:
    """Forget requests older than the window (every user's: maintenance)."""
    result = await session.execute(sa.delete(_E).where(_E.c.at <= now - WINDOW))
    return int(result.rowcount)  # type: ignore[attr-defined]


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # SQLite drops the zone
