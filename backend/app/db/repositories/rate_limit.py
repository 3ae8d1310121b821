"""A sliding one-minute window per user, in the database so every worker and instance shares it.

Each accepted request is one inserted row; a request is accepted while the user's rows of the last
60 seconds are fewer than the limit. The limit is exact under concurrency, across workers, instances
and PgBouncer's transaction pooling: on Postgres the count and the insert run under a lock on the
user taken for the rest of the request's first transaction (`pg_advisory_xact_lock`, released at its
commit or rollback, so it needs no session), so concurrent requests of one user are counted one after
the other, each seeing the rows the ones before it committed; other users never wait. The lock, the
count and the insert are one call to `rate_limit_take` (migration 0012), one round trip, which a
turn's first statement embeds (`taken_for`, db/repositories/conversations.py). SQLite
serializes every writer anyway.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.selectable import LateralFromClause

from backend.app.db.models import RateLimitEvent

_E = RateLimitEvent.__table__  # type: ignore[attr-defined]
WINDOW = timedelta(seconds=60)

_RECENT = (
    sa.select(sa.func.count().label("n"), sa.func.min(_E.c.at).label("oldest"))
    .where(_E.c.user_id == sa.bindparam("user_id"), _E.c.at > sa.bindparam("since"))
    .cte("recent")
)
_COUNT = sa.select(_RECENT.c.n, _RECENT.c.oldest)


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    retry_after_s: int = 0


@dataclass(frozen=True, slots=True)
class Take:
    """This request counted against its user's last minute, at most `limit` requests in it."""

    limit: int
    now: datetime

    def params(self) -> dict[str, Any]:
        """The bind parameters of `taken_for` (prefixed: the statement embedding it binds others)."""
        return {"rl_id": uuid.uuid4(), "rl_now": self.now, "rl_since": self.now - WINDOW, "rl_limit": self.limit}

    def verdict(self, *, taken: bool, oldest: datetime | None) -> Verdict:
        """Allowed, or how long until the oldest request of the window (`oldest`) leaves it."""
        if taken:
            return Verdict(True)
        first = _aware(oldest) if oldest is not None else self.now
        return Verdict(False, max(1, int((first + WINDOW - self.now).total_seconds()) + 1))


def taken_for(owner: sa.ColumnElement[Any]) -> LateralFromClause:
    """Postgres: `rate_limit_take` for `owner` as a FROM item (LATERAL: `owner` may be a column of the
    FROM item before it, so it runs once for each of that item's rows, and not at all without one),
    for a statement that does more in the same round trip. Its columns: n, oldest, taken."""
    call = sa.func.rate_limit_take(
        owner,
        sa.bindparam("rl_id"),
        sa.bindparam("rl_now"),
        sa.bindparam("rl_since"),
        sa.bindparam("rl_limit", type_=sa.Integer),
    )
    return call.table_valued(
        sa.column("n", sa.BigInteger), sa.column("oldest", sa.DateTime(timezone=True)), sa.column("taken", sa.Boolean)
    ).lateral("taken")


_TAKEN = taken_for(sa.bindparam("owner"))
_TAKE = sa.select(_TAKEN.c.oldest, _TAKEN.c.taken)


async def take(session: AsyncSession, *, user_id: str, take: Take) -> Verdict:
    """Count this request against the user's last minute: allowed (and recorded), or refused."""
    params = take.params()
    if session.get_bind().dialect.name == "postgresql":
        taken = (await session.execute(_TAKE, params | {"owner": user_id})).one()
        return take.verdict(taken=bool(taken.taken), oldest=taken.oldest)
    since = {"user_id": user_id, "since": params["rl_since"]}
    counted = (await session.execute(_COUNT, since)).one()
    allowed = counted.n < take.limit
    if allowed:
        await session.execute(sa.insert(_E).values(id=params["rl_id"], user_id=user_id, at=take.now))
    return take.verdict(taken=allowed, oldest=counted.oldest)


async def prune(session: AsyncSession, *, now: datetime) -> int:
    """Forget requests older than the window (every user's: maintenance)."""
    result = await session.execute(sa.delete(_E).where(_E.c.at <= now - WINDOW))
    return int(result.rowcount)  # type: ignore[attr-defined]


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # SQLite drops the zone
